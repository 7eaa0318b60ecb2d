"""The rammer stage (issue 14): waves of the step graph, independent kernels co-launched by block
range, and the report's schedule. Small ONNX graphs with parallel branches compiled with the
stage on and with `--disable rammer`, run on the host harness in both thread orders against
onnxruntime; the co-launch kernel alone; BERT's Q/K/V projections."""
from __future__ import annotations

import re

import numpy as np
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

from compiler import compile
from compiler.analysis.waves import step_dependencies, waves
from compiler.codegen.co_launch import co_launch
from compiler.ir.dataflow import writes
from compiler.pipeline import CompileOptions, plan_before
from compiler.runtime.executor import Executor, make_backend
from compiler.targets import get_target

from .test_welder import RNG, model, weight


def run_both_orders(data: bytes, feeds: dict, disable=()) -> dict:
    art = compile(data, "h100", CompileOptions(build=False, disable=disable))
    want = ort.InferenceSession(data, providers=["CPUExecutionProvider"]).run(None, feeds)
    for mode in ("default", "shuffle"):
        got = Executor(art.plan, make_backend("host", mode=mode, seed=11)).run(feeds)
        for name, w in zip(art.plan.outputs, want):
            np.testing.assert_allclose(got[name], w, rtol=1e-4, atol=1e-4, err_msg=f"{name} ({mode})")
    return art.report


def inception(c: int = 8, hw: int = 8) -> bytes:
    """An Inception block: 1x1, 1x1 -> 3x3, 1x1 -> 5x5 and pool -> 1x1 branches, concatenated."""
    conv = lambda x, w, b, y, **a: helper.make_node("Conv", [x, w, b], [y], **a)
    nodes = [conv("x", "w1", "b1", "y1"),
             conv("x", "w2a", "b2a", "t2"), helper.make_node("Relu", ["t2"], ["r2"]),
             conv("r2", "w2b", "b2b", "y2", pads=[1, 1, 1, 1]),
             conv("x", "w3a", "b3a", "t3"), helper.make_node("Relu", ["t3"], ["r3"]),
             conv("r3", "w3b", "b3b", "y3", pads=[2, 2, 2, 2]),
             helper.make_node("MaxPool", ["x"], ["p"], kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
             conv("p", "w4", "b4", "y4"),
             helper.make_node("Concat", ["y1", "y2", "y3", "y4"], ["y"], axis=1)]
    inits = [("w1", weight(8, c, 1, 1)), ("b1", weight(8)), ("w2a", weight(6, c, 1, 1)), ("b2a", weight(6)),
             ("w2b", weight(8, 6, 3, 3)), ("b2b", weight(8)), ("w3a", weight(4, c, 1, 1)), ("b3a", weight(4)),
             ("w3b", weight(8, 4, 5, 5)), ("b3b", weight(8)), ("w4", weight(8, c, 1, 1)), ("b4", weight(8))]
    return model(nodes, [("x", [1, c, hw, hw])], [("y", [1, 32, hw, hw])], inits)


def test_parallel_branches_share_launches_and_stay_right():
    data = inception()
    feeds = {"x": RNG.standard_normal((1, 8, 8, 8)).astype(np.float32)}
    on = run_both_orders(data, feeds)
    off = run_both_orders(data, feeds, disable=("rammer",))
    sched = on["schedule"]
    # the welder prices its plans through rammer's waves (the concat: pipeline._part_read_policy),
    # so without rammer it may keep another plan: each side is compared with its own kernels
    assert sched["enabled"] and sched["kernels"] == on["fusion"]["kernels_after"]
    assert off["launches_per_inference"] == off["fusion"]["kernels_after"]
    assert on["launches_per_inference"] == sched["launches"] < sched["kernels"]
    assert not off["schedule"]["enabled"] and off["schedule"]["co_launches"] == []
    for co in sched["co_launches"]:
        assert len(co["members"]) >= 2
        assert co["predicted_us"]["co_launch"] < co["predicted_us"]["apart"]
        kernel = next(k for k in on["kernels"] if k["name"] == co["entry"])
        assert kernel["grid"][0] == sum(m["blocks"] for m in co["members"])
        assert kernel["ops"] == [op for m in co["members"] for op in m["ops"]]


def test_alike_branches_co_launched_call_their_body_once():
    """Two branches alike (a 1x1 conv + ReLU each, other weights) and a Tanh between them are one
    co-launch whose dispatcher calls the conv's body once, its pointers picked by member (ptxas
    compiles each body once); right in both block orders, each branch with its own weights."""
    conv = lambda x, w, b, y: helper.make_node("Conv", [x, w, b], [y])
    nodes = [conv("x", "wa", "ba", "ta"), helper.make_node("Relu", ["ta"], ["ya"]),
             helper.make_node("Tanh", ["x"], ["yc"]),
             conv("x", "wb", "bb", "tb"), helper.make_node("Relu", ["tb"], ["yb"])]
    inits = [("wa", weight(8, 8, 1, 1)), ("ba", weight(8)), ("wb", weight(8, 8, 1, 1)), ("bb", weight(8))]
    data = model(nodes, [("x", [1, 8, 8, 8])], [(y, [1, 8, 8, 8]) for y in ("ya", "yc", "yb")], inits)
    report = run_both_orders(data, {"x": RNG.standard_normal((1, 8, 8, 8)).astype(np.float32)})
    (co,) = report["schedule"]["co_launches"]
    entries = [m["entry"] for m in co["members"]]
    assert len(entries) == 3 and entries[0] == entries[2] != entries[1], entries
    kernel = next(k for k in compile(data, "h100", CompileOptions(build=False)).plan.kernels()
                  if k.entry == co["entry"])
    source = kernel.source
    start = source.index(f"{co['entry']}_body(")
    calls = re.findall(r"\b(\w+_body)\(", source[start:source.index("BY_KERNEL", start)])[1:]   # (its own name first)
    assert len(calls) == len(set(calls)) == 2, calls      # a call per distinct body
    from compiler.codegen.nvrtc import build_cubin
    built = build_cubin(source, kernel.entry, "sm_90")    # NVRTC takes the members' pointers picked by member
    assert built.registers > 0 and built.spills == 0


@pytest.mark.parametrize("barriers", [False, True])
def test_a_value_written_in_two_steps_orders_them(barriers):
    """ScatterElements lowers to a copy of the data, then its updates in place: two kernels that
    write one value, of different widths. They are in different waves (never one co-launch), and a
    joined launch makes the updates wait for the copy."""
    idx = np.array([[1, 0, 3], [0, 2, 1]], np.int64)
    nodes = [helper.make_node("Relu", ["x"], ["r"]),
             helper.make_node("ScatterElements", ["r", "i", "u"], ["y"], axis=1)]
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 4]),
                                       helper.make_tensor_value_info("u", TensorProto.FLOAT, [2, 3])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 4])],
                          [numpy_helper.from_array(idx, "i")])
    data = helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)]).SerializeToString()
    plan = plan_before("rammer", data)
    writers = [k for k, s in enumerate(plan.steps) if "y" in writes(s)]
    assert len(writers) == 2 and writers[0] in step_dependencies(plan)[writers[1]]
    feeds = {"x": RNG.standard_normal((2, 4)).astype(np.float32), "u": RNG.standard_normal((2, 3)).astype(np.float32)}
    art = compile(data, "h100", CompileOptions(build=False, barriers=barriers))
    want = ort.InferenceSession(data, providers=["CPUExecutionProvider"]).run(None, feeds)[0]
    for mode, seed in (("default", 0), ("shuffle", 1), ("shuffle", 2)):
        got = Executor(art.plan, make_backend("host", mode=mode, seed=seed)).run(feeds)["y"]
        np.testing.assert_allclose(got, want, rtol=1e-6, err_msg=mode)
    assert not any(len({m["entry"] for m in c["members"]}) > 1 and any("update" in m["entry"] for m in c["members"])
                   for c in art.report["schedule"]["co_launches"])
    joined = art.report["schedule"]["barrier_launches"]
    assert bool(joined) == barriers     # with barriers, the copy and the updates are one launch
    for b in joined:
        names = [m["entry"] for m in b["members"]]
        updates = [m for m in b["members"] if "update" in m["entry"]]
        assert updates and all(any("copy" in names[w] for w in m["waits_for"]) for m in updates), b


def test_waves_are_breadth_first_frontiers():
    plan = plan_before("rammer", inception())
    level = waves(plan)
    deps = step_dependencies(plan)
    for k, d in enumerate(deps):
        assert all(j < k for j in d)
        assert level[k] == (1 + max(level[j] for j in d) if d else 0)
    assert max(level) >= 2 and len(set(level)) < len(level)     # some wave holds several steps


def test_bert_runs_q_k_v_in_one_launch(models_dir):
    """BERT's Q, K and V projections read the same normalised input and nothing of each other:
    one launch per layer (with the welder stage off: on, Q's projection joins its attention row
    chain, and K and V share a launch), and the model stays right in both thread orders."""
    for disable, members in (((), 2), (("welder",), 3)):
        art = compile(str(models_dir / "bert.onnx"), "h100", CompileOptions(build=False, disable=disable))
        rep = art.report
        assert rep["launches_per_inference"] < rep["schedule"]["kernels"]
        assert any(len(c["members"]) == members for c in rep["schedule"]["co_launches"]), disable
    ref = np.load(models_dir / "bert.npz")
    inputs = {k[3:]: ref[k] for k in ref.files if k.startswith("in:")}
    for mode in ("default", "shuffle"):
        out = Executor(art.plan, make_backend("host", mode=mode, seed=5)).run(inputs)
        for k in ref.files:
            if k.startswith("out:"):
                np.testing.assert_allclose(out[k[4:]], ref[k], rtol=1e-3, atol=1e-4)


def test_a_kernel_that_fills_the_gpu_stays_alone():
    """Two independent elementwise maps over a million elements: each has blocks for every SM, so
    packing them would only queue one behind the other."""
    nodes = [helper.make_node("Exp", ["x"], ["a"]), helper.make_node("Tanh", ["x"], ["b"])]
    data = model(nodes, [("x", [1024, 1024])], [("a", [1024, 1024]), ("b", [1024, 1024])])
    rep = compile(data, "h100", CompileOptions(build=False)).report
    assert rep["launches_per_inference"] == 2 and rep["schedule"]["co_launches"] == []


def test_co_launch_of_mixed_widths_runs_the_narrower_on_the_first_threads():
    """The Inception block's kernels come in several one-dimensional widths: a co-launch takes the
    widest block, and a narrower member's body, renamed for its width, sees its own blockDim and
    syncs its own threads on barrier 1 (test_parallel_branches_share_launches_and_stay_right runs
    such launches on the host harness in both thread orders)."""
    import dataclasses
    kernels = plan_before("rammer", inception()).kernels()
    a = max(kernels, key=lambda k: k.threads)
    b = next(k for k in kernels if k.threads < a.threads)
    co = co_launch([a, b])
    assert co.block == a.block
    assert f"{b.entry}_w{b.threads}_body(" in co.source and f"if (threadIdx.x < {b.threads}u)" in co.source
    narrow = co.source[co.source.index(f"{b.entry}_w{b.threads}_body("):]
    narrow = narrow[:narrow.index("\n}\n")]
    assert "__syncthreads()" not in narrow and "blockDim.x" not in narrow
    assert ("__syncthreads()" in b.source) == (f"by_part_sync(1u, {b.threads}u)" in narrow)
    on = compile(inception(), "h100", CompileOptions(build=False)).report["schedule"]
    widths = [{next(k.threads for k in kernels if k.entry == m["entry"]) for m in c["members"]} for c in on["co_launches"]]
    assert any(len(w) > 1 for w in widths), widths
    # what a narrower body cannot do on part of a block: a two-dimensional block, a block-wide vote
    with pytest.raises(ValueError, match="one block shape"):
        co_launch([a, dataclasses.replace(b, block=(b.threads // 2, 2, 1))])
    with pytest.raises(ValueError, match="one block shape"):
        co_launch([a, dataclasses.replace(b, source=b.source.replace("{", "{ (void)__syncthreads_or(1);", 1))])


def test_co_launches_build_with_nvrtc(models_dir):
    art = compile(str(models_dir / "bert.onnx"), "h100", CompileOptions())
    co = [k for k in art.report["kernels"] if k["config"].get("schedule") == "rammer_co_launch"]
    assert co and all(k["registers"] > 0 and k["spills"] == 0 for k in co)
    # every member's blocks resident at once: the grid within the SMs' resident blocks
    from compiler.roller.micro_model import resident_blocks
    h100 = get_target("h100")
    for k in co:
        per_sm = resident_blocks(k["block"][0], k["shared_bytes"], k["registers"], h100)
        assert 0 < k["grid"][0] <= h100.sms * per_sm, (k["grid"], per_sm)


@pytest.mark.parametrize("name", ["inception_v1", "inception_v2"])
def test_light_inception_launches_fewer_times_than_it_has_kernels(name):
    """ONNX's light Inception graphs (parallel branches in every block): fewer launches than
    kernels, and right on the host harness in both thread orders."""
    from compiler.conformance import load_light_cases
    cases = load_light_cases(f"^test_{name}$")
    assert cases, f"the onnx package (>= 1.17) ships its light {name} model (onnx/backend/test/data/light)"
    (case,) = cases
    art = compile(case.model.SerializeToString(), "h100", CompileOptions(build=False))
    sched = art.report["schedule"]
    assert art.report["launches_per_inference"] == sched["launches"] < sched["kernels"]
    (inputs, (want,)), = case.data_sets
    feeds = dict(zip(art.plan.inputs, inputs))
    for mode in ("default", "shuffle"):
        (got,) = Executor(art.plan, make_backend("host", mode=mode, seed=2)).run(feeds).values()
        np.testing.assert_allclose(got, want, rtol=case.rtol, atol=1e-6, err_msg=mode)


def test_a_co_launch_skips_what_none_of_its_members_reads():
    """Members' skipped bytes in one launch: slices of one input (config `unread`) skip only the
    part no member reads; a sparse member's zero tiles (skipped, not per input) stay its own, even
    when it shares another input with a member."""
    from compiler.ir.graph import TensorType
    from compiler.ir.dtypes import DType
    from compiler.ir.kernel import Kernel, KernelParam
    from compiler.roller.cost_model import kernel_bytes, members_totals

    types = {v: TensorType(DType.float32, (1000,)) for v in ("x", "w", "a", "b", "c")}   # 4000 bytes each

    def kernel(name, reads, writes, **config):
        params = tuple(KernelParam("float", v, False) for v in reads) + (KernelParam("float", writes, True),)
        return Kernel(name, "", params, (1, 1, 1), (32, 1, 1), config=tuple(config.items()))

    first = kernel("k0", ["x"], "a", skipped_bytes=3000, unread=(("x", 3000),))     # reads a quarter of x
    second = kernel("k1", ["x"], "b", skipped_bytes=2000, unread=(("x", 2000),))    # reads half of x
    sparse = kernel("k2", ["x", "w"], "c", skipped_bytes=3000)                      # w three quarters zeros
    def launch(parts):      # the launch's parameters: its members', each value once
        seen = {p.value: p for k in parts for p in k.params}
        merged = dict(members_totals(parts, tuple(seen.values()), types))
        return Kernel("co", "", tuple(seen.values()), (1, 1, 1), (32, 1, 1), config=tuple(merged.items())), merged

    both, merged = launch([first, second])
    assert merged["skipped_bytes"] == 1000 and merged["unread"] == (("x", 1000),)   # a quarter of x unread
    assert kernel_bytes(both, types) == 3000 + 2 * 4000                             # x's 3 quarters, a, b
    _, merged = launch([first, second, sparse])
    assert merged["skipped_bytes"] == 3000 and "unread" not in merged               # x read whole by k2


def _block_sparse_projections(rows: int = 128, width: int = 768, keep: float = 0.1) -> bytes:
    """Three projections of one input by 32x32-block-sparse weights (a pruned BERT-base's Q, K
    and V at 128 tokens): each alone splits its few listed k tiles across blocks to fill the SMs."""
    rng = np.random.default_rng(3)
    inits, nodes, outs = [], [], []
    for i in range(3):
        w = rng.standard_normal((width, width)).astype(np.float32)
        w *= np.kron(rng.random((width // 32, width // 32)) < keep, np.ones((32, 32), np.float32))
        inits.append(numpy_helper.from_array(w, f"w{i}"))
        nodes.append(helper.make_node("MatMul", ["x", f"w{i}"], [f"y{i}"]))
        outs.append(helper.make_tensor_value_info(f"y{i}", TensorProto.FLOAT, [rows, width]))
    g = helper.make_graph(nodes, "qkv", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [rows, width])],
                          outs, inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)])
    m.ir_version = 10
    return m.SerializeToString()


def test_split_kernels_co_launch_in_their_unsplit_forms_where_that_pays():
    """Apart, each split kernel is the faster; three launches of them are not: the wave takes the
    kernels' unsplit forms (the render stage's, from each spec's best unsplit candidate) in one
    co-launch, predicted as fast as the plan with split-K off. The report says so (schedule's
    `unsplit`, the split-K technique's counts and no workspace left), and the plan is right."""
    data = _block_sparse_projections()
    feeds = {"x": RNG.standard_normal((128, 768)).astype(np.float32)}
    rep = run_both_orders(data, feeds)
    assert rep["launches_per_inference"] == 1 and len(rep["schedule"]["unsplit"]) == 3
    for u in rep["schedule"]["unsplit"]:
        assert u["wave_us"]["unsplit"] < u["wave_us"]["split"] and u["split"] != u["unsplit"]
    split = next(t for t in rep["techniques"] if t["name"] == "split-K")["effect"]
    assert split["split_kernels"] == 0 and split["unsplit_to_co_launch"] == 3 and split["workspace_bytes"] == 0
    assert rep["memory"]["workspace_bytes"] == 0
    apart = compile(data, "h100", CompileOptions(build=False, disable=("rammer",))).report
    assert all(k["config"].get("split_k", 1) > 1 for k in apart["kernels"]) and len(apart["kernels"]) == 3
    unsplit = compile(data, "h100", CompileOptions(build=False, disable=("split_k",))).report
    assert rep["latency"]["predicted_us"] == unsplit["latency"]["predicted_us"] < apart["latency"]["predicted_us"]


def per_class_topk(n: int, classes: int, k: int) -> bytes:
    """A detector's per-class step: each class's column of [n, classes] scores, its K best."""
    nodes, outs = [], []
    inits = [numpy_helper.from_array(np.array([k], np.int64), "k")]
    for c in range(classes):
        inits.append(numpy_helper.from_array(np.array(c, np.int64), f"c{c}"))
        nodes += [helper.make_node("Gather", ["s", f"c{c}"], [f"col{c}"], axis=1),
                  helper.make_node("TopK", [f"col{c}", "k"], [f"v{c}", f"i{c}"])]
        outs += [helper.make_tensor_value_info(f"v{c}", TensorProto.FLOAT, [k]),
                 helper.make_tensor_value_info(f"i{c}", TensorProto.INT64, [k])]
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("s", TensorProto.FLOAT, [n, classes])], outs, inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 9
    return m.SerializeToString()


def test_alike_siblings_are_nodes_of_one_wave_with_the_same_op_and_types():
    """The per-class TopKs (and Gathers) are alike; a chain of the same op is not (each reads the
    one before), nor are nodes of another type."""
    from compiler.frontend.onnx_import import import_model
    from compiler.passes.lower import alike_siblings
    graph = import_model(per_class_topk(1500, 4, 10)).graph
    alike = alike_siblings(graph)
    assert sorted(alike.get(n.name) for n in graph.nodes if n.op == "TopK") == [4] * 4
    assert sorted(alike.get(n.name) for n in graph.nodes if n.op == "Gather") == [4] * 4
    chain = helper.make_graph([helper.make_node("Relu", ["x"], ["a"]), helper.make_node("Relu", ["a"], ["b"]),
                               helper.make_node("Relu", ["x"], ["c"]), helper.make_node("Sigmoid", ["x"], ["d"])],
                              "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [8])],
                              [helper.make_tensor_value_info(v, TensorProto.FLOAT, [8]) for v in "bcd"])
    m = helper.make_model(chain, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 9
    graph = import_model(m.SerializeToString()).graph
    by_output = {n.outputs[0]: n.name for n in graph.nodes}
    alike = alike_siblings(graph)
    assert alike.get(by_output["a"]) == 2 and alike.get(by_output["c"]) == 2      # the wave's two Relus
    assert by_output["b"] not in alike and by_output["d"] not in alike


def test_a_lowering_prices_its_ways_as_one_of_its_alike_siblings(monkeypatch):
    """16 per-class TopKs of 3234 scores, K = 300: one alone is predicted cheaper ranked (n^2
    comparisons across the grid) than radix-selected (a block per row, latency-bound passes), but
    16 radix selects share their launches where 16 rankings each fill the GPU; the lowering prices
    each way as one of 16 co-launched and takes the radix select. The plan is predicted faster
    than with each TopK priced alone, and matches onnxruntime in both thread orders."""
    import compiler.passes.lower as lower
    data, classes = per_class_topk(3234, 16, 300), 16
    art = compile(data, "h100", CompileOptions(build=False))
    (tech,) = [t for t in art.report["techniques"] if t["name"] == "radix TopK"]
    priced = tech["effect"]["priced"]
    assert len(priced) == classes and all(c["alike"] == classes and c["chosen"] == "radix select" for c in priced)
    assert all(c["predicted_us"]["radix select"] == min(c["predicted_us"].values()) for c in priced)
    s = np.round(RNG.standard_normal((3234, classes)), 3).astype(np.float32)
    want = ort.InferenceSession(data, providers=["CPUExecutionProvider"]).run(None, {"s": s})
    for mode in ("default", "shuffle"):
        got = Executor(art.plan, make_backend("host", mode=mode, seed=5)).run({"s": s})
        for name, w in zip(art.plan.outputs, want):
            np.testing.assert_array_equal(got[name], w, err_msg=f"{name} ({mode})")

    # with rammer off nothing is co-launched, so each is priced alone
    off = compile(data, "h100", CompileOptions(build=False, disable=("rammer",)))
    (tech,) = [t for t in off.report["techniques"] if t["name"] == "radix TopK"]
    assert [c["chosen"] for c in tech["effect"]["priced"]] == ["ranks"] * classes
    assert not any("alike" in c for c in tech["effect"]["priced"])
    monkeypatch.setattr(lower, "alike_siblings", lambda graph: {})
    alone = compile(data, "h100", CompileOptions(build=False))
    (tech,) = [t for t in alone.report["techniques"] if t["name"] == "radix TopK"]
    assert [c["chosen"] for c in tech["effect"]["priced"]] == ["ranks"] * classes
    assert art.report["latency"]["predicted_us"] < alone.report["latency"]["predicted_us"]


def test_alike_copies_are_priced_as_the_stage_packs_them():
    """One of N alike kernels: alone (one copy, or a kernel filling the SMs) its time and a launch;
    small ones share launches as many as stay resident, each pack the slowest member or the
    pack's bytes over DRAM bandwidth, whichever is longer."""
    from compiler.passes.rammer import alike_us
    from compiler.roller.cost_model import LAUNCH_US
    t = get_target("h100")
    assert alike_us(3.0, 10, 2, 1e6, 1, t) == 3.0 + LAUNCH_US
    assert alike_us(3.0, t.sms * 2, 2, 1e6, 16, t) == 3.0 + LAUNCH_US          # fills the GPU alone
    fit = t.sms * 2 // 10                                                     # 26 of 10 blocks resident
    assert alike_us(3.0, 10, 2, 1e3, 2 * fit, t) == pytest.approx((3.0 + LAUNCH_US) / fit)
    heavy = 3.0 * t.dram_gbps * 1e3       # bytes one kernel moves in 3 us: a pack of 8 is DRAM-bound
    assert alike_us(3.0, 10, 2, heavy, 8, t) == pytest.approx((8 * 3.0 + LAUNCH_US) / 8)


def test_a_wave_packs_like_times_together_where_plan_order_would_not():
    """Four kernels of a wave, each half the GPU's resident blocks, long and short alternating in
    plan order: packed in that order each co-launch holds a long kernel (two long times); longest
    first packs the two long ones together and the two short ones together (one long time, one
    short). The stage takes the cheaper packing; plan order where it is as cheap."""
    from compiler.ir.kernel import Kernel
    from compiler.ir.plan import LaunchStep
    from compiler.passes.rammer import _greedy_packs, _packs
    from compiler.roller.cost_model import LAUNCH_US

    target = get_target("h100")
    block = (1024, 1, 1)
    per_sm = target.max_threads_per_sm // 1024

    def kernel(name: str, us: float) -> Kernel:
        return Kernel(entry=name, source="", params=(), grid=(target.sms * per_sm // 2, 1, 1), block=block,
                      config=(("predicted_us", us),))

    steps = [LaunchStep(kernel(n, us)) for n, us in (("long_a", 10.0), ("short_a", 1.0), ("long_b", 10.0),
                                                       ("short_b", 1.0))]
    in_plan_order = _greedy_packs([0, 1, 2, 3], steps, {}, target)
    assert [p for p, _ in in_plan_order] == [[0, 1], [2, 3]]
    chosen = _packs([0, 1, 2, 3], steps, {}, target)
    assert [p for p, _ in chosen] == [[0, 2], [1, 3]]
    assert sum(co for _, (co, _) in chosen) == pytest.approx(11.0 + 2 * LAUNCH_US)
    assert sum(co for _, (co, _) in in_plan_order) == pytest.approx(20.0 + 2 * LAUNCH_US)
    alike = [LaunchStep(kernel(f"k{i}", 3.0)) for i in range(4)]
    assert [p for p, _ in _packs([0, 1, 2, 3], alike, {}, target)] == [[0, 1], [2, 3]]
