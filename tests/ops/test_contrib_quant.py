"""onnxruntime's com.microsoft MatMulNBits (compiler/ops/contrib_quant.py) against onnxruntime's own
CPU kernel on the host harness, in both thread orders: 2, 4 and 8 bits; no, packed and float zero
points; K not a multiple of the block; a bias; fp16 activations. The weight stays packed in the plan
and the product is one kernel.

GatherBlockQuantized likewise: 2, 4 and 8 bits, with and without zero points, blocks of 16 to 128,
fp32 and fp16 scales, token ids (B, S) with a negative and an out-of-range one, a partial last
block, a rank-3 table, the genai builder's table tied to a MatMulNBits LM head; the layouts
onnxruntime itself refuses for uint8 data, and int4 tensors, are refused."""
from __future__ import annotations

import numpy as np
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

from compiler import compile
from compiler.errors import CompilerError
from compiler.ir.dtypes import DType
from compiler.ir.graph import Node
from compiler.ops.contrib_quant import pack_bits as pack
from compiler.ops.registry import lookup
from compiler.pipeline import CompileOptions
from compiler.runtime.executor import Executor, make_backend

RNG = np.random.default_rng(31)
MS = "com.microsoft"


def quantized(K: int, N: int, bits: int, block: int, zero: str, float_type=np.float32):
    """(B, scales, zero points or None) of a random weight, in MatMulNBits' layout."""
    kb = -(-K // block)
    q = RNG.integers(0, 1 << bits, (N, kb * block)).astype(np.uint8)
    B = pack(q.reshape(N * kb, block), bits).reshape(N, kb, block * bits // 8)
    scales = (RNG.random((N, kb)) * 0.05 + 0.01).astype(float_type)
    if zero == "none":
        zp = None
    elif zero == "packed":
        zp = pack(RNG.integers(0, 1 << bits, (N, kb)).astype(np.uint8), bits)
    else:
        zp = (RNG.random((N, kb)) * (1 << bits)).astype(float_type)
    return B, scales, zp


def model(K, N, bits, block, zero, *, bias=False, lead=(2, 3), dtype=TensorProto.FLOAT, flat_scales=False):
    ft = np.float16 if dtype == TensorProto.FLOAT16 else np.float32
    B, scales, zp = quantized(K, N, bits, block, zero, ft)
    inits = [("B", B), ("scales", scales.reshape(-1) if flat_scales else scales)]
    ins = ["a", "B", "scales"]
    if zp is not None:
        inits.append(("zp", zp))
        ins.append("zp")
    if bias:
        inits.append(("bias", (RNG.standard_normal(N) * 0.1).astype(ft)))
        ins += [""] * (5 - len(ins)) + ["bias"]
    node = helper.make_node("MatMulNBits", ins, ["y"], domain=MS, K=K, N=N, bits=bits, block_size=block)
    vi = helper.make_tensor_value_info
    g = helper.make_graph([node], "nbits", [vi("a", dtype, [*lead, K])], [vi("y", dtype, [*lead, N])],
                          [numpy_helper.from_array(a, n) for n, a in inits])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 18), helper.make_opsetid(MS, 1)])
    m.ir_version = 9
    return m.SerializeToString(), dict(inits)


def check(data: bytes, a: np.ndarray, tol: float):
    """Against onnxruntime at its basic optimizations (its extended ones turn DequantizeLinear ->
    MatMul into a product that rounds the activations to 8 bits: tests/compiler/test_verify_reference.py)."""
    opts = ort.SessionOptions()
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
    want = ort.InferenceSession(data, opts, providers=["CPUExecutionProvider"]).run(None, {"a": a})[0]
    art = compile(data, "h100", CompileOptions(build=False))
    for mode in ("default", "shuffle"):
        got = Executor(art.plan, make_backend("host", mode=mode)).run({"a": a})["y"]
        np.testing.assert_allclose(got.astype(np.float32), want.astype(np.float32), rtol=0,
                                   atol=tol * float(np.abs(want).max()), err_msg=mode)
    return art


@pytest.mark.parametrize("bits,block,zero", [(4, 32, "packed"), (4, 32, "none"), (4, 16, "float"), (8, 64, "packed"),
                                             (8, 32, "none"), (2, 32, "packed"), (4, 128, "packed")])
@pytest.mark.parametrize("K", [128, 100])
def test_against_onnxruntime(bits, block, zero, K):
    N = 24
    data, inits = model(K, N, bits, block, zero, bias=(bits == 4), flat_scales=(zero == "none"))
    a = RNG.standard_normal((2, 3, K)).astype(np.float32)
    art = check(data, a, 1e-5)
    assert art.report["launches_per_inference"] == 1
    # the weight stays packed: one byte holds 8 / bits values
    assert dict(art.plan.constants)["B"].dtype is DType.uint8
    # the registry's reference (constant folding uses it) gives onnxruntime's answer too
    node = Node("MatMulNBits", "n", ("a", "B", "scales", "zp" if "zp" in inits else "", "", "bias" if "bias" in inits else ""),
                ("y",), (("K", K), ("N", N), ("bits", bits), ("block_size", block)), MS)
    ref = lookup("MatMulNBits", MS).reference(node, [a, inits["B"], inits["scales"], inits.get("zp"), None,
                                                     inits.get("bias")], 1)[0]
    want = ort.InferenceSession(data, providers=["CPUExecutionProvider"]).run(None, {"a": a})[0]
    np.testing.assert_allclose(ref, want, rtol=0, atol=1e-5 * float(np.abs(want).max()))


def test_fp16_activations():
    data, _ = model(96, 40, 4, 32, "packed", dtype=TensorProto.FLOAT16, lead=(5,))
    check(data, RNG.standard_normal((5, 96)).astype(np.float16), 5e-3)


def test_a_large_int4_linear_reads_an_eighth_of_the_fp32_weight():
    """4096 x 4096 at 4 bits, block 32, fp16: one GEMM whose DRAM bytes are the packed
    weight, its scales and zero points, under a third of the weight's fp16 bytes (32 MiB)."""
    K = N = 4096
    data, inits = model(K, N, 4, 32, "packed", dtype=TensorProto.FLOAT16, lead=(1, 8))
    art = compile(data, "h100", CompileOptions(build=False))
    (k,) = art.report["kernels"]
    weight_bytes = sum(inits[n].nbytes for n in ("B", "scales", "zp"))
    assert weight_bytes <= k["dram_bytes"] < 1.2 * weight_bytes
    assert k["dram_bytes"] < K * N * 2 / 3


@pytest.mark.parametrize("attrs,match", [(dict(bits=3), "bits=3"), (dict(block_size=24), "block_size=24")])
def test_refusals(attrs, match):
    data, _ = model(64, 16, 4, 32, "none")
    import onnx
    m = onnx.load_from_string(data)
    for a in list(m.graph.node[0].attribute):
        if a.name in attrs:
            m.graph.node[0].attribute.remove(a)
    m.graph.node[0].attribute.extend([helper.make_attribute(k, v) for k, v in attrs.items()])
    with pytest.raises(CompilerError, match=match):
        compile(m.SerializeToString(), "h100", CompileOptions(build=False))


def test_act_order_is_refused():
    data, _ = model(64, 16, 4, 32, "none")
    import onnx
    m = onnx.load_from_string(data)
    node = m.graph.node[0]
    while len(node.input) < 4:
        node.input.append("")
    node.input.append("g_idx")
    m.graph.initializer.append(numpy_helper.from_array((np.arange(64) // 32).astype(np.int32), "g_idx"))
    with pytest.raises(CompilerError, match="g_idx"):
        compile(m.SerializeToString(), "h100", CompileOptions(build=False))


@pytest.mark.parametrize("K,N,M,bits,block,zero", [(200, 72, 33, 4, 16, "packed"), (232, 50, 40, 4, 32, "float"),
                                                   (520, 130, 24, 8, 128, "packed"), (168, 96, 20, 2, 32, "none")])
def test_the_vector_loader_unpacks_a_row_of_k_at_once(K, N, M, bits, block, zero):
    """In a half model the tensor-core GEMM loads the packed weight by the generic_vec loader
    (eight consecutive k of a row a thread: their shared bytes, scales and zero points read once):
    right against onnxruntime with K and N not multiples of the tile, split-K or not."""
    data, _ = model(K, N, bits, block, zero, dtype=TensorProto.FLOAT16, lead=(M,))
    art = check(data, RNG.standard_normal((M, K)).astype(np.float16), 5e-3)
    (k,) = art.report["kernels"]
    assert k["config"]["schedule"] == "roller_tc_gemm" and k["config"]["load_b"] == "generic_vec"


def test_a_large_int4_linear_is_predicted_faster_than_its_fp16_weight():
    """4096 x 4096 over 8 and 128 tokens: the int4 weight (block 32) is predicted faster than the
    same product with an fp16 weight, which reads three times its bytes (bench/weight_only.py
    prints the table)."""
    K = N = 4096
    w = (RNG.standard_normal((K, N)) * 0.02).astype(np.float16)
    for M in (8, 128):
        vi = helper.make_tensor_value_info
        g = helper.make_graph([helper.make_node("MatMul", ["a", "w"], ["y"])], "dense",
                              [vi("a", TensorProto.FLOAT16, [M, K])], [vi("y", TensorProto.FLOAT16, [M, N])],
                              [numpy_helper.from_array(w, "w")])
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)])
        m.ir_version = 9
        dense = compile(m.SerializeToString(), "h100", CompileOptions(build=False)).report
        int4 = compile(model(K, N, 4, 32, "packed", dtype=TensorProto.FLOAT16, lead=(M,))[0], "h100",
                       CompileOptions(build=False)).report
        assert int4["latency"]["predicted_us"] < dense["latency"]["predicted_us"], M
        assert int4["kernels"][0]["config"]["load_b"] == "generic_vec"


@pytest.mark.parametrize("K,N,M", [(200, 72, 33), (96, 130, 24), (520, 40, 17)])
def test_the_vector_loader_along_rows_dequantizes_an_int8_weight(K, N, M):
    """A weight-only int8 Linear as DequantizeLinear writes it (K x N, the rows innermost, a scale
    per column) in a half model: the generic_vec loader computes eight consecutive columns of a k
    per thread; right against onnxruntime with K and N not multiples of the tile."""
    wq = RNG.integers(-127, 128, (K, N)).astype(np.int8)
    scale = (RNG.random(N) * 0.01 + 1e-3).astype(np.float16)
    vi = helper.make_tensor_value_info
    g = helper.make_graph([helper.make_node("DequantizeLinear", ["wq", "s"], ["w"], axis=1),
                           helper.make_node("MatMul", ["a", "w"], ["y"])], "int8",
                          [vi("a", TensorProto.FLOAT16, [M, K])], [vi("y", TensorProto.FLOAT16, [M, N])],
                          [numpy_helper.from_array(wq, "wq"), numpy_helper.from_array(scale, "s")])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 21)])
    m.ir_version = 10
    art = check(m.SerializeToString(), RNG.standard_normal((M, K)).astype(np.float16), 5e-3)
    (k,) = art.report["kernels"]
    assert k["config"]["schedule"] == "roller_tc_gemm", k["config"]
    assert (k["config"]["load_b"], k["config"]["layout_b"]) == ("generic_vec", "r")


# --- GatherBlockQuantized ---------------------------------------------------------------------

def gbq_table(V: int, mid: tuple, H: int, bits: int, block: int, zero: str, float_type=np.float32):
    """(data, scales, zero points or None) of a random table of V rows of (*mid, H) values, in
    GatherBlockQuantized's uint8 layout: packed along the last axis, blocks of `block` values."""
    per, kb = 8 // bits, -(-H // block)
    rows = V * int(np.prod(mid, dtype=np.int64))
    data = pack(RNG.integers(0, 1 << bits, (rows, H)).astype(np.uint8), bits).reshape(V, *mid, H // per)
    scales = (RNG.random((V, *mid, kb)) * 0.05 + 0.01).astype(float_type)
    zp = None
    if zero == "packed":
        zp = pack(RNG.integers(0, 1 << bits, (rows, kb)).astype(np.uint8), bits).reshape(V, *mid, -(-kb // per))
    return data, scales, zp


def gbq_model(V, H, bits, block, zero, idx_shape, *, mid=(), dtype=TensorProto.FLOAT, idx_type=TensorProto.INT64,
              consumer=None, attrs=None):
    """GatherBlockQuantized of graph input `ids` into a table in its uint8 layout -> y (or -> e and
    `consumer(nodes, inits)`, which makes y)."""
    ft = np.float16 if dtype == TensorProto.FLOAT16 else np.float32
    data, scales, zp = gbq_table(V, mid, H, bits, block, zero, ft)
    inits = {"data": data, "scales": scales}
    ins = ["data", "ids", "scales"]
    if zp is not None:
        inits["zp"] = zp
        ins.append("zp")
    attrs = dict(bits=bits, block_size=block, gather_axis=0, quantize_axis=len(mid) + 1) | (attrs or {})
    out = "e" if consumer else "y"
    nodes = [helper.make_node("GatherBlockQuantized", ins, [out], domain=MS, **attrs)]
    y_shape = [*idx_shape, *mid, H]
    if consumer:
        y_shape = consumer(nodes, inits, ft)
    vi = helper.make_tensor_value_info
    g = helper.make_graph(nodes, "gbq", [vi("ids", idx_type, list(idx_shape))], [vi("y", dtype, y_shape)],
                          [numpy_helper.from_array(a, n) for n, a in inits.items()])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 18), helper.make_opsetid(MS, 1)])
    m.ir_version = 9
    return m.SerializeToString(), inits


def ids_for(V: int, shape, idx_type=np.int64) -> np.ndarray:
    """Random token ids in [-V, V), one negative (counted from the end) and, where onnxruntime
    allows it, one out of range (a row of zeros in onnxruntime's kernel)."""
    ids = RNG.integers(0, V, shape).astype(idx_type)
    flat = ids.reshape(-1)
    flat[1] = -RNG.integers(1, V + 1)
    flat[-1] = V + 3
    return ids


def check_ids(data: bytes, ids: np.ndarray, tol: float, name: str = "y"):
    want = ort.InferenceSession(data, providers=["CPUExecutionProvider"]).run(None, {"ids": ids})[0]
    art = compile(data, "h100", CompileOptions(build=False))
    for mode in ("default", "shuffle"):
        got = Executor(art.plan, make_backend("host", mode=mode)).run({"ids": ids})[name]
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_allclose(got.astype(np.float32), want.astype(np.float32), rtol=0,
                                   atol=tol * float(np.abs(want).max()), err_msg=mode)
    return art, want


@pytest.mark.parametrize("bits,block,zero,dtype", [
    (4, 32, "packed", TensorProto.FLOAT), (4, 32, "none", TensorProto.FLOAT),
    (4, 16, "packed", TensorProto.FLOAT16), (4, 128, "none", TensorProto.FLOAT16),
    (4, 128, "packed", TensorProto.FLOAT), (8, 32, "packed", TensorProto.FLOAT),
    (8, 128, "none", TensorProto.FLOAT16), (2, 16, "packed", TensorProto.FLOAT)])
@pytest.mark.parametrize("idx_type", [TensorProto.INT64, TensorProto.INT32])
def test_gather_block_quantized_against_onnxruntime(bits, block, zero, dtype, idx_type):
    """Token ids (B, S), one negative and one out of range (a row of zeros, as onnxruntime gives):
    the same values as onnxruntime's kernel (its float(q - zero point) * scale rounded once to the
    scales' type: exact), the table still packed bytes in the plan, and one kernel."""
    V, H = 40, 256
    data, inits = gbq_model(V, H, bits, block, zero, (2, 5), dtype=dtype, idx_type=idx_type)
    ids = ids_for(V, (2, 5), np.int64 if idx_type == TensorProto.INT64 else np.int32)
    art, want = check_ids(data, ids, 0.0)
    assert not want[-1, -1].any() and want[0, 1].any()
    assert art.report["launches_per_inference"] == 1
    assert dict(art.plan.constants)["data"].dtype is DType.uint8
    # the registry's reference (constant folding uses it) gives onnxruntime's answer too
    node = Node("GatherBlockQuantized", "n", ("data", "ids", "scales") + (("zp",) if "zp" in inits else ()), ("y",),
                (("bits", bits), ("block_size", block), ("gather_axis", 0), ("quantize_axis", 1)), MS)
    ref_inputs = [inits["data"], ids, inits["scales"], inits.get("zp")]
    ref = lookup("GatherBlockQuantized", MS).reference(node, ref_inputs, 1)[0]
    assert ref.dtype == want.dtype
    np.testing.assert_array_equal(ref, want)


@pytest.mark.parametrize("H,mid,bits,block,zero", [(80, (), 4, 32, "packed"), (48, (3,), 4, 16, "packed"),
                                                   (96, (2,), 8, 64, "none"), (40, (), 2, 16, "packed")])
def test_gather_block_quantized_partial_blocks_and_higher_rank(H, mid, bits, block, zero):
    """A row that ends in a partial block (onnxruntime rounds its block count up, the zero points'
    bytes too) and a table of rank 3 (quantized along its last axis), against onnxruntime."""
    V = 24
    data, _ = gbq_model(V, H, bits, block, zero, (3, 4), mid=mid)
    check_ids(data, ids_for(V, (3, 4)), 0.0)


def test_gather_block_quantized_tied_to_a_matmul_nbits_lm_head():
    """onnxruntime-genai's tied int4 embedding (Gemma, ERNIE): the LM head's MatMulNBits weight B
    (vocab, k_blocks, blob) reshaped to (vocab, hidden / 2) bytes is the embedding table, its scales
    and zero points shared; the logits of the gathered rows against onnxruntime, B stays packed."""
    V, H, block = 96, 128, 32
    B, scales, zp = quantized(H, V, 4, block, "packed")

    def lm_head(nodes, inits, ft):
        nodes.insert(0, helper.make_node("Reshape", ["B", "flat"], ["data"]))
        nodes.append(helper.make_node("MatMulNBits", ["e", "B", "scales", "zp"], ["y"], domain=MS, K=H, N=V,
                                      bits=4, block_size=block))
        del inits["data"]
        inits.update(B=B, flat=np.array([V, H // 2], np.int64), scales=scales, zp=zp)
        return [2, 3, V]

    data, _ = gbq_model(V, H, 4, block, "packed", (2, 3), consumer=lm_head)
    ids = RNG.integers(-V, V, (2, 3)).astype(np.int64)
    art, _ = check_ids(data, ids, 1e-5)
    assert dict(art.plan.constants)["B"].dtype is DType.uint8


def test_gather_block_quantized_fuses_into_an_elementwise_consumer():
    """Gemma's embedding scale (x * sqrt(hidden)) takes the gather in: one kernel for both ops. (A
    MatMul or a layer norm does not: the register level recomputes a contraction's operand in every
    tile that loads it, and a row kernel reads its row more than once, so only maps of a few adds and
    multiplies join them (compiler/passes/welder.py: cheap); the unpacking's shift, mask and range
    check are not, and the gather stays a kernel of its own there, its output (B, S, hidden).)"""
    V, H = 64, 128

    def scale(nodes, inits, ft):
        nodes.append(helper.make_node("Mul", ["e", "norm"], ["y"]))
        inits["norm"] = np.array(np.sqrt(H), ft)
        return [2, 7, H]

    data, _ = gbq_model(V, H, 4, 32, "packed", (2, 7), dtype=TensorProto.FLOAT16, consumer=scale)
    art, _ = check_ids(data, ids_for(V, (2, 7)), 1e-3)
    (k,) = art.report["kernels"]
    assert len(k["ops"]) == 2 and "Mul" in k["ops"][1], k["ops"]


@pytest.mark.parametrize("attrs,match", [(dict(gather_axis=1), "gather_axis=1"),
                                         (dict(quantize_axis=0), "quantize_axis=0"),
                                         (dict(bits=3), "bits=3"), (dict(block_size=24), "block_size=24")])
def test_gather_block_quantized_refusals(attrs, match):
    """uint8 data is gathered along axis 0 and quantized along its last axis only (onnxruntime
    refuses the others too); bits and block sizes as MatMulNBits takes them."""
    data, _ = gbq_model(16, 64, 4, 32, "none", (2, 3), attrs=attrs)
    with pytest.raises(CompilerError, match=match):
        compile(data, "h100", CompileOptions(build=False))


def test_gather_block_quantized_int4_data_is_refused_by_type():
    """onnxruntime's own quantizer writes the table as an int4/uint4 tensor: not a Brickyard element
    type, refused naming it."""
    V, H = 8, 64
    d = helper.make_tensor("data", TensorProto.UINT4, [V, H], RNG.integers(0, 16, V * H).tolist())
    s = numpy_helper.from_array((RNG.random((V, 2)) + 0.1).astype(np.float32), "scales")
    vi = helper.make_tensor_value_info
    g = helper.make_graph([helper.make_node("GatherBlockQuantized", ["data", "ids", "scales"], ["y"], domain=MS,
                                            block_size=32)], "gbq",
                          [vi("ids", TensorProto.INT64, [3])], [vi("y", TensorProto.FLOAT, [3, H])], [d, s])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 21), helper.make_opsetid(MS, 1)])
    m.ir_version = 10
    with pytest.raises(CompilerError, match="UINT4"):
        compile(m.SerializeToString(), "h100", CompileOptions(build=False))
