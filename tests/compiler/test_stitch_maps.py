"""Stitched maps (compiler/passes/stitch_maps.py, kinds/stitched_maps.py): maps that share values
the register level could not compose (a value several maps read) as one kernel computing each
value once per element. An unrolled elementwise recurrence as RWKV's exporter writes it (a running
maximum, exponentials, numerator and denominator states; each step's output scattered into the
sequence), checked on the host harness against onnxruntime in both thread orders, against NumPy
for the kernel alone (and under the sanitizer); the downstream rule; the parameter budget."""
from __future__ import annotations

import numpy as np
import pytest
from onnx import helper

from compiler import compile
from compiler.ir.plan import ComputeStep
from compiler.ir.spec import KernelSpec, Level
from compiler.kinds import stitched_maps
from compiler.passes import stitch_maps, welder
from compiler.pipeline import CompileOptions, plan_before
from compiler.runtime.host_harness import build_host_module, run_kernels_asan
from compiler.targets import get_target
from tests.compiler.test_welder import check, model     # host harness in both thread orders against onnxruntime

TARGET = get_target("h100")
RNG = np.random.default_rng(31)


def recurrence(steps: int, c: int) -> tuple[bytes, dict]:
    """RWKV's time mixing over `steps` positions of `c` channels, unrolled: per step t,
    m' = max(m, k_t + u), y_t = (e^(m - m') num + e^(k_t + u - m') v_t) / (e^(m - m') den + e^(k_t + u - m')),
    then the states decay by w and take k_t, v_t; y_t written into the sequence by a ScatterElements
    at t (x[:, t] = y_t, a select after lowering). Inputs k, v (1, steps, c), the states m0, num0,
    den0 (1, c); output y (1, steps, c)."""
    nodes, inits = [], [("u", (RNG.standard_normal(c) * 0.3).astype(np.float32)),
                        ("w", -np.exp(RNG.standard_normal(c)).astype(np.float32)),
                        ("seq0", np.full((1, steps, c), 0.5, np.float32))]
    m, num, den, seq = "m0", "num0", "den0", "seq0"
    for t in range(steps):
        inits += [(f"t_{t}", np.array(t, np.int64)), (f"at_{t}", np.full((1, 1, c), t, np.int64)),
                  (f"ax_{t}", np.array([1], np.int64))]
        n = lambda s: f"{s}_{t}"      # noqa: E731  (names of this step's values)
        nodes += [helper.make_node("Gather", ["k", n("t")], [n("k")], axis=1),
                  helper.make_node("Gather", ["v", n("t")], [n("v")], axis=1),
                  helper.make_node("Add", [n("k"), "u"], [n("ku")]),
                  helper.make_node("Max", [m, n("ku")], [n("mo")]),
                  helper.make_node("Sub", [m, n("mo")], [n("d1")]), helper.make_node("Exp", [n("d1")], [n("e1")]),
                  helper.make_node("Sub", [n("ku"), n("mo")], [n("d2")]), helper.make_node("Exp", [n("d2")], [n("e2")]),
                  helper.make_node("Mul", [n("e1"), num], [n("a1")]), helper.make_node("Mul", [n("e2"), n("v")], [n("a2")]),
                  helper.make_node("Add", [n("a1"), n("a2")], [n("nu")]),
                  helper.make_node("Mul", [n("e1"), den], [n("b1")]), helper.make_node("Add", [n("b1"), n("e2")], [n("de")]),
                  helper.make_node("Div", [n("nu"), n("de")], [n("y")]),
                  helper.make_node("Unsqueeze", [n("y"), n("ax")], [n("yu")]),
                  helper.make_node("ScatterElements", [seq, n("at"), n("yu")], [n("seq")], axis=1),
                  helper.make_node("Add", [m, "w"], [n("mw")]),
                  helper.make_node("Max", [n("mw"), n("k")], [n("ms")]),
                  helper.make_node("Sub", [n("mw"), n("ms")], [n("f1")]), helper.make_node("Exp", [n("f1")], [n("g1")]),
                  helper.make_node("Sub", [n("k"), n("ms")], [n("f2")]), helper.make_node("Exp", [n("f2")], [n("g2")]),
                  helper.make_node("Mul", [n("g1"), num], [n("c1")]), helper.make_node("Mul", [n("g2"), n("v")], [n("c2")]),
                  helper.make_node("Add", [n("c1"), n("c2")], [n("num")]),
                  helper.make_node("Mul", [n("g1"), den], [n("h1")]), helper.make_node("Add", [n("h1"), n("g2")], [n("den")])]
        m, num, den, seq = n("ms"), n("num"), n("den"), n("seq")
    nodes.append(helper.make_node("Identity", [seq], ["y"]))
    data = model(nodes, [("k", [1, steps, c]), ("v", [1, steps, c]), ("m0", [1, c]), ("num0", [1, c]),
                         ("den0", [1, c])], [("y", [1, steps, c])], inits)
    feeds = {"k": RNG.standard_normal((1, steps, c)).astype(np.float32),
             "v": RNG.standard_normal((1, steps, c)).astype(np.float32),
             "m0": RNG.standard_normal((1, c)).astype(np.float32),
             "num0": RNG.standard_normal((1, c)).astype(np.float32),
             "den0": (1 + RNG.random((1, c))).astype(np.float32)}
    return data, feeds


def stitched(rep) -> list[dict]:
    return [k for k in rep["kernels"] if k["config"].get("schedule") == stitched_maps.NAME]


def test_an_unrolled_elementwise_recurrence_is_one_kernel():
    """Every state is read by the next step and by the step's output, so the register level stops
    at each step; stitched, the recurrence is one kernel (all steps' outputs written by it) plus
    the sequence's selects, and right."""
    steps = 8
    data, feeds = recurrence(steps, 48)
    rep = check(data, feeds)
    kernels = stitched(rep)
    # the states' recurrence: one group from the first step's m0 decay on (the first step's
    # k_0 + u chain, which reads only inputs, starts a small one before it)
    big = max(kernels, key=lambda k: k["config"]["stages"])
    assert big["config"]["stages"] >= 5 * (steps - 1)
    assert {c["level"] for c in big["carried"]} == {"register"}
    for g in rep["fusion"]["groups"]:
        if g.get("kind") == stitched_maps.NAME:
            assert g["predicted_us"]["fused"] < g["predicted_us"]["apart"]
    assert len(kernels) <= 2 and rep["launches_per_inference"] <= 4
    apart = check(data, feeds, disable=("stitched_maps",))
    assert not stitched(apart) and not apart["fusion"]["stitched_maps"]
    assert apart["launches_per_inference"] > 4 * steps
    assert rep["traffic"]["dram_bytes"] < apart["traffic"]["dram_bytes"]


def reference(steps: int, feeds: dict, u: np.ndarray, w: np.ndarray) -> dict[str, np.ndarray]:
    """Every named value of `recurrence`'s steps, in float64 NumPy."""
    f = {n: a.astype(np.float64) for n, a in feeds.items()}
    m, num, den, out = f["m0"], f["num0"], f["den0"], {}
    for t in range(steps):
        v = {"k": f["k"][:, t], "v": f["v"][:, t]}
        v["ku"] = v["k"] + u
        v["mo"] = np.maximum(m, v["ku"])
        v["d1"], v["d2"] = m - v["mo"], v["ku"] - v["mo"]
        v["e1"], v["e2"] = np.exp(v["d1"]), np.exp(v["d2"])
        v["a1"], v["a2"], v["b1"] = v["e1"] * num, v["e2"] * v["v"], v["e1"] * den
        v["nu"], v["de"] = v["a1"] + v["a2"], v["b1"] + v["e2"]
        v["y"] = v["nu"] / v["de"]
        v["mw"] = m + w
        v["ms"] = np.maximum(v["mw"], v["k"])
        v["f1"], v["f2"] = v["mw"] - v["ms"], v["k"] - v["ms"]
        v["g1"], v["g2"] = np.exp(v["f1"]), np.exp(v["f2"])
        v["c1"], v["c2"], v["h1"] = v["g1"] * num, v["g2"] * v["v"], v["g1"] * den
        v["num"], v["den"] = v["c1"] + v["c2"], v["h1"] + v["g2"]
        m, num, den = v["ms"], v["num"], v["den"]
        out.update({f"{n}_{t}": x for n, x in v.items()})
    return out


def test_the_kernel_agrees_with_numpy_and_stays_in_bounds():
    """The largest stitched spec's kernel alone: every value it writes against the recurrence in
    float64 NumPy, in both thread orders, and under the sanitizer; outputs start as NaN so that
    one left unwritten shows."""
    steps, c = 8, 40
    data, feeds = recurrence(steps, c)
    plan = plan_before("roller", data, TARGET)
    spec = max((s.spec for s in plan.steps if isinstance(s, ComputeStep) and s.spec.kind == stitched_maps.NAME),
               key=lambda sp: len(sp.stages))
    (kernel,) = stitched_maps.render(spec, TARGET)
    consts = {n: k.array() for n, k in plan.constants}
    want = reference(steps, feeds, consts["u"].astype(np.float64), consts["w"].astype(np.float64))
    values = {**feeds, **consts}

    def args():
        return [np.full(spec.types[p.value].shape, np.nan, np.float32) if p.output
                else np.ascontiguousarray(values[p.value]) for p in kernel.params]
    written = [p.value for p in kernel.params if p.output]
    assert len(written) >= steps and set(written) <= set(want)
    for mode in ("default", "shuffle"):
        a = args()
        build_host_module([kernel], mode=mode, seed=3).launch(kernel, a)
        for p, x in zip(kernel.params, a):
            if p.output:
                np.testing.assert_allclose(x, want[p.value], rtol=1e-5, atol=1e-6, err_msg=f"{p.value} ({mode})")
    a = args()
    run_kernels_asan([(kernel, a)])
    assert all(np.isfinite(x).all() for p, x in zip(kernel.params, a) if p.output)


def test_a_reader_away_from_the_own_index_runs_after_the_group():
    """t = a^T is read away from a's own index: it is downstream of the group (and so is d, which
    reads it), so neither joins; the group still takes a and the maps after it, and t's kernel
    runs after the group's."""
    nodes = [helper.make_node("Exp", ["x"], ["a"]),
             helper.make_node("Transpose", ["a"], ["t"], perm=[1, 0]),
             helper.make_node("Sigmoid", ["a"], ["s"]),
             helper.make_node("Mul", ["s", "a"], ["b"]),
             helper.make_node("Add", ["b", "a"], ["c"]),
             helper.make_node("Mul", ["c", "t"], ["d"]),
             helper.make_node("Sub", ["c", "s"], ["e"])]
    data = model(nodes, [("x", [16, 16])], [("d", [16, 16]), ("e", [16, 16])])
    rep = check(data, {"x": RNG.standard_normal((16, 16)).astype(np.float32)})
    (k,) = stitched(rep)
    assert "Mul_5" not in k["ops"] and {"Exp_0", "Sub_6"} <= set(k["ops"])
    order = [kk["name"] for kk in rep["kernels"]]
    reader = next(i for i, kk in enumerate(rep["kernels"]) if "Mul_5" in kk["ops"])
    assert order.index(k["name"]) < reader


def test_a_long_recurrence_is_cut_at_the_parameter_budget(monkeypatch):
    """Every step writes an output: past the pointer budget (here made small) the group stops and
    the next one starts after it; every kernel within the budget, and still right."""
    monkeypatch.setattr(stitch_maps, "MAX_POINTER_PARAMS", 12)
    data, feeds = recurrence(16, 32)
    rep = check(data, feeds)
    kernels = stitched(rep)
    assert len(kernels) >= 2
    art = compile(data, "h100", CompileOptions(build=False, disable=("rammer",)))
    for step in art.plan.steps:
        k = getattr(step, "kernel", None)
        if k is not None and dict(k.config).get("schedule") == stitched_maps.NAME:
            assert len(k.params) <= 12, k.entry


def test_the_kind_declines_what_it_cannot_render():
    """A stage that reduces, or reads an earlier stage's value away from its own index (a
    transpose), is no map group: the kind says why."""
    data = model([helper.make_node("Exp", ["x"], ["a"]), helper.make_node("Transpose", ["a"], ["t"], perm=[1, 0]),
                  helper.make_node("ReduceSum", ["a"], ["r"], keepdims=1)],
                 [("x", [8, 8])], [("t", [8, 8]), ("r", [1, 1])])
    plan = plan_before("welder", data, TARGET)
    stage = {s.spec.stage.output: s.spec.stage for s in plan.steps if isinstance(s, ComputeStep)}
    moved = KernelSpec((stage["a"], stage["t"]), carried=(("a", Level.REGISTER),), outputs=("t",))
    assert "reads a away from its own index" in stitched_maps.applies(moved)
    reduced = KernelSpec((stage["a"], stage["r"]), carried=(("a", Level.REGISTER),), outputs=("r",))
    assert "reduces" in stitched_maps.applies(reduced)
    with pytest.raises(ValueError, match="does not apply"):
        stitched_maps.render(moved, TARGET)


def test_the_recurrence_with_fp16_contractions_stays_right():
    """No contraction here: the precision option leaves the maps in fp32, and the group is the same."""
    data, feeds = recurrence(8, 16)
    art = compile(data, "h100", CompileOptions(build=False, precision="fp16", verify="host", disable=("rammer",)))
    assert art.report["verification"]["outcome"] == "passed"
    assert stitched(art.report)


def test_the_register_level_stops_before_recomputing_a_shared_state_geometrically(monkeypatch):
    """Composed, each step's states are read several times by the next: the register level's
    expression would evaluate them again at every read, growing geometrically with the steps. A
    group stops before its expression counts welder.RECOMPUTE_LIMIT times its distinct value
    nodes; without the limit (and the cap on a group's stages) the largest expression evaluates
    many times more nodes."""
    data, _ = recurrence(12, 16)
    options = CompileOptions(build=False, disable=("stitched_maps",))

    def largest() -> tuple[int, int]:
        plan = plan_before("roller", data, TARGET, options)
        return max(welder.tree_sizes(s.spec.expr.body) for s in plan.steps
                   if isinstance(s, ComputeStep) and s.spec.composable)
    nodes, distinct = largest()
    assert nodes < welder.RECOMPUTE_LIMIT * distinct
    monkeypatch.setattr(welder, "RECOMPUTE_LIMIT", 10 ** 9)
    monkeypatch.setattr(welder, "MAX_GROUP_STAGES", 10 ** 9)     # the other bound on a group's growth
    unlimited, _ = largest()
    assert unlimited > 4 * nodes


def test_a_sibling_read_before_the_group_runs_stays_apart():
    """The group starts at a (a plan output, so the register level keeps it a kernel of its own)
    and takes b + a; p = sigmoid(y), which b reads, is also read by q = p^T, which stays before
    the group (it reads no group value). Joined, p would be computed where the group runs, after
    q read it; so p stays a kernel of its own."""
    nodes = [helper.make_node("Exp", ["x"], ["a"]),
             helper.make_node("Sigmoid", ["y"], ["p"]),
             helper.make_node("Transpose", ["p"], ["q"], perm=[1, 0]),
             helper.make_node("Mul", ["a", "p"], ["b"]),
             helper.make_node("Add", ["b", "a"], ["c"])]
    data = model(nodes, [("x", [16, 16]), ("y", [16, 16])], [("c", [16, 16]), ("q", [16, 16]), ("a", [16, 16])])
    rep = check(data, {"x": RNG.standard_normal((16, 16)).astype(np.float32),
                       "y": RNG.standard_normal((16, 16)).astype(np.float32)})
    (k,) = stitched(rep)
    assert "Sigmoid_1" not in k["ops"] and {"Exp_0", "Mul_3", "Add_4"} <= set(k["ops"])
