"""Each middle stage before and after, on one small graph: MatMul with a constant weight, a bias Add,
a Reshape (an alias), and an If whose branches hold kernels of their own. Each test states what the
stage changes and checks that everything else is left as it was."""
from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

from compiler.frontend.onnx_import import import_model
from compiler.ir.dataflow import all_steps, bodies
from compiler.ir.plan import AliasStep, ComputeStep, IfStep, LaunchStep
from compiler.ir.spec import KernelSpec
from compiler.ir.verify import verify_plan
from compiler.passes.lower import lower_graph
from compiler.passes.memory_plan import plan_memory
from compiler.passes.precision import precision_plan
from compiler.passes.render import render_plan
from compiler.passes.roller import roller_plan
from compiler.targets import get_target

H100 = get_target("h100")


def _model():
    rng = np.random.default_rng(0)
    w = numpy_helper.from_array(rng.standard_normal((64, 32)).astype(np.float32), "w")
    b = numpy_helper.from_array(rng.standard_normal((32,)).astype(np.float32), "b")
    shape = numpy_helper.from_array(np.array([8, 4, 32], np.int64), "shape")
    v = helper.make_tensor_value_info
    then_g = helper.make_graph([helper.make_node("Relu", ["r"], ["t_out"])], "then", [],
                               [v("t_out", TensorProto.FLOAT, [8, 4, 32])])
    else_g = helper.make_graph([helper.make_node("Neg", ["r"], ["e_out"])], "else", [],
                               [v("e_out", TensorProto.FLOAT, [8, 4, 32])])
    nodes = [helper.make_node("MatMul", ["x", "w"], ["m"], name="mm"),
             helper.make_node("Add", ["m", "b"], ["a"], name="bias"),
             helper.make_node("Reshape", ["a", "shape"], ["r"], name="reshape"),
             helper.make_node("If", ["c"], ["y"], name="branch", then_branch=then_g, else_branch=else_g)]
    g = helper.make_graph(nodes, "small", [v("x", TensorProto.FLOAT, [32, 64]), v("c", TensorProto.BOOL, [])],
                          [v("y", TensorProto.FLOAT, [8, 4, 32])], [w, b, shape])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)])


@pytest.fixture(scope="module")
def lowered():
    im = import_model(_model())
    return lower_graph(im.graph, im.opset)


def _specs(plan):
    return [s.spec for s in all_steps(plan) if isinstance(s, ComputeStep)]


def test_lower_makes_one_stage_specs_aliases_and_regions(lowered):
    verify_plan(lowered)
    kinds = [type(s).__name__ for s in lowered.steps]
    assert kinds == ["ComputeStep", "ComputeStep", "AliasStep", "IfStep"], kinds
    specs = _specs(lowered)
    assert len(specs) == 4 and all(isinstance(s, KernelSpec) and len(s.stages) == 1 for s in specs)
    assert [s.ops for s in specs] == [("mm",), ("bias",), ("Relu_0",), ("Neg_0",)]   # unnamed nodes get names
    assert all(s.kind is None and s.config is None and not s.candidates for s in specs)
    assert not any(isinstance(s, LaunchStep) for s in all_steps(lowered))   # no CUDA yet
    (branch,) = [s for s in lowered.steps if isinstance(s, IfStep)]
    assert [len(b.steps) for b in bodies(branch)] == [1, 1]


def test_precision_marks_the_contraction_and_converts_its_weight(lowered):
    fp32, info = precision_plan(lowered, "fp32")
    assert fp32 is lowered and info["contractions"] == 0
    half, info = precision_plan(lowered, "fp16")
    verify_plan(half)
    before, after = _specs(lowered), _specs(half)
    assert info["contractions"] == 1 and info["weights_converted"] == 1
    assert after[0].precision == "fp16" and after[0].stages[0].inputs == ("x", "w.float16")
    assert [s.key for s in after[1:]] == [s.key for s in before[1:]]      # the rest untouched
    assert dict(half.types)["w.float16"].dtype.name == "float16"


def test_precision_for_pricing_types_the_converted_weight_without_its_data(lowered):
    """weights=False (LowerCtx.cheapest's pricing): the same specs and types, no converted constant."""
    half, _ = precision_plan(lowered, "fp16")
    priced, info = precision_plan(lowered, "fp16", weights=False)
    assert [s.key for s in _specs(priced)] == [s.key for s in _specs(half)]
    assert dict(priced.types)["w.float16"] == dict(half.types)["w.float16"]
    assert "w.float16" in dict(half.constants) and "w.float16" not in dict(priced.constants)
    assert info["weights_converted"] == 1


def _decoder_step_model(k: int = 512, n: int = 512):
    """One token (1 x 1 x k) through x . W (a constant k x n weight: 1 MiB at 512 x 512), then the
    sum of its squares (a norm's statistic) scaling it."""
    rng = np.random.default_rng(1)
    w = numpy_helper.from_array((rng.standard_normal((k, n)) / np.sqrt(k)).astype(np.float32), "w")
    v = helper.make_tensor_value_info
    nodes = [helper.make_node("MatMul", ["x", "w"], ["m"], name="mv"),
             helper.make_node("ReduceSumSquare", ["m"], ["ss"], name="norm", keepdims=1),
             helper.make_node("Mul", ["m", "ss"], ["y"], name="scale")]
    g = helper.make_graph(nodes, "step", [v("x", TensorProto.FLOAT, [1, 1, k])],
                          [v("y", TensorProto.FLOAT, [1, 1, n])], [w])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)])


def test_precision_rounds_a_matrix_vector_product_but_not_a_sum_of_squares():
    """A decoder step's x . W has no GEMM view (one token: no M), yet its weight is nearly all of
    its traffic: fp16 converts the weight and rounds x; the sum of squares after it (both factors
    over the same axes) stays fp32, and so does a product whose weight is under 1 MiB. The plan
    stays right on the host harness."""
    from compiler import compile
    from compiler.pipeline import CompileOptions
    from compiler.runtime.executor import Executor, make_backend
    im = import_model(_decoder_step_model())
    plan = lower_graph(im.graph, im.opset)
    half, info = precision_plan(plan, "fp16")
    verify_plan(half)
    assert info["contractions"] == 1 and info["weights_converted"] == 1 and info["weight_bytes_saved"] == 512 * 512 * 2
    mv, norm = _specs(half)[:2]
    assert mv.precision == "fp16" and mv.stages[0].inputs == ("x", "w.float16") and norm.precision is None
    im = import_model(_decoder_step_model(512, 511))          # a byte under the threshold
    assert precision_plan(lower_graph(im.graph, im.opset), "fp16")[1]["contractions"] == 0
    data = _decoder_step_model().SerializeToString()
    x = np.random.default_rng(2).standard_normal((1, 1, 512)).astype(np.float32)
    w = numpy_helper.to_array(_decoder_step_model().graph.initializer[0])

    def step(m):
        return m * (m * m).sum(-1, keepdims=True)
    got = {}
    for precision in ("fp32", "fp16"):
        art = compile(data, "h100", CompileOptions(build=False, precision=precision))
        got[precision] = Executor(art.plan, make_backend("host")).run({"x": x})["y"]
    exact = step(x @ w)
    rounded = step(x.astype(np.float16).astype(np.float32) @ w.astype(np.float16).astype(np.float32))
    np.testing.assert_allclose(got["fp32"], exact, rtol=2e-4)     # summation order over k = 512
    np.testing.assert_allclose(got["fp16"], rounded, rtol=2e-4)      # operands rounded, sums in fp32
    assert np.abs(got["fp16"] - exact).max() > 10 * np.abs(got["fp16"] - rounded).max()
    np.testing.assert_allclose(got["fp16"], exact, rtol=1e-2, atol=1e-2 * np.abs(exact).max())


def test_roller_gives_every_tileable_spec_a_kind_and_its_candidates(lowered):
    tiled, stats = roller_plan(lowered, H100)
    verify_plan(tiled)
    specs = _specs(tiled)
    assert stats["tiled"] == 4 and all(s.kind is not None and s.config is s.candidates[0] for s in specs)
    assert specs[0].kind in ("gemm", "tc_gemm", "wgmma_gemm")
    assert [s.stages for s in specs] == [s.stages for s in _specs(lowered)]   # what is computed is unchanged
    assert [type(s) for s in tiled.steps] == [type(s) for s in lowered.steps]


def test_render_turns_every_spec_into_launches_and_keeps_the_rest(lowered):
    tiled, _ = roller_plan(lowered, H100)
    rendered, stats = render_plan(tiled, H100)
    verify_plan(rendered)
    assert not _specs(rendered) and stats["launches"] == len(rendered.kernels()) >= 4
    assert [type(s).__name__ for s in rendered.steps][2:] == ["AliasStep", "IfStep"]
    assert all(k.source and k.entry in k.source for k in rendered.kernels())
    assert dict(rendered.kernels()[0].config)["schedule"].startswith("roller_")
    untiled, _ = render_plan(lowered, H100)          # untiled specs render one thread per element
    assert all(dict(k.config)["schedule"] == "simt_elementwise" for k in untiled.kernels())


def test_memory_plan_places_intermediates_in_every_plan(lowered):
    rendered, _ = render_plan(roller_plan(lowered, H100)[0], H100)
    planned = plan_memory(rendered)
    verify_plan(planned)
    assert dict(planned.arena).keys() >= {"m", "a"} and planned.arena_bytes >= 2 * 32 * 32 * 4
    assert [s.kernel for s in planned.steps if isinstance(s, LaunchStep)] == \
        [s.kernel for s in rendered.steps if isinstance(s, LaunchStep)]
    assert isinstance(planned.steps[2], AliasStep)
