"""Grinder (issue 15): If, Loop and Scan regions as persistent kernels on the host harness, in both
thread orders, against onnxruntime and against the same model with `--disable grinder`; the
runtime's count of host round trips against the report's."""
from __future__ import annotations

import os
import re

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import compiler
from compiler.artifact import load_artifact
from compiler.context import CompileOptions
from compiler.errors import RuntimeFault, ShapeError, UnsupportedOp
from compiler.ir.kernel import Kernel
from compiler.onnx_backend import BrickyardBackend
from compiler.ir.plan import IfStep, LaunchStep, LoopStep, Plan, ScanStep
from compiler.passes.grinder import obstacle
from compiler.runtime.executor import Executor, HostBackend
from compiler.targets import get_target

SHARED = os.environ.get("BRICKYARD_SHARED", os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared"))
MODELS = os.path.join(SHARED, "models")
F = TensorProto.FLOAT


def _compile(model, *disable, max_trip_count=None):
    return compiler.compile(model, "h100", CompileOptions(build=False, disable=disable, max_trip_count=max_trip_count))


def _reference(model, inputs):
    import onnxruntime as ort
    data = model.SerializeToString() if isinstance(model, onnx.ModelProto) else model
    sess = ort.InferenceSession(data, providers=["CPUExecutionProvider"])
    return dict(zip([o.name for o in sess.get_outputs()], sess.run(None, inputs)))


def _check(model, inputs, *, regions_on_device: int, max_trip_count=None, compiled=None):
    """Right in both thread orders with grinder on and off; on: every region on the device, no
    round trip; off: the runtime makes the round trips the report predicts."""
    ref = _reference(model, inputs)
    on, off = compiled or (_compile(model, max_trip_count=max_trip_count),
                           _compile(model, "grinder", max_trip_count=max_trip_count))
    cf = on.report["control_flow"]
    assert [r["runs"] for r in cf["regions"] if not r.get("inside")] == ["device"] * regions_on_device, cf
    assert cf["host_round_trips_per_inference"] == 0
    assert not any(isinstance(s, (IfStep, LoopStep, ScanStep)) for s in on.plan.steps_within())
    for mode in ("default", "shuffle"):
        ex = Executor(on.plan, HostBackend(mode=mode, seed=3))
        got = ex.run(inputs)
        assert ex.host_round_trips == 0
        for name, want in ref.items():
            assert got[name].shape == want.shape, (name, mode)
            np.testing.assert_allclose(got[name], want, rtol=1e-4, atol=1e-5, err_msg=f"{name} ({mode})")
    ex = Executor(off.plan, HostBackend())
    got = ex.run(inputs)
    assert ex.host_round_trips > 0
    predicted = off.report["control_flow"]["host_round_trips_per_inference"]
    if predicted is not None:
        assert ex.host_round_trips == predicted
    for name, want in ref.items():
        assert got[name].shape == want.shape, name
        np.testing.assert_allclose(got[name], want, rtol=1e-4, atol=1e-5, err_msg=f"{name} (host)")
    return on, off


def _model(nodes, inputs, outputs, inits=()):
    g = helper.make_graph(nodes, "g", inputs, outputs, initializer=list(inits))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.checker.check_model(m)
    return m


def _vi(name, shape, t=F):
    return helper.make_tensor_value_info(name, t, shape)


def _c(name, value, dtype=np.float32):
    return numpy_helper.from_array(np.asarray(value, dtype=dtype), name)


def _if_halve_or_shift(x: str, out: str, name: str, n: int):
    """If sum(x) > 0 then x * 0.5 else x + 1 (the predicate computed on the device)."""
    then_g = helper.make_graph([helper.make_node("Mul", [x, f"{name}_half"], [f"{name}_t"])], f"{name}_then", [],
                               [_vi(f"{name}_t", [n])], initializer=[_c(f"{name}_half", 0.5)])
    else_g = helper.make_graph([helper.make_node("Add", [x, f"{name}_one"], [f"{name}_e"])], f"{name}_else", [],
                               [_vi(f"{name}_e", [n])], initializer=[_c(f"{name}_one", 1.0)])
    return [helper.make_node("ReduceSum", [x], [f"{name}_s"], keepdims=0),
            helper.make_node("Greater", [f"{name}_s", f"{name}_zero"], [f"{name}_p"]),
            helper.make_node("If", [f"{name}_p"], [out], then_branch=then_g, else_branch=else_g)], \
        [_c(f"{name}_zero", 0.0)]


def test_shared_control_flow_models_run_on_the_device():
    for name in ("rnn_loop", "branchy"):
        path = os.path.join(MODELS, f"{name}.onnx")
        assert os.path.exists(path), path
        data = np.load(os.path.join(MODELS, f"{name}.npz"))
        inputs = {k[3:]: data[k] for k in data.files if k.startswith("in:")}
        _check(path, inputs, regions_on_device=1)
        if name == "branchy":   # both branches: the predicate's other sign
            _check(path, {k: -v for k, v in inputs.items()}, regions_on_device=1)


def test_lstm_has_no_round_trips():
    path = os.path.join(MODELS, "lstm.onnx")
    assert os.path.exists(path), path
    art = _compile(path)
    assert art.report["control_flow"] == {"enabled": True, "regions": [], "host_round_trips_per_inference": 0}


def test_if_inside_a_loop_body():
    n = 64
    nodes, inits = _if_halve_or_shift("x_in", "x_out", "b", n)
    body = helper.make_graph(
        nodes + [helper.make_node("Identity", ["cond_in"], ["cond_out"]),
                 helper.make_node("Mul", ["x_out", "x_out"], ["sq"])],
        "body", [_vi("i", [], TensorProto.INT64), _vi("cond_in", [], TensorProto.BOOL), _vi("x_in", [n])],
        [_vi("cond_out", [], TensorProto.BOOL), _vi("x_out", [n]), _vi("sq", [n])], initializer=inits)
    m = _model([helper.make_node("Loop", ["trips", "go", "x"], ["x_final", "squares"], body=body)],
               [_vi("x", [n])], [_vi("x_final", [n]), _vi("squares", [6, n])],
               [_c("trips", 6, np.int64), _c("go", True, np.bool_)])
    rng = np.random.default_rng(0)
    for sign in (1, -1):
        _check(m, {"x": (sign * rng.uniform(0.1, 2.0, n)).astype(np.float32)}, regions_on_device=1)


def test_loop_inside_an_if_branch():
    n = 48
    body = helper.make_graph(
        [helper.make_node("Identity", ["c"], ["c2"]), helper.make_node("Add", ["y", "y"], ["y2"])],
        "double", [_vi("j", [], TensorProto.INT64), _vi("c", [], TensorProto.BOOL), _vi("y", [n])],
        [_vi("c2", [], TensorProto.BOOL), _vi("y2", [n])])
    then_g = helper.make_graph([helper.make_node("Loop", ["three", "", "x"], ["t_out"], body=body)], "then", [],
                               [_vi("t_out", [n])], initializer=[_c("three", 3, np.int64)])
    else_g = helper.make_graph([helper.make_node("Sub", ["x", "one"], ["e_out"])], "else", [], [_vi("e_out", [n])],
                               initializer=[_c("one", 1.0)])
    m = _model([helper.make_node("ReduceMax", ["x"], ["mx"], keepdims=0),
                helper.make_node("Greater", ["mx", "zero"], ["p"]),
                helper.make_node("If", ["p"], ["y"], then_branch=then_g, else_branch=else_g)],
               [_vi("x", [n])], [_vi("y", [n])], [_c("zero", 0.0)])
    rng = np.random.default_rng(1)
    _check(m, {"x": rng.uniform(0.5, 1.0, n).astype(np.float32)}, regions_on_device=1)
    _check(m, {"x": -rng.uniform(0.5, 1.0, n).astype(np.float32)}, regions_on_device=1)


def test_loop_swapping_carried_values_and_a_data_dependent_stop():
    """Carried values passed to each other's slots (staged copies), the condition computed by the
    body (a while loop: no trip count), and a loop that runs no iteration."""
    n = 32
    body = helper.make_graph(
        [helper.make_node("Add", ["a", "b"], ["ab"]),
         helper.make_node("ReduceSum", ["ab"], ["s"], keepdims=0),
         helper.make_node("Less", ["s", "limit"], ["go_on"])],
        "body", [_vi("i", [], TensorProto.INT64), _vi("c", [], TensorProto.BOOL), _vi("a", [n]), _vi("b", [n])],
        [_vi("go_on", [], TensorProto.BOOL), _vi("b", [n]), _vi("ab", [n])], initializer=[_c("limit", 500.0)])
    m = _model([helper.make_node("Loop", ["", "start", "a0", "b0"], ["a_end", "b_end"], body=body)],
               [_vi("a0", [n]), _vi("b0", [n]), _vi("start", [], TensorProto.BOOL)],
               [_vi("a_end", [n]), _vi("b_end", [n])])
    rng = np.random.default_rng(2)
    a0, b0 = rng.uniform(0.0, 1.0, n).astype(np.float32), rng.uniform(0.0, 1.0, n).astype(np.float32)
    on, _ = _check(m, {"a0": a0, "b0": b0, "start": np.array(True)}, regions_on_device=1)
    _check(m, {"a0": a0, "b0": b0, "start": np.array(False)}, regions_on_device=1)   # no iteration
    (loop,) = [k for k in on.plan.kernels() if k.entry.startswith("device_loop_")]
    assert any("::stage" in p.value for p in loop.params)   # the swap went through staging buffers


def test_scan_reverse_and_axes():
    n, length = 16, 5
    body = helper.make_graph(
        [helper.make_node("Add", ["acc", "row"], ["acc2"]), helper.make_node("Mul", ["acc2", "row"], ["prod"])],
        "body", [_vi("acc", [n]), _vi("row", [n])], [_vi("acc2", [n]), _vi("prod", [n])])
    m = _model([helper.make_node("Scan", ["init", "seq"], ["final", "ys"], body=body, num_scan_inputs=1,
                                 scan_input_axes=[1], scan_input_directions=[1], scan_output_axes=[1],
                                 scan_output_directions=[1])],
               [_vi("init", [n]), _vi("seq", [n, length])], [_vi("final", [n]), _vi("ys", [n, length])])
    rng = np.random.default_rng(3)
    _check(m, {"init": rng.normal(size=n).astype(np.float32), "seq": rng.normal(size=(n, length)).astype(np.float32)},
           regions_on_device=1)


def test_a_device_region_kernel_carries_its_bodies_time():
    """The persistent kernel of a Scan of 5 steps is predicted 5 times the region's device time per
    iteration, and the plan's latency counts it (it was the roofline fallback's few nanoseconds,
    the bodies left out); with the grinder off the latency counts the body per step as the grinder
    prices it on the host (it counted the body kernels once)."""
    n, length = 4096, 5
    body = helper.make_graph(
        [helper.make_node("Add", ["acc", "row"], ["acc2"]), helper.make_node("Tanh", ["acc2"], ["y"])],
        "body", [_vi("acc", [n]), _vi("row", [n])], [_vi("acc2", [n]), _vi("y", [n])])
    m = _model([helper.make_node("Scan", ["init", "seq"], ["final", "ys"], body=body, num_scan_inputs=1)],
               [_vi("init", [n]), _vi("seq", [length, n])], [_vi("final", [n]), _vi("ys", [length, n])])
    on, off = _compile(m), _compile(m, "grinder")
    (region,) = on.report["control_flow"]["regions"]
    (kernel,) = [k for k in on.report["kernels"] if k["name"] == region["kernel"]]
    per_iteration = region["predicted_us_per_iteration"]["device"]
    assert kernel["config"]["iterations"] == length
    assert kernel["predicted_us"] == pytest.approx(per_iteration * length, abs=1e-3)
    assert on.report["latency"]["predicted_us"] > per_iteration * length
    # off: the body's kernels, each with its launch, and a round trip, per step (its kernels are
    # all the plan has)
    from compiler.passes.grinder import HOST_ROUND_TRIP_US
    from compiler.roller.cost_model import LAUNCH_US
    body_us = sum(k["predicted_us"] + LAUNCH_US for k in off.report["kernels"])
    assert off.report["latency"]["predicted_us"] == pytest.approx(length * (body_us + HOST_ROUND_TRIP_US), abs=0.01)


def test_conformance_control_flow_cases_run_on_the_device():
    """ONNX's Loop, If and Scan node cases the importer takes: right, each region on the device."""
    from compiler import conformance
    from compiler.conformance import CONFORMANCE_MAX_TRIP_COUNT, run_case
    ran = 0
    for case in conformance.load_cases(ops={"Loop", "If", "Scan"}):
        status, detail = run_case(case)
        if status in ("unsupported", "excluded"):
            continue
        assert status == "pass", (case.name, detail)
        # as run_case ran it (some cases bind shape inputs and compile on the first run)
        rep = BrickyardBackend.prepare(case.model, "CPU", max_trip_count=CONFORMANCE_MAX_TRIP_COUNT)
        inputs, _ = case.data_sets[0]
        rep.run([numpy_helper.to_array(x) if isinstance(x, TensorProto) else x for x in inputs])
        for ex, plan in rep._executors.values():
            assert ex.host_round_trips == 0, case.name
            assert not any(isinstance(s, (IfStep, LoopStep, ScanStep)) for s in plan.steps_within()), case.name
        ran += 1
    assert ran >= 22, ran


def test_a_body_kernel_with_its_own_grid_barrier_keeps_the_region_on_the_host():
    t = get_target("h100")
    k = Kernel(entry="coop", source="BY_DEVICE void coop_body(float* a, const by_block_index by_block) {}\n",
               params=(), grid=(4, 1, 1), block=(128, 1, 1), cooperative=True)
    body = Plan(inputs=(), outputs=(), steps=(LaunchStep(k),), types=(), constants=())
    why, _ = obstacle(IfStep(cond="p", then_plan=body, else_plan=body, outputs=()), t)
    assert why is not None and "grid-wide barrier" in why
    plain = Kernel(entry="plain", source=k.source.replace("coop", "plain"), params=(), grid=(4, 1, 1),
                   block=(128, 1, 1))
    narrow = Kernel(entry="narrow", source="BY_DEVICE void narrow_body(float* a, const by_block_index by_block) "
                    "{ int n = __syncthreads_count(1); }\n", params=(), grid=(4, 1, 1), block=(64, 1, 1))
    both = Plan(inputs=(), outputs=(), steps=(LaunchStep(plain), LaunchStep(narrow)), types=(), constants=())
    why, _ = obstacle(IfStep(cond="p", then_plan=both, else_plan=both, outputs=()), t)
    assert why is not None and "block's barrier" in why
    ok = Plan(inputs=(), outputs=(), steps=(LaunchStep(plain),), types=(), constants=())
    why, shape = obstacle(IfStep(cond="p", then_plan=ok, else_plan=ok, outputs=()), t)
    assert why is None and shape["threads"] == 128 and shape["grid"] == 4


@pytest.mark.parametrize("disable", [(), ("grinder",)])
def test_report_lists_every_region(disable):
    path = os.path.join(MODELS, "rnn_loop.onnx")
    art = _compile(path, *disable)
    cf = art.report["control_flow"]
    assert cf["enabled"] == (not disable)
    assert len(cf["regions"]) == 1 and cf["regions"][0]["op"] == "Loop"
    (loop_node,) = [n.name for n in onnx.load(path).graph.node if n.op_type == "Loop"]
    assert cf["regions"][0]["node"] == loop_node
    if disable:
        assert cf["regions"][0] == {"node": loop_node, "op": "Loop", "runs": "host", "why": "--disable grinder"}
        assert cf["host_round_trips_per_inference"] is None   # a while loop: the data decides
    else:
        r = cf["regions"][0]
        assert r["runs"] == "device" and r["kernel"].startswith("device_loop_")
        assert r["predicted_us_per_iteration"]["device"] < r["predicted_us_per_iteration"]["host"]
        assert art.report["schedule"]["cuda_graph"]["replayed"] is True


def test_a_body_co_launched_at_one_step_and_alone_at_another_is_defined_once(tmp_path):
    # without the welder stage, rnn_loop's body has the same add kernel inside a rammer co-launch
    # and launched alone: NVRTC refused the region kernel that defined it twice
    from kernel_cache import KernelStore
    path = os.path.join(MODELS, "rnn_loop.onnx")
    art = compiler.compile(path, "h100", CompileOptions(disable=("welder",)), store=KernelStore(str(tmp_path)))
    (region,) = [k for k in art.report["kernels"] if k["name"].startswith("device_loop_")]
    assert art.report["control_flow"]["regions"][0]["runs"] == "device"
    data = np.load(os.path.join(MODELS, "rnn_loop.npz"))
    inputs = {k[3:]: data[k] for k in data.files if k.startswith("in:")}
    got = Executor(art.plan, HostBackend(mode="default")).run(inputs)
    for k in data.files:
        if k.startswith("out:"):
            np.testing.assert_allclose(got[k[4:]], data[k], rtol=1e-4, atol=1e-5)


def test_a_body_in_co_launches_of_two_widths_in_one_region_is_defined_for_each():
    """Both branches co-launch the same softmax (a 32-thread row kernel) with a kernel of their
    own: 256 threads wide in one (run as sub-blocks of the 512-thread region: its bodies rewritten
    for the sub-block), 512 in the other. The host build refused the region kernel that defined
    the softmax body twice, once per width, under one name (found by test_control_flow_fuzz.py)."""
    rows, n, wide = 6, 5, 512
    then_g = helper.make_graph([helper.make_node("Softmax", ["x"], ["t1"], axis=-1),
                                helper.make_node("ReduceMax", ["y"], ["t2"], keepdims=1),
                                helper.make_node("Add", ["z", "t2"], ["t2b"]),
                                helper.make_node("Tanh", ["t2b"], ["t3"])], "then", [],
                               [_vi("t1", [rows, n]), _vi("t3", [rows, wide])])
    else_g = helper.make_graph([helper.make_node("Softmax", ["x"], ["e1"], axis=-1),
                                helper.make_node("Tanh", ["z"], ["e3"])], "else", [],
                               [_vi("e1", [rows, n]), _vi("e3", [rows, wide])])
    m = _model([helper.make_node("ReduceSum", ["y"], ["s"], keepdims=0),
                helper.make_node("Greater", ["s", "zero"], ["p"]),
                helper.make_node("If", ["p"], ["o1", "o3"], then_branch=then_g, else_branch=else_g)],
               [_vi("x", [rows, n]), _vi("y", [rows, n]), _vi("z", [rows, wide])],
               [_vi("o1", [rows, n]), _vi("o3", [rows, wide])], [_c("zero", 0.0)])
    rng = np.random.default_rng(6)
    for sign in (1, -1):
        on, _ = _check(m, {"x": rng.normal(size=(rows, n)).astype(np.float32),
                           "y": sign * rng.uniform(0.1, 1.0, (rows, n)).astype(np.float32),
                           "z": rng.normal(size=(rows, wide)).astype(np.float32)}, regions_on_device=1)
    (region,) = [k for k in on.plan.kernels() if k.entry.startswith("device_if_")]
    bodies = re.findall(r"BY_DEVICE_CALLED void (softmax\w+)\(", region.source)
    assert len(bodies) == len(set(bodies)) == 2, bodies


def test_a_co_launch_run_as_sub_blocks_gives_its_narrower_members_barriers_of_their_own():
    """A branch co-launches a 32-thread split-K GEMM (barriers on hardware barrier 1, for its own
    threads: co_launch.narrowed) with a 512-thread tanh; the region is 1024 threads wide (a
    whole-value sum), so that co-launch runs as two sub-blocks side by side. Each sub-block's GEMM
    needs a barrier neither the other sub-block nor its own sub-block's other threads use: on one
    barrier, the host harness's shuffled threads deadlocked (found by test_control_flow_fuzz.py)."""
    rows, n = 16, 128
    rng = np.random.default_rng(8)
    then_g = helper.make_graph([helper.make_node("Tanh", ["x"], ["t1"]),
                                helper.make_node("MatMul", ["y", "w"], ["mm"]),
                                helper.make_node("Add", ["mm", "bias"], ["mb"]),
                                helper.make_node("Tanh", ["mb"], ["t2"]),
                                helper.make_node("ReduceSum", ["t2"], ["t3"], keepdims=0)], "then", [],
                               [_vi("t1", [rows, n]), _vi("t2", [rows, n]), _vi("t3", [])])
    else_g = helper.make_graph([helper.make_node("Abs", ["x"], ["e1"]), helper.make_node("Neg", ["y"], ["e2"]),
                                helper.make_node("ReduceMax", ["x"], ["e3"], keepdims=0)], "else", [],
                               [_vi("e1", [rows, n]), _vi("e2", [rows, n]), _vi("e3", [])])
    m = _model([helper.make_node("ReduceSum", ["x"], ["s"], keepdims=0),
                helper.make_node("Greater", ["s", "zero"], ["p"]),
                helper.make_node("If", ["p"], ["o0", "o1", "o2"], then_branch=then_g, else_branch=else_g)],
               [_vi("x", [rows, n]), _vi("y", [rows, n])], [_vi("o0", [rows, n]), _vi("o1", [rows, n]), _vi("o2", [])],
               [_c("zero", 0.0), _c("w", rng.standard_normal((n, n)) / np.sqrt(n)), _c("bias", rng.standard_normal(n) * 0.1)])
    for sign in (1, -1):
        on, _ = _check(m, {"x": (sign * rng.uniform(0.1, 1.0, (rows, n))).astype(np.float32),
                           "y": rng.standard_normal((rows, n)).astype(np.float32)}, regions_on_device=1)
    (region,) = [k for k in on.plan.kernels() if k.entry.startswith("device_if_")]
    assert region.threads == 1024
    # the GEMM as a member of the co-launch run as sub-blocks of 512: barrier 3 + j (sub-block j's
    # own are 1 + j), never the member's 1
    (gemm,) = re.findall(r"BY_DEVICE_CALLED void (matmul\w+_w32_body_s512\w*)\(", region.source)
    body = region.source[region.source.index(gemm):]
    body = body[:body.index("\n}\n")]
    assert set(re.findall(r"by_part_sync\(([^,]+),", body)) == {"3u + threadIdx.x / 512u"}


def test_loop_invariant_work_is_hoisted_out_of_the_body():
    """A body step that reads only values from outside the loop (and constants) runs once, before
    the loop; the loop's kernel no longer contains it. Right on the device and on the host."""
    n = 64
    body = helper.make_graph(
        [helper.make_node("Mul", ["w", "two"], ["w2"]),               # invariant: reads the outer w
         helper.make_node("Tanh", ["w2"], ["tw"]),                    # invariant: reads an invariant
         helper.make_node("Mul", ["x", "tw"], ["xw"]),                # varies: reads the carried x
         helper.make_node("Add", ["xw", "w2"], ["x2"]),
         helper.make_node("Identity", ["c"], ["c2"])],
        "body", [_vi("i", [], TensorProto.INT64), _vi("c", [], TensorProto.BOOL), _vi("x", [n])],
        [_vi("c2", [], TensorProto.BOOL), _vi("x2", [n]), _vi("tw", [n])], initializer=[_c("two", 2.0)])
    m = _model([helper.make_node("Loop", ["trips", "", "x0"], ["x_end", "tws"], body=body)],
               [_vi("x0", [n]), _vi("w", [n])], [_vi("x_end", [n]), _vi("tws", [4, n])],
               [_c("trips", 4, np.int64)])
    rng = np.random.default_rng(4)
    inputs = {"x0": rng.normal(size=n).astype(np.float32), "w": rng.normal(size=n).astype(np.float32) * 0.1}
    on, off = _check(m, inputs, regions_on_device=1)
    (region,) = on.report["control_flow"]["regions"]
    assert len(region["hoisted"]) >= 1   # Mul and Tanh (one kernel once fused)
    loop = next(k for k in on.plan.kernels() if k.entry.startswith("device_loop_"))
    assert not any(h in loop.source for h in region["hoisted"])
    # with the stage off nothing moves: the body still holds every step
    (host_loop,) = [st for st in off.plan.steps if isinstance(st, LoopStep)]
    assert set(region["hoisted"]) <= {k.entry for k in host_loop.body.kernels()}


@pytest.mark.parametrize("name", ["lstm_loop", "nasrnn", "seq2seq", "attn_decode", "blockdrop"])
def test_cocktailer_benchmark_models_run_on_the_device(name):
    """bench/control_flow_models.py at its small size: every region on the device, right in both
    thread orders, and right with the stage off."""
    import sys
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "bench"))
    import control_flow_models as cfm
    m = cfm.MODELS[name](cfm.SIZES["small"])
    regions = sum(n.op_type in ("Loop", "If", "Scan") for n in m.graph.node)
    _check(m, cfm.sample_inputs(m), regions_on_device=regions)


# --- bounded loops: iteration counts known only at run time (issue 15, item 3) ----------------

def _running_sum_until(n: int, trip_count_input: bool):
    """A Loop whose scan output has a run-time length: rows of a running sum until it passes the
    `limit` input (and, with a trip-count input, at most that many rows)."""
    body = helper.make_graph(
        [helper.make_node("Add", ["acc", "x"], ["acc2"]),
         helper.make_node("ReduceSum", ["acc2"], ["s"], keepdims=0),
         helper.make_node("Less", ["s", "limit"], ["go_on"])],
        "body", [_vi("i", [], TensorProto.INT64), _vi("c", [], TensorProto.BOOL), _vi("acc", [n])],
        [_vi("go_on", [], TensorProto.BOOL), _vi("acc2", [n]), _vi("row", [n])])
    body.node.append(helper.make_node("Identity", ["acc2"], ["row"]))
    ins = [_vi("x", [n]), _vi("limit", [])] + ([_vi("m", [], TensorProto.INT64)] if trip_count_input else [])
    loop = helper.make_node("Loop", ["m" if trip_count_input else "m_const", "", "acc0"], ["acc_end", "rows"], body=body)
    inits = [_c("acc0", np.zeros(n)), _c("m_const", 12, np.int64)]
    return _model([loop], ins, [_vi("acc_end", [n]), _vi("rows", [None, n])], inits)


def test_a_dynamic_stop_under_a_constant_trip_count_is_bounded_by_it():
    """Trip count 12, condition from the data: the rows are sized to 12 and trimmed to the count,
    with no option; one (the body runs before the condition is read), four and all 12 iterations."""
    n = 8
    m = _running_sum_until(n, trip_count_input=False)
    x = np.linspace(0.5, 1.5, n).astype(np.float32)
    compiled = (_compile(m), _compile(m, "grinder"))
    (loop,) = [s for s in compiled[1].plan.steps if isinstance(s, LoopStep)]
    assert loop.max_trips == 12 and loop.iterations
    for limit in (0.0, 30.0, 1e9):
        on, _ = _check(m, {"x": x, "limit": np.array(limit, np.float32)}, regions_on_device=1, compiled=compiled)
    assert on.report["control_flow"]["host_round_trips_per_inference"] == 0


def test_a_run_time_trip_count_needs_max_trip_count_and_is_trimmed():
    n = 8
    m = _running_sum_until(n, trip_count_input=True)
    with pytest.raises(UnsupportedOp, match="--max-trip-count"):
        _compile(m)
    x = np.linspace(0.5, 1.5, n).astype(np.float32)
    for trips in (0, 3, 20):
        _check(m, {"x": x, "limit": np.array(1e9, np.float32), "m": np.array(trips, np.int64)}, regions_on_device=1, max_trip_count=20)
    _check(m, {"x": x, "limit": np.array(41.0, np.float32), "m": np.array(20, np.int64)}, regions_on_device=1, max_trip_count=20)


@pytest.mark.parametrize("disable", [(), ("grinder",)])
def test_a_loop_running_past_max_trip_count_is_an_error_not_a_short_answer(disable):
    n = 8
    m = _running_sum_until(n, trip_count_input=True)
    art = _compile(m, *disable, max_trip_count=4)
    ex = Executor(art.plan, HostBackend())
    x = np.ones(n, np.float32)
    got = ex.run({"x": x, "limit": np.array(1e9, np.float32), "m": np.array(4, np.int64)})
    assert got["rows"].shape == (4, n)
    with pytest.raises(RuntimeFault, match="max.trip.count"):
        ex.run({"x": x, "limit": np.array(1e9, np.float32), "m": np.array(5, np.int64)})


def test_computing_with_a_bounded_loops_rows():
    """What follows a bounded Loop computes with its rows as with any value of run-time length
    (docs/adding-ops.md): their mean over the rows that ran (masked, divided by the real count)
    and each row scaled, returned trimmed; the rows past the count are zeros on the device too.
    A reshape mixing the rows is still refused."""
    n = 8
    m = _running_sum_until(n, trip_count_input=True)
    m.graph.node.extend([helper.make_node("ReduceMean", ["rows"], ["mean"], axes=[0], keepdims=0),
                         helper.make_node("Mul", ["rows", "limit"], ["scaled"])])
    del m.graph.output[:]
    m.graph.output.extend([_vi("mean", [n]), _vi("scaled", [None, n])])
    x = np.linspace(0.5, 1.5, n).astype(np.float32)
    compiled = (_compile(m, max_trip_count=16), _compile(m, "grinder", max_trip_count=16))
    assert [o for o, _, _ in compiled[0].plan.output_lengths] == ["scaled"]
    for trips in (0, 3, 16):
        _check(m, {"x": x, "limit": np.array(1e9, np.float32), "m": np.array(trips, np.int64)}, regions_on_device=1,
               compiled=compiled)
    m.graph.node.append(helper.make_node("Flatten", ["rows"], ["flat"], axis=0))
    m.graph.output.extend([_vi("flat", [1, None])])
    with pytest.raises(ShapeError, match="length only known at run time"):
        _compile(m, max_trip_count=16)


def test_a_bounded_loop_survives_the_artifact_round_trip(tmp_path):
    n = 8
    m = _running_sum_until(n, trip_count_input=True)
    art = _compile(m, max_trip_count=16)
    art.save(tmp_path / "a.tar")
    back = load_artifact(tmp_path / "a.tar")
    assert back.plan.output_lengths == art.plan.output_lengths != ()
    x = np.linspace(0.5, 1.5, n).astype(np.float32)
    got = Executor(back.plan, HostBackend()).run({"x": x, "limit": np.array(1e9, np.float32), "m": np.array(5, np.int64)})
    want = _reference(m, {"x": x, "limit": np.array(1e9, np.float32), "m": np.array(5, np.int64)})
    np.testing.assert_allclose(got["rows"], want["rows"], rtol=1e-5)


def test_an_if_with_a_predicate_known_at_import_is_its_chosen_branch():
    """The branch not taken would not even type-check (a Split into more parts than the tensor
    has elements): it is never imported, and no region is left."""
    taken = helper.make_graph([helper.make_node("Mul", ["x", "two"], ["y_then"])], "then", [], [_vi("y_then", [4])],
                              initializer=[_c("two", 2.0)])
    untaken = helper.make_graph([helper.make_node("Split", ["x"], ["a", "b", "c", "d", "e"], num_outputs=5, axis=0),
                                 helper.make_node("Concat", ["a", "b", "c", "d", "e"], ["y_else"], axis=0)],
                                "else", [], [_vi("y_else", [4])])
    m = helper.make_model(helper.make_graph(
        [helper.make_node("Shape", ["x"], ["shape"]),
         helper.make_node("ReduceProd", ["shape"], ["size"], keepdims=0),
         helper.make_node("Less", ["size", "five"], ["small"]),
         helper.make_node("If", ["small"], ["y"], then_branch=taken, else_branch=untaken)],
        "g", [_vi("x", [4])], [_vi("y", [4])], initializer=[_c("five", 5, np.int64)]),
        opset_imports=[helper.make_opsetid("", 18)])
    art = _compile(m)
    assert "If" not in art.report.get("ops", {}) and not any(
        isinstance(s, IfStep) for s in art.plan.steps_within())
    x = np.arange(4, dtype=np.float32)
    np.testing.assert_allclose(Executor(art.plan, HostBackend()).run({"x": x})["y"], 2 * x)


def test_split_k_bodies_in_a_device_loop_count_arrivals_on_counters_of_their_own():
    """A Loop whose body multiplies a skinny carried state by two long-K weights in fp16: the model
    splits K, and the persistent kernel calls both split-K bodies, each with counters of its own
    step (by_block.arrivals) that the last block of each tile resets, every iteration; right in
    both thread orders against onnxruntime."""
    rows, n, trips = 4, 512, 3
    rng = np.random.default_rng(7)
    w1, w2 = (rng.standard_normal((n, n)).astype(np.float32) / np.sqrt(n) for _ in range(2))
    body = helper.make_graph(
        [helper.make_node("Identity", ["c"], ["c2"]),
         helper.make_node("MatMul", ["h", "w1"], ["a"]), helper.make_node("MatMul", ["h", "w2"], ["b"]),
         helper.make_node("Tanh", ["a"], ["ta"]), helper.make_node("Add", ["ta", "b"], ["h2"])],
        "body", [_vi("i", [], TensorProto.INT64), _vi("c", [], TensorProto.BOOL), _vi("h", [rows, n])],
        [_vi("c2", [], TensorProto.BOOL), _vi("h2", [rows, n])])
    m = _model([helper.make_node("Loop", ["trips", "go", "h0"], ["h_final"], body=body)],
               [_vi("h0", [rows, n])], [_vi("h_final", [rows, n])],
               [_c("trips", trips, np.int64), _c("go", True, np.bool_), _c("w1", w1), _c("w2", w2)])
    inputs = {"h0": rng.standard_normal((rows, n)).astype(np.float32)}
    art = compiler.compile(m, "h100", CompileOptions(build=False, precision="fp16"))
    assert art.report["control_flow"]["host_round_trips_per_inference"] == 0
    (region,) = [k for k in art.plan.kernels() if k.cooperative and "device_loop" in k.entry]
    steps = sorted(set(re.findall(r"BY_DEVICE_STATE unsigned int (\w+_s\d+_arrivals)\[", region.source)))
    assert len(steps) == 2, steps                   # one array per split-K step of the body
    for s in steps:
        assert f", {s})" in region.source          # passed to that step's by_block_at
    want = _reference(m, inputs)["h_final"]
    for mode in ("default", "shuffle"):
        got = Executor(art.plan, HostBackend(mode=mode, seed=5)).run(inputs)["h_final"]
        np.testing.assert_allclose(got, want, rtol=0, atol=2e-2 * float(np.abs(want).max()), err_msg=mode)


def test_a_device_region_body_reusing_shared_memory_across_virtual_blocks():
    """A persistent kernel's block runs a body's virtual blocks one after another: where the body
    keeps a tile in shared memory, its threads meet between them (a thread leaving a block early
    would otherwise overwrite the tile another still reads). torchvision's batched_nms as its
    exporter writes it (an If on whether there are boxes, the NMS inside): over 4000 boxes the
    bit-matrix form's overlap tiles are 3969 virtual blocks, more than the persistent grid's
    sub-blocks; right in both thread orders (the race dropped suppressions: RetinaNet kept boxes
    overlapping its better ones)."""
    n = 4000

    def branch(tag, iou):      # batched_nms: each class's boxes offset past the largest coordinate
        nodes = [helper.make_node("ReduceMax", ["boxes"], [f"{tag}_max"], keepdims=0),
                 helper.make_node("Add", [f"{tag}_max", f"{tag}_one"], [f"{tag}_span"]),
                 helper.make_node("Mul", ["labels", f"{tag}_span"], [f"{tag}_off"]),
                 helper.make_node("Unsqueeze", [f"{tag}_off", f"{tag}_axis"], [f"{tag}_off2"]),
                 helper.make_node("Add", ["boxes", f"{tag}_off2"], [f"{tag}_apart"]),
                 helper.make_node("NonMaxSuppression", [f"{tag}_apart", "scores", f"{tag}_m", f"{tag}_iou"],
                                  [f"{tag}_sel"])]
        return helper.make_graph(nodes, tag, [], [_vi(f"{tag}_sel", None, TensorProto.INT64)],
                                 initializer=[_c(f"{tag}_m", [300], np.int64), _c(f"{tag}_iou", [iou]),
                                              _c(f"{tag}_one", 1.0), _c(f"{tag}_axis", [2], np.int64)])
    nodes = [helper.make_node("ReduceSum", ["scores"], ["total"], keepdims=0),
             helper.make_node("Greater", ["total", "zero"], ["some"]),
             helper.make_node("If", ["some"], ["sel"], then_branch=branch("t", 0.5), else_branch=branch("e", 0.3))]
    model = _model(nodes, [_vi("boxes", [1, n, 4]), _vi("scores", [1, 1, n]), _vi("labels", [1, n])],
                   [_vi("sel", ["k", 3], TensorProto.INT64)], [_c("zero", 0.0)])
    rng = np.random.default_rng(5)
    xy = rng.random((1, n, 2)).astype(np.float32) * 100     # crowded: most boxes overlap a better one
    boxes = np.concatenate([xy, xy + rng.random((1, n, 2)).astype(np.float32) * 20 + 20], -1)
    labels = rng.integers(0, 3, (1, n)).astype(np.float32)
    on, _ = _check(model, {"boxes": boxes, "scores": rng.random((1, 1, n)).astype(np.float32), "labels": labels},
                   regions_on_device=1)
    assert any("nms_mask" in k.source for k in on.plan.kernels())
