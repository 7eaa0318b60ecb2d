"""SASS checks without a GPU: the cubins NVRTC builds for the shared models, read back with NVIDIA's
disassembler (compiler/codegen/sass.py; cuobjdump + nvdisasm from the `test` extra's wheels).

Built: every shared model for h100 (sm_90; wgmma kernels sm_90a) and a100 (sm_80), at fp32 and at
--precision fp16 (tensor-core contractions). No shared model is large enough for the roller to pick
wgmma (their contractions have 64 rows; tests/roller/test_wgmma.py), so two single-MatMul models
made here add the two wgmma variants on h100: fp16 operands through the copy engine (TMA) and an
fp32 activation converted on load against an fp16 weight; and an attention in fp16 and in fp32
adds the flash_attention and flash_attention_simt kernels on both targets.

Checked, matching whole opcodes (base and modifiers), never substrings of the listing:
- wgmma_gemm kernels contain HGMMA (`HGMMA.64x128x16.F32`) and are sm_90a cubins;
- tc_gemm kernels of 8-bit integer operands (a MatMulInteger and a QLinearConv made here, the imma
  stage's) contain IMMA and no HMMA, and the float ones no IMMA;
- tc_gemm and flash_attention (mma.sync) kernels contain HMMA (`HMMA.16816.F32` on sm_80 and sm_90). `HFMA2.MMA`,
  a half2 FMA issued on the MMA pipe that ptxas uses to zero registers, is in most kernels and is
  no tensor-core instruction: a substring match for "MMA" would pass every kernel;
- elementwise_vec kernels (16-byte accesses) contain a 128-bit global load, spelled
  `LDG.E.128.CONSTANT` on both sm_80 and sm_90 (E: 64-bit address; 128: the width; CONSTANT: the
  read-only path, ptxas's choice for `const __restrict__` operands), and a 128-bit store
  (`STG.E.128`); every other kernel whose source loads 16-byte vectors (by_ld_global_v4: tc_gemm
  and wgmma_gemm operands loaded as vectors) has the same 128-bit load;
- no kernel has local-memory traffic (LDL/STL, any width) unless ptxas reported spill bytes for it;
- half conversions are hardware instructions (F2FP/F2F), not the host harness's software rounding.
Each category must be non-empty, and each positive check is shown to be false on kernels of other
kinds, so that a kind that stopped emitting its instruction fails here."""
from __future__ import annotations

import multiprocessing
import os
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

import numpy as np
import pytest

from compiler.codegen.sass import SassFunction, disassemble, disassemble_many, find_cuobjdump
from tests.conftest import COMPILE_LINES, shared_models

TOOL = find_cuobjdump()
pytestmark = pytest.mark.skipif(
    TOOL is None, reason="cuobjdump/nvdisasm not found (wheel nor PATH): install the test extra "
                         "(nvidia-cuda-cuobjdump, nvidia-cuda-nvdisasm), e.g. `make install`")

BUILDS = [("h100", "fp32"), ("h100", "fp16"), ("a100", "fp32"), ("a100", "fp16")]


@dataclass
class Built:
    """One distinct kernel of one target, with where it was first seen and its SASS."""

    target: str
    model: str
    precision: str
    name: str
    kind: str           # the schedule without "roller_": wgmma_gemm, tc_gemm, elementwise_vec, ...
    spills: int         # ptxas's spill bytes (stores + loads) from the report
    b128_loads: bool    # the source loads 16-byte vectors (by_ld_global_b128, by_ld_global_v4)
    cubin: bytes
    sass: SassFunction

    def __str__(self):
        return f"{self.name} ({self.kind}; {self.model}, {self.target}, {self.precision}, {self.sass.arch})"


def _matmul_models():
    """Single MatMuls for which the roller picks wgmma on h100 (tests/roller/test_wgmma.py)."""
    from onnx import TensorProto, helper, numpy_helper
    opset = [helper.make_opsetid("", 18)]
    v = helper.make_tensor_value_info
    tma = helper.make_graph([helper.make_node("MatMul", ["a", "b"], ["y"])], "matmul_fp16",
                            [v("a", TensorProto.FLOAT16, [1024, 256]), v("b", TensorProto.FLOAT16, [256, 1024])],
                            [v("y", TensorProto.FLOAT16, [1024, 1024])])
    w = np.random.default_rng(0).standard_normal((512, 2048)).astype(np.float32)
    staged = helper.make_graph([helper.make_node("MatMul", ["a", "w"], ["y"])], "linear_fp32_weight",
                               [v("a", TensorProto.FLOAT, [2048, 512])], [v("y", TensorProto.FLOAT, [2048, 2048])],
                               [numpy_helper.from_array(w, "w")])
    return [("matmul_fp16", helper.make_model(tma, opset_imports=opset), "fp32"),
            ("linear_fp32_weight", helper.make_model(staged, opset_imports=opset), "fp16")]


def _vector_models():
    """A standalone map (fusion folds the shared models' maps into their neighbours' kernels): the
    roller renders it with 16-byte accesses."""
    from onnx import TensorProto, helper
    v = helper.make_tensor_value_info
    g = helper.make_graph([helper.make_node("Relu", ["x"], ["r"]), helper.make_node("Add", ["r", "x"], ["y"])],
                          "relu_add_fp16", [v("x", TensorProto.FLOAT16, [1024, 1024])],
                          [v("y", TensorProto.FLOAT16, [1024, 1024])])
    return [("relu_add_fp16", helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)]))]


def _attention_models():
    """BERT-base's attention (12 heads x 128 tokens) as exporters write it: the welder stage makes
    it one flash_attention kernel (mma.sync) in fp16, and one flash_attention_simt kernel (FFMA)
    in fp32, on both targets; and a decoder's step (one token against 2048 cached keys), one
    flash_decoding kernel with its keys split across blocks; and a grouped-query step (32 query
    heads over 8 repeated key heads against 4096 keys), whose blocks take several heads; and a step
    whose Q is rotated (rotate-half) in the decoding kernel's Q load (passes/prologue.py)."""
    from tests.compiler.test_flash_decoding import decoding_attention, gqa_decoding_attention
    from tests.compiler.test_prologue import mapped_attention
    from tests.compiler.test_resident import exported_attention
    return [("attention_fp16", exported_attention(1, 12, 128, 64, "float16", "padding")),
            ("attention_fp32", exported_attention(1, 12, 128, 64, "float32", "padding")),
            ("decoding_fp16", decoding_attention(1, 32, 1, 2048, 128, 128, "float16", "padding")),
            ("decoding_gqa_fp16", gqa_decoding_attention(1, 32, 8, 1, 4096, 128, "float16", "padding", "expand")),
            ("decoding_rotary_fp16", mapped_attention(1, 32, 1, 2048, 128, "float16", "rotary")[0])]


def _integer_models():
    """Integer contractions over constant weights, which the imma stage puts on the 8-bit integer
    mma (tc_gemm with s8/u8 operands): a MatMulInteger (u8 x s8) and a padded QLinearConv."""
    from onnx import TensorProto, helper, numpy_helper
    rng = np.random.default_rng(1)
    v = helper.make_tensor_value_info
    opset = [helper.make_opsetid("", 18)]
    mm = helper.make_graph([helper.make_node("MatMulInteger", ["a", "b", "za"], ["y"])], "integer_matmul",
                           [v("a", TensorProto.UINT8, [128, 512])], [v("y", TensorProto.INT32, [128, 256])],
                           [numpy_helper.from_array(rng.integers(-128, 128, (512, 256)).astype(np.int8), "b"),
                            numpy_helper.from_array(np.array(7, np.uint8), "za")])
    inits = {"xs": np.array(0.02, np.float32), "xz": np.array(121, np.uint8),
             "w": rng.integers(-120, 120, (64, 32, 3, 3)).astype(np.int8), "ws": np.array(0.01, np.float32),
             "wz": np.array(0, np.int8), "ys": np.array(0.5, np.float32), "yz": np.array(128, np.uint8)}
    conv = helper.make_graph([helper.make_node("QLinearConv", ["x", "xs", "xz", "w", "ws", "wz", "ys", "yz"], ["y"],
                                               pads=[1, 1, 1, 1])], "integer_qlinear_conv",
                             [v("x", TensorProto.UINT8, [1, 32, 28, 28])], [v("y", TensorProto.UINT8, [1, 64, 28, 28])],
                             [numpy_helper.from_array(a, n) for n, a in inits.items()])
    return [(g.name, helper.make_model(g, opset_imports=opset)) for g in (mm, conv)]


def integer(k) -> bool:
    return k.model.startswith("integer_")


VECTOR_LOADS = ("by_ld_global_b128(", "by_ld_global_v4(")     # the prelude's 16-byte global loads


def _compile(job) -> list[dict]:
    """One compile (in a worker process): its kernels as plain data, one entry per launch."""
    from compiler import compile
    from compiler.pipeline import CompileOptions
    name, model, target, precision = job
    art = compile(model, target, CompileOptions(precision=precision))
    sources = {k.digest: k.source for k in art.plan.kernels()}
    return [dict(target=target, model=name, precision=precision, name=k["name"], digest=k["digest"],
                 kind=str(k["config"].get("schedule", "")).removeprefix("roller_"),
                 spills=int(k["spills"]), cubin=art.cubins[k["digest"]],
                 b128_loads=any(f in sources[k["digest"]] for f in VECTOR_LOADS))
            for k in art.report["kernels"]]


@pytest.fixture(scope="module")
def kernels(models_dir) -> list[Built]:
    jobs = [(name, str(models_dir / f"{name}.onnx"), target, precision)
            for target, precision in BUILDS for name in shared_models()]
    jobs += [(name, model.SerializeToString(), "h100", precision) for name, model, precision in _matmul_models()]
    jobs += [(name, model.SerializeToString(), target, "fp32") for name, model in _vector_models()
             for target in ("h100", "a100")]
    jobs += [(name, model, target, "fp32") for name, model in _attention_models() for target in ("h100", "a100")]
    jobs += [(name, model.SerializeToString(), target, "fp32") for name, model in _integer_models()
             for target in ("h100", "a100")]
    found: dict[tuple[str, str], dict] = {}
    t0 = time.perf_counter()
    # two compiles at a time: each waits on NVRTC and the kernel store's fsyncs about half its time
    with ProcessPoolExecutor(min(2, os.cpu_count() or 1), mp_context=multiprocessing.get_context("spawn")) as pool:
        for entries in pool.map(_compile, jobs):
            for e in entries:
                found.setdefault((e["target"], e.pop("digest")), e)
    t1 = time.perf_counter()
    sass = disassemble_many({key: f["cubin"] for key, f in found.items()}, TOOL)
    t2 = time.perf_counter()
    out = []
    for key, f in found.items():
        fn = sass[key].get(f["name"])
        assert fn is not None, f"{f['name']}: not among the cubin's functions {sorted(sass[key])}"
        out.append(Built(sass=fn, **f))
    COMPILE_LINES.append(f"SASS checks: {len(jobs)} compiles in {t1 - t0:.1f} s, {len(out)} distinct kernels "
                         f"disassembled in {t2 - t1:.1f} s ({TOOL.path.name} {TOOL.version()})")
    return out


# ---- what each check looks for --------------------------------------------------------------------

def hgmma(fn: SassFunction):
    return fn.having("HGMMA")


def hmma(fn: SassFunction):
    return fn.having("HMMA")


def ldg128(fn: SassFunction):
    return fn.having("LDG", "128")


def stg128(fn: SassFunction):
    return fn.having("STG", "128")


def local_traffic(fn: SassFunction):
    return fn.having("LDL") + fn.having("STL")


def software_half(fn: SassFunction):
    """The software float -> half rounding (the host harness's by_f32_to_f16_bits_sw): its compare
    against 0x477fefff, the largest magnitude that does not round to infinity."""
    return [i for i in fn.instructions if "0x477fefff" in i.operands]


def hardware_half(fn: SassFunction):
    """A hardware float -> half conversion: F2FP (paired: `F2FP.F16.F32.PACK_AB` on sm_90,
    `F2FP.PACK_AB` on sm_80) or F2F.F16.F32 (sm_75)."""
    return fn.having("F2FP") + fn.having("F2F", "F16")


def of_kind(kernels, kind, target=None):
    return [k for k in kernels if k.kind == kind and (target is None or k.target == target)]


def test_categories_are_populated(kernels):
    """Each check below has kernels to check, on each target it applies to."""
    counts = {(k.kind, k.target): 0 for k in kernels}
    for k in kernels:
        counts[(k.kind, k.target)] += 1
    COMPILE_LINES.append("SASS checks, distinct kernels: " + ", ".join(
        f"{kind}@{target} {n}" for (kind, target), n in sorted(counts.items())))
    for need in [("wgmma_gemm", "h100"), ("tc_gemm", "h100"), ("tc_gemm", "a100"),
                 ("elementwise_vec", "h100"), ("elementwise_vec", "a100"),
                 ("gemm", "h100"), ("gemm", "a100"), ("elementwise", "h100"), ("elementwise", "a100"),
                 ("flash_attention", "h100"), ("flash_attention", "a100"),
                 ("flash_attention_simt", "h100"), ("flash_attention_simt", "a100"),
                 ("flash_decoding", "h100"), ("flash_decoding", "a100")]:
        assert counts.get(need, 0) > 0, f"no {need[0]} kernel built for {need[1]}: {counts}"
    wgmma_variants = {k.model for k in of_kind(kernels, "wgmma_gemm")}
    assert wgmma_variants == {"matmul_fp16", "linear_fp32_weight"}, wgmma_variants


def test_wgmma_kernels_issue_hgmma(kernels):
    wg = of_kind(kernels, "wgmma_gemm")
    assert wg
    for k in wg:
        assert k.sass.arch == "sm_90a", f"{k}: wgmma kernel not built for sm_90a"
        assert hgmma(k.sass), f"{k}: no HGMMA in its SASS"
    # the check can fail: mma.sync and SIMT contractions have no HGMMA
    others = of_kind(kernels, "tc_gemm", "h100") + of_kind(kernels, "gemm", "h100")
    assert others and not any(hgmma(k.sass) for k in others)


@pytest.mark.parametrize("target", ["a100", "h100"])
def test_mma_sync_kernels_issue_hmma(kernels, target):
    tc = [k for k in of_kind(kernels, "tc_gemm", target) if not integer(k)] + of_kind(kernels, "flash_attention",
                                                                                       target)
    assert tc and of_kind(kernels, "flash_attention", target)
    for k in tc:
        assert hmma(k.sass), f"{k}: no HMMA in its SASS"
    # the check can fail: SIMT contractions (fp32 and fp16) and wgmma kernels have no HMMA, though
    # many of them have HFMA2.MMA
    others = of_kind(kernels, "gemm", target) + of_kind(kernels, "wgmma_gemm", target)
    simt_attention = of_kind(kernels, "flash_attention_simt", target)
    assert others and simt_attention and not any(hmma(k.sass) for k in others + simt_attention)
    assert all(k.sass.having("FFMA") for k in simt_attention)
    assert any(k.sass.having("HFMA2", "MMA") for k in others)


@pytest.mark.parametrize("target", ["a100", "h100"])
def test_integer_mma_kernels_issue_imma(kernels, target):
    """tc_gemm's 8-bit operands (passes/imma.py) multiply on the integer tensor cores: IMMA
    (`IMMA.16832.U8.S8` and the like), no HMMA; the float tc_gemm kernels have no IMMA."""
    ints = [k for k in of_kind(kernels, "tc_gemm", target) if integer(k)]
    assert {k.model for k in ints} == {"integer_matmul", "integer_qlinear_conv"}, [str(k) for k in ints]
    for k in ints:
        assert k.sass.having("IMMA") and not hmma(k.sass), f"{k}: no IMMA in its SASS"
    floats = [k for k in of_kind(kernels, "tc_gemm", target) if not integer(k)]
    assert floats and not any(k.sass.having("IMMA") for k in floats)


@pytest.mark.parametrize("target", ["a100", "h100"])
def test_decoding_kernels_sum_over_shuffles_and_arrive_on_atomics(kernels, target):
    """flash_decoding's dot products are warp shuffle trees (SHFL.BFLY) and its splits arrive on
    the launch's counters (an atomic add whose old value is read: ATOMG); FMAs on SIMT lanes."""
    decoding = of_kind(kernels, "flash_decoding", target)
    assert {k.model for k in decoding} == {"decoding_fp16", "decoding_gqa_fp16", "decoding_rotary_fp16"}
    for k in decoding:
        assert k.sass.having("SHFL", "BFLY") and k.sass.having("ATOMG") and k.sass.having("FFMA"), k
        assert not hmma(k.sass)
    # the check can fail: the SIMT attention kernel, one block a query tile, has no arrivals
    assert not any(k.sass.having("ATOMG") for k in of_kind(kernels, "flash_attention_simt", target))


@pytest.mark.parametrize("target", ["a100", "h100"])
def test_vector_kernels_move_16_bytes(kernels, target):
    vec = of_kind(kernels, "elementwise_vec", target)
    assert vec
    for k in vec:
        assert stg128(k.sass), f"{k}: no 128-bit global store (STG.E.128) in its SASS"
    loading = [k for k in kernels if k.target == target and k.b128_loads]
    assert {k.kind for k in loading} >= {"elementwise_vec", "tc_gemm"} | ({"wgmma_gemm"} if target == "h100" else set())
    for k in loading:
        assert ldg128(k.sass), f"{k}: calls by_ld_global_b128 but has no 128-bit global load in its SASS"
    # the check can fail: scalar elementwise kernels load one element at a time
    scalar = of_kind(kernels, "elementwise", target)
    assert scalar and not any(ldg128(k.sass) or stg128(k.sass) for k in scalar)


def test_no_local_memory_traffic_unless_reported_as_spills(kernels):
    unreported = [f"{k}: {len(local_traffic(k.sass))} LDL/STL, report says {k.spills} spill bytes: "
                  + ", ".join(sorted({i.opcode for i in local_traffic(k.sass)}))
                  for k in kernels if local_traffic(k.sass) and k.spills == 0]
    assert not unreported, "\n".join(unreported)


def test_local_memory_check_catches_a_stack_array():
    """The check can fail: a dynamically indexed array lives in local memory (LDL/STL) though ptxas
    reports no spills for it, which test_no_local_memory_traffic_unless_reported_as_spills flags."""
    from compiler.codegen.nvrtc import build_cubin
    src = ("BY_KERNEL void stack_array(const float* x, const int* i, float* y) {\n"
           "  float a[256];\n"     # more than a thread's 255 registers, indexed by data
           "  for (int j = 0; j < 256; ++j) a[j] = x[j * blockDim.x + threadIdx.x];\n"
           "  a[i[threadIdx.x] & 255] += 1.0f;\n"
           "  y[threadIdx.x] = a[i[threadIdx.x + 1] & 255];\n}\n")
    r = build_cubin(src, "stack_array", "sm_80")
    fn = disassemble_many({"k": r.cubin}, TOOL)["k"]["stack_array"]
    assert r.spills == 0 and fn.having("STL") and fn.having("LDL")


def test_half_conversions_are_hardware_instructions(kernels):
    """Kernels convert float to half with the hardware's cvt (the device prelude), never with the
    host harness's software rounding, which costs 20-30 instructions and branches an element."""
    slow = [str(k) for k in kernels if software_half(k.sass)]
    assert not slow, "\n".join(slow)
    halves = [k for k in kernels if k.model in ("relu_add_fp16", "attention_fp16", "matmul_fp16")]
    assert halves and all(hardware_half(k.sass) for k in halves), [str(k) for k in halves if not hardware_half(k.sass)]
    # the check can fail: the software rounding, called on the device, is seen
    from compiler.codegen.nvrtc import build_cubin
    src = ("BY_KERNEL void soft_half(const float* x, unsigned short* y) {\n"
           "  y[threadIdx.x] = by_f32_to_f16_bits_sw(x[threadIdx.x]);\n}\n")
    fn = disassemble_many({"k": build_cubin(src, "soft_half", "sm_90").cubin}, TOOL)["k"]["soft_half"]
    assert software_half(fn) and not hardware_half(fn)


def test_batched_disassembly_matches_cuobjdump(kernels):
    """disassemble_many (one nvdisasm per instruction set over concatenated code sections) reads
    each function as cuobjdump --dump-sass of its own cubin does: one kernel of each kind checked
    above, on each target."""
    picked = {}
    for k in kernels:
        if k.kind in ("wgmma_gemm", "tc_gemm", "elementwise_vec", "elementwise"):
            picked.setdefault((k.kind, k.target), k)
    assert len(picked) == 7, sorted(picked)
    for k in picked.values():
        ref = disassemble(k.cubin, TOOL)[k.name]
        assert ref.arch == k.sass.arch
        assert ref.instructions == k.sass.instructions, str(k)
