"""A decoder step's product with a packed weight taken k_vec consecutive k a step, its runs read
by 16-byte loads (compiler/analysis/vector_loads.py, kinds/reduce.py chunk_candidates,
codegen/tiled.py): which loads become vectors, every such candidate right on the host harness in
both thread orders (and built by NVRTC without spills), the scalar loop taken where a buffer is not
16-byte aligned, and the micro-model's choice at a 7B model's MLP shape."""
from __future__ import annotations

import numpy as np
import pytest

from compiler.analysis.vector_loads import chunked
from compiler.analysis.views import reduce_view
from compiler.ir.dtypes import DType
from compiler.ir.graph import TensorType
from compiler.kinds import construct_rtiles
from compiler.ops.contrib_quant import pack_bits
from compiler.roller.micro_model import predict
from compiler.targets import get_target
from tests.roller.single_op import check_builds, lower_single, lower_types, run_on_host
from tests.roller.test_memory_bound import rendered

MS = "com.microsoft"
H100 = get_target("h100")


def nbits_case(rng, m: int, k: int, n: int, block: int, bits: int = 4, zero: bool = True, adt=np.float16):
    """MatMulNBits' inputs (activations, packed weight, scales, zero points) and attributes."""
    kb = -(-k // block)
    q = rng.integers(0, 1 << bits, (n * kb, block)).astype(np.uint8)
    arrays = [rng.standard_normal((m, k)).astype(adt),
              pack_bits(q, bits).reshape(n, kb, block * bits // 8),
              (rng.random((n, kb)) * 0.05 + 0.01).astype(adt)]
    if zero:
        arrays.append(pack_bits(rng.integers(0, 1 << bits, (n, kb)).astype(np.uint8), bits))
    return arrays, {"K": k, "N": n, "bits": bits, "block_size": block}


@pytest.fixture(autouse=True)
def small_reductions_chunked(monkeypatch):
    """The cases here are small, to run on the host harness: offer them chunks as the megabyte
    reductions are (kinds/reduce.py CHUNK_MIN_BYTES), except where a test sizes its own."""
    import compiler.kinds.reduce as reduce_kind
    monkeypatch.setattr(reduce_kind, "CHUNK_MIN_BYTES", 0)


def chunk_configs(te):
    return [c for c in construct_rtiles(te, H100, 10**6) if c.kind == "reduce" and c.param("k_vec")]


def test_the_runs_a_step_reads_become_vectors():
    """At 32 k a step over a 4-bit weight in blocks of 32: the activations' 32 halves are four
    16-byte loads and the weight's 16 bytes one; the block's scale and zero point stay scalar
    (one element a step)."""
    arrays, attrs = nbits_case(np.random.default_rng(0), 1, 256, 8, 32)
    kernel, _ = lower_single("MatMulNBits", arrays, attrs, domain=MS)
    te = kernel.expr
    chunk, _, vectors, where = chunked(te, reduce_view(te), 32)
    assert sorted((v.arg, v.elems) for v in vectors) == [(0, 8)] * 4 + [(1, 16)]
    assert {te.inputs[ld.arg].dtype for ld in where} == {DType.float16, DType.uint8}
    # 16 bytes of the weight serve 32 values: each byte is read once for its two nibbles
    assert sum(1 for ld in where if ld.arg == 1) == 16


@pytest.mark.parametrize("m,k,n,block,bits,zero,adt", [
    (1, 256, 40, 32, 4, True, np.float16),      # a decoder step, zero points packed
    (1, 512, 24, 128, 4, False, np.float16),    # symmetric blocks of 128
    (1, 256, 16, 64, 8, True, np.float16),      # 8-bit
    (1, 128, 12, 16, 4, True, np.float32),      # fp32 activations (onnxruntime-genai's CPU builds)
])
def test_every_chunked_candidate_is_right(m, k, n, block, bits, zero, adt):
    rng = np.random.default_rng(k + n)
    arrays, attrs = nbits_case(rng, m, k, n, block, bits, zero, adt)
    kernel, ref = lower_single("MatMulNBits", arrays, attrs, domain=MS)
    cfgs = chunk_configs(kernel.expr)
    assert {c.param("k_vec") for c in cfgs} == {8, 16, 32}
    kernels = rendered(kernel, cfgs)
    check_builds(kernels[:3])
    tol = 2e-2 if adt == np.float16 else 1e-4
    run_on_host(kernels, arrays, ref, rtol=tol, atol=tol * float(np.abs(ref).max()))


def test_a_misaligned_activation_takes_the_scalar_loop():
    """The activations are the caller's buffer: one starting 2 bytes past a 16-byte boundary is
    read element by element (the harness refuses a misaligned vector load), and right."""
    rng = np.random.default_rng(5)
    arrays, attrs = nbits_case(rng, 1, 256, 24, 32)
    kernel, ref = lower_single("MatMulNBits", arrays, attrs, domain=MS)
    backing = np.zeros(256 + 8, np.float16)
    shifted = backing[1:257].reshape(1, 256)
    shifted[...] = arrays[0]
    assert shifted.ctypes.data % 16 != 0
    kernels = rendered(kernel, chunk_configs(kernel.expr)[:2])
    for kern in kernels:          # run_on_host would copy to an aligned buffer: launch directly
        from compiler.runtime.host_harness import build_host_module
        module = build_host_module([kern], mode="default", seed=1)
        out = np.full(ref.shape, -1.0, ref.dtype)
        module.launch(kern, [shifted, *arrays[1:], out])
        np.testing.assert_allclose(out.astype(np.float64), ref.astype(np.float64), rtol=2e-2,
                                   atol=2e-2 * float(np.abs(ref).max()))


def test_the_micro_model_takes_vectors_for_an_int4_decoder_step():
    """x . W for one token at a 7B model's MLP shape (4096 x 11008, 4-bit blocks of 32): the best
    candidate reads whole runs, predicted faster than every k-at-a-time mapping."""
    k, n, block = 4096, 11008, 32
    kb = k // block
    kernel = lower_types("MatMulNBits", [TensorType(DType.float16, (1, k)), TensorType(DType.uint8, (n, kb, block // 2)),
                                         TensorType(DType.float16, (n, kb)), TensorType(DType.uint8, (n, kb // 2))],
                         TensorType(DType.float16, (1, n)), {"K": k, "N": n, "bits": 4, "block_size": block}, domain=MS)
    ranked = construct_rtiles(kernel.expr, H100, 10**6)
    best = ranked[0]
    assert best.kind == "reduce" and best.param("k_vec")
    others = [c for c in ranked if not c.param("k_vec")]
    assert others and predict(best, H100).us < min(predict(c, H100).us for c in others)


def test_a_weight_over_l2_streams_once_past_the_vector_it_shares():
    """x . W for one token at a 32000-token LM head (4096 x 32000, 4-bit blocks of 32; 66 MB, more
    than H100's L2): every row re-reads x, which stays in L2 while W streams through, so the best
    candidate's DRAM bytes are the compulsory ones, each byte once; where the inputs several
    outputs read do not fit in L2 the repeated loads spill as before."""
    from compiler.roller.construct import dram_bytes, io_sizes, shared_input_bytes
    k, n, block = 4096, 32000, 32
    kb = k // block
    kernel = lower_types("MatMulNBits", [TensorType(DType.float16, (1, k)), TensorType(DType.uint8, (n, kb, block // 2)),
                                         TensorType(DType.float16, (n, kb))],
                         TensorType(DType.float16, (1, n)), {"K": k, "N": n, "bits": 4, "block_size": block}, domain=MS)
    te = kernel.expr
    assert shared_input_bytes(te) == k * 2                       # x alone: W's rows are each one output's
    best = construct_rtiles(te, H100, 10**6)[0]
    ins, outb, _ = io_sizes(te)
    assert ins > H100.l2_bytes and best.workload.dram_bytes == ins + outb
    assert dram_bytes((ins, outb, 2), 3 * ins, H100, shared=ins) > ins + outb      # a big shared input spills
