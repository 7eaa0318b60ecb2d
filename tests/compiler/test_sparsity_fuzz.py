"""Random pruned models through SparTA with every other stage on (issue 16): the fusion fuzzer's
random graphs (tests/compiler/test_fusion_fuzz.py: contractions, convolutions and attention among
elementwise ops, norms and reshapes, fused by the welder stage) with their weights pruned in a
pattern drawn per weight: zero blocks of a random shape (rows and columns of the weight, whole
rows, whole columns) at 50-95%, 2:4 along the reduction axis, or unstructured. Compiled at fp32
or fp16, the plan verified against onnxruntime on the host harness, in both thread orders; and
every block-sparse kernel the plan runs walks fewer k tiles than its dense self.

CI runs FUZZ_SEEDS seeds; `BRICKYARD_FUZZ_SEEDS=300 pytest tests/compiler/test_sparsity_fuzz.py`
runs more (a failing seed's model is written to $BRICKYARD_FUZZ_OUT when set)."""
from __future__ import annotations

import os

import numpy as np
import onnx
import pytest
from onnx import numpy_helper

from tests.compiler.test_fusion_fuzz import compiled_and_checked, random_model

FUZZ_SEEDS = int(os.environ.get("BRICKYARD_FUZZ_SEEDS", "12"))
# activations large enough that sparse kernels pay on some weights (at the fusion fuzzer's own
# sizes the micro-model keeps nearly every contraction dense)
SHAPES = ((1, 128, 256), (1, 64, 16, 16), (2, 96, 128), (1, 256, 128))
BLOCKS = ((4, 4), (8, 8), (16, 16), (32, 32), (1, 8), (8, 1), (1, 0), (0, 1))   # 0: the whole axis


def pruned(weight: np.ndarray, rng, contracted_axis: int) -> np.ndarray:
    """`weight` with a drawn share of its elements zero, in a drawn pattern (see the module's
    docstring); the pattern is over the weight as [rows, columns] (a convolution's filters
    flattened), `contracted_axis` the axis a 2:4 pattern groups along."""
    w = weight.reshape(weight.shape[0], -1).copy()
    pattern = rng.choice(["blocks", "2:4", "unstructured"], p=[0.7, 0.15, 0.15])
    if pattern == "2:4" and w.shape[contracted_axis] % 4 == 0:
        groups = np.moveaxis(w, contracted_axis, -1)           # [other, contracted]: groups of 4 along it
        view = groups.reshape(groups.shape[0], -1, 4)
        drop = np.argsort(rng.random(view.shape), axis=-1)[..., :2]
        np.put_along_axis(view, drop, 0.0, axis=-1)
        return np.moveaxis(view.reshape(groups.shape), -1, contracted_axis).reshape(weight.shape)
    share = float(rng.uniform(0.5, 0.95))
    if pattern != "blocks":
        w[rng.random(w.shape) < share] = 0.0
        return w.reshape(weight.shape)
    bh, bw = BLOCKS[int(rng.integers(len(BLOCKS)))]
    bh, bw = bh or w.shape[0], bw or w.shape[1]
    rows, cols = -(-w.shape[0] // bh), -(-w.shape[1] // bw)
    zero = rng.random((rows, cols)) < share
    w[np.kron(zero, np.ones((bh, bw), bool))[:w.shape[0], :w.shape[1]]] = 0.0
    return w.reshape(weight.shape)


def pruned_model(seed: int) -> tuple[bytes, dict, str, tuple[str, ...]]:
    """The fusion fuzzer's model of `seed` with every weight a contraction reads pruned."""
    data, feeds, precision, disable = random_model(seed, SHAPES)
    model = onnx.load_from_string(data)
    rng = np.random.default_rng(1000 + seed)
    # the weight input of each contraction, with the axis it reduces along as [rows, columns]
    contracted = {n.input[1]: 0 if n.op_type == "MatMul" else 1 for n in model.graph.node
                  if n.op_type in ("MatMul", "Conv") and len(n.input) > 1}
    for k, init in enumerate(model.graph.initializer):
        if init.name in contracted:
            w = numpy_helper.to_array(init)
            model.graph.initializer[k].CopyFrom(numpy_helper.from_array(pruned(w, rng, contracted[init.name]), init.name))
    return model.SerializeToString(), feeds, precision, disable


@pytest.mark.parametrize("seed", range(FUZZ_SEEDS))
def test_random_pruned_graph_is_right_with_sparta(seed):
    data, feeds, precision, disable = pruned_model(seed)
    art = compiled_and_checked(data, feeds, precision, disable, f"sparse_fuzz{seed}-{precision}")
    for entry in art.report["sparsity"]["kernels"]:
        if entry["chosen"] != "dense":
            assert entry["flops_executed"] < entry["flops_dense"], entry
