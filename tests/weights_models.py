"""A model with megabytes of real weights for the artifact and store tests: an MLP stack built with
onnx.helper from seeded random weights, and its NumPy reference."""
from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def mlp_weights(layers: int = 3, hidden: int = 256, ffn: int = 1024, seed: int = 7) -> list[tuple]:
    """Per layer (w_up, b_up, w_down, b_down), float32, never zero."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(layers):
        out.append(((rng.standard_normal((hidden, ffn)) / np.sqrt(hidden)).astype(np.float32),
                    rng.uniform(0.1, 0.5, ffn).astype(np.float32),
                    (rng.standard_normal((ffn, hidden)) / np.sqrt(ffn)).astype(np.float32),
                    rng.uniform(0.1, 0.5, hidden).astype(np.float32)))
    return out


def mlp_model(weights: list[tuple], rows: int = 8) -> bytes:
    """x[rows, hidden] -> per layer x = Relu(x @ Wu + bu) @ Wd + bd + x."""
    hidden = weights[0][0].shape[0]
    nodes, inits, x = [], [], "x"
    for i, (wu, bu, wd, bd) in enumerate(weights):
        for name, a in ((f"wu{i}", wu), (f"bu{i}", bu), (f"wd{i}", wd), (f"bd{i}", bd)):
            inits.append(numpy_helper.from_array(a, name))
        nodes += [helper.make_node("MatMul", [x, f"wu{i}"], [f"u{i}"]),
                  helper.make_node("Add", [f"u{i}", f"bu{i}"], [f"ub{i}"]),
                  helper.make_node("Relu", [f"ub{i}"], [f"r{i}"]),
                  helper.make_node("MatMul", [f"r{i}", f"wd{i}"], [f"d{i}"]),
                  helper.make_node("Add", [f"d{i}", f"bd{i}"], [f"db{i}"]),
                  helper.make_node("Add", [f"db{i}", x], [f"h{i}"])]
        x = f"h{i}"
    nodes.append(helper.make_node("Identity", [x], ["y"]))
    graph = helper.make_graph(nodes, "mlp", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [rows, hidden])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [rows, hidden])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    onnx.checker.check_model(model)
    return model.SerializeToString()


def mlp_reference(weights: list[tuple], x: np.ndarray) -> np.ndarray:
    """The model in float64."""
    h = x.astype(np.float64)
    for wu, bu, wd, bd in weights:
        h = np.maximum(h @ wu + bu, 0.0) @ wd + bd + h
    return h
