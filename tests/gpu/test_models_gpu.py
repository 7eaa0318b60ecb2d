"""On a GPU: every shared model compiled for the local arch, run through CuPy, matching its .npz."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from tests.conftest import shared_models
from tests.gpu import gpu_module

cupy, pytestmark = gpu_module()


@pytest.mark.parametrize("name", shared_models())
def test_model_on_gpu(name, models_dir):
    from compiler import compile
    from compiler.runtime.executor import Executor, make_backend
    from compiler.runtime.gpu import device_arch
    from compiler.targets import get_target
    target = dataclasses.replace(get_target("h100"), arch=device_arch())
    art = compile(str(models_dir / f"{name}.onnx"), target)
    backend = make_backend("gpu", cubins=art.cubins, arch=target.arch)
    ex = Executor(art.plan, backend)
    ref = np.load(models_dir / f"{name}.npz")
    out = ex.run({k[3:]: ref[k] for k in ref.files if k.startswith("in:")})
    assert backend.functions, "kernels must have run through CuPy"
    for k in ref.files:
        if k.startswith("out:"):
            got, want = out[k[4:]].astype(np.float64), ref[k]
            err = np.max(np.abs(got - want)) / max(np.max(np.abs(want)), 1e-30)
            print(f"{name} {k}: max rel error {err:.2e}")
            assert err < 1e-3


def test_the_preset_of_this_gpu_matches_its_properties():
    """The h100/h200 preset's limits (SMs, registers, shared memory, L2, ...) against the real device."""
    from compiler.targets import get_target
    from compiler.targets.device_check import compare, device_properties
    props = device_properties()
    name = props["name"].upper()
    preset = next((p for p in ("h200", "h100", "a100", "l40s", "l4", "a10g", "t4", "b200") if p.upper() in name), None)
    if preset is None:
        pytest.skip(f"no preset for {props['name']}")
    mismatches = compare(get_target(preset), props)
    print(f"{props['name']} vs preset {preset}: {[m.line() for m in mismatches] or 'all limits match'}")
    # boards of one chip differ in SMs and L2 (H100 PCIe 114 SMs, SXM 132): the tune gate reports those;
    # every other limit must be the chip's
    chip = [m.line() for m in mismatches if m.field not in ("sms", "l2_bytes")]
    assert not chip, chip


@pytest.mark.parametrize("name", ["bert", "resnet", "vit"])
@pytest.mark.parametrize("barriers", [False, True])
def test_graph_replay_and_barrier_launches_on_gpu(name, barriers, models_dir):
    """Issue 14 on a GPU: the plan replayed as one CUDA graph gives the plain launches' outputs for
    new inputs, with the co-launches (default) and with the barrier variant (step counters in a
    cooperative launch; the counters must reset, so a second replay must be right too)."""
    from compiler import compile
    from compiler.context import CompileOptions
    from compiler.runtime.executor import Executor, make_backend
    from compiler.runtime.gpu import device_arch
    from compiler.targets import get_target
    target = dataclasses.replace(get_target("h100"), arch=device_arch())
    art = compile(str(models_dir / f"{name}.onnx"), target, CompileOptions(barriers=barriers))
    ref = np.load(models_dir / f"{name}.npz")
    inputs = {k[3:]: ref[k] for k in ref.files if k.startswith("in:")}
    plain = Executor(art.plan, make_backend("gpu", cubins=art.cubins, arch=target.arch))
    graph = Executor(art.plan, make_backend("gpu", cubins=art.cubins, arch=target.arch), graph=True)
    print(f"{name} barriers={barriers}: {graph.graph_status}, {art.report['launches_per_inference']} launches")
    rng = np.random.default_rng(1)
    for run in range(3):
        feeds = inputs if run == 0 else {
            k: (rng.standard_normal(v.shape).astype(v.dtype) if v.dtype.kind == "f" else v) for k, v in inputs.items()}
        want, got = plain.run(feeds), graph.run(feeds)
        for k in want:
            err = np.max(np.abs(got[k].astype(np.float64) - want[k])) / max(np.max(np.abs(want[k])), 1e-30)
            assert err < 1e-5, (name, barriers, run, k, err)
    assert graph.graph_status == "graph"


@pytest.mark.parametrize("name", ["lstm_loop", "nasrnn", "seq2seq", "attn_decode", "blockdrop"])
@pytest.mark.parametrize("size", ["small", "full"])
def test_control_flow_on_the_device_on_gpu(name, size):
    """Issue 15 on a GPU: Cocktailer's set (bench/control_flow_models.py) with every region a
    persistent cooperative kernel, plain and replayed as one CUDA graph (a cooperative launch
    inside a capture), against the same model with --disable grinder (host loops) and onnxruntime."""
    import sys
    from pathlib import Path
    import onnxruntime as ort
    from compiler import compile
    from compiler.context import CompileOptions
    from compiler.runtime.executor import Executor, make_backend
    from compiler.runtime.gpu import device_arch
    from compiler.targets import get_target
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
    import control_flow_models as cfm
    model = cfm.MODELS[name](cfm.SIZES[size])
    inputs = cfm.sample_inputs(model)
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    ref = dict(zip([o.name for o in sess.get_outputs()], sess.run(None, inputs)))
    target = dataclasses.replace(get_target("h100"), arch=device_arch())
    for disable in ((), ("grinder",)):
        art = compile(model, target, CompileOptions(disable=disable))
        for graph in (False, True):
            ex = Executor(art.plan, make_backend("gpu", cubins=art.cubins, arch=target.arch), graph=graph)
            for _ in range(2):   # a graph's capture, then its replay
                out = ex.run(inputs)
            print(f"{name}/{size} disable={disable} {ex.graph_status}: {ex.launches} launches, "
                  f"{ex.host_round_trips} round trips, regions {[r['runs'] for r in art.report['control_flow']['regions']]}")
            if not disable:
                assert ex.host_round_trips == 0
                assert not graph or ex.graph_status == "graph"
            for k, want in ref.items():
                err = np.max(np.abs(out[k].astype(np.float64) - want)) / max(np.max(np.abs(want)), 1e-30)
                assert err < 1e-3, (name, size, disable, graph, k, err)


@pytest.mark.parametrize("attention", ["eager", "sdpa"])
@pytest.mark.parametrize("precision,seq", [("fp32", 16), ("fp16", 256)])
def test_llama_decoder_on_gpu(attention, precision, seq):
    """bench/decoder_models.py's Llama decoder (rotary embeddings computed in the attention
    kernel, grouped-query heads read in place; flash_attention at 256 positions in fp16) on the
    device, plain and replayed as one CUDA graph, against onnxruntime."""
    import sys
    from pathlib import Path
    import onnxruntime as ort
    from compiler import compile
    from compiler.context import CompileOptions
    from compiler.runtime.executor import Executor, make_backend
    from compiler.runtime.gpu import device_arch
    from compiler.targets import get_target
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
    import decoder_models
    model = decoder_models.llama(**decoder_models.SMALL, seq=seq, attention=attention)
    feeds = decoder_models.inputs(model)
    (want,) = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, feeds)
    target = dataclasses.replace(get_target("h100"), arch=device_arch())
    art = compile(model, target, CompileOptions(precision=precision))
    schedules = [k["config"]["schedule"] for k in art.report["kernels"]]
    for graph in (False, True):
        ex = Executor(art.plan, make_backend("gpu", cubins=art.cubins, arch=target.arch), graph=graph)
        for _ in range(2):
            got = ex.run(feeds)["out"]
        err = np.max(np.abs(got.astype(np.float64) - want)) / np.max(np.abs(want))
        print(f"llama {attention} {precision} seq {seq} graph={graph}: {ex.launches} launches, {schedules}, "
              f"max rel error {err:.2e}")
        assert err < (1e-3 if precision == "fp32" else 5e-3)
