"""texpr.value_ops: the arithmetic an expression spends on loaded values, by which row chains are
priced and reported (kinds/resident_rows.chain_flops). Index arithmetic, casts and the branch a
select does not take are not work on values."""
from __future__ import annotations

from compiler.ir.dtypes import DType
from compiler.ir.graph import TensorType
from compiler.ir.texpr import Fold, Var, binary, cast, load, out_vars, select, unary, value_ops

F32 = DType.float32
X = TensorType(F32, (8, 64))
i, j = out_vars(2)


def test_a_reshapes_index_arithmetic_costs_nothing():
    flat = i * 64 + j
    reshaped = load(0, X, (flat // 64 % 8, flat % 64))
    assert value_ops(reshaped) == 0
    assert value_ops(reshaped * 2.0 + 1.0) == 2


def test_each_operation_on_a_value_counts_once():
    x = load(0, X, (i, j))
    assert value_ops(unary("exp", x - 1.0) / 3.0) == 3
    assert value_ops(cast(x, DType.float16)) == 0
    assert value_ops(None) == 0


def test_a_select_counts_its_condition_and_the_larger_branch():
    x = load(0, X, (i, j))
    # a concat's choice of source is index arithmetic; only one half's work runs
    rotated = select(j < 32, -load(0, X, (i, j + 32)), load(0, X, (i, j - 32)))
    assert value_ops(rotated) == 1
    # a comparison of values is work; so is the costlier branch
    assert value_ops(select(x > 0.0, x * x * x, x)) == 1 + 2


def test_a_fold_counts_its_body_and_combine_per_step():
    x = load(0, X, (Var("q0_0", DType.int64), j))
    f = Fold("sum", (("q0_0", 8),), x * x, F32)
    assert value_ops(f) == 8 * (1 + 1)
    assert value_ops(binary("add", f, load(0, X, (i, j)))) == 16 + 1


def test_a_map_is_cheap_by_its_arithmetic_on_values():
    """welder.cheap decides whether a contraction may recompute a map in its loads: a scale read
    through a reshape's index arithmetic is as cheap as the scale alone; a transcendental or
    more than CHEAP_OPS operations on values is not."""
    from compiler.ir.texpr import TensorExpr
    from compiler.passes.welder import CHEAP_OPS, cheap
    out = TensorType(F32, (8, 64))
    flat = i * 64 + j
    through_reshape = load(0, X, (flat // 64 % 8, flat % 64))
    assert cheap(TensorExpr("scale", (X,), out, through_reshape * 0.5))
    assert cheap(TensorExpr("scale", (X,), out, load(0, X, (i, j)) * 0.5))
    assert not cheap(TensorExpr("exp", (X,), out, unary("exp", through_reshape)))
    many = through_reshape
    for _ in range(CHEAP_OPS + 1):
        many = many * 0.5
    assert not cheap(TensorExpr("many", (X,), out, many))
