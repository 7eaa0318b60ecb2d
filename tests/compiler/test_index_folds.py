"""Index arithmetic folds the same way written or substituted: `binary` cancels an int64 constant
added and taken away ((i - 1) + 1 is i), and `map_children` rebuilds through `binary`, so an index
composed from a slice's offset and a scatter's slot reads as the address it is. A slice assignment
exported as a Slice, a ScatterND and the Transposes around them (torch's dynamo exporter) then
loads each element of its data once, not once per way the composition reached it."""
from __future__ import annotations

import random

import numpy as np
import onnxruntime as ort
from onnx import TensorProto as TP, helper, numpy_helper

from compiler.analysis.views import eval_index
from compiler.ir.compose import compose
from compiler.ir.dataflow import all_steps
from compiler.ir.dtypes import DType
from compiler.ir.plan import ComputeStep
from compiler.ir.texpr import Binary, Const, Load, Var, binary, const, load_counts, substitute_vars
from compiler import compile
from compiler.pipeline import CompileOptions, plan_before
from compiler.runtime.executor import Executor, make_backend

I = Var("i0")


def test_a_constant_added_and_taken_away_cancels():
    one, two = const(1, DType.int64), const(2, DType.int64)
    assert binary("add", binary("sub", I, one), one) is I
    assert binary("add", one, binary("sub", I, one)) is I
    assert binary("sub", binary("add", I, two), two) is I
    assert binary("sub", binary("add", two, I), two) is I
    kept = binary("add", binary("sub", I, two), one)         # i - 2 + 1: not a cancellation
    assert isinstance(kept, Binary) and kept.fn == "add"
    # floats keep their arithmetic (x - 1 + 1 is not x in floating point)
    x = Var("x", DType.float32)
    assert isinstance(binary("add", binary("sub", x, 1.0), 1.0), Binary)


def _random_index(rng: random.Random, depth: int):
    if depth == 0 or rng.random() < 0.2:
        return rng.choice([Var("i0"), Var("i1"), const(rng.randint(-3, 3), DType.int64)])
    return Binary(rng.choice(("add", "sub", "mul")), _random_index(rng, depth - 1), _random_index(rng, depth - 1),
                  DType.int64)


def test_substitution_folds_without_changing_any_value():
    """Random index trees with a variable replaced by another tree: the folded result evaluates
    to what the unfolded one does at every point."""
    rng = random.Random(3)
    for _ in range(300):
        e = Load(0, (_random_index(rng, 4),), DType.float32)
        j = _random_index(rng, 3)
        got = substitute_vars(e, {"i1": j}).index[0]
        for _ in range(5):
            env = {"i0": rng.randint(-20, 20), "i1": rng.randint(-20, 20)}
            want = eval_index(e.index[0], {**env, "i1": eval_index(j, env)})
            assert eval_index(got, env) == want


def _slice_assign(transposed: bool) -> bytes:
    """y = x with rows 1.. replaced by 2 * x[1:] (x[1:] *= 2), written as ScatterND; `transposed`:
    as the dynamo exporter writes it on an inner axis, the axis brought first by a Transpose and
    put back after."""
    n, m = 7, 40
    rows = np.arange(1, n, dtype=np.int64).reshape(n - 1, 1)
    nodes = [helper.make_node("Slice", ["x", "one", "big", "axis"], ["tail"]),
             helper.make_node("Mul", ["tail", "two"], ["upd"])]
    if transposed:
        nodes += [helper.make_node("Transpose", ["x"], ["xt"], perm=[1, 0]),
                  helper.make_node("Transpose", ["upd"], ["ut"], perm=[1, 0]),
                  helper.make_node("ScatterND", ["xt", "rows", "ut"], ["st"]),
                  helper.make_node("Transpose", ["st"], ["y"], perm=[1, 0])]
        axis, shape = 1, [m, n]
    else:
        nodes.append(helper.make_node("ScatterND", ["x", "rows", "upd"], ["y"]))
        axis, shape = 0, [n, m]
    inits = [numpy_helper.from_array(a, k) for k, a in (
        ("one", np.array([1], np.int64)), ("big", np.array([1 << 30], np.int64)),
        ("axis", np.array([axis], np.int64)), ("two", np.array(2.0, np.float32)), ("rows", rows))]
    g = helper.make_graph(nodes, "slice_assign", [helper.make_tensor_value_info("x", TP.FLOAT, shape)],
                          [helper.make_tensor_value_info("y", TP.FLOAT, shape)], inits)
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)]).SerializeToString()


def test_a_slice_assignment_loads_its_data_once_an_element():
    for transposed in (False, True):
        data = _slice_assign(transposed)
        (step,) = [s for s in all_steps(plan_before("render", data, "h100", CompileOptions(build=False)))
                   if isinstance(s, ComputeStep)]
        te, names = compose(step.spec.stages, {s.output for s in step.spec.stages[:-1]})
        loads = [ld for ld in load_counts(te.body) if names[ld.arg] == "x"]
        assert len(loads) == 1, (transposed, [ld.index for ld in loads])
        x = np.random.default_rng(1).standard_normal((40, 7) if transposed else (7, 40)).astype(np.float32)
        want = ort.InferenceSession(data, providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]
        art = compile(data, "h100", CompileOptions(build=False))
        np.testing.assert_array_equal(Executor(art.plan, make_backend("host")).run({"x": x})["y"], want)
