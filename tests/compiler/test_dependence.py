"""Element-level dependence from tensor expressions (analysis/dependence.py), checked against
brute-force enumeration of the index maps."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from compiler.analysis.dependence import (Dependence, loads_of, box_size, dependence, elements_read, injective,
                                          injective_but_gathers, input_bytes, input_region, propagate, reshape_index,
                                          unread_bytes)
from compiler.analysis.views import eval_index
from compiler.ir.dtypes import DType
from compiler.ir.graph import TensorType
from compiler.ir.spec import Stage
from compiler.ir.texpr import Load, Reduce, TensorExpr, Var, binary, const, load, out_vars, select

F32 = DType.float32


def t(*shape):
    return TensorType(F32, tuple(shape))


def add_bias(rows, cols):
    """y[i, j] = x[i, j] + b[j]: x one-to-one, b broadcast."""
    i0, i1 = out_vars(2)
    x, b = t(rows, cols), t(cols)
    return TensorExpr("add", (x, b), t(rows, cols), load(0, x, (i0, i1)) + load(1, b, (i1,)))


def matmul(m, k, n):
    i0, i1 = out_vars(2)
    r = Var("r0")
    a, b = t(m, k), t(k, n)
    return TensorExpr("matmul", (a, b), t(m, n), load(0, a, (i0, r)) * load(1, b, (r, i1)),
                      Reduce("sum", (("r0", k),)))


def gather(vocab, n, d):
    """y[i, j] = table[ids[i], j]: the table read at a data-dependent row."""
    i0, i1 = out_vars(2)
    table, ids = t(vocab, d), TensorType(DType.int64, (n,))
    return TensorExpr("gather", (table, ids), t(n, d), load(0, table, (load(1, ids, (i0,)), i1)))


def conv1d(length, k, stride):
    """y[i] = sum_r x[i*stride + r] * w[r] (a valid window)."""
    (i0,) = out_vars(1)
    r = Var("r0")
    out = (length - k) // stride + 1
    x, w = t(length), t(k)
    return TensorExpr("conv", (x, w), t(out), load(0, x, (i0 * stride + r,)) * load(1, w, (r,)),
                      Reduce("sum", (("r0", k),)))


def test_classification_follows_the_index_maps():
    te = add_bias(4, 8)
    assert dependence(te, 0) is Dependence.ONE_TO_ONE
    assert dependence(te, 1) is Dependence.ONE_TO_MANY
    mm = matmul(4, 16, 8)
    assert dependence(mm, 0) is Dependence.ONE_TO_MANY and dependence(mm, 1) is Dependence.ONE_TO_MANY
    g = gather(10, 4, 8)
    assert dependence(g, 0) is Dependence.ARBITRARY      # its row comes from loaded data
    assert dependence(g, 1) is Dependence.ONE_TO_MANY    # ids[i] is read for every column


def _reads(index, extents):
    """Every (variable values -> element index) pair, by brute force."""
    names = list(extents)
    for values in itertools.product(*(range(extents[v]) for v in names)):
        env = dict(zip(names, values))
        yield tuple(eval_index(x, env) for x in index)


@pytest.mark.parametrize("index, shape, extents, expected", [
    (lambda i: (i[0], i[1]), (4, 8), {"i0": 4, "i1": 8}, True),            # identity
    (lambda i: (i[1], i[0]), (8, 4), {"i0": 4, "i1": 8}, True),            # transpose
    (lambda i: (i[0],), (4,), {"i0": 4, "i1": 8}, False),                  # broadcast along i1
    (lambda i: (i[0] + i[1],), (11,), {"i0": 4, "i1": 8}, False),          # a window: overlaps
    (lambda i: (i[0] * 8 + i[1],), (32,), {"i0": 4, "i1": 8}, True),       # a flattening
    (lambda i: (i[0] * 2 + i[1],), (16,), {"i0": 4, "i1": 8}, False),      # strides that collide
])
def test_injective_agrees_with_enumeration(index, shape, extents, expected):
    idx = index([Var("i0"), Var("i1")])
    elems = list(_reads(idx, extents))
    assert (len(set(elems)) == len(elems)) is expected
    assert injective(idx, shape, extents) is expected


@pytest.mark.parametrize("index, injective_expected", [
    (lambda i, ids: (load(0, ids, (i[0],)), i[1]), True),                      # an embedding row per token
    (lambda i, ids: (load(0, ids, (i[0],)), i[1] + 2), True),                  # ... at an offset along it
    (lambda i, ids: (load(0, ids, (i[0],)), const(0, DType.int64)), False),    # one column for every i1
    (lambda i, ids: (const(1, DType.int64), i[1]), False),                     # a row every i0 reads again
    (lambda i, ids: (load(0, ids, (i[0],)), binary("idiv", i[1], const(2, DType.int64))), False),   # pairs
])
def test_injective_but_gathers(index, injective_expected):
    """Distinct (i0, i1) read distinct elements unless the gathered ids repeat: checked by
    enumeration with distinct ids, where every repeat is the index map's own."""
    ids = TensorType(DType.int64, (4,))
    idx = index([Var("i0"), Var("i1")], ids)
    extents = {"i0": 4, "i1": 3}
    assert injective_but_gathers(idx, extents) is injective_expected
    token_ids = [5, 1, 7, 2]          # distinct: every repeat would be the index map's

    def at(x, env):
        return token_ids[eval_index(x.index[0], env)] if isinstance(x, Load) else eval_index(x, env)
    elems = [tuple(at(x, {"i0": a, "i1": b}) for x in idx) for a in range(4) for b in range(3)]
    assert (len(set(elems)) == len(elems)) is injective_expected


@pytest.mark.parametrize("from_shape, to_shape, perm", [
    ((1, 64, 2, 64), (1, 64, 128), (0, 2, 1, 3)),     # a head split read transposed
    ((2, 3, 4), (6, 4), (0, 1, 2)),
    ((6, 4), (2, 3, 4), (1, 0)),
    ((4, 6), (3, 8), (0, 1)),                          # digits that carry: division and remainder
])
def test_reshape_index_reads_the_same_element(from_shape, to_shape, perm):
    """A consumer reads `from_shape` (a reshape of `to_shape`) through a permutation of its output
    axes; the rewritten index must address the same element of the source buffer."""
    rank = len(from_shape)
    out_shape = tuple(from_shape[p] for p in perm)
    i = out_vars(rank)
    index = [None] * rank
    for d, p in enumerate(perm):
        index[p] = i[d]
    extents = {f"i{d}": n for d, n in enumerate(out_shape)}
    new = reshape_index(tuple(index), from_shape, to_shape, extents)
    src = np.arange(int(np.prod(to_shape))).reshape(to_shape)
    view = src.reshape(from_shape)
    for values in itertools.product(*(range(n) for n in out_shape)):
        env = {f"i{d}": v for d, v in enumerate(values)}
        old = tuple(eval_index(x, env) for x in index)
        assert src[tuple(eval_index(x, env) for x in new)] == view[old]


def test_reshape_index_is_affine_when_no_axis_carries():
    i = out_vars(4)
    new = reshape_index((i[0], i[2], i[1], i[3]), (1, 64, 2, 64), (1, 64, 128),
                        {"i0": 1, "i1": 2, "i2": 64, "i3": 64})
    assert not any(getattr(x, "fn", None) in ("idiv", "imod") for x in new for x in _walk(x))


def _walk(e):
    from compiler.ir.texpr import walk
    return walk(e)


def test_input_region_of_a_window():
    te = conv1d(34, 3, 2)           # 16 outputs
    assert input_region(te, 0, {"i0": (4, 7)}) == ((8, 16),)    # outputs 4..7 read x[8 .. 7*2+2]
    assert input_region(te, 1, {"i0": (4, 7)}) == ((0, 2),)     # the whole filter
    assert box_size(input_region(te, 0, {"i0": (0, 15)})) == 33


def test_input_region_of_a_gather_spans_the_table():
    te = gather(10, 4, 8)
    assert input_region(te, 0, {"i0": (0, 0), "i1": (2, 3)}) == ((0, 9), (2, 3))


def test_propagate_through_a_group():
    """MatMul -> bias add: a [2 x 4] tile of the sum needs 2 rows of A, 4 columns of B and 4 bias
    elements, and the product's own [2 x 4] tile."""
    mm = matmul(8, 16, 32)
    add = add_bias(8, 32)
    stages = [Stage(mm, ("a", "b"), "y"), Stage(add, ("y", "bias"), "z")]
    regions = propagate(stages, {"i0": (2, 3), "i1": (8, 11)})
    assert regions["y"] == ((2, 3), (8, 11))
    assert regions["bias"] == ((8, 11),)
    assert regions["a"] == ((2, 3), (0, 15))
    assert regions["b"] == ((0, 15), (8, 11))


def test_a_gather_reads_the_rows_its_ids_can_name():
    """table[ids[i], j] over 4 ids and rows of 8: at most 32 of the table's 8000 elements, the ids
    whole; a stage reading the table at an affine index too counts it whole."""
    te = gather(1000, 4, 8)
    assert elements_read(te, 0) == 32 and elements_read(te, 1) == 4
    types = {"table": te.inputs[0], "ids": te.inputs[1], "y": te.output}
    assert unread_bytes([Stage(te, ("table", "ids"), "y")], types) == (8000 - 32) * 4
    assert input_bytes(te) == 32 * 4 + 4 * 8
    whole = add_bias(1000, 8)
    stages = [Stage(te, ("table", "ids"), "y"), Stage(whole, ("table", "b"), "z")]
    assert unread_bytes(stages, dict(types, b=whole.inputs[1], z=whole.output)) == 0


def _slice(shape, starts, steps, out_shape):
    """y[i] = x[start + i * step] per axis."""
    i = out_vars(len(shape))
    x = t(*shape)
    return TensorExpr("slice", (x,), t(*out_shape),
                      load(0, x, tuple(v * st + s for v, s, st in zip(i, starts, steps))))


def _concat(a, b):
    """y[i, j] = a[i, j] if j < a else b[i, j - a]: each input read under its guard."""
    i0, i1 = out_vars(2)
    x, y = t(4, a), t(4, b)
    pick = select(i1 < a, load(0, x, (i0, i1)), load(1, y, (i0, i1 - a)))
    return TensorExpr("concat", (x, y), t(4, a + b), pick)


@pytest.mark.parametrize("te, arg", [
    (_slice((4, 768), (0, 256), (1, 1), (4, 256)), 0),     # the middle third of a fused QKV
    (_slice((16, 16), (1, 0), (2, 4), (7, 4)), 0),         # strided: the box holds more than it reads
    (conv1d(64, 3, 2), 0),                                  # a strided window
    (add_bias(4, 8), 1),                                    # a broadcast row
    (_concat(5, 3), 0), (_concat(5, 3), 1),                 # guarded loads
    (matmul(4, 6, 5), 1),
])
def test_elements_read_bound_the_elements_read(te, arg):
    """elements_read never counts fewer elements than enumeration finds, and no more than the
    input holds; a slice's count is its extent, not the input's."""
    ext = {v.name: n for v, n in zip(out_vars(len(te.output.shape)), te.output.shape)}
    ext.update(dict(te.reduce.axes) if te.reduce else {})
    shape = te.inputs[arg].shape
    read = {e for ld in loads_of(te, arg) for e in _reads(ld.index, ext)
            if all(0 <= v < n for v, n in zip(e, shape))}
    assert len(read) <= elements_read(te, arg) <= te.inputs[arg].size


def test_a_slice_reads_its_extent():
    assert elements_read(_slice((4, 768), (0, 256), (1, 1), (4, 256)), 0) == 4 * 256
    assert elements_read(_concat(5, 3), 1) == 4 * 3
    assert input_bytes(_slice((4, 768), (0, 512), (1, 1), (4, 256))) == 4 * 256 * 4
