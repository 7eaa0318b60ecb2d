"""The kernel-kind registry (compiler/kinds/): one protocol for every kind, Roller's tiers, the
render stage's choice of kind, and a kind added as a module of its own."""
from __future__ import annotations

import types

import pytest

from compiler.ir.dtypes import DType
from compiler.ir.graph import TensorType
from compiler.ir.spec import ExternSpec, KernelSpec, Level, Stage
from compiler.kinds import KINDS, TIERS, construct_rtiles, kind_for, naive, reduce, stitched_naive
from compiler.passes.render import render_spec
from compiler.roller.construct import construct
from compiler.targets import get_target
from tests.roller.single_op import lower_types, spec_of

H100 = get_target("h100")
F32 = DType.float32


def _kernel(op, shapes, out_shape, attrs=None):
    return lower_types(op, [TensorType(F32, s) for s in shapes], TensorType(F32, out_shape), attrs or {})


MATMUL = _kernel("MatMul", [(256, 512), (512, 384)], (256, 384))
ROW_SUM = _kernel("ReduceSum", [(4096, 1024), ], (4096, 1), {"keepdims": 1})
ADD = _kernel("Add", [(4096, 1024), (4096, 1024)], (4096, 1024))


def test_every_kind_answers_the_protocol():
    assert set(KINDS) >= {"naive", "gemm", "tc_gemm", "wgmma_gemm", "reduce", "reduce_split", "elementwise",
                          "elementwise_vec", "transpose", "stitched_naive", "extern"}
    for name, kind in KINDS.items():
        assert kind.NAME == name
        assert callable(kind.applies) and callable(kind.render)
        if kind.TIER is not None:
            for attr in ("view", "candidates", "render_config"):
                assert callable(getattr(kind, attr)), f"{name}.{attr}"
    # tiers in order, each kind in exactly one
    assert [m.NAME for t in TIERS for m in t] == [n for n, k in KINDS.items() if k.TIER is not None]
    assert [m.TIER for t in TIERS for m in t] == sorted(m.TIER for t in TIERS for m in t)


@pytest.mark.parametrize("kernel, tier", [(MATMUL, 0), (ROW_SUM, 1), (ADD, 2)], ids=["matmul", "rowsum", "add"])
def test_candidates_come_from_the_first_tier_that_offers_any(kernel, tier):
    te = kernel.expr
    every = construct_rtiles(te, H100, 10**6, "fp16")
    assert every, te.name
    names = {m.NAME for m in TIERS[tier]}
    assert {c.kind for c in every} <= names
    for kind in TIERS[tier]:
        offered = kind.candidates(te, H100, "fp16")
        assert all(c.kind == kind.NAME for c in offered)
        assert (kind.applies(spec_of(kernel)) is None) == (kind.view(te) is not None)
    # kinds of other tiers offer nothing for it and say why they do not apply
    for other in (t for k, t in enumerate(TIERS) if k != tier):
        for kind in other:
            if kernel is MATMUL and kind.NAME == "reduce":
                continue        # a sum of products is also a reduction: the next test
            assert kind.candidates(te, H100, "fp16") == []
            assert isinstance(kind.applies(spec_of(kernel)), str)


def test_a_contraction_falls_back_to_the_reductions_only_when_no_contraction_kind_offers_one():
    te = MATMUL.expr
    # reduce would take the contraction (it is a sum of products) but is not offered while gemm is
    assert reduce.candidates(te, H100)
    assert all(c.kind in {"gemm", "tc_gemm", "wgmma_gemm"} for c in construct_rtiles(te, H100, 10**6, "fp16"))
    # a tier that offers nothing passes to the next (a new kind is a module: here one made in the test)
    nothing = types.SimpleNamespace(candidates=lambda te, target, precision: [])
    fallback = construct(te, H100, 10**6, None, [[nothing], [reduce, KINDS["reduce_split"]]])
    assert fallback and {c.kind for c in fallback} == {"reduce"}    # reduce_split leaves contractions to split-K


def test_splits_finish_in_their_launch():
    """A split reduction and tc_gemm's split-K both finish inside their one launch (the row's or
    the tile's last block combines the slices): each renders one kernel that counts arrivals and
    writes a workspace of its slices' partial sums."""
    few_long_rows = _kernel("ReduceSum", [(8, 1 << 20)], (8, 1), {"keepdims": 1})
    f16 = DType.float16
    thin = lower_types("MatMul", [TensorType(f16, (64, 8192)), TensorType(f16, (8192, 64))], TensorType(f16, (64, 64)), {})
    splits = [c for c in construct_rtiles(few_long_rows.expr, H100, 10**6) if c.kind == "reduce_split"]
    splits += [c for c in construct_rtiles(thin.expr, H100, 10**6, "fp16") if c.kind == "tc_gemm"]
    assert {c.kind for c in splits if c.split_k > 1} == {"reduce_split", "tc_gemm"}
    for c in (next(c for c in splits if c.kind == kind and c.split_k > 1) for kind in ("reduce_split", "tc_gemm")):
        expr = few_long_rows.expr if c.kind == "reduce_split" else thin.expr
        k = KINDS[c.kind].render_config(expr, c, "k", "y", tuple(f"x{i}" for i in range(len(expr.inputs))),
                                        workspace="ws")
        assert k.arrivals > 0 and [p.value for p in k.params][-2:] == ["ws", "y"] and k.params[-2].output


def test_the_render_stage_picks_the_untiled_kind_that_applies():
    spec = spec_of(ADD)
    assert spec.kind is None and kind_for(spec) is naive
    (k,) = render_spec(spec)     # untiled: no Roller configuration, a grid-stride loop over the outputs
    assert k.expr == ADD.expr and "config_key" not in dict(k.config)
    assert not dict(k.config)["schedule"].startswith("roller_")
    extern = ExternSpec(ADD)
    assert kind_for(extern) is KINDS["extern"] and render_spec(extern) == [ADD]
    # two stages: ADD's output carried in registers into a row sum is one composed expression (naive);
    # carried in shared memory it is not, and the stitched reference kind takes it
    stages = (spec.stages[0], Stage(ROW_SUM.expr, (spec.stages[0].output,), "s"))
    two = KernelSpec(stages=stages, carried=((spec.stages[0].output, Level.REGISTER),))
    assert naive.applies(two) is None and kind_for(two) is naive and two.expr.reduce is not None
    staged = KernelSpec(stages=stages, carried=((spec.stages[0].output, Level.SHARED),))
    assert naive.applies(staged) is not None
    assert kind_for(staged) is stitched_naive
    with pytest.raises(ValueError, match="unknown kernel kind 'tile_graph'"):
        kind_for(KernelSpec(stages=spec.stages, kind="tile_graph"))
