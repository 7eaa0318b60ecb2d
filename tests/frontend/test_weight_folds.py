"""A weight computed in the graph from constants alone folds at import even past the fold size
limit (fold.within_inputs): NFNet's standardisation (a training-mode BatchNormalization over the
weight reshaped to [1, C, fan-in]) and weight normalisation (g * v / ||v||). It does not where the
fold would add a value beside one the model still holds (a tied embedding read by a Gather and
transposed for the output projection), nor where it grows the bytes (a Cast of int8 codes to
float). The limit is made small here so that small weights stand for large ones."""
from __future__ import annotations

import numpy as np
import onnxruntime as ort
from onnx import TensorProto as TP, helper, numpy_helper

from compiler import compile
from compiler.frontend.onnx_import import ImportLimits, import_model
from compiler.pipeline import CompileOptions
from compiler.runtime.executor import Executor, make_backend

RNG = np.random.default_rng(11)
SMALL = ImportLimits(max_fold_elements=64)     # every weight below is past it


def _model(nodes, inputs, outputs, inits, opset=17) -> bytes:
    g = helper.make_graph(nodes, "m", inputs, outputs, [numpy_helper.from_array(a, n) for n, a in inits.items()])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)]).SerializeToString()


def _standardised_conv() -> bytes:
    """x conv (w standardised per output channel as NFNet's ScaledStdConv2d exports it)."""
    c_out, c_in = 8, 4
    inits = {"w": RNG.standard_normal((c_out, c_in, 3, 3)).astype(np.float32),
             "shape": np.array([1, c_out, -1], np.int64), "back": np.array([c_out, c_in, 3, 3], np.int64),
             "gain": RNG.uniform(0.5, 1.5, c_out).astype(np.float32), "zero": np.zeros(c_out, np.float32),
             "mean": np.zeros(c_out, np.float32), "var": np.ones(c_out, np.float32)}
    nodes = [helper.make_node("Reshape", ["w", "shape"], ["w3"]),
             helper.make_node("BatchNormalization", ["w3", "gain", "zero", "mean", "var"], ["ws3", "rm", "rv"],
                              training_mode=1, momentum=1.0),
             helper.make_node("Reshape", ["ws3", "back"], ["ws"]),
             helper.make_node("Conv", ["x", "ws"], ["y"], pads=[1, 1, 1, 1])]
    return _model(nodes, [helper.make_tensor_value_info("x", TP.FLOAT, [1, c_in, 6, 6])],
                  [helper.make_tensor_value_info("y", TP.FLOAT, [1, c_out, 6, 6])], inits)


def _weight_normalised_matmul() -> bytes:
    """x @ (g * v / ||v|| over each column), weight normalisation written out."""
    inits = {"v": RNG.standard_normal((16, 12)).astype(np.float32),
             "g": RNG.uniform(0.5, 2, (1, 12)).astype(np.float32), "axes": np.array([0], np.int64)}
    nodes = [helper.make_node("Mul", ["v", "v"], ["v2"]),
             helper.make_node("ReduceSum", ["v2", "axes"], ["ss"], keepdims=1),
             helper.make_node("Sqrt", ["ss"], ["norm"]),
             helper.make_node("Div", ["v", "norm"], ["unit"]),
             helper.make_node("Mul", ["unit", "g"], ["w"]),
             helper.make_node("MatMul", ["x", "w"], ["y"])]
    return _model(nodes, [helper.make_tensor_value_info("x", TP.FLOAT, [3, 16])],
                  [helper.make_tensor_value_info("y", TP.FLOAT, [3, 12])], inits)


def _tied_embedding() -> bytes:
    """ids -> Gather(E) -> MatMul(Transpose(E)): E is read by the data's Gather too."""
    inits = {"E": RNG.standard_normal((20, 8)).astype(np.float32)}
    nodes = [helper.make_node("Gather", ["E", "ids"], ["h"]),
             helper.make_node("Transpose", ["E"], ["Et"], perm=[1, 0]),
             helper.make_node("MatMul", ["h", "Et"], ["y"])]
    return _model(nodes, [helper.make_tensor_value_info("ids", TP.INT64, [5])],
                  [helper.make_tensor_value_info("y", TP.FLOAT, [5, 20])], inits)


def _int8_codes() -> bytes:
    """x @ (float(codes) * scale): the Cast alone makes four times the bytes."""
    inits = {"q": RNG.integers(-127, 128, (16, 12)).astype(np.int8), "s": np.float32(0.02).reshape(())}
    nodes = [helper.make_node("Cast", ["q"], ["qf"], to=TP.FLOAT),
             helper.make_node("Mul", ["qf", "s"], ["w"]),
             helper.make_node("MatMul", ["x", "w"], ["y"])]
    return _model(nodes, [helper.make_tensor_value_info("x", TP.FLOAT, [3, 16])],
                  [helper.make_tensor_value_info("y", TP.FLOAT, [3, 12])], inits)


def _weight_also_carried_by_a_loop() -> bytes:
    """x @ (2 w), and a Loop on constants that carries w itself: the model holds w all the same."""
    inits = {"w": RNG.standard_normal((16, 12)).astype(np.float32), "two": np.float32(2).reshape(()),
             "m": np.array(3, np.int64), "go": np.array(True)}
    body = helper.make_graph(
        [helper.make_node("Identity", ["c_in"], ["c_out"]), helper.make_node("Add", ["v_in", "v_in"], ["v_out"])],
        "body", [helper.make_tensor_value_info("i", TP.INT64, []), helper.make_tensor_value_info("c_in", TP.BOOL, []),
                 helper.make_tensor_value_info("v_in", TP.FLOAT, [16, 12])],
        [helper.make_tensor_value_info("c_out", TP.BOOL, []), helper.make_tensor_value_info("v_out", TP.FLOAT, [16, 12])])
    nodes = [helper.make_node("Mul", ["w", "two"], ["w2"]),
             helper.make_node("MatMul", ["x", "w2"], ["y"]),
             helper.make_node("Loop", ["m", "go", "w"], ["z"], body=body)]
    return _model(nodes, [helper.make_tensor_value_info("x", TP.FLOAT, [3, 16])],
                  [helper.make_tensor_value_info("y", TP.FLOAT, [3, 12]),
                   helper.make_tensor_value_info("z", TP.FLOAT, [16, 12])], inits)


def _ops(model: bytes) -> list[str]:
    return [n.op for n in import_model(model, limits=SMALL).graph.nodes]


def _matches_onnxruntime(model: bytes, feeds: dict) -> None:
    art = compile(model, "h100", CompileOptions(build=False), limits=SMALL)
    got = Executor(art.plan, make_backend("host")).run(feeds)["y"]
    want = ort.InferenceSession(model, providers=["CPUExecutionProvider"]).run(None, feeds)[0]
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def test_a_standardised_weight_folds_past_the_limit():
    assert _ops(_standardised_conv()) == ["Conv"]
    _matches_onnxruntime(_standardised_conv(), {"x": RNG.standard_normal((1, 4, 6, 6)).astype(np.float32)})


def test_a_weight_normalised_weight_folds_past_the_limit():
    assert _ops(_weight_normalised_matmul()) == ["MatMul"]
    _matches_onnxruntime(_weight_normalised_matmul(), {"x": RNG.standard_normal((3, 16)).astype(np.float32)})


def test_a_tied_embedding_is_not_copied():
    assert "Transpose" in _ops(_tied_embedding())
    _matches_onnxruntime(_tied_embedding(), {"ids": np.array([0, 3, 19, 7, 7], np.int64)})


def test_a_weight_a_loop_also_reads_is_not_copied():
    assert "Mul" in _ops(_weight_also_carried_by_a_loop())


def test_a_fold_that_grows_the_bytes_is_left_to_run():
    assert "Cast" in _ops(_int8_codes())
    _matches_onnxruntime(_int8_codes(), {"x": RNG.standard_normal((3, 16)).astype(np.float32)})


def test_the_default_limit_folds_the_small_ones_as_before():
    """Under the default limit every one of them folds or not as it did: all small."""
    assert import_model(_tied_embedding()).graph.nodes[-1].op == "MatMul"
    assert [n.op for n in import_model(_int8_codes()).graph.nodes] == ["MatMul"]
    assert [n.op for n in import_model(_standardised_conv()).graph.nodes] == ["Conv"]
