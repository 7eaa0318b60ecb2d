"""Rammer's barrier variant (issue 14 item 2, passes/rammer.py `_join`, codegen/co_launch.py):
consecutive launches joined in one cooperative launch whose blocks wait on step counters for the
members they read. The host harness keeps every block of a cooperative launch alive as fibers and
reports a wait no block can end as a deadlock, so a wrong dependence shows up as a wrong result
or a fault, never as a hang; each stress case still runs in a child process under a time limit."""
from __future__ import annotations

import multiprocessing as mp
import re

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

from compiler import compile
from compiler.context import CompileOptions
from compiler.runtime.executor import Executor, make_backend
from compiler.errors import RuntimeFault
from compiler.targets import get_target

CASE_SECONDS = 120      # a case (compile, host build, four runs) far slower than this has hung
SHAPES = ((8, 32), (96, 32), (300, 48))   # one block per kernel up to several per member


def random_dag(seed: int) -> tuple[bytes, dict]:
    """A random DAG of 5..12 small ops over [ROWS, COLS] values (a shape of SHAPES by seed):
    elementwise maps and binaries, MatMul by a constant, Softmax and ReduceSum with a broadcast
    back; each node reads one or two earlier values (inputs included), every value nobody reads
    is an output."""
    rng = np.random.default_rng(seed)
    ROWS, COLS = SHAPES[seed % len(SHAPES)]
    values = ["x0", "x1"]
    nodes, inits, used = [], [], set()
    for n in range(int(rng.integers(5, 13))):
        a = values[int(rng.integers(len(values)))]
        b = values[int(rng.integers(len(values)))]
        out = f"v{n}"
        kind = rng.choice(["add", "mul", "sub", "relu", "tanh", "matmul", "softmax", "rowsum"])
        if kind in ("add", "mul", "sub"):
            nodes.append(helper.make_node(kind.capitalize(), [a, b], [out]))
            used |= {a, b}
        elif kind in ("relu", "tanh"):
            nodes.append(helper.make_node(kind.capitalize(), [a], [out]))
            used.add(a)
        elif kind == "matmul":
            w = (rng.standard_normal((COLS, COLS)) / np.sqrt(COLS)).astype(np.float32)
            inits.append(numpy_helper.from_array(w, f"w{n}"))
            nodes.append(helper.make_node("MatMul", [a, f"w{n}"], [out]))
            used.add(a)
        elif kind == "softmax":
            nodes.append(helper.make_node("Softmax", [a], [out], axis=-1))
            used.add(a)
        else:   # a row statistic broadcast back over the row
            nodes.append(helper.make_node("ReduceSum", [a, "axes"], [f"{out}_s"], keepdims=1))
            nodes.append(helper.make_node("Sub", [b, f"{out}_s"], [out]))
            used |= {a, b}
        values.append(out)
    inits.append(numpy_helper.from_array(np.array([-1], np.int64), "axes"))
    outputs = [v for v in values[2:] if v not in used] or [values[-1]]
    g = helper.make_graph(nodes, f"dag{seed}",
                          [helper.make_tensor_value_info(x, TensorProto.FLOAT, [ROWS, COLS]) for x in ("x0", "x1")],
                          [helper.make_tensor_value_info(v, TensorProto.FLOAT, [ROWS, COLS]) for v in outputs], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)])
    m.ir_version = 10
    onnx.checker.check_model(m)
    feeds = {x: rng.standard_normal((ROWS, COLS)).astype(np.float32) for x in ("x0", "x1")}
    return m.SerializeToString(), feeds


def _stress_case(seed: int, disable: tuple[str, ...]):
    """Compile a random DAG with barriers, run it in default and shuffle order (three seeds),
    compare with ONNX's reference evaluator: (errors, each joined launch's waits, its blocks)."""
    data, feeds = random_dag(seed)
    want = dict(zip([o.name for o in onnx.load_from_string(data).graph.output],
                    ReferenceEvaluator(onnx.load_from_string(data)).run(None, feeds)))
    art = compile(data, "h100", CompileOptions(build=False, barriers=True, disable=disable))
    errors = []
    for mode, s in (("default", 0), ("shuffle", 1), ("shuffle", 2), ("shuffle", 3)):
        got = Executor(art.plan, make_backend("host", mode=mode, seed=s)).run(feeds)
        for name, w in want.items():
            errors.append(float(np.max(np.abs(got[name] - w)) / (np.max(np.abs(w)) + 1e-6)))
    joined = art.report["schedule"]["barrier_launches"]
    return errors, [[m["waits_for"] for m in b["members"]] for b in joined], residency_faults(art.plan)


def residency_faults(plan) -> list[str]:
    """Joined launches whose blocks an H100 could not hold all at once, by the launch bounds the
    kernel asks for (threads and shared memory of that many blocks per SM, times the SMs)."""
    h100 = get_target("h100")
    faults = []
    for s in plan.steps:
        k = getattr(s, "kernel", None)
        if k is None or dict(k.config).get("schedule") != "rammer_barrier":
            continue
        threads, per_sm = map(int, re.search(r"__launch_bounds__\((\d+), (\d+)\)", k.source).groups())
        if not (k.cooperative and per_sm * h100.sms >= k.blocks and per_sm * threads <= h100.max_threads_per_sm
                and per_sm * k.shared_bytes <= h100.shared_per_sm):
            faults.append(f"{k.entry}: {k.blocks} blocks of {threads} threads, {k.shared_bytes} B shared, {per_sm}/SM")
    return faults


def _child(fn, args, conn) -> None:
    try:
        conn.send(("ok", fn(*args)))
    except BaseException as e:   # noqa: BLE001 - reported to the parent as the case's failure
        conn.send(("error", f"{type(e).__name__}: {e}"))


def in_child(fn, *args):
    """fn(*args) in a forked child under CASE_SECONDS: a hang fails the test instead of stalling
    it, and a cooperative launch's hundreds of thousands of fiber stacks (and their guard-page
    mappings) go with the child instead of staying in the test process."""
    ctx = mp.get_context("fork")
    parent, child = ctx.Pipe(duplex=False)
    p = ctx.Process(target=_child, args=(fn, args, child))
    p.start()
    child.close()
    if not parent.poll(CASE_SECONDS):
        p.kill()
        p.join()
        pytest.fail(f"{fn.__name__}{args}: no result in {CASE_SECONDS} s (a hang)")
    status, result = parent.recv()
    p.join()
    assert status == "ok", f"{fn.__name__}{args}: {result}"
    return result


def test_random_dags_stay_right_and_never_hang():
    """Twenty random DAGs, half with the welder stage off (more and smaller kernels to join):
    right in every thread order, every joined launch within what the SMs hold at once, and the
    stress actually joins dependent kernels (members that wait)."""
    waited = launches = 0
    for seed in range(20):
        disable = ("welder",) if seed % 2 else ()
        errors, joins, faults = in_child(_stress_case, seed, disable)
        assert max(errors) < 1e-4, (seed, errors)
        launches += len(joins)
        waited += sum(1 for j in joins for w in j if w)
        assert not faults, faults
    assert launches >= 10 and waited >= 20, (launches, waited)


def _bert_errors(models_dir) -> list[float]:
    ref = np.load(models_dir / "bert.npz")
    inputs = {k[3:]: ref[k] for k in ref.files if k.startswith("in:")}
    art = compile(str(models_dir / "bert.onnx"), "h100", CompileOptions(build=False, barriers=True))
    errors = []
    for mode in ("default", "shuffle"):
        out = Executor(art.plan, make_backend("host", mode=mode, seed=5)).run(inputs)
        errors += [float(np.max(np.abs(out[k[4:]] - ref[k])) / np.max(np.abs(ref[k])))
                   for k in ref.files if k.startswith("out:")]
    return errors


def test_bert_joins_dependent_launches_and_stays_right(models_dir):
    plain = compile(str(models_dir / "bert.onnx"), "h100", CompileOptions(build=False))
    art = compile(str(models_dir / "bert.onnx"), "h100", CompileOptions(build=False, barriers=True))
    sched = art.report["schedule"]
    assert sched["barriers"] and sched["barrier_launches"]
    assert art.report["launches_per_inference"] < plain.report["launches_per_inference"]
    for b in sched["barrier_launches"]:
        assert b["predicted_us"]["joined"] < b["predicted_us"]["apart"]
        assert b["members"][0]["waits_for"] == [] and any(m["waits_for"] for m in b["members"][1:])
    barrier_kernels = [s.kernel for s in art.plan.steps if getattr(s, "kernel", None) is not None
                       and dict(s.kernel.config).get("schedule") == "rammer_barrier"]
    assert barrier_kernels and all(k.cooperative for k in barrier_kernels)
    assert all("__restrict__" not in k.source for k in barrier_kernels)
    errors = in_child(_bert_errors, models_dir)
    assert errors and max(errors) < 1e-4, errors


def test_off_by_default():
    data, _ = random_dag(3)
    art = compile(data, "h100", CompileOptions(build=False, disable=("welder",)))
    assert CompileOptions().barriers is False
    assert art.report["schedule"]["barrier_launches"] == []
    assert not any(dict(s.kernel.config).get("schedule") == "rammer_barrier"
                   for s in art.plan.steps if getattr(s, "kernel", None) is not None)


def test_a_wait_that_cannot_end_is_a_deadlock_fault_not_a_hang():
    """The same joined launch with one wait asking for a block more than its producer has: the
    host harness stops with a deadlock naming by_step_wait."""
    import dataclasses
    from compiler.ir.plan import LaunchStep
    data, feeds = random_dag(1)
    art = compile(data, "h100", CompileOptions(build=False, barriers=True, disable=("welder",)))
    steps = list(art.plan.steps)
    (k,) = [j for j, s in enumerate(steps) if isinstance(s, LaunchStep)
            and dict(s.kernel.config).get("schedule") == "rammer_barrier"][:1]
    kern = steps[k].kernel
    m = re.search(r"by_step_wait\(&(\w+)\[(\d+)\], (\d+)u\)", kern.source)
    assert m, kern.source[:2000]
    broken = kern.source.replace(m.group(0), f"by_step_wait(&{m.group(1)}[{m.group(2)}], {int(m.group(3)) + 1}u)", 1)
    steps[k] = LaunchStep(dataclasses.replace(kern, source=broken.replace(kern.entry, kern.entry + "_broken"),
                                              entry=kern.entry + "_broken"))
    plan = dataclasses.replace(art.plan, steps=tuple(steps))
    with pytest.raises(RuntimeFault, match="deadlock.*by_step_wait"):
        Executor(plan, make_backend("host", mode="default", seed=0)).run(feeds)
