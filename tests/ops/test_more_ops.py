"""Quantisation, signal and spatial ops (compiler/ops/quantize.py, signal.py, spatial.py): each
reference against onnx.reference.ReferenceEvaluator (onnxruntime where ONNX has no evaluator) on
seeded random one-node models, each lowering's kernels built with NVRTC for sm_90 and run on the
host harness against the reference."""
from __future__ import annotations

import numpy as np
import onnx
import pytest

from compiler.errors import UnsupportedOp
from compiler.ir.dtypes import DType
from compiler.ir.graph import TensorType
from compiler.ops.registry import LowerCtx, lookup
from compiler.ir.plan import AliasStep

from .one_node import (Case, check_inputs_not_degenerate, check_lowering_builds, check_reference,
                       check_runs_on_host, lower_case, rnd, scalar, uni)

I64, F32, F16 = np.int64, np.float32, np.float16


def _cases() -> list[Case]:
    c: list[Case] = []
    # --- QuantizeLinear / DequantizeLinear -----------------------------------------------------
    x = rnd(1, (2, 3, 4), scale=3.0)
    c += [
        Case("QuantizeLinear", [x, scalar(0.02, F32), scalar(120, np.uint8)], id="q_u8_tensor"),
        Case("QuantizeLinear", [x, scalar(0.05, F32)], id="q_default_u8"),
        Case("QuantizeLinear", [x, uni(2, (3,), 0.01, 0.1), rnd(3, (3,), np.int8, -10, 10)], {"axis": 1},
             id="q_i8_axis"),
        Case("QuantizeLinear", [x, uni(4, (4,), 0.001, 0.01), rnd(5, (4,), np.int16, -300, 300)], {"axis": -1},
             id="q_i16_axis_neg"),
        Case("QuantizeLinear", [x, uni(6, (2, 3, 2), 0.0005, 0.002), rnd(7, (2, 3, 2), np.uint16, 0, 60000)],
             {"axis": 2, "block_size": 2}, id="q_u16_blocked"),
        Case("QuantizeLinear", [rnd(8, (3, 5), scale=3.0), uni(9, (2, 5), 0.01, 0.05), rnd(10, (2, 5), np.int8, -5, 5)],
             {"axis": 0, "block_size": 2}, id="q_i8_blocked_remainder"),
        Case("QuantizeLinear", [x, scalar(0.03, F32)], {"output_dtype": onnx.TensorProto.INT8}, id="q_output_dtype"),
        Case("QuantizeLinear", [x.astype(F16), scalar(0.03, F16), scalar(3, np.int8)], id="q_f16"),
        Case("QuantizeLinear", [x, scalar(0.05, F32), scalar(10, np.uint8)], opset=10, id="q_opset10"),
        Case("DequantizeLinear", [rnd(11, (2, 3, 4), np.uint8, 0, 255), scalar(0.02, F32), scalar(128, np.uint8)],
             id="dq_u8"),
        Case("DequantizeLinear", [rnd(12, (2, 3, 4), np.int8, -128, 127), uni(13, (3,), 0.01, 0.1),
                                  rnd(14, (3,), np.int8, -3, 3)], {"axis": 1}, id="dq_i8_axis"),
        Case("DequantizeLinear", [rnd(15, (4, 6), np.int16, -30000, 30000), uni(16, (4, 2), 0.001, 0.01),
                                  rnd(17, (4, 2), np.int16, -50, 50)], {"axis": 1, "block_size": 3}, id="dq_i16_blocked"),
        Case("DequantizeLinear", [rnd(18, (5,), np.int32, -10**6, 10**6), scalar(0.001, F32)], id="dq_i32_nozp"),
        Case("DequantizeLinear", [rnd(19, (2, 5), np.uint16, 0, 65535), scalar(0.5, F16), scalar(30000, np.uint16)],
             rtol=1e-3, id="dq_u16_f16_scale"),
        Case("DequantizeLinear", [rnd(20, (3, 4), np.uint8, 0, 255), scalar(0.1, F32)],
             {"output_dtype": onnx.TensorProto.FLOAT16}, opset=23, rtol=1e-3, id="dq_output_dtype"),
        Case("DynamicQuantizeLinear", [rnd(21, (3, 4), scale=2.0)], nout=3, opset=11, id="dynq"),
        Case("DynamicQuantizeLinear", [uni(22, (2, 5), 0.5, 3.0)], nout=3, opset=11, id="dynq_positive"),
    ]
    # --- signal --------------------------------------------------------------------------------
    c += [
        Case("BitCast", [rnd(30, (2, 3))], {"to": onnx.TensorProto.INT32}, opset=26, id="bitcast_f32_i32"),
        Case("BitCast", [rnd(31, (4,), np.int16, -30000, 30000)], {"to": onnx.TensorProto.FLOAT16}, opset=26,
             id="bitcast_i16_f16"),
    ]
    for op in ("HannWindow", "HammingWindow", "BlackmanWindow"):
        c += [Case(op, [scalar(10, np.int32)], consts={0}, opset=17, rtol=1e-5, atol=1e-6, id=f"{op}_periodic"),
              Case(op, [scalar(7, I64)], {"periodic": 0, "output_datatype": onnx.TensorProto.DOUBLE}, consts={0},
                   opset=17, atol=1e-6, id=f"{op}_symmetric_f64")]
    c += [
        Case("MelWeightMatrix", [scalar(8, I64), scalar(64, I64), scalar(8000, I64), scalar(100.0, F32),
                                 scalar(3500.0, F32)], consts={0, 1, 2, 3, 4}, opset=17, id="mel"),
        Case("MelWeightMatrix", [scalar(10, np.int32), scalar(128, np.int32), scalar(16000, np.int32),
                                 scalar(60.0, F32), scalar(7000.0, F32)], consts={0, 1, 2}, opset=17, id="mel_runtime_bounds"),
        Case("DFT", [rnd(32, (2, 8, 1))], opset=20, rtol=1e-4, atol=1e-4, id="dft_real"),
        Case("DFT", [rnd(33, (2, 6, 3, 2)), None, scalar(1, I64)], {"onesided": 1}, consts={2}, opset=20,
             rtol=1e-4, atol=1e-4, id="dft_complex_onesided_axis1"),
        Case("DFT", [rnd(34, (2, 7, 2)), scalar(9, I64)], {"inverse": 1}, consts={1}, opset=20, rtol=1e-4,
             atol=1e-4, id="dft_inverse_padded"),
        Case("DFT", [rnd(35, (3, 5, 2))], {"inverse": 1, "onesided": 1}, opset=20, rtol=1e-4, atol=1e-4,
             id="dft_irfft"),
        Case("DFT", [rnd(36, (2, 10, 1)), scalar(6, I64)], {"axis": 1}, consts={1}, opset=17, rtol=1e-4, atol=1e-4,
             id="dft_opset17_truncated"),
        Case("STFT", [rnd(37, (2, 32, 1)), scalar(6, I64), np.hanning(10).astype(F32), scalar(10, I64)],
             consts={1, 3}, opset=17, rtol=1e-4, atol=1e-4, id="stft_window"),
        Case("STFT", [rnd(38, (1, 20, 2)), scalar(4, I64), None, scalar(8, I64)], {"onesided": 0}, consts={1, 3},
             opset=17, rtol=1e-4, atol=1e-4, id="stft_complex_no_window"),
    ]
    # --- spatial -------------------------------------------------------------------------------
    img = rnd(40, (2, 3, 5, 6))
    grid = uni(41, (2, 4, 3, 2), -1.3, 1.3)
    for mode in ("linear", "nearest", "cubic"):
        for pad in ("zeros", "border", "reflection"):
            for align in (0, 1):
                c.append(Case("GridSample", [img, grid], {"mode": mode, "padding_mode": pad, "align_corners": align},
                              opset=20, rtol=1e-4, atol=1e-4, id=f"gridsample_{mode}_{pad}_{align}"))
    c += [
        # onnx's evaluator knows only the opset-20 mode names: the opset-16 cases compare with those
        Case("GridSample", [img, grid], {"mode": "bilinear"}, opset=16, rtol=1e-4, atol=1e-4, id="gridsample16_bilinear",
             oracle=Case("GridSample", [img, grid], {"mode": "linear"}, opset=20)),
        Case("GridSample", [img, grid], {"mode": "bicubic", "padding_mode": "border"}, opset=16, rtol=1e-4, atol=1e-4,
             id="gridsample16_bicubic", oracle=Case("GridSample", [img, grid], {"mode": "cubic", "padding_mode": "border"},
                                                    opset=20)),
        Case("GridSample", [rnd(42, (1, 2, 3, 4, 5)), uni(43, (1, 2, 3, 2, 3), -1.2, 1.2)],
             {"mode": "linear", "padding_mode": "reflection"}, opset=20, rtol=1e-4, atol=1e-4, id="gridsample_3d_linear"),
        Case("GridSample", [rnd(44, (1, 2, 3, 4, 5)), uni(45, (1, 2, 2, 2, 3), -1.2, 1.2)],
             {"mode": "nearest", "align_corners": 1}, opset=20, id="gridsample_3d_nearest"),
        Case("AffineGrid", [rnd(46, (2, 2, 3)), np.array([2, 3, 4, 5], I64)], consts={1}, opset=20, id="affine_2d"),
        Case("AffineGrid", [rnd(47, (2, 2, 3)), np.array([2, 3, 4, 5], I64)], {"align_corners": 1}, consts={1},
             opset=20, id="affine_2d_align"),
        Case("AffineGrid", [rnd(48, (1, 3, 4)), np.array([1, 1, 3, 4, 2], I64)], consts={1}, opset=20, id="affine_3d"),
        Case("Col2Im", [rnd(50, (2, 12, 16)), np.array([5, 6], I64), np.array([2, 3], I64)], consts={1, 2}, opset=18,
             id="col2im"),
        Case("Col2Im", [rnd(51, (1, 8, 6)), np.array([5, 5], I64), np.array([2, 2], I64)],
             {"strides": [2, 2], "pads": [1, 0, 1, 1], "dilations": [1, 2]}, consts={1, 2}, opset=18, id="col2im_geom"),
        Case("Col2Im", [rnd(52, (1, 8, 30)), np.array([3, 4, 5], I64), np.array([2, 2, 2], I64)],
             {"pads": [0, 0, 1, 0, 0, 0]}, consts={1, 2}, opset=18, id="col2im_3d"),
    ]
    rois = np.array([[0.5, 0.8, 4.2, 3.9], [1.0, 0.0, 5.5, 4.5], [2.2, 1.1, 2.6, 1.4], [-1.0, -0.5, 3.0, 6.5]], F32)
    bidx = np.array([0, 1, 1, 0], I64)
    for mode in ("avg", "max"):
        for ctm in ("half_pixel", "output_half_pixel"):
            c.append(Case("RoiAlign", [img, rois, bidx], {"mode": mode, "coordinate_transformation_mode": ctm,
                                                          "output_height": 3, "output_width": 2, "spatial_scale": 0.9},
                          opset=16, rtol=1e-4, atol=1e-5, id=f"roialign_{mode}_{ctm}"))
    c += [
        Case("RoiAlign", [img, rois, bidx], {"output_height": 2, "output_width": 3, "sampling_ratio": 2}, opset=10,
             rtol=1e-4, atol=1e-5, id="roialign10_ratio2", oracle="ort"),  # onnx's evaluator applies half_pixel
        Case("MaxRoiPool", [rnd(53, (2, 3, 7, 8)), np.array([[0, 1.2, 0.7, 5.6, 4.1], [1, 0, 0, 7, 6],
                                                               [1, 3.4, 2.5, 3.4, 2.5]], F32)],
             {"pooled_shape": [2, 3], "spatial_scale": 0.8}, opset=1, oracle="ort", id="maxroipool"),
        Case("Det", [rnd(54, (3, 3))], opset=11, rtol=1e-4, id="det_3x3"),
        Case("Det", [rnd(55, (2, 3, 5, 5))], opset=11, rtol=1e-4, atol=1e-4, id="det_batched_5x5"),
        Case("Det", [np.array([[[1, 2], [2, 4]], [[0, 1], [1, 0]]], F32)], opset=11, id="det_singular_and_swap"),
        Case("Det", [rnd(56, (4, 4)).astype(np.float64)], opset=22, rtol=1e-10, id="det_f64"),
        Case("CausalConvWithState", [rnd(57, (2, 3, 6)), rnd(58, (3, 1, 4)), rnd(59, (3,)), rnd(60, (2, 3, 3))],
             {"activation": "silu"}, nout=2, opset=27, id="causal_conv_silu_past"),
        Case("CausalConvWithState", [rnd(61, (1, 4, 5)), rnd(62, (4, 1, 3))], nout=2, opset=27, id="causal_conv_plain"),
    ]
    return c


CASES = _cases()


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_reference_matches_onnx(case: Case):
    check_reference(case)


def test_inputs_are_not_degenerate():
    check_inputs_not_degenerate(CASES)


@pytest.mark.parametrize("case", [c for c in CASES if c.lower], ids=repr)
def test_lowering_builds(case: Case):
    if case.op == "BitCast":   # a view: one alias, no kernel
        steps, _, _ = lower_case(case)
        assert len(steps) == 1 and isinstance(steps[0], AliasStep)
        return
    check_lowering_builds(case)


@pytest.mark.parametrize("case", [c for c in CASES if c.lower], ids=repr)
def test_lowered_kernels_run_on_host(case: Case):
    check_runs_on_host(case)


# --- registration and unsupported forms ------------------------------------------------------------

def test_quantize_ops_are_not_folded():
    """Q/DQ stay in the graph (a quantised constant is not folded to float); the others fold as usual."""
    assert lookup("QuantizeLinear").foldable is False
    assert lookup("DequantizeLinear").foldable is False
    assert lookup("DynamicQuantizeLinear").foldable is True


def test_dequantize_per_axis_uses_the_axis_index():
    steps, _, _ = lower_case(next(c for c in CASES if c.id == "dq_i8_axis"))
    te = steps[0].kernel.expr
    assert te.name == "dequantize_linear" and len(te.inputs) == 3


@pytest.mark.parametrize("to", [onnx.TensorProto.FLOAT8E4M3FN, onnx.TensorProto.INT4, onnx.TensorProto.INT32])
def test_quantize_to_unsupported_types_is_reported(to):
    case = Case("QuantizeLinear", [rnd(70, (4,)), scalar(0.1, F32)], {"output_dtype": to})
    with pytest.raises(UnsupportedOp):
        lookup(case.op).reference(case.ir_node(), case.feeds(), case.opset)
    ctx = LowerCtx(case.ir_node(), [TensorType(DType.float32, (4,)), TensorType(DType.float32, ())],
                   [TensorType(DType.int32, (4,))], [None, None], case.opset, emit=lambda s: None, new_name=lambda s: s)
    with pytest.raises(UnsupportedOp):
        lookup(case.op).lower(ctx)


@pytest.mark.parametrize("case", [
    Case("HannWindow", [scalar(8, I64)], opset=17),
    Case("Col2Im", [rnd(72, (1, 4, 4)), np.array([3, 3], I64), np.array([2, 2], I64)], opset=18),
    Case("DFT", [rnd(73, (1, 4, 1)), scalar(4, I64)], opset=20),
], ids=lambda c: c.op)
def test_shape_inputs_must_be_constant(case: Case):
    ir, feeds = case.ir_node(), case.feeds()
    in_types = [TensorType(DType.from_numpy(a.dtype), a.shape) for a in feeds]
    ctx = LowerCtx(ir, in_types, [TensorType(DType.float32, (8,))], [None] * len(feeds), case.opset,
                   emit=lambda s: None, new_name=lambda s: s)
    with pytest.raises(UnsupportedOp, match="constant"):
        lookup(case.op).lower(ctx)
