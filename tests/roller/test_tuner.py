"""The tune stage's CPU-side parts: a spec's candidates, their rendering (the render stage's launch
of the chosen configuration), cache keys, the stage skipped (with its reason) without a GPU, and
bench/kernels.py's --list and --dry-run (every Brickyard kernel of the suite built by NVRTC, no GPU
needed)."""
from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path

import pytest

from compiler import compile
from compiler.codegen.nvrtc import build_cubin
from compiler.errors import CompilerError
from compiler.passes.render import render_plan
from compiler.pipeline import STAGES, CompileOptions, plan_before
from compiler.passes.tune import (candidate_configs, candidate_launches, pick_fastest, render_candidate,
                                  replace_specs, tune_gate, tune_key, with_config)
from compiler.runtime.timing import percentile, plan_samples, rotation_sets, summarize
from compiler.targets import get_target

ROOT = Path(__file__).resolve().parents[2]


def _matmul_model(m=64, n=96, k=80):
    from onnx import TensorProto, helper
    g = helper.make_graph([helper.make_node("MatMul", ["a", "b"], ["y"])], "mm",
                          [helper.make_tensor_value_info("a", TensorProto.FLOAT, [m, k]),
                           helper.make_tensor_value_info("b", TensorProto.FLOAT, [k, n])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [m, n])])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)]).SerializeToString()


@pytest.fixture(scope="module")
def matmul_artifact(tmp_path_factory):
    from kernel_cache.store import KernelStore
    store = KernelStore(tmp_path_factory.mktemp("store"))
    return compile(_matmul_model(), "h100", CompileOptions(), store=store)


@pytest.fixture(scope="module")
def spec_plan():
    """The plan the tune stage receives: specs with their kinds and candidates."""
    return plan_before("tune", _matmul_model(), "h100", CompileOptions(build=False))


def _no_gpu() -> bool:
    from compiler.runtime.timing import gpu_presence
    return not gpu_presence()[0]


def test_tune_stage_sits_between_roller_and_render():
    assert STAGES.index("roller") < STAGES.index("tune") < STAGES.index("render") < STAGES.index("build")


def test_candidates_are_the_specs_top_k_in_order(spec_plan):
    (spec,) = spec_plan.specs()
    cfgs = candidate_configs(spec)
    assert len(cfgs) >= 2 and cfgs[0] == spec.config
    assert cfgs == list(spec.candidates)
    assert candidate_configs(dataclasses.replace(spec, kind=None, config=None, candidates=())) == []


def test_render_candidate_reproduces_the_model_choice_and_renders_the_others(spec_plan, matmul_artifact):
    target = get_target("h100")
    (spec,) = spec_plan.specs()
    (k,) = matmul_artifact.plan.kernels()
    cfgs = candidate_configs(spec)
    same = render_candidate(spec, cfgs[0], target)
    assert same == k and same.digest == k.digest         # exactly the launch the render stage made
    other = render_candidate(spec, cfgs[1], target)
    assert other.digest != k.digest
    assert [p.value for p in other.params] == [p.value for p in k.params]
    oc = dict(other.config)
    assert oc["config_key"] == cfgs[1].key[:16] and oc["top_k"] == dict(k.config)["top_k"]
    assert [n for n, _ in other.config][:3] == ["schedule", "config_key", "tiles"]
    r = build_cubin(other.source, other.entry, "sm_90")     # every candidate builds
    assert r.cubin and r.spills == 0
    # replacing the spec's choice in the plan: the render stage renders exactly that candidate
    plan = replace_specs(spec_plan, {spec.key: with_config(spec, cfgs[1])})
    assert [x.digest for x in render_plan(plan, target)[0].kernels()] == [other.digest]


def test_only_specs_whose_buffers_match_their_expression_are_measured(spec_plan):
    from compiler.ir.dataflow import all_types
    from compiler.passes.tune import _measurable
    (spec,) = spec_plan.specs()
    types = all_types(spec_plan)
    assert _measurable(spec, types)
    stage = spec.stages[0]
    wrong = dict(types, **{stage.output: types[stage.inputs[0]]})   # an output of another size
    assert not _measurable(spec, wrong)


def test_split_k_candidates_are_tuned_and_the_choice_brings_its_workspace():
    """A skinny fp16 contraction: the model's top K mixes split-K (one launch: partial sums in a
    workspace, summed by each tile's last block) and unsplit configurations, and the tuner
    measures both. Choosing across them in the plan adds or drops the workspace, sized for the
    choice; the plan renders and runs right on the host harness either way."""
    import numpy as np
    from compiler.ir.dataflow import all_types
    from compiler.passes.memory_plan import plan_memory
    from compiler.runtime.executor import Executor, HostBackend
    target = get_target("h100")
    plan = plan_before("tune", _matmul_model(m=8, n=64, k=2048), "h100", CompileOptions(build=False, precision="fp16"))
    (spec,) = plan.specs()
    cfgs = candidate_configs(spec)
    split = [c for c in cfgs if c.split_k > 1]
    whole = [c for c in cfgs if c.split_k == 1]
    assert split and whole, [c.text() for c in cfgs]
    k = render_candidate(spec, split[0], target)
    assert k.arrivals and [p.value for p in k.params][-1] == "y" and k.params[-2].output
    rng = np.random.default_rng(2)
    feeds = {"a": rng.standard_normal((8, 2048)).astype(np.float32),
             "b": rng.standard_normal((2048, 64)).astype(np.float32)}
    want = feeds["a"].astype(np.float64) @ feeds["b"].astype(np.float64)
    for cfg in (split[0], whole[0]):
        chosen = replace_specs(plan, {spec.key: with_config(spec, cfg)})
        (new,) = chosen.specs()
        types = all_types(chosen)
        n_ws = int(cfg.param("ws_elems", 0) or 0) if cfg in split else 0
        assert bool(new.workspace) == bool(n_ws)
        assert [t.size for name, t in types.items() if name.endswith(".splitk")] == ([n_ws] if n_ws else [])
        rendered, _ = render_plan(chosen, target)
        (launch,) = rendered.kernels()
        assert launch.digest == render_candidate(spec, cfg, target).digest
        got = Executor(plan_memory(rendered), HostBackend(mode="shuffle", seed=1)).run(feeds)["y"]
        np.testing.assert_allclose(got, want, rtol=0, atol=2e-2 * float(np.abs(want).max()), err_msg=cfg.text())


def _key(spec, tool="tool", device="NVIDIA H100 80GB HBM3", driver="580.159.04", k=None):
    target = get_target("h100")
    configs = candidate_configs(spec)[:k]
    return tune_key(candidate_launches(spec, configs, target), spec.expr, tool, device, driver)


def test_tune_key_is_stable_and_separates_launches_device_driver_toolchain(spec_plan):
    (spec,) = spec_plan.specs()
    a = _key(spec)
    assert a == _key(spec)
    assert len(a) == 64 and int(a, 16) >= 0
    others = {_key(spec, tool="tool2"), _key(spec, device="NVIDIA H200"), _key(spec, driver="580.159.03"),
              _key(spec, k=2)}
    assert a not in others and len(others) == 4
    # the same model lowered and tiled again yields the same launches, hence the same key
    (again,) = plan_before("tune", _matmul_model(), "h100", CompileOptions(build=False)).specs()
    assert _key(again) == _key(spec)
    # another shape renders other launches
    (other,) = plan_before("tune", _matmul_model(m=128), "h100", CompileOptions(build=False)).specs()
    assert _key(other) != _key(spec)


def _layers_model(layers=3, m=64, d=96):
    """A chain of `layers` MatMuls with weights of one shape and different values: one contraction
    per layer, each named after its layer."""
    import numpy as np
    from onnx import TensorProto, helper, numpy_helper
    rng = np.random.default_rng(5)
    nodes, inits, x = [], [], "x"
    for i in range(layers):
        inits.append(numpy_helper.from_array(rng.standard_normal((d, d)).astype(np.float32), f"w{i}"))
        nodes.append(helper.make_node("MatMul", [x, f"w{i}"], [f"y{i}"]))
        x = f"y{i}"
    g = helper.make_graph(nodes, "layers", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [m, d])],
                          [helper.make_tensor_value_info(x, TensorProto.FLOAT, [m, d])], inits)
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)]).SerializeToString()


def test_a_layer_repeated_is_measured_once(tmp_path):
    """Three layers of one shape: three specs (their keys name their weights), one tune key. A
    stored measurement is looked up once and applied to all three; their launches, times and
    choices are the same."""
    from compiler.passes.tune import TUNE_FORMAT, tune_plan
    from kernel_cache.store import KernelStore
    target = get_target("h100")
    # welder off: it would chain these small GEMMs into one kernel
    plan = plan_before("tune", _layers_model(), "h100", CompileOptions(build=False, disable=("welder",)))
    specs = list(plan.specs())
    assert len(specs) == 3 and len({s.key for s in specs}) == 3
    assert len({_key(s, "tool", "d", "v") for s in specs}) == 1
    cfgs = candidate_configs(specs[0])
    assert len(cfgs) >= 2
    store = KernelStore(tmp_path / "cache")
    record = {"format": TUNE_FORMAT, "candidates": [{"rank": i, "key": c.key[:16], "measured_us": 10.0 - i,
                                                     "status": "ok"} for i, c in enumerate(cfgs)],
              "chosen": cfgs[1].key[:16], "chosen_us": 9.0, "model_choice": cfgs[0].key[:16], "model_choice_us": 10.0}
    store.put_ref(_key(specs[0], "tool", "d", "v"), record)
    device = {"name": "d", "driver": "v", "arch": "sm_90"}
    new, measured, info = tune_plan(plan, target, store=store, build=None, device=device, toolchain="tool")
    assert (info["kernels"], info["distinct"], info["cache_hits"], info["shared"]) == (3, 1, 1, 2)
    assert info["changed"] == 3
    assert [s.config.key for s in new.specs()] == [cfgs[1].key] * 3
    launches = render_plan(new, target)[0].kernels()
    assert len({k.digest for k in launches}) == 1 and measured == {launches[0].digest: 9.0}
    assert len({r["tune_key"] for r in info["kernel_records"]}) == 1


def test_pick_fastest_keeps_the_model_choice_within_noise():
    rows = [{"rank": 0, "key": "a", "status": "ok", "measured_us": 100.0, "spread": 0.01},
            {"rank": 1, "key": "b", "status": "ok", "measured_us": 99.0, "spread": 0.01},
            {"rank": 2, "key": "c", "status": "output differs", "measured_us": None}]
    assert pick_fastest(rows)["key"] == "a"
    rows[1]["measured_us"] = 80.0
    assert pick_fastest(rows)["key"] == "b"
    rows[1]["spread"] = 0.3          # a winner noisier than its lead is not trusted
    assert pick_fastest(rows)["key"] == "a"
    assert pick_fastest([rows[2]]) is None


def test_timing_arithmetic():
    l2 = 50 << 20
    assert rotation_sets(1 << 30, l2) == 1
    assert rotation_sets(l2, l2) == 3
    assert rotation_sets(1024, l2) == 32                 # capped
    inner, samples = plan_samples(2.0, 3, rep_ms=50, min_samples=5, max_samples=200)
    assert inner % 3 == 0 and inner * 2.0 >= 200 and 5 <= samples <= 200
    inner, samples = plan_samples(50_000.0, 1, rep_ms=50, min_samples=5, max_samples=200)
    assert inner == 1 and samples == 5
    assert percentile([1.0, 2.0, 3.0, 4.0, 5.0], 0.5) == 3.0
    t = summarize([3.0, 1.0, 2.0], inner=4, sets=2, method="graph")
    assert t.median_us == 2.0 and t.min_us == 1.0 and t.as_dict()["spread"] is not None


@pytest.mark.skipif(not _no_gpu(), reason="this machine has a GPU: the stage runs there")
def test_tune_is_skipped_without_a_gpu_and_says_why(matmul_artifact):
    rep = matmul_artifact.report
    assert rep["tune"]["status"] == "skipped"
    assert rep["tune"]["reason"].startswith("no GPU")
    assert rep["times"] == "predicted"
    assert all(k["measured_us"] is None and k["predicted_us"] > 0 for k in rep["kernels"])
    assert "tune" in [s["name"] for s in rep["compile"]["stages"]]
    dev, why = tune_gate(get_target("h100"))
    assert dev is None and why.startswith("no GPU")


def test_tune_gate_reasons_for_options():
    assert tune_gate(get_target("h100"), enabled=False)[1].startswith("tuning switched off")
    assert tune_gate(get_target("h100"), build=False)[1].startswith("no cubins")
    off = compile(_matmul_model(8, 8, 8), "h100", CompileOptions(build=False, disable=("tune",)))
    assert off.report["tune"]["status"] == "skipped" and "switched off" in off.report["tune"]["reason"]


def _bench(*args, timeout=900):
    return subprocess.run([sys.executable, str(ROOT / "bench" / "kernels.py"), *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=timeout)


def test_bench_lists_its_cases():
    r = _bench("--list")
    assert r.returncode == 0, r.stderr
    lines = [ln for ln in r.stdout.splitlines() if "\t" in ln]
    ids = {ln.split("\t")[0] for ln in lines}
    groups = {i.split("/")[0] for i in ids}
    assert {"matmul", "tc-matmul", "conv", "depthwise", "relu", "pool", "reduce", "bert", "resnet50",
            "vit", "int8-matmul"} <= groups
    assert "matmul/8192x8192x8192" in ids
    assert {ln.split("\t")[1] for ln in lines} == {"fp32", "fp16", "int8"}
    assert r.stdout.strip().endswith(f"{len(lines)} cases")
    q = _bench("--list", "--quick")
    assert q.returncode == 0 and 8 <= len([ln for ln in q.stdout.splitlines() if "\t" in ln]) < len(lines)


def test_bench_without_gpu_refuses_to_time():
    if not _no_gpu():
        pytest.skip("this machine has a GPU")
    r = _bench("--quick", "--only", "relu")
    assert r.returncode == 2 and "needs a GPU" in r.stderr


def test_bench_dry_run_builds_every_kernel_of_the_suite():
    r = _bench("--dry-run")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    n = len([ln for ln in _bench("--list").stdout.splitlines() if "\t" in ln])
    assert f"dry run: {n} of {n} cases built" in r.stdout
    assert "FAIL" not in r.stdout
