"""passes/half_storage.py: a value every reader rounds to fp16/bf16 is stored in that type. The
results are those of `--disable half_storage` bit for bit (the rounding moves from the readers'
loads to the producer's store), in both thread orders of the host harness; the traffic falls; a
value with one plain reader, a graph output and anything in fp32 or tf32 stays as it was."""
from __future__ import annotations

import numpy as np
import onnxruntime as ort
import pytest
from onnx import helper

from compiler import compile
from compiler.ir.dtypes import DType
from compiler.ir.texpr import Cast, Const, Load, Select, Var, in_range
from compiler.passes.half_storage import _in_half, _loads
from compiler.pipeline import CompileOptions
from compiler.runtime.executor import Executor, make_backend

from .test_welder import RNG, model, weight

F32, F16 = DType.float32, DType.float16


def mlp(residual=False, hidden=96, rows=64, out=96) -> bytes:
    """x -> MatMul -> Relu -> MatMul (+ the Relu's value when `residual`) -> y (`out` wide)."""
    nodes = [helper.make_node("MatMul", ["x", "w1"], ["h"]), helper.make_node("Relu", ["h"], ["r"]),
             helper.make_node("MatMul", ["r", "w2"], ["o" if residual else "y"])]
    if residual:
        nodes.append(helper.make_node("Add", ["o", "r"], ["y"]))
    return model(nodes, [("x", [rows, 96])], [("y", [rows, out])],
                 [("w1", weight(96, hidden)), ("w2", weight(hidden, out))])


def convs() -> bytes:
    """Conv -> Relu -> Conv, both 3x3 with zero padding (the second reads its input through a guard)."""
    nodes = [helper.make_node("Conv", ["x", "w1"], ["c"], pads=[1, 1, 1, 1]), helper.make_node("Relu", ["c"], ["r"]),
             helper.make_node("Conv", ["r", "w2"], ["y"], pads=[1, 1, 1, 1])]
    return model(nodes, [("x", [1, 32, 12, 12])], [("y", [1, 32, 12, 12])],
                 [("w1", weight(32, 32, 3, 3)), ("w2", weight(32, 32, 3, 3))])


def run_both(data: bytes, feeds: dict, precision="fp16"):
    """(artifact, outputs) with the stage on and off, each run in both thread orders; the outputs
    agree with onnxruntime within the precision's tolerance. The shared level is off: it would keep
    the MLP's hidden value in shared memory (one kernel), and this is about what reaches DRAM."""
    want = ort.InferenceSession(data, providers=["CPUExecutionProvider"]).run(None, feeds)
    out = []
    for disable in (("shared_level",), ("shared_level", "half_storage")):
        art = compile(data, "h100", CompileOptions(build=False, precision=precision, disable=disable))
        runs = [Executor(art.plan, make_backend("host", mode=m)).run(feeds) for m in ("default", "shuffle")]
        for got in runs:
            for name, w in zip(art.plan.outputs, want):
                np.testing.assert_allclose(got[name], w, rtol=1e-2, atol=1e-2)
        out.append((art, runs))
    return out


def stage_record(report) -> dict:
    return next(t for t in report["techniques"] if t["name"] == "half storage")


@pytest.mark.parametrize("data,feeds", [
    (mlp(), {"x": RNG.standard_normal((64, 96)).astype(np.float32)}),
    (convs(), {"x": RNG.standard_normal((1, 32, 12, 12)).astype(np.float32)}),
], ids=["matmul", "conv"])
def test_a_value_only_contractions_read_is_stored_in_half_with_the_same_results(data, feeds):
    (on, on_runs), (off, off_runs) = run_both(data, feeds)
    rec = stage_record(on.report)
    assert rec["enabled"] and len(rec["effect"]["values"]) == 1
    (v,) = rec["effect"]["values"]
    assert dict(on.plan.types)[v].dtype is F16 and dict(off.plan.types)[v].dtype is F32
    assert rec["effect"]["dram_bytes_after"] < rec["effect"]["dram_bytes_before"]
    assert on.report["traffic"]["dram_bytes"] < off.report["traffic"]["dram_bytes"]
    assert not stage_record(off.report)["enabled"]
    for a, b in zip(on_runs, off_runs):
        for name in on.plan.outputs:
            np.testing.assert_array_equal(a[name], b[name])
    # the reader still runs on tensor cores: the half loads are its operand as they were its rounding
    ceilings = [k["roofline"]["ceiling"] for k in on.report["kernels"]]
    assert ceilings == [k["roofline"]["ceiling"] for k in off.report["kernels"]]


def test_a_value_with_a_plain_reader_stays_fp32():
    data = mlp(residual=True)
    (on, _), _ = run_both(data, {"x": RNG.standard_normal((64, 96)).astype(np.float32)})
    assert stage_record(on.report)["effect"]["values"] == []
    consts = dict(on.plan.constants)      # the converted weights are fp16
    assert all(t.dtype is F32 for n, t in on.plan.types if n not in consts)


def test_a_graph_output_stays_fp32():
    nodes = [helper.make_node("MatMul", ["x", "w1"], ["h"]), helper.make_node("MatMul", ["h", "w2"], ["y"])]
    data = model(nodes, [("x", [64, 96])], [("h", [64, 96]), ("y", [64, 96])],
                 [("w1", weight(96, 96)), ("w2", weight(96, 96))])
    (on, _), _ = run_both(data, {"x": RNG.standard_normal((64, 96)).astype(np.float32)})
    assert stage_record(on.report)["effect"]["values"] == []


@pytest.mark.parametrize("precision", ["fp32", "tf32"])
def test_off_without_a_half_precision(precision):
    art = compile(mlp(), "h100", CompileOptions(build=False, precision=precision))
    assert not stage_record(art.report)["enabled"]


def test_bf16_stores_bf16():
    (on, _), _ = run_both(mlp(), {"x": RNG.standard_normal((64, 96)).astype(np.float32)}, "bf16")
    (v,) = stage_record(on.report)["effect"]["values"]
    assert dict(on.plan.types)[v].dtype is DType.bfloat16


def test_loads_under_a_guarded_rounding_count_as_rounded():
    i = Var("i0")
    guarded = Cast(Select(in_range(i, 0, 8), Load(0, (i,), F32), Const(0.0, F32), F32), F16)
    cond_load = Select(Load(1, (i,), F32) > Const(0.0, F32), Load(0, (i,), F32), Const(0.0, F32), F32)
    seen = []
    _loads(guarded, None, lambda arg, r: seen.append((arg, r)))
    _loads(Cast(cond_load, F16), None, lambda arg, r: seen.append((arg, r)))
    _loads(Load(0, (i,), F32) + Const(1.0, F32), None, lambda arg, r: seen.append((arg, r)))
    assert seen == [(0, F16), (1, None), (0, F16), (0, None)]
    # the Cast pushed through the guard: the narrowed load is read as stored, the zero rounded here
    assert _in_half(guarded.x, F16, {0: F16}) == Select(guarded.x.cond, Load(0, (i,), F16), Const(0.0, F16), F16)


def test_a_value_whose_readers_would_be_slower_in_half_stays_fp32():
    """A hidden width of 100: the fp32 rows (400 bytes) take the tensor-core kind's 16-byte vector
    loads, half rows (200 bytes) would not be 16-byte aligned for cp.async (the generic_vec loader
    instead); with a 100-wide output the reader is predicted slower, so the value stays fp32 and the
    record says why. At 104 (208-byte half rows) it is stored in half."""
    feeds = {"x": RNG.standard_normal((256, 96)).astype(np.float32)}
    (kept, _), _ = run_both(mlp(hidden=100, rows=256, out=100), feeds)
    effect = stage_record(kept.report)["effect"]
    assert effect["values"] == [] and [k["value"] for k in effect["kept"]] == ["r"]
    (k,) = effect["kept"]
    assert k["predicted_us"]["half"] > k["predicted_us"]["fp32"]
    assert dict(kept.plan.types)["r"].dtype is F32
    (stored, _), _ = run_both(mlp(hidden=104, rows=256, out=100), feeds)
    assert stage_record(stored.report)["effect"]["values"] == ["r"]
