"""The welder stage (register level): small ONNX graphs compiled with fusion on and with
`--disable welder`, run on the host harness (default and shuffled thread order) against
onnxruntime; the report's kernels, carried values, traffic and fusion decisions."""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

from compiler import compile
from compiler.errors import CompilerError
from compiler.pipeline import CompileOptions
from compiler.report import report_html
from compiler.runtime.executor import Executor, make_backend

RNG = np.random.default_rng(7)


def model(nodes, inputs, outputs, inits=()) -> bytes:
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in inputs],
                          [helper.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in outputs],
                          [numpy_helper.from_array(a, n) for n, a in inits])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)])
    m.ir_version = 9
    onnx.checker.check_model(m)
    return m.SerializeToString()


def weight(*shape):
    return (RNG.standard_normal(shape) / np.sqrt(shape[0])).astype(np.float32)


def check(data: bytes, feeds: dict, *, disable=()):
    """Compiles, runs on the host harness in both thread orders, compares with onnxruntime; the
    report. The rammer stage is off, so launches are the welder stage's alone."""
    art = compile(data, "h100", CompileOptions(build=False, disable=("rammer", *disable)))
    want = ort.InferenceSession(data, providers=["CPUExecutionProvider"]).run(None, feeds)
    for mode in ("default", "shuffle"):
        got = Executor(art.plan, make_backend("host", mode=mode)).run(feeds)
        for name, w in zip(art.plan.outputs, want):
            np.testing.assert_allclose(got[name], w, rtol=1e-4, atol=1e-4, err_msg=f"{name} ({mode})")
    return art.report


def both(data: bytes, feeds: dict):
    return check(data, feeds), check(data, feeds, disable=("welder",))


def gelu_mlp() -> bytes:
    """MatMul + bias + GELU (erf form, as exporters write it)."""
    nodes = [helper.make_node("MatMul", ["x", "w"], ["mm"]), helper.make_node("Add", ["mm", "b"], ["h"]),
             helper.make_node("Div", ["h", "sqrt2"], ["d"]), helper.make_node("Erf", ["d"], ["e"]),
             helper.make_node("Add", ["e", "one"], ["e1"]), helper.make_node("Mul", ["h", "e1"], ["p"]),
             helper.make_node("Mul", ["p", "half"], ["y"])]
    inits = [("w", weight(32, 48)), ("b", weight(48)), ("sqrt2", np.array(np.sqrt(2), np.float32)),
             ("one", np.array(1, np.float32)), ("half", np.array(0.5, np.float32))]
    return model(nodes, [("x", [2, 8, 32])], [("y", [2, 8, 48])], inits)


def test_matmul_bias_gelu_is_one_kernel():
    fused, unfused = both(gelu_mlp(), {"x": RNG.standard_normal((2, 8, 32)).astype(np.float32)})
    assert unfused["launches_per_inference"] == 7 and fused["launches_per_inference"] == 1
    (k,) = fused["kernels"]
    assert len(k["ops"]) == 7
    assert {c["level"] for c in k["carried"]} == {"register"} and len(k["carried"]) == 6
    assert fused["traffic"]["dram_bytes"] < unfused["traffic"]["dram_bytes"]
    assert fused["fusion"]["enabled"] and fused["fusion"]["kernels_before"] == 7
    assert not unfused["fusion"]["enabled"] and unfused["kernels"][0]["carried"] == []


def test_conv_bias_residual_relu_is_one_kernel():
    nodes = [helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1]),
             helper.make_node("Add", ["c", "x"], ["s"]), helper.make_node("Relu", ["s"], ["y"])]
    data = model(nodes, [("x", [1, 4, 6, 6])], [("y", [1, 4, 6, 6])], [("w", weight(4, 4, 3, 3)), ("b", weight(4))])
    fused, unfused = both(data, {"x": RNG.standard_normal((1, 4, 6, 6)).astype(np.float32)})
    assert unfused["launches_per_inference"] == 3 and fused["launches_per_inference"] == 1


def test_head_split_transpose_and_scale_fold_into_the_projection():
    """MatMul -> bias -> Reshape -> Transpose -> scale: the reshape alias and the transpose become
    the projection's output index map (attention's Q path)."""
    nodes = [helper.make_node("MatMul", ["x", "w"], ["mm"]), helper.make_node("Add", ["mm", "b"], ["q"]),
             helper.make_node("Reshape", ["q", "shape"], ["heads"]),
             helper.make_node("Transpose", ["heads"], ["t"], perm=[0, 2, 1, 3]),
             helper.make_node("Mul", ["t", "scale"], ["y"])]
    inits = [("w", weight(32, 32)), ("b", weight(32)), ("shape", np.array([1, 8, 4, 8], np.int64)),
             ("scale", np.array(0.35, np.float32))]
    data = model(nodes, [("x", [1, 8, 32])], [("y", [1, 4, 8, 8])], inits)
    fused, unfused = both(data, {"x": RNG.standard_normal((1, 8, 32)).astype(np.float32)})
    assert unfused["launches_per_inference"] == 4 and fused["launches_per_inference"] == 1


def _split_attention_scores(k_map="Mul", k_is_output=False) -> bytes:
    """Q.K^T as the SDPA export writes it after a fused QKV projection: Split, per-head Reshape and
    Transpose, both sides scaled by a constant (`k_map` on K: Mul, or Exp that computes)."""
    nodes = [helper.make_node("Split", ["x"], ["q", "k"], axis=2, num_outputs=2),
             helper.make_node("Reshape", ["q", "heads"], ["qh"]),
             helper.make_node("Transpose", ["qh"], ["qt"], perm=[0, 2, 1, 3]),
             helper.make_node("Mul", ["qt", "scale"], ["qs"]),
             helper.make_node("Reshape", ["k", "heads"], ["kh"]),
             helper.make_node("Transpose", ["kh"], ["kt"], perm=[0, 2, 3, 1]),
             helper.make_node("Mul", ["kt", "scale"], ["ks"]) if k_map == "Mul" else helper.make_node("Exp", ["kt"], ["ks"]),
             helper.make_node("MatMul", ["qs", "ks"], ["y"])]
    inits = [("heads", np.array([1, 8, 2, 8], np.int64)), ("scale", np.array(0.5, np.float32))]
    outputs = [("y", [1, 2, 8, 8])] + ([("ks", [1, 2, 8, 8])] if k_is_output else [])
    return model(nodes, [("x", [1, 8, 32])], outputs, inits)


def test_a_contraction_takes_in_the_maps_of_its_other_operand():
    """Q's group takes the MatMul; K's split part, reshape, transpose and scale are taken in with
    it (they only move data or cost a multiply), so K is never written: one kernel, not two."""
    data = _split_attention_scores()
    fused, unfused = both(data, {"x": RNG.standard_normal((1, 8, 32)).astype(np.float32)})
    assert fused["launches_per_inference"] == 1 and unfused["launches_per_inference"] > 2
    (group,) = fused["fusion"]["groups"]
    assert sum(op.startswith("Mul") for op in group["ops"]) == 2 and any(op.startswith("MatMul") for op in group["ops"])


def test_gpt2_attention_keeps_its_k_maps_in_the_flash_attention_kernel():
    """GPT-2's export at its head size in fp16: Q, K and V split from one projection, K reshaped,
    transposed, reshaped again and scaled, a causal mask, softmax, P.V. The attention is one
    flash_attention kernel that also computes K's maps; the output matches onnxruntime."""
    S, heads, D = 128, 12, 64          # GPT-2 small's attention (at 2 heads resident_rows is predicted faster)
    H = heads * D
    nodes = [helper.make_node("Split", ["x"], ["q", "k", "v"], axis=2, num_outputs=3)]
    for t in "qkv":
        nodes += [helper.make_node("Reshape", [t, "heads"], [t + "h"]),
                  helper.make_node("Transpose", [t + "h"], [t + "t"], perm=[0, 2, 1, 3])]
    nodes += [helper.make_node("Reshape", ["kt", "k3"], ["kr"]), helper.make_node("Transpose", ["kr"], ["krt"], perm=[0, 2, 1]),
              helper.make_node("Reshape", ["krt", "k4"], ["kT"]),
              helper.make_node("Mul", ["qt", "scale"], ["qs"]), helper.make_node("Mul", ["kT", "scale"], ["ks"]),
              helper.make_node("MatMul", ["qs", "ks"], ["s"]), helper.make_node("Add", ["s", "causal"], ["sm"]),
              helper.make_node("Softmax", ["sm"], ["a"], axis=-1), helper.make_node("MatMul", ["a", "vt"], ["y"])]
    inits = [("heads", np.array([1, S, heads, D], np.int64)), ("k3", np.array([heads, S, D], np.int64)),
             ("k4", np.array([1, heads, D, S], np.int64)), ("scale", np.array(D ** -0.25, np.float32)),
             ("causal", np.triu(np.full((S, S), -1e4, np.float32), 1)[None, None])]
    data = model(nodes, [("x", [1, S, 3 * H])], [("y", [1, heads, S, D])], inits)
    art = compile(data, "h100", CompileOptions(build=False, precision="fp16", disable=("rammer",)))
    (k,) = art.report["kernels"]
    assert k["config"]["schedule"] == "flash_attention"
    assert sum(op.startswith("Mul") for op in k["ops"]) == 2, k["ops"]     # Q's scale and K's
    x = RNG.standard_normal((1, S, 3 * H)).astype(np.float32)
    (want,) = ort.InferenceSession(data, providers=["CPUExecutionProvider"]).run(None, {"x": x})
    got = Executor(art.plan, make_backend("host")).run({"x": x})["y"]
    assert np.max(np.abs(got - want)) / np.max(np.abs(want)) < 1e-2


@pytest.mark.parametrize("case", ["computes", "read_elsewhere"])
def test_an_operand_map_that_computes_or_is_read_elsewhere_stays_its_own_kernel(case):
    """K's maps are not taken in when they compute (Exp: recomputed per tile) or when their value
    is also a graph output (it must be written anyway)."""
    data = _split_attention_scores(k_map="Exp") if case == "computes" else _split_attention_scores(k_is_output=True)
    rep = check(data, {"x": RNG.standard_normal((1, 8, 32)).astype(np.float32)})
    assert rep["launches_per_inference"] == 2


def _rotate_half(expensive_half: bool = False) -> bytes:
    """A rotary embedding as exporters write it: t * cos + Concat(-t[..., 4:], t[..., :4]) * sin.
    Each of its maps reads another's value one-to-one, and they meet in the Concat and the Add, so
    a group grown forward from the first Slice leaves the negated half and t * cos behind.
    `expensive_half` makes the negated half an Erf (not a few operations per element)."""
    nodes = [helper.make_node("Slice", ["t", "zero", "half", "last"], ["x1"]),
             helper.make_node("Slice", ["t", "half", "end", "last"], ["x2"]),
             helper.make_node("Erf" if expensive_half else "Neg", ["x2"], ["n2"]),
             helper.make_node("Concat", ["n2", "x1"], ["rot"], axis=-1),
             helper.make_node("Mul", ["t", "cos"], ["tc"]), helper.make_node("Mul", ["rot", "sin"], ["rs"]),
             helper.make_node("Add", ["tc", "rs"], ["y"])]
    inits = [("zero", np.array([0], np.int64)), ("half", np.array([4], np.int64)),
             ("end", np.array([8], np.int64)), ("last", np.array([-1], np.int64)),
             ("cos", RNG.standard_normal((6, 8)).astype(np.float32)), ("sin", RNG.standard_normal((6, 8)).astype(np.float32))]
    return model(nodes, [("t", [2, 6, 8])], [("y", [2, 6, 8])], inits)


@pytest.mark.parametrize("expensive_half", [False, True])
def test_a_map_takes_in_the_maps_it_reads_one_to_one(expensive_half):
    """The rotate-half's pieces are one kernel: the Concat takes in the negated half and the Add
    takes in t * cos (each read one-to-one, so computed once wherever it runs), at any cost."""
    data = _rotate_half(expensive_half)
    fused, unfused = both(data, {"t": RNG.standard_normal((2, 6, 8)).astype(np.float32)})
    assert unfused["launches_per_inference"] == 7 and fused["launches_per_inference"] == 1
    (group,) = fused["fusion"]["groups"]
    assert len(group["ops"]) == 7


def test_a_bias_add_stays_with_its_gemm_when_another_group_reads_it():
    """(h @ W2 + b2) + (x @ W1 + b1), the second GEMM written after the first group: the final Add
    may take in the maps it reads, but `x @ W1 + b1` is that GEMM's epilogue, and stays with it."""
    nodes = [helper.make_node("MatMul", ["h", "w2"], ["m2"]), helper.make_node("Add", ["m2", "b2"], ["a2"]),
             helper.make_node("MatMul", ["x", "w1"], ["m1"]), helper.make_node("Add", ["m1", "b1"], ["a1"]),
             helper.make_node("Add", ["a2", "a1"], ["y"])]
    data = model(nodes, [("h", [4, 96]), ("x", [4, 96])], [("y", [4, 16])],
                 [("w1", weight(96, 16)), ("b1", weight(16)), ("w2", weight(96, 16)), ("b2", weight(16))])
    rep = check(data, {"h": RNG.standard_normal((4, 96)).astype(np.float32),
                       "x": RNG.standard_normal((4, 96)).astype(np.float32)})
    groups = {g["ops"][0]: g["ops"] for g in rep["fusion"]["groups"]}
    assert groups["MatMul_2"] == ["MatMul_2", "Add_3"], rep["fusion"]["groups"]


def test_a_residual_add_goes_to_the_integer_contraction_whose_epilogue_chain_it_reads():
    """relu(s) + float(conv_integer(x, w)) * scale + bias, the Relu written first: the Relu's group
    stops before the Add, whose other operand is the integer conv's epilogue three maps deep (each
    its producer's only reader), and the conv's group takes the Add with the Relu as its operand:
    one kernel (a QDQ model's integer convolution reaches its residual add so:
    frontend/qdq_integer.py). Unconditional: no `float_epilogues` choice is priced."""
    nodes = [helper.make_node("Relu", ["s"], ["r"]),
             helper.make_node("ConvInteger", ["x", "w"], ["c"], pads=[1, 1, 1, 1]),
             helper.make_node("Cast", ["c"], ["cf"], to=TensorProto.FLOAT),
             helper.make_node("Mul", ["cf", "scale"], ["cs"]), helper.make_node("Add", ["cs", "bias"], ["cb"]),
             helper.make_node("Add", ["r", "cb"], ["y"])]
    w = RNG.integers(-128, 128, (16, 8, 3, 3)).astype(np.int8)
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("s", TensorProto.FLOAT, [1, 16, 8, 8]),
                                       helper.make_tensor_value_info("x", TensorProto.UINT8, [1, 8, 8, 8])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 16, 8, 8])],
                          [numpy_helper.from_array(w, "w"), numpy_helper.from_array(weight(16, 1, 1) * 1e-3, "scale"),
                           numpy_helper.from_array(weight(16, 1, 1), "bias")])
    data = helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)]).SerializeToString()
    feeds = {"s": RNG.standard_normal((1, 16, 8, 8)).astype(np.float32),
             "x": RNG.integers(0, 256, (1, 8, 8, 8)).astype(np.uint8)}
    rep = check(data, feeds)
    assert rep["launches_per_inference"] == 1, rep["fusion"]["groups"]
    (group,) = rep["fusion"]["groups"]
    assert group["ops"][0] == "ConvInteger_1" and {"Relu_0", "Add_5"} <= set(group["ops"])


def test_a_float_contractions_epilogue_chain_is_kept_for_it_where_the_plan_prices_faster():
    """relu(s) + conv(x) * scale + bias, the Relu written first: without the float rule the Relu's
    group takes the Add and the bias add before it (the conv's epilogue is one step deep only), and
    the conv writes its output for it (two kernels); with it the conv's group takes the whole
    chain with the Relu as its operand (one kernel), and the stage keeps that plan because the
    micro-model prices it faster, both figures in the report."""
    nodes = [helper.make_node("Relu", ["s"], ["r"]),
             helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1]),
             helper.make_node("Mul", ["c", "scale"], ["cs"]), helper.make_node("Add", ["cs", "bias"], ["cb"]),
             helper.make_node("Add", ["r", "cb"], ["y"])]
    data = model(nodes, [("s", [1, 16, 8, 8]), ("x", [1, 8, 8, 8])], [("y", [1, 16, 8, 8])],
                 [("w", weight(16, 8, 3, 3)), ("scale", weight(16, 1, 1)), ("bias", weight(16, 1, 1))])
    feeds = {"s": RNG.standard_normal((1, 16, 8, 8)).astype(np.float32),
             "x": RNG.standard_normal((1, 8, 8, 8)).astype(np.float32)}
    kept, off = check(data, feeds), check(data, feeds, disable=("float_epilogues",))
    assert kept["launches_per_inference"] == 1 and off["launches_per_inference"] == 2
    (group,) = kept["fusion"]["groups"]
    assert group["ops"][0] == "Conv_1" and {"Relu_0", "Add_4"} <= set(group["ops"])
    choice = kept["fusion"]["float_epilogues"]
    assert choice["enabled"] and choice["changed"] and choice["kept"] and choice["decisions"] >= 1
    assert choice["predicted_us"]["with"] < choice["predicted_us"]["without"]
    assert (f"float epilogue chains kept ({choice['predicted_us']['with']} us predicted with them, "
            f"{choice['predicted_us']['without']} us without)") in report_html(kept)
    assert off["fusion"]["float_epilogues"] == {"enabled": False, "decisions": 0, "changed": False, "kept": False}


def test_a_float_epilogue_chain_that_costs_a_co_launch_is_left_as_without_the_rule():
    """A squeeze-excitation gate times the block's conv, added to a 1x1 shortcut conv of the
    block's input (ECA-ResNet's downsampling blocks, the gate's Expand and Mul written before the
    shortcut): with the float rule the gate's group stops before the Add, which goes to the
    shortcut's group, so the shortcut waits for the gate; without it the shortcut shares a launch
    with the block's conv (rammer). The trial through rammer prices that, and the plan kept is the
    one without the rule, right on the host harness."""
    nodes = [helper.make_node("Conv", ["x", "w1"], ["h"], pads=[1, 1, 1, 1]),
             helper.make_node("GlobalAveragePool", ["h"], ["p"]),
             helper.make_node("Conv", ["p", "wg"], ["g0"]), helper.make_node("Sigmoid", ["g0"], ["g"]),
             helper.make_node("Expand", ["g", "shape"], ["ge"]), helper.make_node("Mul", ["h", "ge"], ["se"]),
             helper.make_node("Conv", ["x", "wd"], ["d"]),
             helper.make_node("Add", ["se", "d"], ["s"]), helper.make_node("Relu", ["s"], ["y"])]
    data = model(nodes, [("x", [1, 32, 16, 16])], [("y", [1, 64, 16, 16])],
                 [("w1", weight(64, 32, 3, 3)), ("wg", weight(64, 64, 1, 1)), ("wd", weight(64, 32, 1, 1)),
                  ("shape", np.array([1, 64, 16, 16], np.int64))])
    feeds = {"x": RNG.standard_normal((1, 32, 16, 16)).astype(np.float32)}
    priced = compile(data, "h100", CompileOptions(build=False))
    off = compile(data, "h100", CompileOptions(build=False, disable=("float_epilogues",)))
    choice = priced.report["fusion"]["float_epilogues"]
    assert choice["decisions"] >= 1 and choice["changed"] and not choice["kept"]
    assert choice["predicted_us"]["with"] > choice["predicted_us"]["without"]
    assert [k["ops"] for k in priced.report["kernels"]] == [k["ops"] for k in off.report["kernels"]]
    assert priced.report["latency"]["predicted_us"] == choice["predicted_us"]["without"]
    assert ["Conv_0", "Conv_6"] in [k["ops"] for k in priced.report["kernels"]]     # the co-launch
    (want,) = ort.InferenceSession(data, providers=["CPUExecutionProvider"]).run(None, feeds)
    got = Executor(priced.plan, make_backend("host")).run(feeds)
    np.testing.assert_allclose(got["y"], want, rtol=1e-4, atol=1e-4)


def test_a_map_read_at_gathered_indices_is_computed_in_the_gather():
    """Exp -> Gather by runtime indices (Falcon's export has the same shape: a GatherND over a
    transposed value): the gather's index loads the indices, and that load must stay a load of
    the fused kernel's inputs when the Exp is evaluated at it (it was resolved a second time, as
    an input of the Exp, and compose failed with an IndexError)."""
    nodes = [helper.make_node("Exp", ["x"], ["e"]), helper.make_node("Gather", ["e", "idx"], ["y"], axis=0)]
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [5, 3]),
                                       helper.make_tensor_value_info("idx", TensorProto.INT64, [4])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4, 3])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)])
    m.ir_version = 9
    feeds = {"x": RNG.standard_normal((5, 3)).astype(np.float32), "idx": np.array([4, 0, 2, -1], np.int64)}
    fused, unfused = both(m.SerializeToString(), feeds)
    assert fused["launches_per_inference"] == 1 and unfused["launches_per_inference"] == 2


def test_a_transposed_operand_folds_into_the_matmul():
    """Transpose -> MatMul: the transpose moves data only, so the contraction reads through it."""
    nodes = [helper.make_node("Transpose", ["x"], ["xt"], perm=[1, 0]), helper.make_node("MatMul", ["xt", "w"], ["y"])]
    data = model(nodes, [("x", [16, 8])], [("y", [8, 12])], [("w", weight(16, 12))])
    fused, unfused = both(data, {"x": RNG.standard_normal((16, 8)).astype(np.float32)})
    assert unfused["launches_per_inference"] == 2 and fused["launches_per_inference"] == 1


def test_maps_fold_into_a_reduction_that_reads_them_once():
    nodes = [helper.make_node("Exp", ["x"], ["e"]), helper.make_node("Mul", ["e", "x"], ["m"]),
             helper.make_node("ReduceSum", ["m", "axes"], ["y"], keepdims=0)]
    data = model(nodes, [("x", [4, 6, 10])], [("y", [4, 6])], [("axes", np.array([2], np.int64))])
    fused, unfused = both(data, {"x": RNG.standard_normal((4, 6, 10)).astype(np.float32)})
    assert unfused["launches_per_inference"] == 3 and fused["launches_per_inference"] == 1


def test_a_computed_contraction_operand_is_not_recomputed():
    """Exp -> MatMul: the matmul reads every exp element N times; computing it in the loads would
    repeat it per tile, so the two stay two kernels, and the record says why."""
    nodes = [helper.make_node("Exp", ["x"], ["e"]), helper.make_node("MatMul", ["e", "w"], ["y"])]
    data = model(nodes, [("x", [16, 8])], [("y", [16, 12])], [("w", weight(8, 12))])
    fused = check(data, {"x": RNG.standard_normal((16, 8)).astype(np.float32)})
    assert fused["launches_per_inference"] == 2
    assert fused["fusion"]["groups"] == []


def test_a_broadcast_reduction_is_not_recomputed():
    """ReduceMean then x - mean: the subtraction reads each mean many times (one-to-many), so the
    register level does not fold the reduction into it (it would be computed once per element);
    the shared-memory level stitches the two, the mean a row statistic computed once per row (in a
    warp's registers: the rows are short)."""
    nodes = [helper.make_node("ReduceMean", ["x", "axes"], ["m"], keepdims=1), helper.make_node("Sub", ["x", "m"], ["y"])]
    data = model(nodes, [("x", [4, 16])], [("y", [4, 16])], [("axes", np.array([1], np.int64))])
    rep = check(data, {"x": RNG.standard_normal((4, 16)).astype(np.float32)})
    assert not any(len(g["ops"]) > 1 for g in rep["fusion"]["groups"] if g.get("level") != "shared")
    (g,) = [g for g in rep["fusion"]["groups"] if g.get("level") == "shared"]
    assert g["carried"] == {"m": "shared"}
    (k,) = rep["kernels"]
    assert k["config"]["schedule"] == "register_rows" and k["config"]["statistics"] == 1


def test_a_value_read_outside_the_group_is_written():
    """MatMul + bias feeds Relu and Sigmoid (two outputs): the sum is read outside any one group, so
    the group stops before it takes a consumer, and both outputs stay right."""
    nodes = [helper.make_node("MatMul", ["x", "w"], ["mm"]), helper.make_node("Add", ["mm", "b"], ["h"]),
             helper.make_node("Relu", ["h"], ["y1"]), helper.make_node("Sigmoid", ["h"], ["y2"])]
    data = model(nodes, [("x", [4, 8])], [("y1", [4, 8]), ("y2", [4, 8])], [("w", weight(8, 8)), ("b", weight(8))])
    rep = check(data, {"x": RNG.standard_normal((4, 8)).astype(np.float32)})
    assert rep["launches_per_inference"] == 3
    (group,) = rep["fusion"]["groups"]
    assert len(group["ops"]) == 2 and "read outside the group" in group["stopped"]


def test_disable_names_are_checked():
    with pytest.raises(CompilerError, match="welder, shared_level, split_rows, sink_reshapes, prologue, stitched_maps, float_epilogues, part_reads, half_storage, imma, roller, split_k, sparta, tune"):
        CompileOptions(disable=("welding",))
    assert CompileOptions(disable=("welder", "roller", "welder")).disable == ("roller", "welder")
    assert CompileOptions(disable="welder").disable == ("welder",)
    assert CompileOptions(disable=("welder",)).key != CompileOptions().key


def test_cli_disable_welder(tmp_path):
    src = tmp_path / "m.onnx"
    src.write_bytes(gelu_mlp())
    counts = {}
    for flags in ((), ("--disable", "welder")):
        out = tmp_path / f"m{len(flags)}.tar"
        r = subprocess.run([sys.executable, "-m", "compiler", "compile", str(src), "-o", str(out), "-q", *flags],
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        counts[flags] = int(r.stdout.split(": ")[1].split()[0])
    assert counts[()] == 1 and counts[("--disable", "welder")] == 7
    r = subprocess.run([sys.executable, "-m", "compiler", "compile", str(src), "-o", str(tmp_path / "x"),
                        "--disable", "warp_drive"], capture_output=True, text=True)
    assert r.returncode == 2 and "cannot disable 'warp_drive'" in r.stderr


def _fire_module(channels: int = 128) -> bytes:
    """Concat(relu(conv1x1(x)), relu(conv3x3(x))) as SqueezeNet's fire modules write it."""
    g = helper.make_graph([helper.make_node("Conv", ["x", "w1"], ["a"]), helper.make_node("Relu", ["a"], ["ra"]),
                           helper.make_node("Conv", ["x", "w3"], ["b"], pads=[1, 1, 1, 1]),
                           helper.make_node("Relu", ["b"], ["rb"]),
                           helper.make_node("Concat", ["ra", "rb"], ["z"], axis=1)], "g",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, channels, 9, 9])],
                          [helper.make_tensor_value_info("z", TensorProto.FLOAT, [1, 10, 9, 9])],
                          [numpy_helper.from_array(weight(4, channels, 1, 1), "w1"),
                           numpy_helper.from_array(weight(6, channels, 3, 3), "w3")])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)]).SerializeToString()


def test_a_concat_is_not_taken_by_a_conv_whose_product_it_reads_in_part():
    """Composed with the Concat, either conv's product (over 128 channels) would run over all 10
    output channels and be read in its own 4 or 6 only (Inception's and DenseNet's concats: up to
    30% of a model's FLOPs). Neither group takes it: the fused plan executes no more FLOPs than
    the unfused one, and it is right under AddressSanitizer on the host harness."""
    data = _fire_module()
    art = compile(data, "h100", CompileOptions(build=False))
    apart = compile(data, "h100", CompileOptions(build=False, disable=("welder",)))
    assert not any("Concat_4" in k["ops"] and {"Conv_0", "Conv_2"} & set(k["ops"]) for k in art.report["kernels"])
    assert art.report["flops"]["executed"] <= apart.report["flops"]["executed"]
    stops = [grp["stopped"] for grp in art.report["fusion"]["groups"]]
    assert sum(why.startswith("concat:") and "the reduction would run where it is not read" in why
               for why in stops) == 2, stops
    x = RNG.standard_normal((1, 128, 9, 9)).astype(np.float32)
    got = Executor(art.plan, make_backend("host", mode="asan")).run({"x": x})["z"]
    (want,) = ort.InferenceSession(data, providers=["CPUExecutionProvider"]).run(None, {"x": x})
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def test_a_concat_is_taken_by_a_depthwise_conv_whose_few_flops_cost_less_than_its_round_trip():
    """InceptionNeXt's and GhostNet's concats: a depthwise window (9 products a point) evaluated
    over the concat's whole extent costs less than writing its output and reading it back, so its
    group takes the Concat (one kernel fewer), right on the host harness in both thread orders."""
    c = 8
    nodes = [helper.make_node("Conv", ["x", "dw"], ["d"], group=c, pads=[1, 1, 1, 1]),
             helper.make_node("Concat", ["y", "d"], ["z"], axis=1)]
    data = model(nodes, [("x", [1, c, 9, 9]), ("y", [1, 3 * c, 9, 9])], [("z", [1, 4 * c, 9, 9])],
                 [("dw", weight(c, 1, 3, 3))])
    feeds = {"x": RNG.standard_normal((1, c, 9, 9)).astype(np.float32),
             "y": RNG.standard_normal((1, 3 * c, 9, 9)).astype(np.float32)}
    fused, apart = both(data, feeds)
    assert any({"Conv_0", "Concat_1"} <= set(k["ops"]) for k in fused["kernels"])
    assert fused["launches_per_inference"] < apart["launches_per_inference"]


def test_the_part_read_policy_is_the_plan_priced_fastest():
    """The fire module's Concat reads either conv in part: `never` and `cheap` leave it a kernel
    of its own, `always` lets the first conv's group take it. Both plans are priced through
    rammer and grinder; the one kept is the fastest (the first of equals), the report's latency is
    its price, and `--disable part_reads` compiles the `always` plan at its price."""
    data = _fire_module()
    rep = compile(data, "h100", CompileOptions(build=False)).report
    part = rep["fusion"]["part_reads"]
    assert part["enabled"] and part["met"] >= 2 and part["changed"]
    us = part["predicted_us"]
    assert us["never"] == us["cheap"] != us["always"]
    assert part["kept"] == min(("never", "cheap", "always"), key=lambda p: us[p])
    assert rep["latency"]["predicted_us"] == pytest.approx(us[part["kept"]], abs=1e-3)
    off = compile(data, "h100", CompileOptions(build=False, disable=("part_reads",))).report
    assert {k: v for k, v in off["fusion"]["part_reads"].items() if k != "met"} == {
        "enabled": False, "changed": False, "kept": "always"}
    assert off["latency"]["predicted_us"] == pytest.approx(us["always"], abs=1e-3)
    assert any("Concat_4" in k["ops"] and "Conv_0" in k["ops"] for k in off["kernels"])
    assert "a map that reads a reduction in part" in report_html(rep)


def test_a_composed_concat_never_loads_past_the_weight():
    """Where a composition still evaluates a product over a concat's extent (ir/compose.py
    `_guarded`), the loads of the weight past its rows are guarded: each sits in a Select's
    branch, never loaded where the concat reads the other part. The `always` policy makes that
    kernel: AddressSanitizer on the host harness checks every load's bounds (without the guard:
    a heap-buffer-overflow right of w1)."""
    from compiler.frontend.onnx_import import import_model
    from compiler.ir.compose import compose
    from compiler.ir.texpr import Load, Select, walk
    from compiler.passes.lower import lower_graph
    imported = import_model(_fire_module())
    steps = [s for s in lower_graph(imported.graph, imported.opset).steps if hasattr(s, "spec")]
    by_op = {s.spec.ops[0]: s.spec.stages[0] for s in steps}
    stages = (by_op["Conv_0"], by_op["Relu_1"], by_op["Concat_4"])
    te, inputs = compose(stages, {by_op["Conv_0"].output, by_op["Relu_1"].output})
    w = inputs.index("w1")
    guarded = {id(x) for e in walk(te.body) if isinstance(e, Select) for x in walk(e.a) if isinstance(x, Load)}
    loads = [x for x in walk(te.body) if isinstance(x, Load) and x.arg == w]
    assert loads and all(id(x) in guarded for x in loads)
    data = _fire_module()
    art = compile(data, "h100", CompileOptions(build=False, disable=("part_reads",)))
    assert any({"Conv_0", "Concat_4"} <= set(k["ops"]) for k in art.report["kernels"])
    x = RNG.standard_normal((1, 128, 9, 9)).astype(np.float32)
    got = Executor(art.plan, make_backend("host", mode="asan")).run({"x": x})["z"]
    (want,) = ort.InferenceSession(data, providers=["CPUExecutionProvider"]).run(None, {"x": x})
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def _transpose_read_twice(t_is_output: bool = False) -> bytes:
    """x -> Transpose -> t, read by a ReduceSum and by a MatMul (two groups). The group grown from
    the Transpose takes the ReduceSum and drops it again (t is read outside), and the MatMul's
    group cannot take t (another group reads it): three kernels without duplication."""
    nodes = [helper.make_node("Transpose", ["x"], ["t"], perm=[0, 2, 1]),
             helper.make_node("ReduceSum", ["t", "axes"], ["s"], keepdims=0),
             helper.make_node("MatMul", ["t", "w"], ["m"])]
    outputs = [("s", [2, 8]), ("m", [2, 8, 5])] + ([("t", [2, 8, 6])] if t_is_output else [])
    return model(nodes, [("x", [2, 6, 8])], outputs, [("axes", np.array([-1], np.int64)), ("w", weight(6, 5))])


def test_data_movement_read_by_two_groups_is_computed_in_each():
    fused, unfused = both(_transpose_read_twice(), {"x": RNG.standard_normal((2, 6, 8)).astype(np.float32)})
    assert unfused["launches_per_inference"] == 3 and fused["launches_per_inference"] == 2
    assert fused["fusion"]["duplicated"] == [{"ops": ["Transpose_0"], "value": "t", "into": 2}]
    assert sorted(k["ops"] for k in fused["kernels"]) == [["Transpose_0", "MatMul_2"], ["Transpose_0", "ReduceSum_1"]]
    assert fused["traffic"]["dram_bytes"] < unfused["traffic"]["dram_bytes"]


def test_data_movement_that_is_a_graph_output_is_written_once_by_the_kernel_of_its_readers():
    """t is a graph output, so it is written whatever happens: no group duplicates it (that would
    compute it twice and still write it). The shared-memory level keeps it as resident rows of one
    kernel with its row sum (a statistic, itself an output) and the product over its rows, and
    that kernel writes all three."""
    rep = check(_transpose_read_twice(t_is_output=True), {"x": RNG.standard_normal((2, 6, 8)).astype(np.float32)})
    assert rep["launches_per_inference"] == 1 and rep["fusion"]["duplicated"] == []
    (g,) = rep["fusion"]["groups"]
    assert g["level"] == "shared" and g["carried"] == {"t": "shared", "s": "shared"}
    assert g["predicted_us"]["fused"] < g["predicted_us"]["apart"]


@pytest.mark.parametrize("rows, duplicated", [(64, True), (4096, False)])
def test_a_narrowing_cast_is_duplicated_only_while_the_extra_bytes_cost_less_than_its_launch(rows, duplicated):
    """Cast fp32 -> fp16 read by four maps: each reader would read the fp32 input (4 bytes an
    element) instead of the fp16 value (2), 2 bytes an element more in all. At 64 x 1024 that is
    far less than a launch's time; at 4096 x 1024 (8 MiB more) far more, so the cast stays."""
    nodes = [helper.make_node("Cast", ["x"], ["h"], to=TensorProto.FLOAT16)]
    nodes += [helper.make_node(op, ["h"], [f"y{k}"]) for k, op in enumerate(["Neg", "Abs", "Exp", "Sqrt"])]
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [rows, 1024])],
                          [helper.make_tensor_value_info(f"y{k}", TensorProto.FLOAT16, [rows, 1024]) for k in range(4)])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)])
    m.ir_version = 9
    rep = compile(m.SerializeToString(), "h100", CompileOptions(build=False, disable=("rammer", "stitched_maps"))).report
    assert rep["launches_per_inference"] == (4 if duplicated else 5)
    assert [d["value"] for d in rep["fusion"]["duplicated"]] == (["h"] if duplicated else [])
    # the cast kept, its four readers and it are maps over one index space: stitched, one kernel
    # computes the cast once and writes the four results (passes/stitch_maps.py)
    rep = compile(m.SerializeToString(), "h100", CompileOptions(build=False, disable=("rammer",))).report
    assert rep["launches_per_inference"] == (4 if duplicated else 1)


@pytest.mark.parametrize("op", ["ScatterND", "ScatterElements"])
def test_a_value_updated_in_place_is_read_after_its_updates(op):
    """A scatter lowers to a copy of its data and a kernel that updates the copy in place (unless its
    indices are a constant progression, ops/indexing.py). A reader
    of the result (a Transpose back, as transformers' Funnel writes its relative shift) must see
    the updates: it may be neither composed with the copy nor folded into the copy's epilogue.
    (Before ir/dataflow.readers_of counted the update kernel as a reader, the Transpose read the
    copy alone.)"""
    x_shape, u_shape = [1, 4, 8, 13], [1, 4, 8, 8]
    nodes = [helper.make_node("Transpose", ["x"], ["xt"], perm=[3, 1, 2, 0]),
             helper.make_node("Transpose", ["u"], ["ut"], perm=[3, 1, 2, 0])]
    slots = np.array([3, 0, 7, 1, 5, 2, 6, 4], np.int64)     # no progression: not a select (ops/indexing.py)
    if op == "ScatterND":
        idx = slots.reshape(8, 1)
        nodes.append(helper.make_node("ScatterND", ["xt", "idx", "ut"], ["s"]))
    else:
        idx = np.broadcast_to(slots.reshape(8, 1, 1, 1), (8, 4, 8, 1)).copy()
        nodes.append(helper.make_node("ScatterElements", ["xt", "idx", "ut"], ["s"], axis=0))
    nodes.append(helper.make_node("Transpose", ["s"], ["y"], perm=[3, 1, 2, 0]))
    data = model(nodes, [("x", x_shape), ("u", u_shape)], [("y", x_shape)], [("idx", idx)])
    feeds = {"x": RNG.standard_normal(x_shape).astype(np.float32), "u": RNG.standard_normal(u_shape).astype(np.float32)}
    rep = check(data, feeds)
    for group in rep["fusion"]["groups"]:
        assert not ({f"{op}_2", "Transpose_3"} <= set(group["ops"])), group


@pytest.mark.parametrize("view", [True, False])
def test_a_pooled_head_through_an_as_strided_gather_is_one_kernel(view):
    """The dynamo exporter writes ConvNeXt's pooled features' view as a Reshape to [-1] and a
    Gather at constant indices [1, C, 1, 1] counting 0..C-1 (aten::as_strided): an index map
    (ops/indexing.py), so the mean, the view and the LayerNorm after it are one kernel, as with
    the TorchScript export's GlobalAveragePool; a Gather at a permutation reads its indices and
    the mean stays a kernel of its own."""
    c = 48
    idx = np.arange(c) if view else RNG.permutation(c)
    nodes = [helper.make_node("ReduceMean", ["x", "hw"], ["mean"], keepdims=1),
             helper.make_node("Reshape", ["mean", "flat"], ["v"]),
             helper.make_node("Gather", ["v", "idx"], ["strided"], axis=0),
             helper.make_node("Transpose", ["strided"], ["t"], perm=[0, 2, 3, 1]),
             helper.make_node("LayerNormalization", ["t", "g", "b"], ["y"], axis=-1)]
    data = model(nodes, [("x", [1, c, 3, 3])], [("y", [1, 1, 1, c])],
                 [("hw", np.array([-1, -2], np.int64)), ("flat", np.array([-1], np.int64)),
                  ("idx", idx.reshape(1, c, 1, 1).astype(np.int64)), ("g", weight(c)), ("b", weight(c))])
    report = check(data, {"x": RNG.standard_normal((1, c, 3, 3)).astype(np.float32)})
    assert report["launches_per_inference"] == (1 if view else 2)


def test_a_group_stops_at_its_most_stages(monkeypatch):
    """A group stops taking consumers once it has welder.MAX_GROUP_STAGES stages (a per-class
    postprocess exported op by op would otherwise grow one group of hundreds, each composition
    slower than the last): with the limit at 3, the MatMul + bias + GELU chain (one group of 7
    stages) is cut, the GELU's group stopping at 3 stages with that reason in the report; right
    against onnxruntime."""
    import compiler.passes.welder as welder
    monkeypatch.setattr(welder, "MAX_GROUP_STAGES", 3)
    report = check(gelu_mlp(), {"x": RNG.standard_normal((2, 8, 32)).astype(np.float32)})
    groups = [g for g in report["fusion"]["groups"] if "kind" not in g]     # the welder stage's own
    assert max(len(g["ops"]) for g in groups) == 3 and len(report["kernels"]) > 1
    assert [g["ops"] for g in groups if g["stopped"].startswith("the group has 3 stages")] == [["Div_2", "Erf_3", "Add_4"]]


def test_a_group_stops_where_a_value_can_never_stop_leaking(monkeypatch):
    """A value read by more chains than the group has stages left leaks from any longer group, so
    the group stops there (welder._never_closes) instead of growing to the cap and being cut back
    to it: Exp read by twelve chains (Add, then Neg; all joined by one Concat), the cap at 4
    stages, so at most 12 stages can join (8 the most a consumer takes in beside the cap). The
    same kernels as without the early stop, fewer compositions, right against onnxruntime."""
    import compiler.ir.compose as compose_mod
    import compiler.passes.welder as welder
    n = 12
    nodes = [helper.make_node("Exp", ["x"], ["e"])]
    for k in range(n):
        nodes += [helper.make_node("Add", ["e", f"c{k}"], [f"a{k}"]), helper.make_node("Neg", [f"a{k}"], [f"n{k}"])]
    nodes.append(helper.make_node("Concat", [f"n{k}" for k in range(n)], ["y"], axis=0))
    data = model(nodes, [("x", [4, 16])], [("y", [4 * n, 16])],
                 [(f"c{k}", np.array(k, np.float32)) for k in range(n)])
    monkeypatch.setattr(welder, "MAX_GROUP_STAGES", 4)
    calls = []
    real = compose_mod._compose
    monkeypatch.setattr(compose_mod, "_compose", lambda *a: calls.append(1) or real(*a))
    feeds = {"x": RNG.standard_normal((4, 16)).astype(np.float32)}

    def compiled():
        compose_mod._composed.cache_clear()
        calls.clear()
        report = check(data, feeds)
        return report, len(calls)
    report, stopped = compiled()
    monkeypatch.setattr(welder, "_never_closes", lambda g, scope: None)
    grown, grown_calls = compiled()
    for r in (report, grown):       # Exp's register-level group is cut back to Exp alone either way
        assert not any("Exp_0" in g["ops"] for g in r["fusion"]["groups"] if "kind" not in g)
    assert [k["ops"] for k in report["kernels"]] == [k["ops"] for k in grown["kernels"]]
    assert stopped < grown_calls, (stopped, grown_calls)
