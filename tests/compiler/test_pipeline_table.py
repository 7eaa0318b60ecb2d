"""compiler/pipeline.py is a table of contents: `PASSES` lists the stages between the import prologue
and the package epilogue, each a pass `(plan, context) -> (plan, record)`, and compile() is the loop
over it. Checked on a small MatMul + Add + Relu model: the table's names, each pass's shape and what
it leaves on the context, that compile() runs exactly the table (in order, its IR check after each
pass), and that the report's stages and the progress callbacks follow STAGES."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

from compiler import pipeline
from compiler.context import CompileContext, CompileOptions
from compiler.ir.plan import ComputeStep, LaunchStep, Plan
from compiler.ir.verify import VerifyError
from compiler.pipeline import PASSES, STAGES, compile
from compiler.targets import get_target

H100 = get_target("h100")


def _model() -> bytes:
    rng = np.random.default_rng(0)
    w = numpy_helper.from_array(rng.standard_normal((64, 32)).astype(np.float32), "w")
    b = numpy_helper.from_array(rng.standard_normal((32,)).astype(np.float32), "b")
    v = helper.make_tensor_value_info
    nodes = [helper.make_node("MatMul", ["x", "w"], ["m"]), helper.make_node("Add", ["m", "b"], ["a"]),
             helper.make_node("Relu", ["a"], ["y"])]
    g = helper.make_graph(nodes, "mm_add_relu", [v("x", TensorProto.FLOAT, [16, 64])],
                          [v("y", TensorProto.FLOAT, [16, 32])], [w, b])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString()


def _context(model: bytes, options: CompileOptions) -> CompileContext:
    imported, _ = pipeline._import(model, H100, options, None)
    return CompileContext(model=model, imported=imported, target=H100, options=options)


def test_the_table_lists_the_stages_between_import_and_package():
    assert STAGES == ("import", "lower", "precision", "imma", "welder", "half_storage", "roller", "sparta", "tune", "render", "rammer", "grinder", "build",
                      "memory_plan", "fit",
                      "verify", "package")
    assert tuple(name for name, _ in PASSES) == STAGES[1:-1]
    assert all(callable(run) for _, run in PASSES)
    assert pipeline.CompileOptions is CompileOptions   # the names other code imports from the pipeline
    from compiler.build import build_key, toolchain_key
    from compiler.report import make_report
    assert (pipeline.build_key, pipeline.toolchain_key, pipeline.make_report) == (build_key, toolchain_key, make_report)


def test_every_pass_takes_the_plan_and_context_and_returns_a_plan_and_its_record():
    model = _model()
    ctx = _context(model, CompileOptions(build=False, verify="host"))
    plan = None
    records = {}
    for name, run in PASSES:
        before = plan
        out = run(plan, ctx)
        assert isinstance(out, tuple) and len(out) == 2, name
        plan, records[name] = out
        assert isinstance(plan, Plan) and isinstance(records[name], dict), name
        if name == "lower":
            assert len(plan.specs()) == 3 and not plan.kernels()
            assert records[name] == {"kernels": 3}
        if name == "welder":   # matmul, bias and relu: one register-level group
            assert len(plan.specs()) == 1 and records[name]["kernels_after"] == 1
            assert records[name]["groups"][0]["carried"] == {"m": "register", "a": "register"}
        if name == "tune":    # skipped (build=false): the specs go to render as roller left them
            assert plan is before and plan.specs()
        if name == "render":
            assert not plan.specs() and all(isinstance(s, LaunchStep) for s in plan.steps)
            assert not any(isinstance(s, ComputeStep) for s in plan.steps)
    kernels = {k.digest for k in plan.kernels()}
    assert len(kernels) == 1
    # what the passes left on the context besides the plan
    assert ctx.builds == {} and records["build"] == {"hits": 0, "misses": 0, "kernels": 1}
    assert ctx.tuning["info"]["status"] == "skipped" and ctx.tuning["measured"] == {}
    assert records["tune"] == ctx.tuning["info"]
    assert plan.arena_bytes > 0 and ctx.memory is records["fit"]
    assert ctx.memory["total_bytes"] >= ctx.memory["weights_bytes"] == (64 * 32 + 32) * 4
    assert ctx.verification["device"] == "host" and ctx.verification["max_rel_error"] < 1e-5

    # compile() is this same loop between its prologue and epilogue
    art = compile(model, "h100", CompileOptions(build=False, verify="host"))
    assert [k.digest for k in art.plan.kernels()] == [k.digest for k in plan.kernels()]
    assert art.plan.arena == plan.arena
    assert art.report["memory"] == dict(ctx.memory, workspace_bytes=0)   # report format 2 adds the workspaces
    assert art.report["verification"] == dict(ctx.verification, tolerance=1e-3, non_finite=None, rounding_error=None,
                                              rounded_reference_error=None, outcome="passed")
    assert art.report["tune"] == ctx.tuning["info"]


def test_compile_runs_the_table_in_order_and_reports_every_stage(monkeypatch):
    calls = []

    def traced(name, run):
        def wrapper(plan, ctx):
            calls.append((name, plan is None, isinstance(ctx, CompileContext)))
            return run(plan, ctx)
        return wrapper

    monkeypatch.setattr(pipeline, "PASSES", tuple((name, traced(name, run)) for name, run in PASSES))
    progress = []
    art = compile(_model(), "h100", CompileOptions(build=False), progress=lambda n, f: progress.append((n, f)))
    assert [c[0] for c in calls] == list(STAGES[1:-1])
    assert [c[1] for c in calls] == [True] + [False] * (len(STAGES) - 3)   # only lower starts from no plan
    assert all(c[2] for c in calls)
    assert [s["name"] for s in art.report["compile"]["stages"]] == list(STAGES)
    assert all(s["seconds"] >= 0 for s in art.report["compile"]["stages"])
    assert [n for n, _ in progress] == list(STAGES)
    assert [f for _, f in progress] == [(i + 1) / len(STAGES) for i in range(len(STAGES))]
    assert art.report["compile"]["cache"] == {"hits": 0, "misses": 0}


def test_the_ir_check_runs_after_a_pass_that_changes_the_plan(monkeypatch):
    def reversed_steps(plan, ctx):   # the relu launch now reads the add's output before it is written
        return dataclasses.replace(plan, steps=plan.steps[::-1]), {}

    table = tuple((name, reversed_steps if name == "memory_plan" else run) for name, run in PASSES)
    monkeypatch.setattr(pipeline, "PASSES", table)
    monkeypatch.setattr(pipeline, "CHECK_IR", True)
    with pytest.raises(VerifyError, match="before it is defined"):   # unfused: three launches to reverse
        compile(_model(), "h100", CompileOptions(build=False, disable=("welder",)))
    monkeypatch.setattr(pipeline, "CHECK_IR", False)
    art = compile(_model(), "h100", CompileOptions(build=False, disable=("welder",)))   # unchecked, the broken plan goes through
    assert [k.entry.split("_")[0] for k in art.plan.kernels()] == ["relu", "add", "matmul"]
