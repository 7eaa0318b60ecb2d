"""SparTA's analysis half: TeSA detection from arrays (compiler/ir/tesa.py), annotation of a model's
weights and propagation through tensor expressions (compiler/passes/sparta.py). Every expected
pattern is computed from the arrays themselves with NumPy, and every propagated zero is checked
against running the graph with the ops' NumPy references."""
from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

from compiler.frontend.onnx_import import import_model
from compiler.ir.tesa import BLOCK_SHAPES, Pattern, TeSA, detect
from compiler.ops.control_flow import evaluate_graph
from compiler.passes import sparta
from compiler.passes.sparta import annotate, propagate, zero_masks
from tests.conftest import MODELS_DIR, shared_models

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _block_sparse(rows, cols, block, nonzero, rng):
    a = np.zeros((rows, cols), np.float32)
    for r, c in nonzero:
        a[r * block[0]:(r + 1) * block[0], c * block[1]:(c + 1) * block[1]] = \
            rng.uniform(0.5, 2.0, block) * rng.choice([-1, 1], block)
    return a


def _two_of_four(rows, cols, axis, rng):
    """Random values with exactly 2 non-zeros in every aligned group of 4 along `axis`."""
    a = rng.uniform(0.5, 2.0, (rows, cols)).astype(np.float32)
    g = a if axis == 1 else a.T
    groups = g.reshape(g.shape[0], -1, 4)
    for row in groups:
        for grp in row:
            grp[rng.choice(4, 2, replace=False)] = 0.0
    return a


# ---- detect -----------------------------------------------------------------------------------------

def test_detect_block_sparse_lists_exactly_the_nonzero_blocks():
    rng = np.random.default_rng(0)
    nonzero = {(0, 1), (2, 0), (3, 2)}
    a = _block_sparse(128, 96, (32, 32), nonzero, rng)
    t = detect(a)
    assert t.pattern is Pattern.BLOCK and t.block == (32, 32) and t.matrix == (128, 96)
    assert set(t.nonzero_blocks) == nonzero and list(t.nonzero_blocks) == sorted(nonzero)
    assert t.block_grid == (4, 3) and t.block_density == pytest.approx(3 / 12)
    assert t.density == pytest.approx(np.count_nonzero(a) / a.size)
    assert t.bits == 32 and t.origin == "weight"
    np.testing.assert_array_equal(t.may_be_nonzero(), a != 0)   # blocks are full: the mask is exact


def test_a_block_with_one_nonzero_element_is_not_zero():
    rng = np.random.default_rng(1)
    kept = {(0, 0), (1, 3), (5, 6), (7, 1)}
    a = _block_sparse(256, 256, (32, 32), kept, rng)
    a[100, 70] = 1e-30              # one tiny element in block (3, 2): the block is not zero
    t = detect(a)
    assert t.pattern is Pattern.BLOCK and t.block == (32, 32)
    assert set(t.nonzero_blocks) == kept | {(3, 2)}
    assert t.may_be_nonzero()[100, 70] and not t.may_be_nonzero()[100, 10]


def test_largest_block_shape_that_explains_the_zeros_wins():
    rng = np.random.default_rng(2)
    # zeros in whole 64x64 blocks: 64x64 is chosen over the 32x32 that also explains them
    big = _block_sparse(256, 256, (64, 64), {(0, 0), (3, 1)}, rng)
    assert detect(big).block == (64, 64) and set(detect(big).nonzero_blocks) == {(0, 0), (3, 1)}
    # whole zero columns, not aligned to 32: only 32x1 strips hold all the zeros
    cols = rng.uniform(0.5, 2.0, (128, 128)).astype(np.float32)
    dead = rng.choice(128, 90, replace=False)
    cols[:, dead] = 0.0
    t = detect(cols)
    assert t.pattern is Pattern.BLOCK and t.block == (32, 1)
    assert {c for _, c in t.nonzero_blocks} == set(range(128)) - set(dead.tolist())
    assert (32, 1) in BLOCK_SHAPES


def test_detect_2_4_along_the_reduction_axis():
    rng = np.random.default_rng(3)
    w = _two_of_four(64, 128, axis=0, rng=rng)      # a MatMul weight [K, N]: groups along K
    t = detect(w)
    assert t.pattern is Pattern.NM_2_4 and t.axis == 0 and t.density == pytest.approx(0.5)
    t1 = detect(w.T)                                 # the same structure along columns
    assert t1.pattern is Pattern.NM_2_4 and t1.axis == 1
    assert detect(w.T, reduction_axis=0).pattern is Pattern.UNSTRUCTURED   # not 2:4 along rows
    bad = w.copy()
    col = bad[0:4, 5]
    col[col == 0] = 1.0                              # one group of 4 with 4 non-zeros
    assert detect(bad).pattern is Pattern.UNSTRUCTURED


def test_detect_unstructured_and_dense():
    rng = np.random.default_rng(4)
    a = rng.standard_normal((96, 80)).astype(np.float32)
    a[rng.random(a.shape) < 0.3] = 0.0
    t = detect(a)
    assert t.pattern is Pattern.UNSTRUCTURED and t.density == pytest.approx(np.count_nonzero(a) / a.size)
    few = rng.standard_normal((96, 80)).astype(np.float32)
    few[rng.random(few.shape) < 0.01] = 0.0          # 1% zeros: under DENSE_BELOW
    assert detect(few).pattern is Pattern.DENSE and detect(few).density == 1.0
    assert detect(np.ones((4, 4), np.float16)).bits == 16
    assert detect(np.zeros(7, np.float32)).pattern is Pattern.UNSTRUCTURED and detect(np.zeros(7)).density == 0.0
    vec = np.array([0, 0, 1, 0, 2, 0], np.float32)  # rank 1: no block or 2:4 view
    assert detect(vec).pattern is Pattern.UNSTRUCTURED


def test_key_is_stable_and_tells_patterns_apart():
    rng = np.random.default_rng(5)
    a = _block_sparse(64, 64, (32, 32), {(1, 0)}, rng)
    t1, t2 = detect(a), detect(a.copy())
    assert t1 is not t2 and t1.key == t2.key and len(t1.key) == 64
    rebuilt = TeSA(Pattern.BLOCK, (64, 64), t1.density, 32, "weight", matrix=(64, 64), block=(32, 32),
                   nonzero_blocks=((1, 0),))
    assert rebuilt.key == t1.key
    others = [t1.with_bits(8), TeSA(Pattern.UNSTRUCTURED, (64, 64), t1.density, 32, "weight"),
              TeSA(Pattern.BLOCK, (64, 64), t1.density, 32, "weight", matrix=(64, 64), block=(32, 32),
                   nonzero_blocks=((0, 1),)),
              TeSA(Pattern.BLOCK, (64, 64), t1.density, 32, "scrambling", matrix=(64, 64), block=(32, 32),
                   nonzero_blocks=((1, 0),))]
    assert len({t1.key} | {o.key for o in others}) == 5


def test_key_does_not_depend_on_the_process_hash_seed():
    code = ("from compiler.ir.tesa import TeSA, Pattern;"
            "print(TeSA(Pattern.NM_2_4, (8, 4), 0.5, 16, 'weight', matrix=(8, 4), axis=0).key)")
    keys = {subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True,
                           env={**os.environ, "PYTHONHASHSEED": seed}).stdout.strip() for seed in ("1", "2")}
    here = TeSA(Pattern.NM_2_4, (8, 4), 0.5, 16, "weight", matrix=(8, 4), axis=0).key
    assert keys == {here}


def test_tesa_rejects_inconsistent_fields():
    with pytest.raises(ValueError):
        TeSA(Pattern.BLOCK, (64, 64), 0.5, 32, "weight", matrix=(64, 64), block=(32, 32), nonzero_blocks=((2, 0),))
    with pytest.raises(ValueError):
        TeSA(Pattern.NM_2_4, (8, 8), 0.5, 32, "weight", matrix=(8, 8))
    with pytest.raises(ValueError):
        TeSA(Pattern.DENSE, (8,), 1.5, 32, "weight")
    with pytest.raises(ValueError):
        TeSA(Pattern.UNSTRUCTURED, (8,), 0.5, 32, "weight").block_density


# ---- annotate on the block-sparse BERT ---------------------------------------------------------------

@pytest.fixture(scope="module")
def bert(models_dir):
    return import_model(str(models_dir / "bert_block_sparse.onnx"))


def _linear_weights(graph):
    """Constant rank-2 second operands of the graph's contractions (the Linear layers' weights)."""
    names = []
    for n in graph.nodes:
        w = graph.constant(n.inputs[1]) if n.op == "MatMul" else None
        if w is not None and len(w.shape) == 2:
            names.append(n.inputs[1])
    return names


def test_annotate_finds_the_32x32_blocks_of_every_linear_weight(bert):
    attrs = annotate(bert.graph)
    weights = _linear_weights(bert.graph)
    assert len(weights) == 12               # 2 layers x (q, k, v, output, FFN in, FFN out)
    for name in weights:
        w = bert.graph.constant(name).array()
        rows, cols = w.shape
        zero_blocks = (w == 0).reshape(rows // 32, 32, cols // 32, 32).all(axis=(1, 3))
        expected = {(int(r), int(c)) for r, c in zip(*np.nonzero(~zero_blocks))}
        t = attrs[name]
        assert t.pattern is Pattern.BLOCK and t.block == (32, 32), (name, t.pattern, t.block)
        assert set(t.nonzero_blocks) == expected
        assert t.block_density == pytest.approx(len(expected) / zero_blocks.size)
        assert 0.1 <= t.block_density <= 0.2   # "90% pruned" in whole blocks: 2 or 3 of 16 kept per 128x128
        assert t.density == pytest.approx(np.count_nonzero(w) / w.size)
    emb = bert.graph.constant("model.embeddings.word_embeddings.weight")
    assert emb is not None and "model.embeddings.word_embeddings.weight" not in attrs   # 0.1% zeros: dense


# ---- propagation -------------------------------------------------------------------------------------

def _all_values(graph, feeds, opset):
    """Every node output of `graph`, by running it with the ops' NumPy references."""
    names = tuple(v for n in graph.nodes for v in n.outputs if v)
    return dict(zip(names, evaluate_graph(graph.replace(outputs=names), feeds, opset)))


def _check_sound(result, masks, runs):
    """Every element the propagation calls zero (exact mask and summary) is exactly zero in real runs."""
    for values in runs:
        for name, t in result.items():
            if name in values:
                v = values[name]
                assert not (v[~t.may_be_nonzero()] != 0).any(), name
                assert not (v[masks[name]] != 0).any(), name


DEAD_ROWS = set(np.random.default_rng(12).choice(96, 60, replace=False).tolist())


def _small_model(w, dead_rows_a):
    v = helper.make_tensor_value_info
    nodes = [helper.make_node("MatMul", ["x", "w"], ["m"], name="mm"),
             helper.make_node("Relu", ["m"], ["r"], name="relu"),
             helper.make_node("Transpose", ["r"], ["t"], name="tr", perm=[1, 0]),
             helper.make_node("Add", ["t", "d"], ["s"], name="add_dense"),
             helper.make_node("Slice", ["m", "starts", "ends", "axes"], ["sl"], name="slice"),
             helper.make_node("Gather", ["m", "idx"], ["ga"], name="gather", axis=1),
             helper.make_node("Where", ["c", "m", "zero"], ["wh"], name="where"),
             helper.make_node("MatMul", ["a", "x2"], ["rows"], name="mm_rows")]
    a = np.random.default_rng(7).standard_normal((96, 24)).astype(np.float32)
    a[dead_rows_a] = 0.0
    inits = [numpy_helper.from_array(w, "w"), numpy_helper.from_array(a, "a"),
             numpy_helper.from_array(np.array([8], np.int64), "starts"),
             numpy_helper.from_array(np.array([40], np.int64), "ends"),
             numpy_helper.from_array(np.array([1], np.int64), "axes"),
             numpy_helper.from_array(np.array([3, 0, 12, 40, 12], np.int64), "idx"),
             numpy_helper.from_array(np.array(0.0, np.float32), "zero")]
    g = helper.make_graph(nodes, "small", [v("x", TensorProto.FLOAT, [8, 64]), v("d", TensorProto.FLOAT, [48, 8]),
                                           v("c", TensorProto.BOOL, [8, 48]), v("x2", TensorProto.FLOAT, [24, 40])],
                          [v(n, TensorProto.FLOAT, shape) for n, shape in
                           (("s", [48, 8]), ("t", [48, 8]), ("sl", [8, 32]), ("ga", [8, 5]), ("wh", [8, 48]),
                            ("rows", [96, 40]))], inits)
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)])


def _feeds(rng):
    return {"x": rng.standard_normal((8, 64)).astype(np.float32), "d": rng.standard_normal((48, 8)).astype(np.float32),
            "c": rng.random((8, 48)) < 0.5, "x2": rng.standard_normal((24, 40)).astype(np.float32)}


@pytest.fixture(scope="module")
def small():
    rng = np.random.default_rng(6)
    w = rng.standard_normal((64, 48)).astype(np.float32)
    dead = [3, 10, 11, 12, 13, 14, 15, 40]
    w[:, dead] = 0.0
    im = import_model(_small_model(w, sorted(DEAD_ROWS)))
    attrs = annotate(im.graph)
    return im, set(dead), propagate(im.graph, attrs, im.opset), zero_masks(im.graph, attrs, im.opset)


def _zero_cols(z, axis=0):
    return set(np.nonzero(z.all(axis=axis))[0].tolist())


def test_zero_columns_of_the_weight_give_zero_columns_of_the_output(small):
    im, dead, res, masks = small
    assert res["w"].origin == "weight"
    m = res["m"]
    assert m.pattern is Pattern.UNSTRUCTURED and m.origin == "propagated from w through mm"
    assert m.density == pytest.approx(1 - len(dead) / 48)
    # exactly the dead columns: a column of the product is zero iff the weight's column is
    assert _zero_cols(masks["m"]) == dead and masks["m"].sum() == 8 * len(dead)
    assert _zero_cols(masks["r"]) == dead and res["r"].origin == "propagated from m through relu"


def test_transpose_slice_and_gather_move_the_mask(small):
    im, dead, res, masks = small
    assert _zero_cols(masks["t"], axis=1) == dead and masks["t"].sum() == 8 * len(dead)   # rows now
    assert _zero_cols(masks["sl"]) == {c - 8 for c in dead if 8 <= c < 40}
    picked = [3, 0, 12, 40, 12]
    assert _zero_cols(masks["ga"]) == {k for k, c in enumerate(picked) if c in dead}
    assert _zero_cols(masks["wh"]) == dead                      # where(c, m, 0): zero when both are
    assert res["wh"].origin == "propagated from m through where"


def test_adding_a_dense_tensor_makes_it_dense(small):
    im, dead, res, masks = small
    assert "s" not in res and "t" in res and not masks.get("s", np.zeros(1, bool)).any()


def test_a_zero_row_of_a_gives_a_zero_row_of_the_product(small):
    im, dead, res, masks = small
    t = res["rows"]
    assert t.pattern is Pattern.BLOCK and t.block == (1, 32)   # whole rows of 32 (ragged at 40 columns)
    assert set(np.nonzero((~t.may_be_nonzero()).all(axis=1))[0].tolist()) == DEAD_ROWS
    assert set(np.nonzero(masks["rows"].all(axis=1))[0].tolist()) == DEAD_ROWS
    values = _all_values(im.graph, _feeds(np.random.default_rng(0)), im.opset)
    assert set(np.nonzero((values["rows"] == 0).all(axis=1))[0].tolist()) == DEAD_ROWS


def test_small_graph_propagation_matches_running_it(small):
    im, dead, res, masks = small
    rng = np.random.default_rng(8)
    runs = [_all_values(im.graph, _feeds(rng), im.opset) for _ in range(3)]
    _check_sound(res, masks, runs)
    for name in ("m", "sl", "ga", "rows"):   # and complete (not relu: its zeros also come from the data)
        np.testing.assert_array_equal(masks[name], np.logical_and.reduce([r[name] == 0 for r in runs]), name)


def test_bert_propagation_is_sound_and_complete_for_the_products(bert):
    g = bert.graph
    attrs = annotate(g)
    res, masks = propagate(g, attrs, bert.opset), zero_masks(g, attrs, bert.opset)
    rng = np.random.default_rng(9)
    runs = [_all_values(g, {"input_0": rng.integers(0, 1000, (1, 64))}, bert.opset) for _ in range(2)]
    _check_sound(res, masks, runs)
    products = 0
    for n in g.nodes:
        w = g.constant(n.inputs[1]) if n.op == "MatMul" else None
        if w is None:
            continue
        products += 1
        out = n.outputs[0]
        # every zero column of the weight zeroes that column of the product ...
        dead = (w.array() == 0).all(axis=0)
        assert masks[out].reshape(-1, w.shape[1])[:, dead].all(), n.name
        # ... and what the Boolean semiring adds (zero activation columns) is exactly what the runs show
        np.testing.assert_array_equal(masks[out], np.logical_and.reduce([r[out] == 0 for r in runs]), n.name)
    assert products == 12
    assert sum(1 for k in res if k not in attrs) >= 20


def _conv_model():
    """Conv -> Relu -> Conv: output channels 1, 5, 9 of the first weight are zero, and the second
    weight's channel 3 reads only those, so it is zero too (the semiring through a window)."""
    rng = np.random.default_rng(13)
    w1 = rng.standard_normal((16, 8, 3, 3)).astype(np.float32)
    w1[[1, 5, 9]] = 0.0
    w2 = rng.standard_normal((8, 16, 3, 3)).astype(np.float32)
    w2[2] = 0.0
    w2[3, [k for k in range(16) if k not in (1, 5, 9)]] = 0.0
    v = helper.make_tensor_value_info
    g = helper.make_graph([helper.make_node("Conv", ["x", "w1"], ["c1"], name="conv1", pads=[1, 1, 1, 1]),
                           helper.make_node("Relu", ["c1"], ["r1"], name="relu"),
                           helper.make_node("Conv", ["r1", "w2"], ["c2"], name="conv2", pads=[1, 1, 1, 1])],
                          "convs", [v("x", TensorProto.FLOAT, [1, 8, 12, 12])],
                          [v("c2", TensorProto.FLOAT, [1, 8, 12, 12])],
                          [numpy_helper.from_array(w1, "w1"), numpy_helper.from_array(w2, "w2")])
    return import_model(helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)]))


def _channels(z):
    """The channels of a [1, C, H, W] mask that are zero everywhere."""
    return set(np.nonzero(z[0].reshape(z.shape[1], -1).all(axis=1))[0].tolist())


def test_conv_windows_and_padding_keep_zero_channels_exact():
    im = _conv_model()
    attrs = annotate(im.graph)
    masks = zero_masks(im.graph, attrs, im.opset)
    assert _channels(masks["c1"]) == {1, 5, 9} and masks["c1"].sum() == 3 * 144
    assert _channels(masks["c2"]) == {2, 3} and masks["c2"].sum() == 2 * 144
    x = np.random.default_rng(14).standard_normal((1, 8, 12, 12)).astype(np.float32)
    values = _all_values(im.graph, {"x": x}, im.opset)
    np.testing.assert_array_equal(masks["c1"], values["c1"] == 0)
    np.testing.assert_array_equal(masks["c2"], values["c2"] == 0)


def test_evaluation_in_chunks_gives_the_same_masks(monkeypatch):
    im = _conv_model()
    attrs = annotate(im.graph)
    whole = zero_masks(im.graph, attrs, im.opset)
    monkeypatch.setattr(sparta, "GRID_LIMIT", 20_000)       # one output channel per chunk
    chunked = zero_masks(im.graph, attrs, im.opset)
    assert whole.keys() == chunked.keys()
    for name in whole:
        np.testing.assert_array_equal(whole[name], chunked[name], name)
    monkeypatch.setattr(sparta, "GRID_LIMIT", 100)          # too large even per slice: dense, never wrong
    assert not any(zero_masks(im.graph, attrs, im.opset).get(n, np.zeros(1, bool)).any() for n in ("c1", "c2"))


def _depthwise_model():
    """Depthwise convolutions: a 1x1 one whose padding reaches past its window (its border is zero
    whatever the input), channel 2 of its weight zero; then a 3x3 one reading it."""
    rng = np.random.default_rng(15)
    w1 = rng.standard_normal((6, 1, 1, 1)).astype(np.float32)
    w1[2] = 0.0
    w2 = rng.standard_normal((6, 1, 3, 3)).astype(np.float32)
    v = helper.make_tensor_value_info
    g = helper.make_graph([helper.make_node("Conv", ["x", "w1"], ["c1"], name="dw1", group=6, pads=[2, 1, 2, 1]),
                           helper.make_node("Conv", ["c1", "w2"], ["c2"], name="dw2", group=6, pads=[1, 1, 1, 1])],
                          "depthwise", [v("x", TensorProto.FLOAT, [2, 6, 8, 8])],
                          [v("c2", TensorProto.FLOAT, [2, 6, 12, 10])],
                          [numpy_helper.from_array(w1, "w1"), numpy_helper.from_array(w2, "w2")])
    return import_model(helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)]))


class _EveryVariable:
    def __contains__(self, name):
        return True


def test_a_depthwise_convolution_s_zeros_are_found_on_the_variables_they_depend_on(monkeypatch):
    """The padding's zeros depend on the spatial positions alone, the zero channel's on the channel:
    the masks are exact, and the same as on the whole grid of every variable."""
    im = _depthwise_model()
    attrs = annotate(im.graph)
    masks = zero_masks(im.graph, attrs, im.opset)
    x = np.random.default_rng(16).standard_normal((2, 6, 8, 8)).astype(np.float32)
    values = _all_values(im.graph, {"x": x}, im.opset)
    for name in ("c1", "c2"):
        np.testing.assert_array_equal(masks[name], values[name] == 0, name)
    assert masks["c1"][:, :, :2].all() and masks["c1"][:, 2].all() and not masks["c1"][:, 0, 2:10, 1:9].any()
    monkeypatch.setattr(sparta, "_zero_vars", lambda te, m, v: _EveryVariable())
    whole = zero_masks(im.graph, attrs, im.opset)
    assert whole.keys() == masks.keys()
    for name in masks:
        np.testing.assert_array_equal(masks[name], whole[name], name)


@pytest.mark.parametrize("name", shared_models())
def test_the_variables_zeros_depend_on_give_the_whole_grid_s_masks(name, monkeypatch):
    im = import_model(str(MODELS_DIR / f"{name}.onnx"))
    attrs = annotate(im.graph, im.opset)
    fast = zero_masks(im.graph, attrs, im.opset)
    monkeypatch.setattr(sparta, "_zero_vars", lambda te, m, v: _EveryVariable())
    every = zero_masks(im.graph, attrs, im.opset)
    assert fast.keys() == every.keys()
    for v in fast:
        np.testing.assert_array_equal(fast[v], every[v], v)


@pytest.mark.parametrize("training_outputs", [True, False])
def test_scrambling_covers_an_op_lowered_to_a_handwritten_kernel(training_outputs):
    """LayerNormalization asked for its mean and inv_std_dev is the hand-written row kernel: its
    zero columns are found by scrambling; without them it lowers to tensor expressions, through
    which the zeros of its scale propagate."""
    scale = np.ones(32, np.float32)
    scale[[1, 5, 17]] = 0.0
    v = helper.make_tensor_value_info
    outs = ["y", "m", "s"] if training_outputs else ["y"]
    stats = [v("m", TensorProto.FLOAT, [4, 1]), v("s", TensorProto.FLOAT, [4, 1])] if training_outputs else []
    g = helper.make_graph([helper.make_node("LayerNormalization", ["x", "scale", "bias"], outs, name="ln", axis=-1)],
                          "ln", [v("x", TensorProto.FLOAT, [4, 32])], [v("y", TensorProto.FLOAT, [4, 32])] + stats,
                          [numpy_helper.from_array(scale, "scale"),
                           numpy_helper.from_array(np.zeros(32, np.float32), "bias")])
    im = import_model(helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)]))
    res = propagate(im.graph, annotate(im.graph), im.opset)
    y = res["y"]
    assert y.origin == ("scrambling" if training_outputs else "propagated from scale through ln"), y.origin
    assert y.density == pytest.approx(1 - 3 / 32)
    x = np.random.default_rng(10).standard_normal((4, 32)).astype(np.float32)
    out = evaluate_graph(im.graph, {"x": x}, im.opset)[0]
    assert set(np.nonzero((out == 0).all(axis=0))[0].tolist()) == {1, 5, 17}


def test_a_dequantized_int8_weight_keeps_its_bit_width():
    rng = np.random.default_rng(11)
    q = (rng.integers(1, 100, (64, 32)) * rng.choice([-1, 1], (64, 32))).astype(np.int8)
    q[_two_of_four(64, 32, axis=0, rng=rng) == 0] = 0          # exactly 2 of every 4 along K kept
    v = helper.make_tensor_value_info
    g = helper.make_graph([helper.make_node("DequantizeLinear", ["q", "s", "zp"], ["w"], name="dq"),
                           helper.make_node("MatMul", ["x", "w"], ["y"], name="mm")],
                          "dq", [v("x", TensorProto.FLOAT, [4, 64])], [v("y", TensorProto.FLOAT, [4, 32])],
                          [numpy_helper.from_array(q, "q"), numpy_helper.from_array(np.array(0.05, np.float32), "s"),
                           numpy_helper.from_array(np.array(0, np.int8), "zp")])
    im = import_model(helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)]))
    attrs = annotate(im.graph)
    w = attrs["w"]
    assert w.bits == 8 and w.pattern is Pattern.NM_2_4 and w.axis == 0
    assert "dequantized by dq" in w.origin and attrs["q"].bits == 8 and attrs["q"].pattern is Pattern.NM_2_4
    res = propagate(im.graph, attrs, im.opset)
    assert res["w"] == w                    # the caller's attribute stands: nothing more was learnt
    assert "y" not in res                   # 2:4 zeros never zero a whole dot product here


def _masked_products_model(rng):
    """Products whose both operands have provable zeros (activations times a constant 0/1 mask,
    pruned weights): a MatMul, a Gemm with a transposed weight, a Conv, and a batched MatMul of
    two masked activations (the one the grid still evaluates)."""
    v = helper.make_tensor_value_info

    def sparse(shape, density):
        a = rng.standard_normal(shape).astype(np.float32)
        return np.where(rng.random(shape) < density, a, 0).astype(np.float32)

    def rows_dead(shape, share):        # some whole rows zero too: distinct rows repeat
        a = sparse(shape, 0.3)
        a[rng.random(shape[0]) < share] = 0
        return a
    nodes = [helper.make_node("Mul", ["x", "xmask"], ["xm"]),
             helper.make_node("MatMul", ["xm", "w"], ["mm"]),
             helper.make_node("Gemm", ["xm", "wt"], ["gemm"], transB=1),
             helper.make_node("Mul", ["img", "imask"], ["im"]),
             helper.make_node("Conv", ["im", "k"], ["conv"], pads=[1, 1, 1, 1]),
             helper.make_node("Mul", ["q", "qmask"], ["qm"]),
             helper.make_node("MatMul", ["qm", "qm_t"], ["bmm"]),
             helper.make_node("Transpose", ["qm"], ["qm_t"], perm=[0, 2, 1])]
    inits = {"xmask": (rows_dead((40, 48), 0.3) != 0).astype(np.float32), "w": sparse((48, 56), 0.2),
             "wt": sparse((56, 48), 0.1), "imask": (sparse((1, 6, 9, 9), 0.5) != 0).astype(np.float32),
             "k": sparse((8, 6, 3, 3), 0.2), "qmask": (sparse((3, 20, 16), 0.4) != 0).astype(np.float32)}
    g = helper.make_graph(nodes, "masked", [v("x", TensorProto.FLOAT, [40, 48]), v("img", TensorProto.FLOAT, [1, 6, 9, 9]),
                                            v("q", TensorProto.FLOAT, [3, 20, 16])],
                          [v("mm", TensorProto.FLOAT, [40, 56]), v("gemm", TensorProto.FLOAT, [40, 56]),
                           v("conv", TensorProto.FLOAT, [1, 8, 9, 9]), v("bmm", TensorProto.FLOAT, [3, 20, 20])],
                          [numpy_helper.from_array(a, n) for n, a in inits.items()])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)])


def test_a_contraction_without_its_grid_gives_the_grid_s_masks(monkeypatch):
    """The contraction path (a product of the operands' non-zero masks over their distinct rows)
    against the grid evaluation it replaces, mask for mask, and against NumPy's Boolean product."""
    im = import_model(_masked_products_model(np.random.default_rng(21)))
    attrs = annotate(im.graph)
    contracted = []
    without_grid = sparta._MaskEval._contracted

    def spy(self):
        z = without_grid(self)
        contracted.append((self.te.name, z is not None))
        return z
    monkeypatch.setattr(sparta._MaskEval, "_contracted", spy)
    fast = zero_masks(im.graph, attrs, im.opset)
    monkeypatch.setattr(sparta._MaskEval, "_contracted", without_grid)
    # the plain products take the path; the batched one (both operands vary along its batch) does not
    assert sum(ok for _, ok in contracted) >= 3 and not all(ok for _, ok in contracted), contracted
    taken = []
    factors = sparta._contraction_factors
    monkeypatch.setattr(sparta, "_contraction_factors", lambda te, ext: taken.append(te.name) or None)
    grid = zero_masks(im.graph, attrs, im.opset)
    assert len(taken) >= 4            # the grid path evaluated every product
    monkeypatch.setattr(sparta, "_contraction_factors", factors)
    for name in ("mm", "gemm", "conv", "bmm"):
        np.testing.assert_array_equal(fast[name], grid[name], name)
        assert fast[name].any() and not fast[name].all(), name     # the case says something
    consts = dict(im.graph.constants)
    xm, w = consts["xmask"].array() != 0, consts["w"].array() != 0
    np.testing.assert_array_equal(fast["mm"], (xm.astype(int) @ w.astype(int)) == 0)


@pytest.mark.parametrize("name", shared_models())
def test_skipping_nodes_that_cannot_make_zeros_finds_the_same_masks(name, monkeypatch):
    """`may_make_zeros` lets the propagation skip the grid of a node with no zero in and none its
    expression makes; with every node evaluated instead, the masks are the same."""
    im = import_model(str(MODELS_DIR / f"{name}.onnx"))
    attrs = annotate(im.graph, im.opset)
    asked = []
    rule = sparta.may_make_zeros
    monkeypatch.setattr(sparta, "may_make_zeros", lambda te, c, z=frozenset(): asked.append(rule(te, c, z)) or asked[-1])
    fast = zero_masks(im.graph, attrs, im.opset)
    if name in ("bert", "gpt2", "vit"):     # a transformer: most nodes skipped (a CNN's padded windows are not)
        assert asked.count(False) > len(asked) // 2
    monkeypatch.setattr(sparta, "may_make_zeros", lambda te, c, z=frozenset(): True)
    every = zero_masks(im.graph, attrs, im.opset)
    assert fast.keys() == every.keys()
    for v in fast:
        np.testing.assert_array_equal(fast[v], every[v], v)


def test_what_an_expression_can_make_zero_by_itself():
    """A causal mask (zero where the key is after the query), an index difference and x * 0 can be
    zero with no zero in; relu, exp, a sum of products and x times a constant without a zero
    cannot."""
    from compiler.ir.dtypes import DType
    from compiler.ir.graph import TensorType
    from compiler.ir.texpr import Reduce, TensorExpr, Var, cast, const, load, maximum, out_vars, select, unary
    f32 = DType.float32
    i, j = out_vars(2)
    x = TensorType(f32, (8, 8))
    xij = load(0, x, (i, j))
    causal = TensorExpr("causal", (x,), x, select(j > i, const(0.0, f32), xij))
    diff = TensorExpr("diff", (x,), x, xij * cast(i - j, f32))
    zeroed = TensorExpr("zeroed", (x,), x, xij * const(0.0, f32))
    relu = TensorExpr("relu", (x,), x, maximum(xij, const(0.0, f32)))
    ex = TensorExpr("exp", (x,), x, unary("exp", xij))
    r = Var("r0")
    mm = TensorExpr("mm", (x, x), x, load(0, x, (i, r)) * load(1, x, (r, j)), Reduce("sum", (("r0", 8),)))
    scaled = TensorExpr("scaled", (x, x), x, xij * load(1, x, (i, j)))
    for te in (causal, diff, zeroed):
        assert sparta.may_make_zeros(te, frozenset()), te.name
    for te in (relu, ex, mm, scaled):
        assert not sparta.may_make_zeros(te, frozenset()), te.name
    assert not sparta.may_make_zeros(scaled, frozenset({1}))     # input 1 a constant with no zero
    # an input that holds zeros: a sum passes them on only where the other term is zero too, a product always
    biased = TensorExpr("biased", (x, x), x, xij + load(1, x, (i, j)))
    assert not sparta.may_make_zeros(biased, frozenset({1}), frozenset({1}))
    assert sparta.may_make_zeros(scaled, frozenset({1}), frozenset({1}))
    assert sparta.may_make_zeros(biased, frozenset({1}), frozenset({0, 1}))


def test_zeros_of_index_tensors_are_not_propagated():
    """A constant index tensor full of zeros (a scatter's, as torch writes `attn[:, :, 1:, 1:] = ...`:
    batch and head index 0) and the indices built from it are not SparTA's subject: its data picks
    elements, its zeros decide nothing. Only the float weight with zeros is kept and propagated,
    and its product's zero columns are found as before."""
    rng = np.random.default_rng(5)
    w = rng.uniform(0.5, 2.0, (8, 6)).astype(np.float32)
    w[:, :2] = 0.0
    rows = np.zeros((4, 2), np.int64)      # ScatterND's [row, column] pairs, each row's first column
    rows[:, 0] = np.arange(4)
    nodes = [helper.make_node("MatMul", ["x", "w"], ["y"]),
             helper.make_node("Mul", ["idx", "scale"], ["idx2"]),
             helper.make_node("ScatterND", ["y", "idx2", "upd"], ["out"])]
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 8]),
                                       helper.make_tensor_value_info("upd", TensorProto.FLOAT, [4]),
                                       helper.make_tensor_value_info("scale", TensorProto.INT64, [4, 2])],
                          [helper.make_tensor_value_info("out", TensorProto.FLOAT, [4, 6])],
                          [numpy_helper.from_array(w, "w"), numpy_helper.from_array(rows, "idx")])
    im = import_model(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]))
    attrs = annotate(im.graph, im.opset)
    assert {"w", "idx"} <= set(attrs)        # annotate sees every constant with zeros
    res = propagate(im.graph, attrs, im.opset)
    assert "w" in res and not {"idx", "idx2"} & set(res)
    masks = zero_masks(im.graph, attrs, im.opset)       # every value, with no relevance cut
    assert masks["idx2"].any()
    np.testing.assert_array_equal(masks["y"], np.broadcast_to(w.any(axis=0) == 0, (4, 6)))
    assert res["y"].density == pytest.approx(4 / 6)


def _probed_products_model(rng) -> tuple:
    """x (4, 256) times two constant weights: `w` with 8 zero columns, 8 zero only in the first
    PROBE rows and a quarter of the rest's elements zero; `q` dense but for a sixteenth of its
    elements (a 4-bit weight's zero-point codes)."""
    w = rng.uniform(0.5, 2.0, (256, 48)).astype(np.float32) * (rng.random((256, 48)) > 0.25)
    w[:, :8] = 0.0
    w[:sparta.PROBE, 8:16] = 0.0
    q = rng.uniform(0.5, 2.0, (256, 48)).astype(np.float32) * (rng.random((256, 48)) > 1 / 16)
    v = helper.make_tensor_value_info
    g = helper.make_graph([helper.make_node("MatMul", ["x", "w"], ["y"]), helper.make_node("MatMul", ["x", "q"], ["z"])],
                          "probed", [v("x", TensorProto.FLOAT, [4, 256])],
                          [v("y", TensorProto.FLOAT, [4, 48]), v("z", TensorProto.FLOAT, [4, 48])],
                          [numpy_helper.from_array(w, "w"), numpy_helper.from_array(q, "q")])
    return import_model(helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)])), w, q


def test_a_reduction_s_probe_gives_the_whole_reduction_s_masks(monkeypatch):
    """zero_mask looks at a reduction's first PROBE terms first: an accumulator zero on the whole
    is zero on them, so where none is zero the whole reduction is skipped (the dense product `z`),
    and where some is (`y`'s zero and half-zero columns) the whole is evaluated. Both give the
    masks of evaluating every term, and the zero columns of the weight."""
    im, w, _ = _probed_products_model(np.random.default_rng(22))
    attrs = annotate(im.graph)
    skipped = []
    probe = sparta._accumulator_never_zero
    monkeypatch.setattr(sparta, "_accumulator_never_zero", lambda *a: skipped.append(probe(*a)) or skipped[-1])
    probed = zero_masks(im.graph, attrs, im.opset)
    assert sorted(skipped) == [False, True]            # z's probe settled it, y's did not
    monkeypatch.setattr(sparta, "_accumulator_never_zero", lambda *a: False)
    whole = zero_masks(im.graph, attrs, im.opset)
    assert probed.keys() == whole.keys() and "z" not in probed         # dense: no mask either way
    np.testing.assert_array_equal(probed["y"], whole["y"])
    np.testing.assert_array_equal(probed["y"][0], (w == 0).all(axis=0))
    assert probed["y"][:, :8].all() and not probed["y"][:, 8:].any()


def test_annotate_s_zero_masks_give_propagate_the_same_facts(bert):
    """The pipeline hands annotate's masks of the constants holding a zero to propagate (one pass
    over the weights): the same attributes as propagate reading the constants itself."""
    zeros: dict = {}
    attrs = annotate(bert.graph, bert.opset, zeros)
    consts = dict(bert.graph.constants)
    assert zeros and all((consts[n].array() == 0).any() for n in zeros)
    assert all(n in zeros for n, c in consts.items() if (c.array() == 0).any())
    assert propagate(bert.graph, attrs, bert.opset, zeros) == propagate(bert.graph, attrs, bert.opset)


def test_zero_mask_of_a_reduction_over_no_axis():
    """A sum over no axis (one term; torchvision's SSDlite export produced one) is followed
    through, not a crash: its zeros are its term's."""
    from compiler.ir.dtypes import DType
    from compiler.ir.graph import TensorType
    from compiler.ir.texpr import Reduce, TensorExpr, load, out_vars
    t = TensorType(DType.float32, (600, 600))
    te = TensorExpr("one_term", (t,), t, load(0, t, out_vars(2)), Reduce("sum", ()))
    mask = np.zeros((600, 600), bool)
    mask[::7] = True
    np.testing.assert_array_equal(sparta.zero_mask(te, [mask], [None]), mask)
