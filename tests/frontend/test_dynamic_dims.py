"""Dynamic dimensions as exporters write them (compiler/frontend/dims.py): each model is written the way
one exporter writes its inputs, compiled once its dimensions are fixed, and run on the host harness
against onnxruntime at the same sizes.

- Paddle2ONNX: `dim_value: -1` for the batch, `dim_param: "?"` for height and width;
- tf2onnx: generated `unk__N` names, one per dimension;
- torch.onnx.export (TorchScript): the names given in `dynamic_axes`, shared between inputs
  (`batch`, `sequence` on input_ids and attention_mask);
- torch.onnx.export (dynamo): `s0`, `s1`, ... shared exactly where torch.export proved sizes equal;
- unnamed: a dimension with neither dim_value nor dim_param (the ONNX IR's unknown)."""
from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

from compiler import compile
from compiler.errors import ShapeError
from compiler.frontend.dims import ANONYMOUS, declared_dims, dynamic_dims, resolve_shapes
from compiler.frontend.onnx_import import import_model
from compiler.frontend.summary import summarize
from compiler.pipeline import CompileOptions
from compiler.runtime.executor import Executor, make_backend

F32, I64 = TensorProto.FLOAT, TensorProto.INT64


def vi(name, elem, dims):
    """A value info whose dims are written exactly as given: int, str (dim_param), None (neither set)."""
    v = helper.make_tensor_value_info(name, elem, [1] * len(dims))
    for d, want in zip(v.type.tensor_type.shape.dim, dims):
        d.Clear()
        if isinstance(want, int):
            d.dim_value = want
        elif isinstance(want, str):
            d.dim_param = want
    return v


def model(nodes, inputs, outputs, inits=(), opset=17, producer=""):
    g = helper.make_graph(nodes, "g", inputs, outputs, list(inits))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)], producer_name=producer)
    m.ir_version = 9
    return m


def seeded(shape, seed, dtype=np.float32):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def run_both(m: onnx.ModelProto, shapes: dict, feeds: dict) -> None:
    """Compiled with `shapes`, run on the host harness; onnxruntime on the original file."""
    art = compile(m.SerializeToString(), "h100", CompileOptions(input_shapes=tuple(sorted(
        (n, tuple(s)) for n, s in shapes.items())), build=False))
    got = Executor(art.plan, make_backend("host")).run(feeds)
    sess = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
    want = dict(zip([o.name for o in sess.get_outputs()], sess.run(None, feeds)))
    for name, ref in want.items():
        np.testing.assert_allclose(got[name], ref, rtol=1e-4, atol=1e-4, err_msg=name)


# --- Paddle2ONNX: -1 batch, '?' height and width ------------------------------------------------------

def paddle_classifier():
    """A small text-direction classifier in Paddle2ONNX's manner: x[-1, 3, ?, ?] -> conv, relu, pool,
    global pool, flatten, fc, softmax."""
    w = numpy_helper.from_array(seeded((8, 3, 3, 3), 1) * 0.3, "conv_w")
    b = numpy_helper.from_array(seeded((8,), 2), "conv_b")
    fc = numpy_helper.from_array(seeded((8, 2), 3), "fc_w")
    nodes = [helper.make_node("Conv", ["x", "conv_w", "conv_b"], ["c"], pads=[1, 1, 1, 1], strides=[2, 2]),
             helper.make_node("Relu", ["c"], ["r"]),
             helper.make_node("MaxPool", ["r"], ["p"], kernel_shape=[2, 2], strides=[2, 2]),
             helper.make_node("GlobalAveragePool", ["p"], ["g"]),
             helper.make_node("Flatten", ["g"], ["f"], axis=1),
             helper.make_node("MatMul", ["f", "fc_w"], ["logits"]),
             helper.make_node("Softmax", ["logits"], ["softmax_0.tmp_0"], axis=-1)]
    return model(nodes, [vi("x", F32, [-1, 3, "?", "?"])], [vi("softmax_0.tmp_0", F32, [-1, 2])],
                 [w, b, fc], producer="PaddlePaddle")


def test_paddle_minus_one_and_question_marks_are_independent():
    m = paddle_classifier()
    dims = dynamic_dims({"x": declared_dims(m.graph.input[0])})
    assert [(d.axis, d.name, d.symbol) for d in dims] == [(0, ANONYMOUS, "x[0]"), (2, ANONYMOUS, "x[2]"),
                                                          (3, ANONYMOUS, "x[3]")]
    # height 48 and width 192 are two dimensions, not one '?' (the bug: "'?' is 48 ... but 192")
    x = seeded((2, 3, 48, 192), 4)
    run_both(m, {"x": (2, 3, 48, 192)}, {"x": x})


def test_unset_dimensions_are_all_listed_without_invented_sizes():
    with pytest.raises(ShapeError) as e:
        import_model(paddle_classifier())
    msg = str(e.value)
    assert "3 dynamic dimensions" in msg
    for axis in (0, 2, 3):
        assert f"x axis {axis} (unnamed)" in msg
    assert "--input-shape x=<x[0]>,3,<x[2]>,<x[3]>" in msg   # no guessed 1 for a detector's height
    assert e.value.unset == [{"input": "x", "axis": a, "name": "?", "symbol": f"x[{a}]"} for a in (0, 2, 3)]


# --- tf2onnx: unk__N -----------------------------------------------------------------------------------

def test_tf2onnx_generated_names_are_independent():
    # two inputs whose rows are each unk__: concatenated along rows they may differ in length
    nodes = [helper.make_node("Concat", ["a:0", "b:0"], ["cat"], axis=0),
             helper.make_node("Tanh", ["cat"], ["Identity:0"])]
    m = model(nodes, [vi("a:0", F32, ["unk__123", 16]), vi("b:0", F32, ["unk__124", 16])],
              [vi("Identity:0", F32, ["unk__125", 16])], producer="tf2onnx")
    assert [d.symbol for d in dynamic_dims({v.name: declared_dims(v) for v in m.graph.input})] == ["a:0[0]",
                                                                                                   "b:0[0]"]
    a, b = seeded((3, 16), 5), seeded((5, 16), 6)
    run_both(m, {"a:0": (3, 16), "b:0": (5, 16)}, {"a:0": a, "b:0": b})


# --- torch.onnx.export, TorchScript: dynamic_axes names shared between inputs --------------------------

def torchscript_encoder():
    """Token embedding + masked mean, inputs named as the TorchScript exporter writes dynamic_axes."""
    emb = numpy_helper.from_array(seeded((50, 8), 7), "embeddings.weight")
    nodes = [helper.make_node("Gather", ["embeddings.weight", "input_ids"], ["e"], axis=0),
             helper.make_node("Cast", ["attention_mask"], ["mf"], to=F32),
             helper.make_node("Unsqueeze", ["mf", "axes"], ["mu"]),
             helper.make_node("Mul", ["e", "mu"], ["em"]),
             helper.make_node("ReduceSum", ["em", "axis1"], ["s"], keepdims=0),
             helper.make_node("ReduceSum", ["mf", "axis1"], ["n"], keepdims=1),
             helper.make_node("Div", ["s", "n"], ["pooled"])]
    inits = [emb, numpy_helper.from_array(np.array([2], np.int64), "axes"),
             numpy_helper.from_array(np.array([1], np.int64), "axis1")]
    return model(nodes, [vi("input_ids", I64, ["batch", "sequence"]), vi("attention_mask", I64, ["batch", "sequence"])],
                 [vi("pooled", F32, ["batch", 8])], inits, opset=17, producer="pytorch")


def test_torchscript_shared_names_are_one_dimension():
    m = torchscript_encoder()
    declared = {v.name: declared_dims(v) for v in m.graph.input}
    # fixing input_ids fixes attention_mask through the shared names
    assert resolve_shapes(declared, {"input_ids": (2, 7)}) == {"input_ids": (2, 7), "attention_mask": (2, 7)}
    with pytest.raises(ShapeError, match="dimension 'sequence' is shared"):
        resolve_shapes(declared, {"input_ids": (2, 7), "attention_mask": (2, 9)})
    ids = np.random.default_rng(8).integers(0, 50, (2, 7)).astype(np.int64)
    mask = np.ones((2, 7), np.int64)
    mask[1, 4:] = 0
    run_both(m, {"input_ids": (2, 7)}, {"input_ids": ids, "attention_mask": mask})


def test_batch_named_dimension_gets_an_example_of_one():
    with pytest.raises(ShapeError) as e:
        import_model(torchscript_encoder())
    assert "--input-shape input_ids=1,<sequence> --input-shape attention_mask=1,<sequence>" in str(e.value)


# --- torch.onnx.export, dynamo: s0, s1 shared where torch.export proved them equal ---------------------

def test_dynamo_symbols_shared_and_distinct():
    nodes = [helper.make_node("MatMul", ["x", "w"], ["xw"]),
             helper.make_node("Add", ["xw", "bias"], ["y"]),
             helper.make_node("Sigmoid", ["y"], ["out"])]
    m = model(nodes, [vi("x", F32, ["s0", "s1", 12]), vi("w", F32, [12, "s2"]), vi("bias", F32, ["s1", "s2"])],
              [vi("out", F32, ["s0", "s1", "s2"])], opset=18, producer="pytorch")
    s = summarize(m.SerializeToString())
    assert [d.symbol for d in s.dynamic_dims] == ["s0", "s1", "s2", "s1", "s2"]
    assert s.outputs[0].shape == ("s0", "s1", "s2")   # symbolic through shape inference
    x, w, bias = seeded((2, 5, 12), 9), seeded((12, 6), 10), seeded((5, 6), 11)
    run_both(m, {"x": (2, 5, 12), "w": (12, 6)}, {"x": x, "w": w, "bias": bias})
    with pytest.raises(ShapeError, match="dimension 's2' is shared"):
        import_model(m, input_shapes={"x": (2, 5, 12), "w": (12, 6), "bias": (5, 7)})


# --- unnamed dimensions ------------------------------------------------------------------------------

def test_unnamed_dimensions_are_independent():
    nodes = [helper.make_node("Transpose", ["x"], ["t"], perm=[1, 0]), helper.make_node("Exp", ["t"], ["y"])]
    m = model(nodes, [vi("x", F32, [None, None])], [vi("y", F32, [None, None])])
    x = seeded((3, 11), 12)
    run_both(m, {"x": (3, 11)}, {"x": x})
    assert summarize(m.SerializeToString()).outputs[0].shape == ("x[1]", "x[0]")


def test_explicit_zero_is_a_size_not_unknown():
    v = vi("x", F32, [0, 4])
    assert declared_dims(v) == [0, 4]


@pytest.mark.parametrize("given,match", [
    ({"z": (1, 3, 8, 8)}, "not an input"),
    ({"x": (1, 3, 8)}, "rank 4"),
    ({"x": (1, 4, 8, 8)}, "static size 3 on axis 1"),
    ({"x": (1, 3, -8, 8)}, "non-negative"),
])
def test_bad_input_shapes_are_shape_errors(given, match):
    with pytest.raises(ShapeError, match=match):
        import_model(paddle_classifier(), input_shapes=given)


def test_summary_of_a_dynamic_model():
    s = summarize(paddle_classifier().SerializeToString())
    d = s.as_dict()
    assert d["inputs"] == [{"name": "x", "dtype": "float32", "shape": ["?", 3, "?", "?"]}]
    assert d["outputs"][0]["shape"] == ["x[0]", 2]
    assert d["parameters"] == 8 * 3 * 3 * 3 + 8 + 16 and d["parameter_bytes"] == 4 * d["parameters"]
    assert d["op_histogram"]["Conv"] == 1 and d["opset"] == 17 and d["producer"] == "PaddlePaddle"
    assert d["example_input_shapes"] == {"x": ["<x[0]>", 3, "<x[2]>", "<x[3]>"]}


def test_a_shape_computed_from_the_data_is_named_as_such():
    """A Resize to sizes computed from the data (Mask R-CNN's paste of a mask at a box's size):
    the inputs' shapes are all static, so the error names the data, not --input-shape."""
    nodes = [helper.make_node("Cast", ["box"], ["hw"], to=TensorProto.INT64),
             helper.make_node("Concat", ["lead", "hw"], ["sizes"], axis=0),
             helper.make_node("Resize", ["x", "", "", "sizes"], ["y"], mode="linear")]
    g = helper.make_graph(nodes, "paste", [vi("x", F32, [1, 1, 4, 4]), vi("box", F32, [2])],
                          [vi("y", F32, [1, 1, None, None])],
                          [numpy_helper.from_array(np.array([1, 1], np.int64), "lead")])
    data = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString()
    with pytest.raises(ShapeError) as e:
        import_model(data)
    assert e.value.node and "computed from the data" in e.value.hint and "--input-shape" not in e.value.hint
