"""Index canonicalisation (passes/indices.py): the divisions a reshape chain leaves in a fused
spec's index arithmetic, removed where the bounds prove them away, with the model still right on the
host harness; a spec with nothing to remove is the same spec."""
from __future__ import annotations

import numpy as np
from onnx import TensorProto, helper, numpy_helper

from compiler import compile
from compiler.analysis.quasi_affine import divisions
from compiler.frontend.onnx_import import import_model
from compiler.ir.plan import ComputeStep
from compiler.passes.indices import simplify_plan
from compiler.passes.lower import lower_graph
from compiler.passes.welder import welder_plan
from compiler.targets import get_target
from compiler.pipeline import CompileOptions, plan_before
from compiler.runtime.executor import Executor, make_backend

from .test_resident import make_model

F = TensorProto.FLOAT


def spec_divisions(plan) -> int:
    return sum(divisions(st.expr.body) + (divisions(st.expr.epilogue) if st.expr.epilogue is not None else 0)
               for spec in plan.specs() if hasattr(spec, "stages") for st in spec.stages)


def ints(name, values):
    return numpy_helper.from_array(np.array(values, np.int64), name)


def windows_model() -> bytes:
    """Swin's window partition: x [1, 8, 8, 6] -> [1, 2, 4, 2, 4, 6] -> transpose -> [4, 16, 6],
    then a row's LayerNorm-like reduction and a repeat of 2 key heads to 4 (Expand, Reshape)."""
    nodes = [helper.make_node("Reshape", ["x", "s1"], ["a"]),
             helper.make_node("Transpose", ["a"], ["b"], perm=[0, 1, 3, 2, 4, 5]),
             helper.make_node("Reshape", ["b", "s2"], ["c"]),
             helper.make_node("ReduceMean", ["c", "axes"], ["m"], keepdims=1),
             helper.make_node("Sub", ["c", "m"], ["d"]),
             helper.make_node("Unsqueeze", ["k", "ax1"], ["ku"]),
             helper.make_node("Expand", ["ku", "e"], ["ke"]),
             helper.make_node("Reshape", ["ke", "s3"], ["kr"]),
             helper.make_node("Mul", ["kr", "two"], ["y2"])]
    inits = [ints("s1", [1, 2, 4, 2, 4, 6]), ints("s2", [4, 16, 6]), ints("axes", [-1]), ints("ax1", [2]),
             ints("e", [1, 2, 2, 16, 6]), ints("s3", [1, 4, 16, 6]),
             numpy_helper.from_array(np.array(2.0, np.float32), "two")]
    return make_model(nodes, [("x", F, [1, 8, 8, 6]), ("k", F, [1, 2, 16, 6])],
                      [("d", F, [4, 16, 6]), ("y2", F, [1, 4, 16, 6])], inits)


def test_reshape_chains_lose_their_redundant_divisions_and_stay_right():
    data = windows_model()
    imported = import_model(data)
    composed, _ = welder_plan(lower_graph(imported.graph, imported.opset), get_target("h100"))
    simplified, stats = simplify_plan(composed)
    assert stats["before"] == spec_divisions(composed) > stats["after"] == spec_divisions(simplified)
    assert stats["specs_changed"] >= 1
    rng = np.random.default_rng(0)
    feeds = {"x": rng.standard_normal((1, 8, 8, 6)).astype(np.float32),
             "k": rng.standard_normal((1, 2, 16, 6)).astype(np.float32)}
    c = feeds["x"].reshape(1, 2, 4, 2, 4, 6).transpose(0, 1, 3, 2, 4, 5).reshape(4, 16, 6)
    want = {"d": c - c.mean(-1, keepdims=True), "y2": 2 * np.repeat(feeds["k"], 2, axis=1)}
    for disable in ((), ("welder",)):
        art = compile(data, "h100", CompileOptions(build=False, disable=disable))
        if not disable:     # the report counts them
            assert art.report["fusion"]["index_divisions"] == stats
        for mode in ("default", "shuffle"):
            got = Executor(art.plan, make_backend("host", mode=mode)).run(feeds)
            for name, w in want.items():
                np.testing.assert_allclose(got[name], w, rtol=1e-5, atol=1e-5)
    assert spec_divisions(plan_before("roller", data, "h100", CompileOptions(build=False))) == stats["after"]


def test_a_spec_with_nothing_to_remove_is_the_same_spec(models_dir):
    """bert's specs have no provably redundant division: every step comes back as it was."""
    data = (models_dir / "bert.onnx").read_bytes()
    imported = import_model(data)
    plan, _ = welder_plan(lower_graph(imported.graph, imported.opset), get_target("h100"))
    out, stats = simplify_plan(plan)
    assert stats["specs_changed"] == 0 and stats["before"] == stats["after"]
    for a, b in zip(plan.steps, out.steps):
        if isinstance(a, ComputeStep):
            assert a is b
