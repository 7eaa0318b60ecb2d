"""Folds: a second, small reduction carried in registers by recomputing it where it is read
(passes/welder.py, ir/compose.py, texpr.Fold). Small ONNX graphs compiled with fusion on and with
`--disable welder`, run on the host harness in both thread orders against onnxruntime; the
report's kernels and fold decisions; the pieces (composition, rendering, FLOP counts) alone."""
from __future__ import annotations

import numpy as np
import pytest
from onnx import helper

from compiler.codegen.cuda import ExprRenderer
from compiler.ir.compose import compose
from compiler.ir.dtypes import DType
from compiler.ir.graph import TensorType
from compiler.ir.spec import Stage
from compiler.ir.texpr import (Fold, Reduce, TensorExpr, Var, fold_flops, load, out_vars, reduce_vars)
from compiler.passes.welder import FOLD_EXTENT, fold_pays
from compiler.roller.cost_model import TILE_ESTIMATE, expr_flops
from compiler.targets import get_target

from .test_welder import RNG, both, check, model, weight


def conv(x, w, b, y, **attrs):
    return helper.make_node("Conv", [x, w, b], [y], **attrs)


def clip6(x, y):
    return helper.make_node("Clip", [x, "zero", "six"], [y])


CLIP = [("zero", np.array(0, np.float32)), ("six", np.array(6, np.float32))]


def inverted_residual(c: int, expand: int, out: int, hw: int) -> bytes:
    """MobileNetV2's block: 1x1 expand + ReLU6, 3x3 depthwise + ReLU6, 1x1 project."""
    e = c * expand
    nodes = [conv("x", "w1", "b1", "h1"), clip6("h1", "a1"),
             conv("a1", "w2", "b2", "h2", group=e, pads=[1, 1, 1, 1]), clip6("h2", "a2"),
             conv("a2", "w3", "b3", "y")]
    inits = [("w1", weight(e, c, 1, 1)), ("b1", weight(e)), ("w2", weight(e, 1, 3, 3)), ("b2", weight(e)),
             ("w3", weight(out, e, 1, 1)), ("b3", weight(out)), *CLIP]
    return model(nodes, [("x", [1, c, hw, hw])], [("y", [1, out, hw, hw])], inits)


def test_depthwise_conv_folds_into_the_pointwise_conv_after_it():
    """The depthwise conv (9 steps) is recomputed in the project conv's operand loads: the
    expanded activation never reaches DRAM. The expand conv is not folded into the depthwise
    conv's 3x3 window (each of its elements would be computed 9 times), and the record says so."""
    data = inverted_residual(8, 4, 32, 10)
    fused, unfused = both(data, {"x": RNG.standard_normal((1, 8, 10, 10)).astype(np.float32)})
    assert unfused["launches_per_inference"] == 5 and fused["launches_per_inference"] == 2
    groups = fused["fusion"]["groups"]
    (dw,) = [g for g in groups if "folded" in g]
    (fold,) = dw["folded"]
    assert fold["kept"] and fold["fused_us"] < fold["apart_us"]
    assert 0 < fold["fold_flops"] <= fold["anchor_flops"]
    assert fold["value"] in dw["carried"]
    expand = [g for g in groups if g is not dw]
    assert len(expand) == 1 and "does not pay" in expand[0]["stopped"]
    assert fused["traffic"]["dram_bytes"] < unfused["traffic"]["dram_bytes"]


def test_a_narrow_pointwise_conv_does_not_take_the_depthwise_conv():
    """With 8 output channels the depthwise conv's 9 steps per element cost more than the 8 the
    pointwise conv spends on it: recomputation would exceed the anchor's work, so no fold."""
    data = inverted_residual(4, 2, 8, 6)
    fused = check(data, {"x": RNG.standard_normal((1, 4, 6, 6)).astype(np.float32)})
    assert fused["launches_per_inference"] == 3
    assert not any("folded" in g for g in fused["fusion"]["groups"])


def shortcut_block(c: int, mid: int, out: int, hw: int, shortcut_first: bool = False) -> bytes:
    """A bottleneck's tail: a 1x1 conv on the main path's activation `a`, a strided 1x1 conv on
    the block's input `x` (the shortcut), their sum through ReLU."""
    convs = [conv("a", "w3", "b3", "main"), conv("x", "ws", "bs", "short", strides=[2, 2])]
    nodes = convs[::-1] if shortcut_first else convs
    nodes += [helper.make_node("Add", ["main", "short"], ["s"]), helper.make_node("Relu", ["s"], ["y"])]
    inits = [("w3", weight(out, mid, 1, 1)), ("b3", weight(out)), ("ws", weight(out, c, 1, 1)), ("bs", weight(out))]
    h = hw // 2
    return model(nodes, [("a", [1, mid, h, h]), ("x", [1, c, hw, hw])], [("y", [1, out, h, h])], inits)


def shortcut_feeds(c: int, mid: int, hw: int) -> dict:
    h = hw // 2
    return {"a": RNG.standard_normal((1, mid, h, h)).astype(np.float32),
            "x": RNG.standard_normal((1, c, hw, hw)).astype(np.float32)}


@pytest.mark.parametrize("shortcut_first", [False, True])
def test_shortcut_conv_folds_into_the_epilogue_of_the_conv_it_is_added_to(shortcut_first):
    """main + shortcut: both convs are reductions read one-to-one by the add, so the smaller (the
    main 1x1 conv over 12 channels) is folded into the epilogue of the larger, computed once per
    output element: conv, conv, add, relu as one kernel, whichever conv the graph lists first."""
    data = shortcut_block(16, 12, 24, 8, shortcut_first)
    fused, unfused = both(data, shortcut_feeds(16, 12, 8))
    assert unfused["launches_per_inference"] == 4 and fused["launches_per_inference"] == 1
    (g,) = fused["fusion"]["groups"]
    assert len(g["ops"]) == 4
    (fold,) = g["folded"]
    assert fold["value"] == "main"         # 12 steps folded; the 16-step shortcut is the anchor
    assert fold["fold_flops"] == fold["anchor_flops"] * 12 // 16


def test_a_long_reduction_is_not_folded():
    """A shortcut over more than FOLD_EXTENT channels stays a kernel of its own."""
    c = FOLD_EXTENT + 8
    data = shortcut_block(c, c, 8, 4)
    fused = check(data, shortcut_feeds(c, c, 4))
    assert fused["launches_per_inference"] == 2
    assert not any("folded" in g for g in fused["fusion"]["groups"])


def test_a_fold_under_padding_is_evaluated_only_inside_the_image():
    """1x1 conv -> padded 3x3 conv over many output channels: the 1x1 conv is folded into the 3x3
    conv's loads, under the padding's select; its loop must not run for the halo (its loads
    would leave the input). Right on the host harness in both thread orders."""
    nodes = [conv("x", "w1", "b1", "h"), conv("h", "w2", "b2", "y", pads=[1, 1, 1, 1])]
    inits = [("w1", weight(4, 3, 1, 1)), ("b1", weight(4)), ("w2", weight(64, 4, 3, 3)), ("b2", weight(64))]
    data = model(nodes, [("x", [1, 3, 7, 7])], [("y", [1, 64, 7, 7])], inits)
    fused, unfused = both(data, {"x": RNG.standard_normal((1, 3, 7, 7)).astype(np.float32)})
    assert unfused["launches_per_inference"] == 2 and fused["launches_per_inference"] == 1
    (g,) = fused["fusion"]["groups"]
    assert g["folded"][0]["value"] == "h"


# ---- the pieces ------------------------------------------------------------------------------

F32 = DType.float32


def _pointwise_after_depthwise(c: int = 6, out: int = 5, hw: int = 4):
    """Stages: depthwise 3x3 sum (no padding, valid window) then a 1x1 contraction."""
    x, wd = TensorType(F32, (c, hw + 2, hw + 2)), TensorType(F32, (c, 3, 3))
    i, r = out_vars(3), reduce_vars(2)
    dw = TensorExpr("dw", (x, wd), TensorType(F32, (c, hw, hw)),
                    load(0, x, (i[0], i[1] + r[0], i[2] + r[1])) * load(1, wd, (i[0], r[0], r[1])),
                    Reduce("sum", (("r0", 3), ("r1", 3))))
    a, wp = TensorType(F32, (c, hw, hw)), TensorType(F32, (out, c))
    (k,) = reduce_vars(1)
    pw = TensorExpr("pw", (a, wp), TensorType(F32, (out, hw, hw)),
                    load(0, a, (k, i[1], i[2])) * load(1, wp, (i[0], k)), Reduce("sum", (("r0", c),)))
    return [Stage(dw, ("x", "wd"), "d"), Stage(pw, ("d", "wp"), "y")]


def test_compose_folds_the_earlier_reduction():
    stages = _pointwise_after_depthwise()
    te, inputs = compose(tuple(stages), {"d"})
    assert inputs == ("x", "wd", "wp")
    assert te.reduce.axes == (("r0", 6),)         # the anchor is the last reduction
    folds = [e for e in _walk(te.body) if isinstance(e, Fold)]
    assert len(folds) == 1 and folds[0].op == "sum" and [n for _, n in folds[0].axes] == [3, 3]
    assert {name for name, _ in folds[0].axes}.isdisjoint({"r0", "i0", "i1", "i2"})
    assert fold_flops(te.body) == 9 * 2


def _walk(e):
    from compiler.ir.texpr import walk
    return walk(e)


def test_fold_renders_as_a_lazy_loop():
    stages = _pointwise_after_depthwise()
    te, _ = compose(tuple(stages), {"d"})
    (fold,) = [e for e in _walk(te.body) if isinstance(e, Fold)]
    rend = ExprRenderer(["in0", "in1", "in2"], [(36, 6, 1), (9, 3, 1), (6, 1)], "int")
    src = rend.render(fold, "  ")
    assert src.startswith("([&]() { float ") and src.endswith("}())")
    assert src.count("for (int q0_") == 2 and "return" in src


def test_expr_flops_counts_folds_where_they_run():
    stages = _pointwise_after_depthwise(c=6, out=5, hw=4)
    te, _ = compose(tuple(stages), {"d"})
    anchor = 2 * 5 * 16 * 6
    # the folded operand (K x N = 6 x 16 elements) is recomputed once per block along M (5 rows)
    assert expr_flops(te) == anchor + 6 * 16 * -(-5 // TILE_ESTIMATE) * 9 * 2
    decision = fold_pays(te, (stages[0].expr, stages[1].expr), get_target("h100"))
    assert decision["anchor_flops"] == anchor and decision["fold_flops"] == 6 * 16 * 18


def test_fold_rejects_argmax():
    with pytest.raises(ValueError, match="no fold"):
        Fold("argmax", (("q0_0", 3),), Var("i0"), DType.int64)
