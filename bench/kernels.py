#!/usr/bin/env python3
"""Kernel benchmark: Roller's operator set (OSDI'22, adapted to today's GPUs) and the distinct
operators of BERT-base, ResNet-50 and ViT-B/16, in fp32 and fp16.

Each case is a one-node ONNX model compiled by compiler.compile for the device's target preset
(the tune stage measures the top-K there) and run through the GPU backend; PyTorch eager
(cuBLAS/cuDNN) and torch.compile(mode="max-autotune-no-cudagraphs") run the same operator on the
same inputs in the same process. Every contender is timed alike (compiler.runtime.timing: CUDA
events, warm-up, median, rotating input sets, CUDA-graph replay). Also measured: the device's
copy bandwidth, the ceiling for memory-bound rows.

  python3 bench/kernels.py --list              cases, no GPU needed
  python3 bench/kernels.py --dry-run           compile + NVRTC-build every Brickyard kernel, no GPU
  python3 bench/kernels.py --quick             a subset that fits in `make gpu-check`
  python3 bench/kernels.py [--only SUBSTR]     the full suite

Writes bench/results/kernels-<UTC date>.json (suite, device, git_commit, created, rows) and
prints a markdown table last. See bench/README.md for the columns."""
from __future__ import annotations

import argparse
import contextlib
import dataclasses
import datetime as _dt
import json
import math
import os
import subprocess
import sys
import tempfile
import time
import traceback
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

OPSET = 20          # Gelu needs 20; every other operator here is unchanged since 13-18
FP64_REF_LIMIT = 6 << 30   # bytes of fp64 inputs+output above which no fp64 reference is computed


# ---- the cases ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Case:
    """One operator instance: ONNX op, data-input shapes, attributes, constant inputs."""

    group: str
    name: str
    op: str
    shapes: tuple[tuple[int, ...], ...]
    attrs: tuple = ()
    consts: tuple = ()                       # (input index, tuple of int64 values)
    dtypes: tuple[str, ...] = ("fp32", "fp16")
    quick: tuple[str, ...] = ()              # dtypes that run in --quick
    flops: float = 0.0                       # useful arithmetic (2 per multiply-add)
    opset: int = OPSET                       # the model's ONNX opset (Attention needs 23)

    @property
    def id(self) -> str:
        return f"{self.group}/{self.name}"


def _mm(group, name, M, N, K, batch=(), **kw) -> Case:
    b = math.prod(batch) if batch else 1
    return Case(group, name, "MatMul", (tuple(batch) + (M, K), tuple(batch) + (K, N)),
                flops=2.0 * b * M * N * K, **kw)


def _conv(group, name, N, C, H, W, F, k, s=1, pad=0, groups=1, **kw) -> Case:
    Ho, Wo = (H + 2 * pad - k) // s + 1, (W + 2 * pad - k) // s + 1
    attrs = (("dilations", (1, 1)), ("group", groups), ("kernel_shape", (k, k)), ("pads", (pad,) * 4),
             ("strides", (s, s)))
    return Case(group, name, "Conv", ((N, C, H, W), (F, C // groups, k, k)), attrs,
                flops=2.0 * N * F * Ho * Wo * (C // groups) * k * k, **kw)


def _ew(group, name, op, shape, n_inputs=1, **kw) -> Case:
    return Case(group, name, op, (tuple(shape),) * n_inputs, flops=float(math.prod(shape)), **kw)


def _pool(group, name, op, shape, k, s, pad=0, **kw) -> Case:
    attrs = (("kernel_shape", (k, k)), ("pads", (pad,) * 4), ("strides", (s, s)))
    return Case(group, name, op, (tuple(shape),), attrs, flops=float(math.prod(shape)), **kw)


def _attention(group, name, B, H, S, D, causal=False, keys=None, **kw) -> Case:
    """ONNX Attention (opset 23) over Q, K, V of (batch, heads, seq, head size), K and V over
    `keys` positions when given (a decoder's step against its cache): the fused attention kernel
    against PyTorch's scaled_dot_product_attention (flash attention)."""
    keys = keys or S
    flops = 4.0 * B * H * S * keys * D * (0.5 if causal else 1.0)    # Q.K^T and P.V
    return Case(group, name, "Attention", ((B, H, S, D), (B, H, keys, D), (B, H, keys, D)),
                (("is_causal", int(causal)),), flops=flops, opset=23, **kw)


def _softmax(group, name, shape, **kw) -> Case:
    return Case(group, name, "Softmax", (tuple(shape),), (("axis", -1),), flops=5.0 * math.prod(shape), **kw)


def _layernorm(group, name, shape, **kw) -> Case:
    c = shape[-1]
    return Case(group, name, "LayerNormalization", (tuple(shape), (c,), (c,)), (("axis", -1), ("epsilon", 1e-5)),
                flops=8.0 * math.prod(shape), **kw)


def _reduce(group, name, shape, **kw) -> Case:
    return Case(group, name, "ReduceSum", (tuple(shape),), (("keepdims", 1),), consts=((1, (-1,)),),
                flops=float(math.prod(shape)), **kw)


def _transpose(group, name, shape, perm, **kw) -> Case:
    return Case(group, name, "Transpose", (tuple(shape),), (("perm", tuple(perm)),), flops=float(math.prod(shape)), **kw)


BOTH, F16, F32, I8 = ("fp32", "fp16"), ("fp16",), ("fp32",), ("int8",)
# "int8": a MatMul case as MatMulInteger of two int8 inputs without zero points into int32 (the
# imma stage's integer mma), against torch._int_mm (cuBLASLt's int8 GEMM); exact, so the fp64
# reference equals it
ONNX_OP = {"int8": {"MatMul": "MatMulInteger"}}


def all_cases() -> list[Case]:
    """The suite. Roller's shapes are kept (batch 128 for convolutions); models at batch 32."""
    c: list[Case] = []
    # Roller MatMul (M, N, K), fp32 SIMT set and its fp16 twin
    c.append(_mm("matmul", "8192x8192x8192", 8192, 8192, 8192, quick=BOTH))
    for M, N, K in [(65536, 1024, 2), (65536, 1024, 1024), (65536, 1024, 4096), (65536, 1024, 30522),
                    (65536, 4096, 1024), (128, 1000, 2048), (128, 1000, 4032)]:
        c.append(_mm("matmul", f"{M}x{N}x{K}", M, N, K))
    # int8 GEMMs on the integer tensor cores (torch._int_mm: M > 16, K and N multiples of 8)
    c.append(_mm("int8-matmul", "8192x8192x8192", 8192, 8192, 8192, dtypes=I8, quick=I8))
    c.append(_mm("int8-matmul", "bert-ffn1-4096x3072x768", 4096, 3072, 768, dtypes=I8))
    c.append(_mm("int8-matmul", "bert-ffn2-4096x768x3072", 4096, 768, 3072, dtypes=I8))
    # Roller TensorCore MatMul: M = 65536, fp16
    for N, K in [(1024, 4096), (1024, 1024), (4096, 1024), (16384, 1024)]:
        c.append(_mm("tc-matmul", f"65536x{N}x{K}", 65536, N, K, dtypes=F16))
    # Roller scale sweep: N = 1024, K = 4096
    for M in (512, 2048, 8192, 16384):
        c.append(_mm("matmul-sweep", f"{M}x1024x4096", M, 1024, 4096, dtypes=F32))
    # Roller convolutions: (N, C, H, W, F, k, stride, pad); V = no padding, S = same
    for N, C, H, W, F, k, s, p in [(128, 168, 42, 42, 168, 1, 1, 0), (128, 1008, 21, 21, 168, 1, 1, 0),
                                   (128, 42, 83, 83, 42, 1, 1, 0), (128, 96, 165, 165, 42, 1, 1, 0),
                                   (128, 336, 42, 42, 168, 1, 1, 0), (128, 3, 331, 331, 96, 3, 2, 0)]:
        c.append(_conv("conv", f"{N}x{C}x{H}x{W}-{F}k{k}s{s}", N, C, H, W, F, k, s, p))
    # Roller depthwise (N = 128, same padding): (C, H, W, k, stride)
    for C, H, W, k, s in [(84, 83, 83, 5, 2), (336, 21, 21, 5, 1), (42, 165, 165, 5, 2), (672, 11, 11, 3, 1),
                          (96, 165, 165, 7, 2)]:
        c.append(_conv("depthwise", f"128x{C}x{H}x{W}k{k}s{s}", 128, C, H, W, C, k, s, k // 2, groups=C,
                       quick=F32 if (C, k) == (672, 3) else ()))
    for shape in [(128, 1008, 42, 42), (128, 96, 165, 165), (128, 64, 112, 112), (128, 4032, 11, 11)]:
        c.append(_ew("relu", "x".join(map(str, shape)), "Relu", shape,
                     quick=F32 if shape == (128, 64, 112, 112) else ()))
    c.append(_pool("pool", "avg-128x168x83x83k1s2", "AveragePool", (128, 168, 83, 83), 1, 2))
    c.append(_pool("pool", "max-128x64x112x112k3s2", "MaxPool", (128, 64, 112, 112), 3, 2, 1))
    c.append(_reduce("reduce", "128x512x1024", (128, 512, 1024)))
    c.append(_reduce("reduce", "65536x1024", (65536, 1024), quick=F32))
    # memory-bound kinds at sizes beyond L2: long rows (split across blocks), transposes (shared tiles)
    c.append(_reduce("reduce", "1x67108864", (1, 1 << 26), quick=F32))
    c.append(_reduce("reduce", "8x8388608", (8, 1 << 23)))
    c.append(_transpose("transpose", "8192x8192", (8192, 8192), (1, 0), quick=F32))
    c.append(_transpose("transpose", "nchw-nhwc-32x256x56x56", (32, 256, 56, 56), (0, 2, 3, 1)))
    # BERT-base, seq 128, batch 32 (4096 tokens, hidden 768, 12 heads, FFN 3072)
    B, S, D, Hh = 32, 128, 768, 12
    c.append(_mm("bert", "qkv-4096x2304x768", B * S, 3 * D, D))
    c.append(_mm("bert", "proj-4096x768x768", B * S, D, D))
    c.append(_mm("bert", "ffn1-4096x3072x768", B * S, 4 * D, D, quick=F16))
    c.append(_mm("bert", "ffn2-4096x768x3072", B * S, D, 4 * D))
    c.append(_mm("bert", "attn-qk", S, S, D // Hh, batch=(B, Hh), quick=F16))
    c.append(_mm("bert", "attn-av", S, D // Hh, S, batch=(B, Hh)))
    c.append(_softmax("bert", "softmax-32x12x128x128", (B, Hh, S, S), quick=BOTH))
    c.append(_attention("bert", "attention-32x12x128x64", B, Hh, S, D // Hh, quick=F16))
    c.append(_attention("bert", "attention-1x12x128x64", 1, Hh, S, D // Hh, dtypes=F16))
    c.append(_layernorm("bert", "layernorm-32x128x768", (B, S, D), quick=F32))
    c.append(_ew("bert", "gelu-32x128x3072", "Gelu", (B, S, 4 * D), quick=F16))
    c.append(_ew("bert", "add-32x128x768", "Add", (B, S, D), 2))
    # ResNet-50, batch 32, 224x224
    N = 32
    c.append(_conv("resnet50", "conv1-7x7s2", N, 3, 224, 224, 64, 7, 2, 3))
    c.append(_conv("resnet50", "res2-3x3", N, 64, 56, 56, 64, 3, 1, 1, quick=F16))
    c.append(_conv("resnet50", "res2-1x1-64to256", N, 64, 56, 56, 256, 1))
    c.append(_conv("resnet50", "res3-3x3s2", N, 128, 56, 56, 128, 3, 2, 1))
    c.append(_conv("resnet50", "res4-1x1-1024to256", N, 1024, 14, 14, 256, 1))
    c.append(_conv("resnet50", "res5-3x3", N, 512, 7, 7, 512, 3, 1, 1))
    c.append(_pool("resnet50", "maxpool-3x3s2", "MaxPool", (N, 64, 112, 112), 3, 2, 1, quick=F16))
    c.append(_ew("resnet50", "gap-32x2048x7x7", "GlobalAveragePool", (N, 2048, 7, 7)))
    c.append(_mm("resnet50", "fc-32x1000x2048", N, 1000, 2048))
    c.append(_ew("resnet50", "relu-32x256x56x56", "Relu", (N, 256, 56, 56)))
    c.append(_ew("resnet50", "add-32x256x56x56", "Add", (N, 256, 56, 56), 2))
    # ViT-B/16, batch 32, 197 tokens
    T = 197
    c.append(_conv("vit", "patch-16x16s16", N, 3, 224, 224, D, 16, 16, 0))
    c.append(_mm("vit", "qkv-6304x2304x768", N * T, 3 * D, D))
    c.append(_mm("vit", "mlp1-6304x3072x768", N * T, 4 * D, D))
    c.append(_mm("vit", "mlp2-6304x768x3072", N * T, D, 4 * D))
    c.append(_mm("vit", "attn-qk", T, T, D // Hh, batch=(N, Hh)))
    c.append(_softmax("vit", "softmax-32x12x197x197", (N, Hh, T, T)))
    c.append(_layernorm("vit", "layernorm-32x197x768", (N, T, D)))
    c.append(_ew("vit", "gelu-32x197x3072", "Gelu", (N, T, 4 * D)))
    c.append(_attention("vit", "attention-32x12x197x64", N, Hh, T, D // Hh, dtypes=F16))
    # GPT-2 small's causal attention over its 1024 positions, batch 8
    c.append(_attention("gpt2", "causal-attention-8x12x1024x64", 8, Hh, 1024, D // Hh, causal=True, dtypes=F16))
    # a 7B decoder's step: one token's attention against its key/value cache (flash_decoding) and
    # its Linears as matrix-vector products (the reduce kind's outputs across lanes)
    c.append(_attention("decoder", "decode-1x32x1x4096x128", 1, 32, 1, 128, keys=4096, quick=F16))
    c.append(_attention("decoder", "decode-8x32x1x2048x128", 8, 32, 1, 128, keys=2048, dtypes=F16))
    c.append(_mm("decoder", "gemv-1x4096x4096", 1, 4096, 4096, quick=F16))
    c.append(_mm("decoder", "gemv-1x11008x4096", 1, 11008, 4096))
    return c


def select(cases: list[Case], quick: bool, only: str | None) -> list[tuple[Case, str]]:
    """(case, dtype) pairs to run, in suite order (quick: the cases' quick dtypes)."""
    out = []
    for case in cases:
        if only and only not in case.id:
            continue
        for dt in case.dtypes:
            if quick and dt not in case.quick:
                continue
            out.append((case, dt))
    if quick:   # the headline matrix products first, then the memory-bound ones, convolutions last
        order = {"matmul": 0, "bert": 1, "relu": 2, "reduce": 2, "transpose": 2, "depthwise": 3, "resnet50": 4}
        out.sort(key=lambda cd: order.get(cd[0].group, 5))
    return out


# ---- the one-node ONNX model ----------------------------------------------------------------------

def onnx_model(case: Case, dtype: str):
    """A one-node ONNX model: data inputs x0.. (graph inputs), constant inputs as initializers."""
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    et = {"fp32": TensorProto.FLOAT, "fp16": TensorProto.FLOAT16, "int8": TensorProto.INT8}[dtype]
    out_et = TensorProto.INT32 if dtype == "int8" else et
    consts = dict(case.consts)
    n_in = len(case.shapes) + len(consts)
    names, inputs, inits = [], [], []
    shapes = iter(case.shapes)
    for i in range(n_in):
        if i in consts:
            nm = f"c{i}"
            inits.append(numpy_helper.from_array(np.array(consts[i], dtype=np.int64), nm))
        else:
            nm = f"x{len(inputs)}"
            inputs.append(helper.make_tensor_value_info(nm, et, list(next(shapes))))
        names.append(nm)
    attrs = {k: (list(v) if isinstance(v, tuple) else v) for k, v in case.attrs}
    node = helper.make_node(ONNX_OP.get(dtype, {}).get(case.op, case.op), names, ["y"], name="n0", **attrs)
    graph = helper.make_graph([node], case.name.replace("-", "_"), inputs,
                              [helper.make_tensor_value_info("y", out_et, None)], initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", case.opset)])
    model.ir_version = min(model.ir_version, 10)
    model = onnx.shape_inference.infer_shapes(model, strict_mode=True)
    return model.SerializeToString()


def min_bytes(case: Case, dtype: str, out_numel: int) -> int:
    """Compulsory device traffic: each data input read once, the output written once."""
    if dtype == "int8":
        return sum(math.prod(s) for s in case.shapes) + 4 * out_numel
    item = 4 if dtype == "fp32" else 2
    return item * (sum(math.prod(s) for s in case.shapes) + out_numel)


# ---- PyTorch peers --------------------------------------------------------------------------------

def torch_fn(case: Case, dtype: str = "fp32"):
    """The same operator in PyTorch (cuBLAS / cuDNN through eager)."""
    import torch
    import torch.nn.functional as F
    a = dict(case.attrs)
    op = case.op
    if op == "MatMul" and dtype == "int8":
        # int8 x int8 -> int32 (cuBLASLt); the float64 reference multiplies the upcast values
        return lambda x, w: torch._int_mm(x, w) if x.dtype == torch.int8 else torch.matmul(x, w)
    if op == "MatMul":
        return lambda x, w: torch.matmul(x, w)
    if op == "Conv":
        s, p, g = a["strides"][0], a["pads"][0], a["group"]
        return lambda x, w: F.conv2d(x, w, None, s, p, 1, g)
    if op == "MaxPool":
        k, s, p = a["kernel_shape"][0], a["strides"][0], a["pads"][0]
        return lambda x: F.max_pool2d(x, k, s, p)
    if op == "AveragePool":
        k, s, p = a["kernel_shape"][0], a["strides"][0], a["pads"][0]
        return lambda x: F.avg_pool2d(x, k, s, p, count_include_pad=False)
    if op == "GlobalAveragePool":
        return lambda x: x.mean(dim=(2, 3), keepdim=True)
    if op == "ReduceSum":
        return lambda x: x.sum(dim=-1, keepdim=True)
    if op == "Relu":
        return lambda x: torch.relu(x)
    if op == "Transpose":
        perm = tuple(a["perm"])
        return lambda x: x.permute(perm).contiguous()
    if op == "Add":
        return lambda x, y: x + y
    if op == "Softmax":
        return lambda x: torch.softmax(x, dim=-1)
    if op == "LayerNormalization":
        eps = a["epsilon"]
        return lambda x, g, b: F.layer_norm(x, (x.shape[-1],), g, b, eps)
    if op == "Gelu":
        return lambda x: F.gelu(x)
    if op == "Attention":
        causal = bool(a.get("is_causal", 0))
        return lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=causal)
    raise ValueError(f"no PyTorch peer for {op}")


# ---- Brickyard on the GPU -------------------------------------------------------------------------

class PlanLauncher:
    """A compiled one-node plan bound to one input set: kernel launches with arguments resolved
    once (so that timing sees the kernels, not Python), its own arena for intermediates/outputs."""

    def __init__(self, plan, backend, inputs: dict):
        from compiler.ir.plan import AliasStep, LaunchStep
        types = dict(plan.types)
        self.arena = backend.alloc(max(plan.arena_bytes, 1))
        scope = dict(inputs)
        for name, off in plan.arena:
            scope[name] = backend.view(self.arena, off, types[name])
        for name, c in plan.constants:
            import numpy as np
            scope[name] = backend.to_device(np.require(c.array(), requirements="C"))
        self.launches = []
        for s in plan.steps:
            if isinstance(s, LaunchStep):
                self.launches.append((s.kernel, [scope[p.value] for p in s.kernel.params]))
            elif isinstance(s, AliasStep):
                scope[s.dst] = backend.reshape(scope[s.src], types[s.dst])
            else:
                raise RuntimeError(f"the kernel bench runs straight-line plans only, not {type(s).__name__}")
        self.backend = backend
        self.outputs = [scope[n] for n in plan.outputs]

    def enqueue(self) -> None:
        for k, args in self.launches:
            self.backend.launch(k, args)


def pick_target(dev: dict):
    """The preset for this GPU (its name in the device's), its arch forced to the device's."""
    from compiler.targets import PRESETS, get_target
    name = dev["name"].lower().replace(" ", "")
    best = None
    for key in sorted(PRESETS, key=len, reverse=True):
        if key.replace("-", "").replace("_", "") in name:
            best = key
            break
    t = get_target(best or "h100")
    if t.arch != dev["arch"]:
        t = dataclasses.replace(t, arch=dev["arch"])
    return t, best or f"h100 (arch {dev['arch']})"


def rel_error(got, ref) -> float | None:
    """||got - ref|| / ||ref||, in float64 (float32 for very large tensors); None without a ref."""
    import torch
    if ref is None or got is None:
        return None
    big = got.numel() > 1 << 27
    dt = torch.float32 if big else torch.float64
    g, r = got.reshape(-1).to(dt), ref.reshape(-1).to(dt)
    if g.shape != r.shape:
        return float("inf")
    den = float(torch.linalg.vector_norm(r))
    num = float(torch.linalg.vector_norm(g - r))
    if math.isnan(num):
        return float("nan")
    return num / den if den > 0 else num


def _round(x, n=3):
    return None if x is None else (round(x, n) if isinstance(x, float) and math.isfinite(x) else x)


def run_case(case: Case, dtype: str, ctx: dict) -> dict:
    """One row: Brickyard (compile incl. tune, launch), torch eager, torch.compile, errors."""
    import cupy
    import torch
    from compiler import compile as by_compile
    from compiler.pipeline import CompileOptions
    from compiler.runtime.gpu import GpuBackend
    from compiler.runtime.timing import CupyClock, TorchClock, measure, rotation_sets
    tdt = {"fp32": torch.float32, "fp16": torch.float16, "int8": torch.int8}[dtype]
    row = {"name": case.id, "group": case.group, "op": case.op, "dtype": dtype,
           "shapes": [list(s) for s in case.shapes], "flops": case.flops}
    T = ctx["timing"]
    # ---- Brickyard: compile (the tune stage measures the top K here) ----
    model = onnx_model(case, dtype)
    t0 = time.perf_counter()
    art = by_compile(model, ctx["target"], CompileOptions(), store=ctx["store"])
    row["brickyard_compile_s"] = round(time.perf_counter() - t0, 3)
    rep = art.report
    row["times"] = rep.get("times")
    row["tune"] = {k: rep["tune"].get(k) for k in ("status", "reason", "tuned", "changed", "cache_hits",
                                                     "candidates_measured") if k in rep["tune"]}
    row["n_kernels"] = len(rep["kernels"])
    row["schedules"] = [k["config"].get("schedule") for k in rep["kernels"]]
    row["predicted_us"] = _round(sum(k["predicted_us"] for k in rep["kernels"]))
    kt = rep["tune"].get("kernels") or []
    row["kernels"] = [{"name": r["name"], "model_choice": r["model_choice"], "measured_best": r["chosen"],
                       "model_choice_us": r["model_choice_us"], "measured_best_us": r["measured_us"],
                       "model_first_is_best": r["model_choice"] == r["chosen"],
                       "candidates": len(r["candidates"]),
                       "rejected": sum(1 for c in r["candidates"] if c.get("status") != "ok")} for r in kt]
    tiled = [k for k in row["kernels"] if k["candidates"] > 1]
    row["model_first_is_best"] = all(k["model_first_is_best"] for k in tiled) if tiled else None
    preds_first = [r["candidates"][0]["predicted_us"] for r in kt if r["candidates"]]
    row["model_predicted_first_us"] = _round(sum(preds_first)) if preds_first else row["predicted_us"]
    # ---- inputs (torch generates them; CuPy views the same memory) ----
    gen = torch.Generator(device="cuda")
    gen.manual_seed(1234)
    out_numel = int(math.prod(dict(art.plan.types)[art.plan.outputs[0]].shape))
    row["min_bytes"] = min_bytes(case, dtype, out_numel)
    set_bytes = row["min_bytes"]
    n_sets = rotation_sets(set_bytes, ctx["l2_bytes"], max_sets=16, max_bytes=ctx["max_set_bytes"])
    sets = []
    for _ in range(n_sets):
        xs = []
        for j, s in enumerate(case.shapes):
            if dtype == "int8":
                xs.append(torch.randint(-128, 128, s, generator=gen, device="cuda", dtype=torch.int8))
                continue
            x = torch.randn(s, generator=gen, device="cuda", dtype=torch.float32)
            if case.op == "LayerNormalization" and j > 0:
                x = x * 0.5 + (1.0 if j == 1 else 0.0)
            xs.append(x.to(tdt).contiguous())
        sets.append(xs)
    torch.cuda.synchronize()
    row["sets"] = n_sets
    # ---- Brickyard: launch, check, time ----
    backend = GpuBackend(cubins=art.cubins, arch=ctx["target"].arch)
    backend.prepare(art.plan.kernels())
    launchers = []
    for xs in sets:     # graph inputs are x0, x1, ... in the order of the case's data inputs
        bound = {n: cupy.from_dlpack(xs[int(n[1:])].detach()) for n in art.plan.inputs}
        launchers.append(PlanLauncher(art.plan, backend, bound))
    launchers[0].arena.fill(255)           # poison: unwritten outputs show as NaN
    launchers[0].enqueue()
    cupy.cuda.runtime.deviceSynchronize()
    by_out = torch.from_dlpack(launchers[0].outputs[0]).clone()
    cupy.cuda.runtime.deviceSynchronize()
    clock = CupyClock()
    t = measure(lambda i: launchers[i % n_sets].enqueue(), clock, sets=n_sets, **T)
    t2 = measure(lambda i: launchers[i % n_sets].enqueue(), clock, sets=n_sets, **T)
    row["brickyard_us"] = _round(t.median_us, 4)
    row["brickyard_us_repeat"] = _round(t2.median_us, 4)
    row["brickyard_timing"] = t.as_dict()
    del launchers
    cupy.get_default_memory_pool().free_all_blocks()
    # ---- reference: the operator in float64 on the same (upcast) inputs ----
    fn = torch_fn(case, dtype)
    ref = None
    if (set_bytes // {"fp32": 4, "fp16": 2, "int8": 1}[dtype]) * 8 <= FP64_REF_LIMIT:
        try:
            with torch.no_grad():
                ref = fn(*[x.double() for x in sets[0]])
        except Exception as e:   # an operator without a float64 kernel: no reference, say so
            row["ref_note"] = f"no float64 reference: {type(e).__name__}"
    row["reference"] = "fp64" if ref is not None else None
    row["err_brickyard"] = _round(rel_error(by_out, ref), 8)
    # ---- torch eager ----
    tclock = TorchClock()
    with torch.no_grad():
        t0 = time.perf_counter()
        eager_out = fn(*sets[0])
        torch.cuda.synchronize()
        row["torch_first_call_s"] = round(time.perf_counter() - t0, 3)
        row["err_brickyard_vs_torch"] = _round(rel_error(by_out, eager_out), 8)
        row["err_torch"] = _round(rel_error(eager_out, ref), 8)
        te = measure(lambda i: fn(*sets[i % n_sets]), tclock, sets=n_sets, **T)
    row["torch_us"] = _round(te.median_us, 4)
    row["torch_timing"] = te.as_dict()
    del eager_out
    tclock.release()
    # ---- torch.compile (max-autotune, no CUDA graphs of its own), fresh for this case ----
    left = ctx["deadline"] - time.time()
    if ctx["torch_compile"] and left > ctx["compile_reserve_s"]:
        try:
            torch._dynamo.reset()
            cfn = torch.compile(fn, mode="max-autotune-no-cudagraphs", dynamic=False, fullgraph=True)
            with torch.no_grad():
                t0 = time.perf_counter()
                tc_out = cfn(*sets[0])
                torch.cuda.synchronize()
                row["torch_compile_s"] = round(time.perf_counter() - t0, 3)
                row["err_torch_compile"] = _round(rel_error(tc_out, ref), 8)
                del tc_out
                tc = measure(lambda i: cfn(*sets[i % n_sets]), tclock, sets=n_sets, **T)
            row["torch_compile_us"] = _round(tc.median_us, 4)
            row["torch_compile_timing"] = tc.as_dict()
        except Exception as e:
            row["torch_compile_error"] = f"{type(e).__name__}: {str(e)[:300]}"
        finally:
            tclock.release()
    else:
        row["torch_compile_skipped"] = "switched off" if not ctx["torch_compile"] else \
            f"too little time left in the budget ({left:.0f} s)"
    # ---- derived ----
    by = row["brickyard_us"]
    if by:
        row["speedup_vs_torch"] = _round(row["torch_us"] / by, 3)
        if row.get("torch_compile_us"):
            row["speedup_vs_torch_compile"] = _round(row["torch_compile_us"] / by, 3)
        row["achieved_tflops"] = _round(case.flops / (by * 1e-6) / 1e12, 3)
        row["achieved_gbps"] = _round(row["min_bytes"] / (by * 1e-6) / 1e9, 1)
        if ctx.get("copy_gbps"):
            row["fraction_of_copy_bw"] = _round(row["achieved_gbps"] / ctx["copy_gbps"], 3)
    del sets, by_out, ref
    torch.cuda.empty_cache()
    cupy.get_default_memory_pool().free_all_blocks()
    return row


# ---- no-GPU modes ---------------------------------------------------------------------------------

def dry_run(pairs, target_name: str, candidates: bool, store_dir: str | None) -> int:
    """Compiles every case and builds its kernels with NVRTC (and, with `candidates`, every top-K
    candidate); prints one line per case. Returns the number of failures."""
    from compiler import compile as by_compile
    from compiler.pipeline import CompileOptions
    from compiler.targets import get_target
    from kernel_cache.store import KernelStore
    from compiler.codegen.sass import disassemble_many, find_cuobjdump
    target = get_target(target_name)
    tool = find_cuobjdump()     # the static SASS size of each kernel, where the disassembler is installed
    fails = 0
    with tempfile.TemporaryDirectory() as tmp:
        store = KernelStore(store_dir or tmp)
        for case, dt in pairs:
            t0 = time.perf_counter()
            try:
                art = by_compile(onnx_model(case, dt), target, CompileOptions(), store=store)
                ks = art.plan.kernels()
                missing = [k.entry for k in ks if k.digest not in art.cubins]
                if missing:
                    raise RuntimeError(f"no cubin for {missing}")
                n_cand = 0
                if candidates:     # the specs the tune stage sees, each candidate as render makes it
                    from compiler.codegen.nvrtc import build_arch, build_cubin
                    from compiler.passes.tune import candidate_configs, render_candidate
                    from compiler.pipeline import plan_before
                    for spec in plan_before("tune", onnx_model(case, dt), target).specs():
                        for cfg in candidate_configs(spec):
                            kc = render_candidate(spec, cfg, target)
                            build_cubin(kc.source, kc.entry, build_arch(target.arch, kc.arch_specific))
                            n_cand += 1
                sched = ",".join(sorted({str(dict(k.config).get("schedule")) for k in ks}))
                sass = ""
                if tool is not None:
                    fns = disassemble_many({k.digest: art.cubins[k.digest] for k in ks}, tool)
                    sass = ", SASS " + "+".join(str(len(fns[k.digest][k.entry].instructions)) for k in ks)
                print(f"ok   {case.id} {dt}: {len(ks)} kernel(s) [{sched}]{sass}"
                      + (f", {n_cand} candidates built" if candidates else "")
                      + f", tune {art.report['tune']['status']}, {time.perf_counter() - t0:.1f} s", flush=True)
            except Exception as e:
                fails += 1
                print(f"FAIL {case.id} {dt}: {type(e).__name__}: {str(e)[:300]}", flush=True)
    print(f"dry run: {len(pairs) - fails} of {len(pairs)} cases built for {target.name} ({target.arch})")
    return fails


# ---- output ---------------------------------------------------------------------------------------

def git_commit() -> str:
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True, timeout=10)
        if out.returncode == 0:
            dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT,
                                   capture_output=True, text=True, timeout=10).stdout.strip()
            return out.stdout.strip() + ("-dirty" if dirty else "")
    except Exception:
        pass
    return os.environ.get("BRICKYARD_GIT_COMMIT", "unknown")


def write_results(suite: str, device: str, settings: dict, rows: list, out_dir,
                  started: tuple[_dt.datetime, str] | None = None) -> Path:
    """bench/results/<suite>-<UTC time>.json with the suites' common head (suite, device,
    git_commit, created, settings) and the rows; returns its path. `started`: the run's start time
    and commit (`run_started()`), so that a suite writing after every row rewrites one file;
    without it, the time of writing and the commit the process started at (PROCESS_COMMIT), so the
    file names the code it ran rather than the checkout at its end."""
    created, commit = started if started is not None else (_dt.datetime.now(_dt.timezone.utc), PROCESS_COMMIT)
    doc = {"suite": suite, "device": device, "git_commit": commit,
           "created": created.isoformat(timespec="seconds"), "settings": settings, "rows": rows}
    path = Path(out_dir) / f"{suite}-{created.strftime('%Y%m%dT%H%M%SZ')}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, indent=1) + "\n")
    return path


def run_started() -> tuple[_dt.datetime, str]:
    """The time and commit a run starts at (`write_results`' `started`)."""
    return _dt.datetime.now(_dt.timezone.utc), git_commit()


# The commit this module was imported at, which write_results records by default: a suite that runs
# for minutes ran the code it imported, not a commit made while it ran (the suites that import it
# before they compile; one that imports it only to write records the commit of that moment).
PROCESS_COMMIT = git_commit()


def compile_row(row: dict, data: bytes, target: str, options, store=None):
    """Compiles one model of a compile-only suite into its `row` and returns the artifact: the row
    gets compiled, compile_s, predicted_us, launches (the report's kernels) and stage_s (seconds
    per stage); or, where compiling stops, compiled False, the error and compile_s, and None.
    `store`: the kernel store NVRTC's builds go to (options.build; None: the default store); a
    build's row also gets the kernels built and their largest register count."""
    from compiler import compile
    t = time.time()
    try:
        art = compile(data, target, options, store=store)
    except Exception as e:   # the row records what stops it
        row.update(compiled=False, error=f"{type(e).__name__}: {e}"[:600], compile_s=round(time.time() - t, 1))
        return None
    rep = art.report
    row.update(compiled=True, compile_s=round(time.time() - t, 1), predicted_us=rep["latency"]["predicted_us"],
               launches=rep["launches_per_inference"],
               stage_s={st["name"]: round(st["seconds"], 2) for st in rep["compile"]["stages"]})
    if options.build:     # (the build record's misses: the kernels NVRTC built, all of them in a fresh store)
        row.update(kernels_built=rep["compile"]["cache"]["misses"],
                   max_registers=max((k.get("registers") or 0 for k in rep["kernels"]), default=0))
    return art


@contextlib.contextmanager
def fresh_store(build: bool):
    """A kernel store of its own for one compile where `build` (NVRTC builds every kernel, as a
    service's first compile of the model does), else None."""
    if not build:
        yield None
        return
    from kernel_cache import KernelStore
    with tempfile.TemporaryDirectory(prefix="brickyard-bench-store-") as d:
        yield KernelStore(d)


def model_paths(shared: str, models_dir: list[str]) -> dict[str, Path]:
    """The .onnx models of the shared folder and of each folder in `models_dir`, by name; a name
    the shared folder has too is `<folder>/<name>` (the compile-only suites' model choice)."""
    paths = {p.stem: p for p in (Path(shared) / "models").glob("*.onnx")}
    for d in models_dir:
        paths.update({p.stem if p.stem not in paths else f"{Path(d).name}/{p.stem}": p for p in Path(d).glob("*.onnx")})
    return paths


def _fmt(x, nd=1):
    if x is None:
        return "-"
    if isinstance(x, float):
        if not math.isfinite(x):
            return str(x)
        return f"{x:.{nd}f}" if abs(x) >= 0.1 or x == 0 else f"{x:.2e}"
    return str(x)


def markdown_table(rows: list[dict], copy_gbps: float | None) -> str:
    head = ("| case | dtype | brickyard us | torch us | torch.compile us | torch/by | err by | pred us "
            "| model pick best | %copy bw | TFLOP/s | by compile s | tc compile s |")
    lines = [head, "|" + "---|" * 13]
    for r in rows:
        if r.get("error") or r.get("skipped"):
            why = r.get("error") or r.get("skipped")
            lines.append(f"| {r['name']} | {r['dtype']} | {why[:80]} |" + " |" * 10)
            continue
        best = r.get("model_first_is_best")
        lines.append("| " + " | ".join([
            r["name"], r["dtype"], _fmt(r.get("brickyard_us")), _fmt(r.get("torch_us")),
            _fmt(r.get("torch_compile_us")), _fmt(r.get("speedup_vs_torch"), 2), _fmt(r.get("err_brickyard"), 2),
            _fmt(r.get("predicted_us")), "-" if best is None else ("yes" if best else "no"),
            _fmt(100 * r["fraction_of_copy_bw"], 0) if r.get("fraction_of_copy_bw") is not None else "-",
            _fmt(r.get("achieved_tflops"), 2), _fmt(r.get("brickyard_compile_s"), 1),
            _fmt(r.get("torch_compile_s"), 1)]) + " |")
    if copy_gbps:
        lines.append(f"\ndevice copy bandwidth (read+write): {copy_gbps:.0f} GB/s")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--list", action="store_true", help="print the cases and exit")
    ap.add_argument("--dry-run", action="store_true", help="compile and NVRTC-build every case; no GPU")
    ap.add_argument("--candidates", action="store_true", help="with --dry-run: build every top-K candidate too")
    ap.add_argument("--quick", action="store_true", help="the subset for make gpu-check")
    ap.add_argument("--only", help="cases whose id contains this")
    ap.add_argument("--target", default="h100", help="--dry-run's target preset (a GPU run uses the device's)")
    ap.add_argument("--budget-s", type=float, default=None, help="stop starting cases after this many seconds")
    ap.add_argument("--deadline", type=float, default=None, help="absolute end time (epoch s) for the whole run")
    ap.add_argument("--no-torch-compile", action="store_true")
    ap.add_argument("--store", help="kernel cache folder (default: a fresh temporary one, so compile times are cold)")
    ap.add_argument("--out", default=str(ROOT / "bench" / "results"))
    args = ap.parse_args(argv)
    pairs = select(all_cases(), args.quick, args.only)
    if args.list:
        for case, dt in pairs:
            print(f"{case.id}\t{dt}\t{case.op}\t{' '.join('x'.join(map(str, s)) for s in case.shapes)}")
        print(f"{len(pairs)} cases")
        return 0
    if args.dry_run:
        return 1 if dry_run(pairs, args.target, args.candidates, args.store) else 0
    return gpu_run(pairs, args)


def gpu_run(pairs, args) -> int:
    from compiler.runtime.timing import copy_bandwidth, device_info, gpu_presence
    ok, why = gpu_presence()
    if not ok:
        print(f"bench/kernels.py needs a GPU ({why}); use --list or --dry-run here", file=sys.stderr)
        return 2
    import cupy
    import torch
    from kernel_cache.store import KernelStore
    start = time.time()
    budget = args.budget_s if args.budget_s is not None else (330.0 if args.quick else 6 * 3600.0)
    deadline = start + budget
    if args.deadline:
        deadline = min(deadline, args.deadline)
    # fp32 means fp32 for the peers too: no TF32 in cuBLAS or cuDNN
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.set_float32_matmul_precision("highest")
    dev = device_info()
    target, preset = pick_target(dev)
    tmp = tempfile.TemporaryDirectory(prefix="brickyard-bench-store-")
    store = KernelStore(args.store or tmp.name)
    created = _dt.datetime.now(_dt.timezone.utc)
    print(f"device: {dev['name']} ({dev['arch']}), driver {dev['driver']}, CUDA {dev['cuda_runtime']}; "
          f"target preset {preset}; {len(pairs)} cases; budget {deadline - start:.0f} s", flush=True)
    bw = copy_bandwidth(1 << 30)
    print(f"copy bandwidth: {bw['gbps']} GB/s (read+write)", flush=True)
    quick_timing = dict(warmup_ms=10.0, rep_ms=40.0, min_samples=5, max_samples=100, max_seconds=6.0)
    full_timing = dict(warmup_ms=25.0, rep_ms=150.0, min_samples=7, max_samples=300, max_seconds=20.0)
    ctx = {"target": target, "store": store, "l2_bytes": dev["l2_bytes"] or target.l2_bytes,
           "max_set_bytes": 6 << 30, "timing": quick_timing if args.quick else full_timing,
           "deadline": deadline, "torch_compile": not args.no_torch_compile,
           "compile_reserve_s": 60.0, "copy_gbps": bw["gbps"]}
    rows = []
    fault = None
    for case, dt in pairs:
        base = {"name": case.id, "group": case.group, "op": case.op, "dtype": dt}
        if fault:
            rows.append(dict(base, skipped=f"not run after a device fault: {fault[:100]}"))
            continue
        if time.time() > deadline - 45:
            rows.append(dict(base, skipped="budget spent"))
            continue
        t0 = time.perf_counter()
        try:
            row = run_case(case, dt, ctx)
        except Exception as e:
            row = dict(base, error=f"{type(e).__name__}: {str(e)[:400]}", traceback=traceback.format_exc()[-2000:])
            try:     # a sticky device error poisons every later case: stop measuring
                cupy.cuda.runtime.deviceSynchronize()
                torch.cuda.synchronize()
            except Exception as e2:
                fault = f"{type(e2).__name__}: {e2}"
        row["wall_s"] = round(time.perf_counter() - t0, 2)
        rows.append(row)
        print(f"{case.id} {dt}: by {row.get('brickyard_us')} us, torch {row.get('torch_us')} us, "
              f"torch.compile {row.get('torch_compile_us')} us, err {row.get('err_brickyard')}"
              + (f"  ERROR {row['error'][:160]}" if row.get("error") else ""), flush=True)
    out = {"suite": "kernels",
           "device": {"name": dev["name"], "driver": dev["driver"], "cuda": dev["cuda_runtime"],
                      "cuda_driver": dev["cuda_driver"], "arch": dev["arch"], "sms": dev["sms"],
                      "l2_bytes": dev["l2_bytes"]},
           "git_commit": git_commit(), "created": created.isoformat(),
           "settings": {"quick": args.quick, "only": args.only, "target_preset": preset,
                        "torch": torch.__version__, "cupy": cupy.__version__, "tf32": False,
                        "timing": ctx["timing"], "torch_compile_mode": "max-autotune-no-cudagraphs",
                        "brickyard_store": "given" if args.store else "fresh (cold compile)"},
           "copy_bandwidth": bw, "seconds": round(time.time() - start, 1), "rows": rows}
    Path(args.out).mkdir(parents=True, exist_ok=True)
    path = Path(args.out) / f"kernels-{created.strftime('%Y%m%dT%H%M%SZ')}.json"
    path.write_text(json.dumps(out, indent=1, default=str))
    print(f"\nwrote {path}")
    print(markdown_table(rows, bw["gbps"]))
    tmp.cleanup()
    return 0 if not fault and not any(r.get("error") for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
