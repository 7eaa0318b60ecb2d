"""Unrolled recurrences as one row chain (passes/resident.py `_rows_kept`, kinds/register_rows.py's
resident maps, statistics written out), and the constant-index Gather they are written with.

A selective scan as exporters unroll it (Mamba's): per step t, h_t = a[:, :, t] * h_t-1 +
x[:, :, t] over rows (batch, channel) of N states, and y_t = h_t . c[:, t] read by a Concat of
all steps. Each state is read by the next step and by its own reduction; with the states in
registers no step is a chain, so each was a launch or two. Kept as rows, the whole scan is one
kernel that writes every y_t (a statistic a later kernel reads) and the last state (a graph
output). Everything is checked against onnxruntime on the host harness in both thread orders."""
from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

from compiler import compile
from compiler.errors import ModelError
from compiler.ir.dataflow import reads
from compiler.ir.plan import ComputeStep
from compiler.kinds import register_rows, resident_rows
from compiler.pipeline import CompileOptions, plan_before
from compiler.runtime.host_harness import build_host_module, run_kernels_asan
from compiler.targets import get_target
from tests.compiler.test_welder import check     # host harness in both thread orders against onnxruntime

TARGET = get_target("h100")
RNG = np.random.default_rng(23)


def _model(nodes, inputs, outputs, inits=()):
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in inputs],
                              [helper.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in outputs],
                              [numpy_helper.from_array(a, n) for n, a in inits])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    m.ir_version = 8
    return m.SerializeToString()


def scan_model(b: int, d: int, steps: int, n: int) -> tuple[bytes, dict]:
    """The unrolled selective scan; outputs y (b, d, steps), stacked by a Concat, and the last
    state h (b, d, n)."""
    nodes, inits = [], []
    h = "h0"
    ys = []
    for t in range(steps):
        inits.append((f"t{t}", np.array(t, np.int64)))
        nodes += [helper.make_node("Gather", ["a", f"t{t}"], [f"a{t}"], axis=2),
                  helper.make_node("Gather", ["x", f"t{t}"], [f"x{t}"], axis=2),
                  helper.make_node("Mul", [f"a{t}", h], [f"m{t}"]),
                  helper.make_node("Add", [f"m{t}", f"x{t}"], [f"h{t + 1}"]),
                  helper.make_node("Gather", ["c", f"t{t}"], [f"c{t}"], axis=1),
                  helper.make_node("Unsqueeze", [f"c{t}", "last"], [f"cu{t}"]),
                  helper.make_node("MatMul", [f"h{t + 1}", f"cu{t}"], [f"y{t}"])]
        h = f"h{t + 1}"
        ys.append(f"y{t}")
    inits.append(("last", np.array([-1], np.int64)))
    nodes.append(helper.make_node("Concat", ys, ["y"], axis=-1))
    outputs = [("y", [b, d, steps]), (h, [b, d, n])]
    feeds = {"a": RNG.uniform(0.5, 1.0, (b, d, steps, n)).astype(np.float32),
             "x": RNG.standard_normal((b, d, steps, n)).astype(np.float32),
             "c": RNG.standard_normal((b, steps, n)).astype(np.float32),
             "h0": RNG.standard_normal((b, d, n)).astype(np.float32)}
    inputs = [("a", [b, d, steps, n]), ("x", [b, d, steps, n]), ("c", [b, steps, n]), ("h0", [b, d, n])]
    return _model(nodes, inputs, outputs, inits), feeds


def _scan_kernel(rep: dict) -> dict:
    (k,) = [k for k in rep["kernels"] if len(k["ops"]) > 40]
    return k


def test_an_unrolled_scan_is_one_kernel():
    """Twelve steps: without the welder stage two kernels or more a step, with it one for the
    whole scan (and the Concat): its group keeps the states and the y_t as rows and statistics,
    in a lane's registers, writes the y_t the Concat reads and the last state, and the cost model
    predicts it faster than its members apart."""
    steps = 12
    data, feeds = scan_model(2, 16, steps, 8)
    fused = check(data, feeds)
    apart = check(data, feeds, disable=("welder",))
    assert apart["launches_per_inference"] >= 2 * steps
    assert fused["launches_per_inference"] == 2
    k = _scan_kernel(fused)
    assert k["config"]["schedule"] == register_rows.NAME
    assert k["config"]["maps"] == steps and k["config"]["statistics"] == steps - 1
    (g,) = [g for g in fused["fusion"]["groups"] if g.get("level") == "shared"]
    assert g["predicted_us"]["fused"] < g["predicted_us"]["apart"]
    shared = {v for v, lvl in g["carried"].items() if lvl == "shared"}
    assert shared == {f"h{t}" for t in range(1, steps + 1)} | {f"y{t}" for t in range(steps - 1)}
    assert fused["traffic"]["dram_bytes"] < apart["traffic"]["dram_bytes"]


def _scan_spec(steps: int = 10):
    plan = plan_before("render", scan_model(2, 16, steps, 8)[0], TARGET)
    (spec,) = [s.spec for s in plan.steps if isinstance(s, ComputeStep) and len(s.spec.stages) > 2 * steps - 2]
    return spec


def _args(kernel, feeds: dict, spec, offset: int = 0) -> list[np.ndarray]:
    """The kernel's arguments: its inputs from `feeds` (the Gather of c already composed in), its
    outputs filled with NaN so that one left unwritten shows."""
    types = spec.types
    args = []
    for p in kernel.params:
        if p.output:
            args.append(np.full(types[p.value].shape, np.nan, np.float32))
        else:
            args.append(np.ascontiguousarray(feeds[p.value]))
    return args


def test_both_row_kinds_render_the_scan_and_agree_with_numpy():
    """The scan spec: register_rows keeps each state in the lanes' registers (no barrier, no shared
    memory), resident_rows in shared memory a phase at a time; both write every y_t and the last
    state, agree with NumPy in both thread orders, and stay in bounds under the sanitizer."""
    steps, (b, d, n) = 10, (2, 16, 8)
    data, feeds = scan_model(b, d, steps, n)
    spec = _scan_spec(steps)
    assert register_rows.applies(spec) is None and resident_rows.applies(spec) is None
    h = feeds["h0"].astype(np.float64)
    ys = []
    for t in range(steps):
        h = feeds["a"][:, :, t].astype(np.float64) * h + feeds["x"][:, :, t]
        ys.append(np.einsum("bdn,bn->bd", h, feeds["c"][:, t].astype(np.float64)))
    want = {f"y{t}": ys[t] for t in range(steps)} | {f"h{steps}": h}
    (reg,) = register_rows.render(spec, TARGET)
    (res,) = resident_rows.render(spec, TARGET)
    assert reg.shared_bytes == 0 and "__syncthreads" not in reg.source
    assert res.source.count("__syncthreads") >= 2 * steps - 2
    written = [p.value for p in reg.params if p.output]
    assert set(written) == set(spec.written) == set(want)
    for k in (reg, res):
        for mode in ("default", "shuffle"):
            args = _args(k, feeds, spec)
            build_host_module([k], mode=mode, seed=5).launch(k, args)
            for p, a in zip(k.params, args):
                if p.output:
                    w = want[p.value]
                    np.testing.assert_allclose(a.astype(np.float64).reshape(w.shape), w, rtol=1e-5, atol=1e-5,
                                               err_msg=f"{k.entry} {p.value} ({mode})")
    args = _args(reg, feeds, spec)
    run_kernels_asan([(reg, args)])
    assert np.isfinite(args[-1]).all()


def test_a_scan_longer_than_a_launch_passes_is_cut_into_chains(monkeypatch):
    """Each step adds an output to the chain's kernel; past the pointer budget (half a launch's
    parameters, here made small) the chain stops growing and the next one starts after it: more
    than one kernel for the scan, every one within the budget, and still right."""
    monkeypatch.setattr(resident_rows, "MAX_POINTER_PARAMS", 24)
    data, feeds = scan_model(2, 16, 16, 8)
    rep = check(data, feeds)
    chains = [k for k in rep["kernels"] if k["config"].get("schedule") in (register_rows.NAME, resident_rows.NAME)]
    assert len(chains) >= 2
    art = compile(data, "h100", CompileOptions(build=False, disable=("rammer",)))
    for step in art.plan.steps:
        if getattr(step, "kernel", None) is not None and dict(step.kernel.config).get("schedule") in (
                register_rows.NAME, resident_rows.NAME):
            assert len(step.kernel.params) <= 12, step.kernel.entry


# ---- Gather with constant indices: a static slice -------------------------------------------

def _gather(data_shape, indices: np.ndarray, axis: int):
    out_shape = list(data_shape[:axis]) + list(indices.shape) + list(data_shape[axis + 1:])
    nodes = [helper.make_node("Gather", ["x", "i"], ["y"], axis=axis)]
    return _model(nodes, [("x", list(data_shape))], [("y", out_shape)], [("i", indices)])


@pytest.mark.parametrize("indices, axis, sliced", [
    (np.array(2, np.int64), 1, True),              # x[:, 2]: a time step
    (np.array(-1, np.int64), 2, True),             # from the end
    (np.array([1, 3, 5], np.int64), 1, True),      # a progression
    (np.array([4, 4], np.int32), 0, True),         # a repeated index (step 0)
    (np.array([3, 0, 2], np.int64), 1, False),     # any other list: read at run time
    (np.array([[0, 1], [2, 3]], np.int64), 1, True),    # a progression in C order over indices of rank 2
    (np.arange(6, dtype=np.int64).reshape(1, 6, 1), 1, True),   # the dynamo exporter's as_strided view
    (np.array([[4, 3], [2, 0]], np.int64), 1, False),
])
def test_a_gather_with_constant_indices_is_a_static_slice(indices, axis, sliced):
    """A progression of constant indices is an index map: the kernel reads no indices tensor, so
    the dependence analysis sees which elements a reader takes (a scan's step, one-to-one)."""
    shape = (5, 6, 7)
    data = _gather(shape, indices, axis)
    x = RNG.standard_normal(shape).astype(np.float32)
    plan = plan_before("welder", data, TARGET)
    (step,) = [s for s in plan.steps if isinstance(s, ComputeStep)]
    assert ("i" not in step.spec.inputs) == sliced
    check(data, {"x": x})


def test_a_constant_gather_index_out_of_range_is_the_models_error():
    with pytest.raises(ModelError, match="outside"):
        compile(_gather((5, 6), np.array(6, np.int64), 1), "h100", CompileOptions(build=False))


# ---- Scatters with constant indices: a select -----------------------------------------------

def _scatter(op: str, data_shape, indices: np.ndarray, update_shape, **attrs):
    nodes = [helper.make_node(op, ["x", "i", "u"], ["y"], **attrs)]
    return _model(nodes, [("x", list(data_shape)), ("u", list(update_shape))], [("y", list(data_shape))],
                  [("i", indices)])


def _steps_line(t: int, shape) -> np.ndarray:
    return np.full(shape, t, np.int64)


@pytest.mark.parametrize("op, indices, update_shape, attrs, select", [
    # x[:, t] = v as RWKV's exporter writes each time step (index_put): one index, every line
    ("ScatterElements", _steps_line(2, (5, 1, 7)), (5, 1, 7), {"axis": 1}, True),
    ("ScatterElements", _steps_line(-1, (5, 1, 7)), (5, 1, 7), {"axis": 1}, True),
    # a progression along the axis, the index shorter than the data off it (the rest kept)
    ("ScatterElements", np.broadcast_to(np.array([1, 3, 5]).reshape(1, 3, 1), (2, 3, 4)).copy(), (2, 3, 4),
     {"axis": 1}, True),
    ("ScatterElements", np.broadcast_to(np.array([0, 2]).reshape(1, 2, 1), (5, 2, 7)).copy(), (5, 2, 7),
     {"axis": 1, "reduction": "add"}, True),
    # slice_scatter as Funnel's relative shift writes it; a descending progression; slots in a 2-D grid
    ("ScatterND", np.arange(3, dtype=np.int64).reshape(3, 1), (3, 6, 7), {}, True),
    ("ScatterND", np.array([[4], [2], [0]], np.int64), (3, 6, 7), {"reduction": "mul"}, True),
    ("ScatterND", np.arange(4, dtype=np.int64).reshape(2, 2, 1), (2, 2, 6, 7), {}, True),
    # anything else keeps the copy and the ordered update kernel
    ("ScatterND", np.array([[3], [0], [2]], np.int64), (3, 6, 7), {}, False),
    ("ScatterND", np.array([[1], [1]], np.int64), (2, 6, 7), {"reduction": "add"}, False),
    ("ScatterND", np.array([[0, 1], [2, 3]], np.int64), (2, 7), {}, False),
    ("ScatterElements", np.array([[[0]], [[3]]], np.int64).repeat(7, 2), (2, 1, 7), {"axis": 1}, False),
    ("ScatterElements", _steps_line(2, (5, 1, 7)), (5, 1, 7), {"axis": 1, "reduction": "max"}, False),
])
def test_a_scatter_with_constant_indices_is_a_select(op, indices, update_shape, attrs, select):
    """Constant indices in a progression without repeats make a scatter one elementwise select
    (out = in the slots ? update : data): an index map the fusion passes compose, rather than a
    copy and an in-place update kernel that every reader must wait for."""
    shape = (5, 6, 7) if op == "ScatterElements" or len(update_shape) != 4 else (4, 6, 7)
    data = _scatter(op, shape, indices, update_shape, **attrs)
    plan = plan_before("welder", data, TARGET)
    # a select reads no indices; otherwise the copy and the update kernel, which reads them
    assert len(plan.steps) == (1 if select else 2)
    assert ("i" not in {v for s in plan.steps for v in reads(s)}) == select
    check(data, {"x": RNG.standard_normal(shape).astype(np.float32),
                 "u": RNG.standard_normal(update_shape).astype(np.float32)})


def test_a_constant_scatter_index_out_of_range_is_the_models_error():
    with pytest.raises(ModelError, match="ScatterElements index 6 is outside"):
        compile(_scatter("ScatterElements", (5, 6, 7), _steps_line(6, (5, 1, 7)), (5, 1, 7), axis=1), "h100",
                CompileOptions(build=False))
