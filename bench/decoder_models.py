"""Decoder-only transformers of the Llama family as ONNX exporters write them: a model beyond the
shared set, whose patterns the compiler must find from the tensor expressions.

    .venv/bin/python bench/decoder_models.py --out DIR [--seq 16] [--attention eager|sdpa]

Written with onnx.helper (PyTorch is not on every machine that runs this), with seeded random
weights, node by node as torch.onnx writes Hugging Face's LlamaDecoderLayer (compared with the
dynamo exporter's graph of transformers' LlamaModel under torch 2.13, which constant-folds the
rotary tables of a fixed shape; here they are made from the position ids, as with dynamic ones):

    RMSNorm     Pow(x, 2), ReduceMean over the last axis, Add eps, Sqrt, Reciprocal, Mul, Mul weight
    rotary      cos and sin made in the graph from int64 position ids (an outer product with the
                inverse frequencies, Concat with itself, Cos, Sin); rotate-half as two Slices, Neg
                and Concat; q * cos + rotate_half(q) * sin for Q and K
    GQA         fewer K/V heads than Q heads, repeated by Unsqueeze, Expand and Reshape (repeat_kv)
    attention   `eager`: MatMul(Q, Kᵀ), Mul by the scale, Add a constant causal mask (finfo.min
                above the diagonal), Softmax, MatMul V; `sdpa`: PyTorch's scaled_dot_product_attention
                as decomposed on export (√scale on Q and on Kᵀ, the causal mask built from
                ConstantOfShape, Trilu, Equal and Where with -inf, the softmax's NaNs zeroed by
                IsNaN and Where)
    SwiGLU      down(silu(gate(x)) * up(x)) with silu as x * Sigmoid(x); residual adds

Each model's inputs are `hidden` [batch, seq, dim] (float) and `position_ids` [batch, seq] (int64);
its output `out` is the final RMSNorm's."""
from __future__ import annotations

import argparse
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

# Llama's proportions at a size the host harness runs in seconds
SMALL = {"layers": 2, "dim": 64, "heads": 4, "kv_heads": 2, "ffn": 176}


def llama(*, seq: int = 16, batch: int = 1, layers: int = 2, dim: int = 64, heads: int = 4, kv_heads: int = 2,
          ffn: int = 176, attention: str = "eager", seed: int = 0) -> onnx.ModelProto:
    """A Llama decoder stack of `layers` layers, `heads` query heads of dim // heads and `kv_heads`
    key/value heads, `seq` positions."""
    if attention not in ("eager", "sdpa"):
        raise ValueError(f"attention {attention!r}: eager or sdpa")
    if dim % heads or heads % kv_heads or (dim // heads) % 2:
        raise ValueError("dim must split into heads of an even size, and heads into kv_heads groups")
    rng = np.random.default_rng(seed)
    B, S, D, H, KVH, hd, F = batch, seq, dim, heads, kv_heads, dim // heads, ffn
    nodes: list = []
    inits: list = []

    def const(name: str, value, dtype=np.float32) -> str:
        inits.append(numpy_helper.from_array(np.asarray(value, dtype=dtype), name))
        return name

    def op(kind: str, *ins: str, out: str | None = None, **attrs) -> str:
        out = out or f"{kind.lower()}_{len(nodes)}"
        nodes.append(helper.make_node(kind, list(ins), [out], **attrs))
        return out

    def weight(name: str, n_in: int, n_out: int) -> str:
        return const(name, rng.standard_normal((n_in, n_out)) / np.sqrt(n_in))

    last = const("axis_last", [-1], np.int64)
    two, eps = const("two", 2.0), const("eps", 1e-6)

    def rmsnorm(x: str, name: str) -> str:
        var = op("ReduceMean", op("Pow", x, two), last, keepdims=1)
        inv = op("Reciprocal", op("Sqrt", op("Add", var, eps)))
        return op("Mul", const(name, 1 + 0.1 * rng.standard_normal(D)), op("Mul", x, inv))

    # rotary tables from the position ids: [B, S, hd] cos and sin, unsqueezed over heads
    inv_freq = 1.0 / (10000 ** (np.arange(0, hd, 2, dtype=np.float64) / hd))
    freqs = op("MatMul", op("Expand", const("inv_freq", inv_freq.reshape(1, hd // 2, 1)),
                             const("inv_freq_shape", [B, hd // 2, 1], np.int64)),
               op("Unsqueeze", op("Cast", "position_ids", to=TensorProto.FLOAT), const("axis_1", [1], np.int64)))
    freqs = op("Transpose", freqs, perm=[0, 2, 1])
    emb = op("Concat", freqs, freqs, axis=-1)
    cos = op("Unsqueeze", op("Cos", emb), "axis_1")
    sin = op("Unsqueeze", op("Sin", emb), "axis_1")
    start, half = const("start", [0], np.int64), const("half", [hd // 2], np.int64)
    end = const("end", [np.iinfo(np.int64).max], np.int64)

    def rotary(t: str) -> str:
        x1, x2 = op("Slice", t, start, half, last), op("Slice", t, half, end, last)
        return op("Add", op("Mul", t, cos), op("Mul", op("Concat", op("Neg", x2), x1, axis=-1), sin))

    def heads_of(t: str, n: int, name: str) -> str:
        return op("Transpose", op("Reshape", t, const(name, [B, S, n, hd], np.int64)), perm=[0, 2, 1, 3])

    def repeat_kv(t: str, name: str) -> str:
        e = op("Expand", op("Unsqueeze", t, const(f"{name}_axis", [2], np.int64)),
               const(f"{name}_expand", [B, KVH, H // KVH, S, hd], np.int64))
        return op("Reshape", e, const(f"{name}_shape", [B, H, S, hd], np.int64))

    mask = np.triu(np.full((S, S), np.finfo(np.float32).min, np.float32), 1).reshape(1, 1, S, S)
    x = "hidden"
    for l in range(layers):
        h = rmsnorm(x, f"input_norm_{l}")
        q = rotary(heads_of(op("MatMul", h, weight(f"q_proj_{l}", D, H * hd)), H, f"q_shape_{l}"))
        k = rotary(heads_of(op("MatMul", h, weight(f"k_proj_{l}", D, KVH * hd)), KVH, f"k_shape_{l}"))
        v = heads_of(op("MatMul", h, weight(f"v_proj_{l}", D, KVH * hd)), KVH, f"v_shape_{l}")
        k, v = repeat_kv(k, f"k_repeat_{l}"), repeat_kv(v, f"v_repeat_{l}")
        kt = op("Transpose", k, perm=[0, 1, 3, 2])
        if attention == "eager":
            scores = op("Mul", op("MatMul", q, kt), const(f"scale_{l}", 1 / np.sqrt(hd)))
            causal = const(f"causal_mask_{l}", mask)
        else:
            root = const(f"sqrt_scale_{l}", np.sqrt(1 / np.sqrt(hd)))
            scores = op("MatMul", op("Mul", q, root), op("Mul", kt, root))
            ones = op("ConstantOfShape", const(f"square_{l}", [S, S], np.int64),
                      value=numpy_helper.from_array(np.array([1.0], np.float32)))
            causal = op("Where", op("Equal", op("Trilu", ones, upper=0), const(f"zero_{l}", 0.0)),
                        const(f"minus_inf_{l}", -np.inf), f"zero_{l}")
        probs = op("Softmax", op("Add", scores, causal), axis=-1)
        if attention == "sdpa":      # the export's guard for rows masked out entirely
            probs = op("Where", op("IsNaN", probs), f"zero_{l}", probs)
        o = op("Transpose", op("MatMul", probs, v), perm=[0, 2, 1, 3])
        o = op("Reshape", o, const(f"o_shape_{l}", [B, S, H * hd], np.int64))
        x = op("Add", x, op("MatMul", o, weight(f"o_proj_{l}", H * hd, D)))
        h = rmsnorm(x, f"post_norm_{l}")
        gate = op("MatMul", h, weight(f"gate_proj_{l}", D, F))
        up = op("MatMul", h, weight(f"up_proj_{l}", D, F))
        act = op("Mul", op("Mul", gate, op("Sigmoid", gate)), up)
        x = op("Add", x, op("MatMul", act, weight(f"down_proj_{l}", F, D)))
    op("Identity", rmsnorm(x, "final_norm"), out="out")
    graph = helper.make_graph(nodes, f"llama_{attention}", [
        helper.make_tensor_value_info("hidden", TensorProto.FLOAT, [B, S, D]),
        helper.make_tensor_value_info("position_ids", TensorProto.INT64, [B, S])],
        [helper.make_tensor_value_info("out", TensorProto.FLOAT, [B, S, D])], inits)
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)], producer_name="brickyard-bench")
    m.ir_version = 9
    onnx.checker.check_model(m, full_check=True)
    return m


def inputs(model: onnx.ModelProto, seed: int = 1) -> dict[str, np.ndarray]:
    """Feeds for a model of this module: normal hidden states, positions 0.. per row."""
    shape = {i.name: [d.dim_value for d in i.type.tensor_type.shape.dim] for i in model.graph.input}
    B, S, _ = shape["hidden"]
    return {"hidden": np.random.default_rng(seed).standard_normal(shape["hidden"]).astype(np.float32),
            "position_ids": np.tile(np.arange(S, dtype=np.int64), (B, 1))}


# name -> builder at the small size (bench/fusion.py compiles these beside the shared models)
MODELS = {"llama": lambda: llama(**SMALL), "llama_sdpa": lambda: llama(**SMALL, attention="sdpa")}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--seq", type=int, default=16)
    ap.add_argument("--attention", default="eager", choices=["eager", "sdpa"])
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    path = os.path.join(a.out, f"llama_{a.attention}_{a.seq}.onnx")
    onnx.save(llama(**SMALL, seq=a.seq, attention=a.attention), path)
    print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
