"""Hopper contraction kernels (wgmma + TMA, kind wgmma_gemm) on sm_90 targets.

Drawn fp16/bf16 contractions whose operands are fp16/bf16 tensors (weights the precision stage
converted) run every kind of wgmma candidate on the host harness, in fixed and shuffled thread
order, against the naive kernel of the same rounded expression (and, loosely, NumPy in float64):
ragged M, N and K (the emulated copy engine zero-fills), batches, K- and MN-major operands and
Gemm's fused epilogue. Every wgmma candidate of a large GEMM builds for sm_90a without spills
within the limits; the construction is deterministic and stays off targets and operands that
cannot use it."""
from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compiler.artifact import plan_from_json, plan_to_json
from compiler.codegen.nvrtc import build_arch, build_cubin
from compiler.errors import CudaCompileError
from compiler.kinds import construct_rtiles
from compiler.roller.micro_model import predict
from compiler.runtime.host_harness import HarnessFault, build_host_module, run_kernels_asan
from compiler.ir.plan import LaunchStep, Plan
from compiler.targets import get_target
from tests.roller.single_op import tile_launch
from tests.roller.test_tensor_core import TOL_REF, TOL_SAME, _f, launches, prepare, run_candidates

FAST = settings(max_examples=3, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
H100 = get_target("h100")


def wgmma_configs(kernel, precision, target="h100"):
    return [c for c in construct_rtiles(kernel.expr, get_target(target), 10**6, precision) if c.kind == "wgmma_gemm"]


def kinds_of(cfgs, n):
    """The best of each kind (block tile, majors; stages vary with the tile), up to n."""
    out, seen = [], set()
    for c in cfgs:
        key = (c.tile("block").size("m"), c.tile("block").size("n"), c.param("major_a"), c.param("major_b"))
        if key not in seen:
            seen.add(key)
            out.append(c)
    return out[:n]


def check_case(op, arrays, attrs, precision, consts=(0, 1), n=3):
    """The operands in `consts` constant (converted to the half type, loaded by TMA), the others fp32
    (register-staged: rounded in the kernel); up to n wgmma candidate kinds run against the naive
    kernel. Returns the picked configurations."""
    kernel, values, ref = prepare(op, arrays, attrs, precision, consts)
    assert kernel is not None
    cfgs = wgmma_configs(kernel, precision)
    assert cfgs, f"{op}: no wgmma candidate"
    want = tuple("tma" if i in consts else "vector" for i in (0, 1))
    assert all((c.param("load_a"), c.param("load_b")) == want for c in cfgs)
    picked = kinds_of(cfgs, n)
    err = run_candidates(kernel, values, ref, precision, picked, build=False)
    assert err <= TOL_SAME[precision]
    return picked


def deepest_per_block_tile(cfgs) -> dict:
    """(BM, BN) -> the configuration of that block tile with the most stages."""
    deepest = {}
    for c in cfgs:
        key = (c.tile("block").size("m"), c.tile("block").size("n"))
        if key not in deepest or c.param("stages") > deepest[key].param("stages"):
            deepest[key] = c
    return deepest


def check_builds_for_sm90a(k):
    """k builds for sm_90a without spills or serialized wgmma, within the h100's registers, shared
    memory (over 48 KB: the opt-in the GPU runtime sets) and threads."""
    r = build_cubin(k.source, k.entry, build_arch(H100.arch, k.arch_specific))
    threads = k.block[0]
    assert r.arch == "sm_90a" and r.spills == 0, (k.entry, r.spills)
    assert "serialized" not in r.log, r.log   # ptxas C7510-style: wgmma issued one at a time
    assert 0 < r.registers <= H100.max_registers_per_thread and r.registers * threads <= H100.registers_per_block
    assert k.shared_bytes + r.shared_bytes <= H100.shared_per_block and threads <= H100.max_threads_per_block


@st.composite
def matmuls(draw, n8_max=36, batches=((), (2,), (2, 2)), consts=((0, 1),)):
    """(A and B, precision, constant operands): K a multiple of 8 (16-byte rows for the tensor maps
    of constant operands; an fp32 operand needs only 16-byte rows), any M and N (N too, for B's
    rows)."""
    m, n8, k8 = draw(st.integers(2, 140)), draw(st.integers(1, n8_max)), draw(st.integers(2, 26))
    n, k = 8 * n8, 8 * k8
    batch = draw(st.sampled_from(batches))
    const = draw(st.sampled_from(consts))
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    b = _f(rng, batch + (k, n))      # a broadcast B fuses the batch into M: not a plain strided operand
    return [_f(rng, batch + (m, k)), b], draw(st.sampled_from(["fp16", "bf16"])), const


@FAST
@given(matmuls())
def test_drawn_matmuls_on_the_host(case):
    arrays, precision, consts = case
    check_case("MatMul", arrays, {}, precision, consts)


def test_layouts_edges_and_fused_epilogue():
    """K-major and MN-major A and B (Gemm transA/transB), ragged M/N/K, bias and alpha/beta fused."""
    rng = np.random.default_rng(12)
    majors = set()
    for precision, (m, n, k), ta, tb in (("fp16", (72, 40, 88), 1, 1), ("bf16", (70, 136, 120), 0, 1),
                                         ("fp16", (136, 72, 200), 1, 0), ("bf16", (33, 200, 64), 0, 0)):
        a = _f(rng, (k, m) if ta else (m, k))
        b = _f(rng, (n, k) if tb else (k, n))
        arrays = [a, b, _f(rng, (n,))]
        picked = check_case("Gemm", arrays, {"transA": ta, "transB": tb, "alpha": 0.5, "beta": 2.0}, precision, n=2)
        majors |= {(c.param("major_a"), c.param("major_b")) for c in picked}
    assert majors == {("k", "k"), ("k", "mn"), ("mn", "k"), ("mn", "mn")}


def test_every_candidate_builds_for_sm90a_within_limits():
    """All block tiles and majors at the deepest pipeline that fits: sm_90a cubins, no spills,
    registers and shared memory within the h100's limits (and over 48 KB: the opt-in the GPU
    runtime sets)."""
    rng = np.random.default_rng(5)
    built = 0
    for ta in (0, 1):
        kernel, _, _ = prepare("Gemm", [_f(rng, (512, 512)), _f(rng, (512, 512)), _f(rng, (512,))],
                               {"transA": ta, "transB": 1 - ta}, "bf16", (0, 1))
        deepest = deepest_per_block_tile(wgmma_configs(kernel, "bf16"))
        assert len(deepest) == 6
        for c in deepest.values():
            (k, _), = launches(kernel, c)
            assert k.arch_specific and len(k.tensor_maps) == 2
            check_builds_for_sm90a(k)
            built += 1
    assert built == 12


def test_wgmma_needs_the_arch_specific_target():
    """What build_arch's sm_90 -> sm_90a is for (compiler/codegen/nvrtc.py): ptxas rejects a wgmma
    instruction under -arch=sm_90 and accepts it under sm_90a; a rendered wgmma kernel built for
    plain sm_90 is a compile error (the prelude defines its wgmma helpers only for sm_90a)."""
    raw = 'BY_KERNEL void raw_wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\\n" ::: "memory"); }\n'
    assert build_cubin(raw, "raw_wgmma_fence", "sm_90a").arch == "sm_90a"
    with pytest.raises(CudaCompileError) as e:
        build_cubin(raw, "raw_wgmma_fence", "sm_90")
    assert "not supported on .target 'sm_90'" in e.value.log, e.value.log
    rng = np.random.default_rng(8)
    kernel, _, _ = prepare("MatMul", [_f(rng, (64, 64)), _f(rng, (64, 64))], {}, "fp16", (0, 1))
    (k, _), = launches(kernel, wgmma_configs(kernel, "fp16")[0])
    assert k.arch_specific and build_arch(H100.arch, k.arch_specific) == "sm_90a"
    with pytest.raises(CudaCompileError):
        build_cubin(k.source, k.entry, H100.arch)


def test_construction_is_deterministic_and_targeted():
    """The same candidates in the same order twice; wgmma only on sm_90, for fp16/bf16, and only
    when both operands are fp16/bf16 tensors or fp32 loads rounded to the type (register-staged,
    "vector"); the model prefers wgmma on a large GEMM and mma.sync on a small one."""
    rng = np.random.default_rng(3)
    big, _, _ = prepare("MatMul", [_f(rng, (2048, 1024)), _f(rng, (1024, 2048))], {}, "fp16", (0, 1))
    a, b = wgmma_configs(big, "fp16"), wgmma_configs(big, "fp16")
    assert a and [c.key for c in a] == [c.key for c in b]
    top = construct_rtiles(big.expr, H100, 8, "fp16")
    assert top[0].kind == "wgmma_gemm" and predict(top[0], H100).us > 0
    assert all(c.kind != "wgmma_gemm" for c in construct_rtiles(big.expr, get_target("a100"), 10**6, "fp16"))
    assert all(c.kind != "wgmma_gemm" for c in construct_rtiles(big.expr, get_target("b200"), 10**6, "fp16"))
    small, _, _ = prepare("MatMul", [_f(rng, (64, 128)), _f(rng, (128, 64))], {}, "fp16", (0, 1))
    assert construct_rtiles(small.expr, H100, 8, "fp16")[0].kind == "tc_gemm"
    act, _, _ = prepare("MatMul", [_f(rng, (256, 256)), _f(rng, (256, 256))], {}, "fp16", (1,))
    acts = wgmma_configs(act, "fp16")
    assert acts and {(c.param("load_a"), c.param("load_b")) for c in acts} == {("vector", "tma")}
    # refilled stages need a barrier between store and read: 3 or more, unless a (split-K) slice's
    # k tiles all fit in the stages and none is refilled
    assert all(c.param("stages") >= 3 or -(-4 // c.split_k) <= c.param("stages") for c in acts)
    assert any(c.param("stages") >= 3 for c in acts)
    tf32, _, _ = prepare("MatMul", [_f(rng, (256, 128)), _f(rng, (128, 256))], {}, "tf32", (0, 1))
    assert not wgmma_configs(tf32, "tf32")


def test_tile_launch_and_artifact_carry_the_tensor_maps():
    """The roller stage renders the wgmma winner of a large GEMM; the plan's JSON keeps a wgmma
    kernel's tensor maps and sm_90a flag, and the rebuilt kernel runs on the host as before."""
    rng = np.random.default_rng(4)
    big, _, _ = prepare("MatMul", [_f(rng, (2048, 512)), _f(rng, (512, 2048))], {}, "bf16", (0, 1))
    ks = tile_launch(big, H100, 4, {"tiled": 0, "naive": 0, "kinds": {}}, {})
    assert len(ks) == 1 and dict(ks[0].config)["schedule"] == "roller_wgmma_gemm" and ks[0].tensor_maps
    kernel, values, ref = prepare("MatMul", [_f(rng, (2, 100, 72)), _f(rng, (2, 72, 136))], {}, "bf16", (0, 1))
    (k, _), = launches(kernel, wgmma_configs(kernel, "bf16")[0])
    plan = Plan(inputs=(), outputs=(), steps=(LaunchStep(k),), types=(), constants=())
    back = plan_from_json(json.loads(json.dumps(plan_to_json(plan))), {k.digest: k.source}, {}).steps[0].kernel
    assert back.tensor_maps == k.tensor_maps and back.arch_specific and back.entry == k.entry
    assert [len(m.dims) for m in back.tensor_maps] == [3, 3]     # batched A and B: rank-3 maps
    module = build_host_module([back])
    y = np.full(ref.shape, np.nan, np.float32)
    module.launch(back, [values[p.value] for p in k.params[:-1]] + [y])
    np.testing.assert_allclose(y, ref, rtol=0, atol=TOL_REF["bf16"] * float(np.abs(ref).max()))


def test_asan_runs_the_copy_engine_within_the_buffers():
    """Under AddressSanitizer the emulated copy engine reads through the tensor maps: a correct
    launch passes, and a buffer shorter than its map declares is reported (a wrong map would read
    out of bounds on the GPU, where TMA does not fault)."""
    rng = np.random.default_rng(2)
    kernel, values, ref = prepare("MatMul", [_f(rng, (2, 70, 72)), _f(rng, (2, 72, 136))], {}, "fp16", (0, 1))
    (k, names), = launches(kernel, wgmma_configs(kernel, "fp16")[0])
    y = np.full(ref.shape, np.nan, np.float32)
    run_kernels_asan([(k, [values[n] for n in names[:-1]] + [y])])
    np.testing.assert_allclose(y, ref, rtol=0, atol=TOL_REF["fp16"] * float(np.abs(ref).max()))
    short = values[names[0]].reshape(-1)[:-72].copy()            # one row of A missing
    with pytest.raises(HarnessFault, match="heap-buffer-overflow"):
        run_kernels_asan([(k, [short] + [values[n] for n in names[1:-1]] + [np.zeros_like(y)])])


def test_gpu_tensor_map_encoding_gets_as_far_as_the_driver():
    """Without a GPU, cuTensorMapEncodeTiled can still check its arguments' types: the call the
    runtime makes fails only where it needs libcuda (on a GPU machine it must succeed)."""
    from compiler.runtime.gpu import tensor_map_bytes
    rng = np.random.default_rng(6)
    kernel, _, _ = prepare("MatMul", [_f(rng, (130, 200)), _f(rng, (200, 72))], {}, "fp16", (0, 1))
    (k, _), = launches(kernel, wgmma_configs(kernel, "fp16")[0])
    for m in k.tensor_maps:
        try:
            tensor_map_bytes(m, 0x10000)
        except RuntimeError as e:          # no driver on this machine (cuda-bindings words it per version)
            assert "libcuda" in str(e) or "NVIDIA driver library" in str(e), e
        except Exception as e:             # a driver here: only a launch-ready map is acceptable
            raise AssertionError(f"cuTensorMapEncodeTiled rejected {m}: {e}") from e


# ---- register-staged fp32 operands (activations under --precision) ---------------------------

@FAST
@given(matmuls(n8_max=34, batches=((), (2,), (3,)), consts=((1,), (0,), ())))
def test_drawn_fp32_operand_matmuls_on_the_host(case):
    """Ragged M/N/K, batches, fp16/bf16; the fp32 activation as A, as B, or both."""
    arrays, precision, consts = case
    check_case("MatMul", arrays, {}, precision, consts, n=2)


def test_fp32_operand_layouts_edges_and_epilogue():
    """The fp32 operand K-major and MN-major, as A and as B (Gemm transA/transB), K not a multiple of
    8 (partial float4 chunks), ragged everything, bias and alpha/beta fused."""
    rng = np.random.default_rng(21)
    seen = set()
    for precision, (m, n, k), ta, tb, consts in (("fp16", (70, 72, 92), 0, 0, (1,)), ("bf16", (72, 40, 104), 1, 1, (1,)),
                                                 ("fp16", (33, 136, 120), 0, 0, (0,)), ("bf16", (64, 68, 76), 1, 1, (0,))):
        a = _f(rng, (k, m) if ta else (m, k))
        b = _f(rng, (n, k) if tb else (k, n))
        picked = check_case("Gemm", [a, b, _f(rng, (n,))], {"transA": ta, "transB": tb, "alpha": 0.5, "beta": 2.0},
                            precision, consts, n=2)
        side = "a" if consts == (1,) else "b"
        seen |= {(side, c.param(f"major_{side}")) for c in picked}
    assert seen == {("a", "k"), ("a", "mn"), ("b", "k"), ("b", "mn")}


def test_a_missing_proxy_fence_in_the_kernel_faults():
    """The rendered kernel fences its register-staged stores; without the fence the host harness's
    async-proxy check faults at the first wgmma."""
    rng = np.random.default_rng(22)
    kernel, values, ref = prepare("MatMul", [_f(rng, (70, 136)), _f(rng, (136, 72))], {}, "fp16", (1,))
    (k, names), = launches(kernel, wgmma_configs(kernel, "fp16")[0])
    fence = "    by_fence_proxy_async();"
    assert k.source.count(fence) == 1
    bad = dataclasses.replace(k, source=k.source.replace(fence, "    (void)0;"), entry=k.entry)
    module = build_host_module([bad])
    with pytest.raises(HarnessFault, match="no by_fence_proxy_async"):
        module.launch(bad, [values[n] for n in names[:-1]] + [np.zeros(ref.shape, np.float32)])


def test_fp32_operand_candidates_build_for_sm90a_within_limits():
    """The deepest pipeline of every block tile with a register-staged K-major A, and of the
    largest tile (most registers) with an MN-major A and with both operands register-staged:
    sm_90a cubins, no spills, within the h100's limits."""
    rng = np.random.default_rng(23)
    kernels = []
    for ta, consts in ((0, (1,)), (1, (1,)), (0, ())):
        kernel, _, _ = prepare("Gemm", [_f(rng, (512, 512)), _f(rng, (512, 512)), _f(rng, (512,))],
                               {"transA": ta, "transB": 1 - ta}, "fp16", consts)
        deepest = deepest_per_block_tile(wgmma_configs(kernel, "fp16"))
        assert len(deepest) == 6
        for key, c in deepest.items():
            if (ta or not consts) and key != (128, 256):
                continue
            (k, _), = launches(kernel, c)
            assert len(k.tensor_maps) == len(consts)
            kernels.append(k)
    assert len(kernels) == 8
    for k in kernels:
        check_builds_for_sm90a(k)


def test_bert_fp16_on_h100_follows_the_model(models_dir):
    """Every fp16 contraction of BERT (fp32 activations, fp16 weights or none) now gets
    register-staged wgmma candidates; the compiled kernel is the model's fastest candidate. BERT's
    MatMuls have 64 rows (one sequence of 64 tokens): a 64-row wgmma tile leaves most SMs idle,
    so the model picks mma.sync (or SIMT, for the small attention products) there, while a large GEMM with an fp32 activation picks wgmma."""
    from compiler.frontend.onnx_import import import_model
    from compiler.passes.lower import lower_graph
    from compiler.passes.precision import precision_plan
    from compiler.analysis.views import gemm_view
    plan, _ = precision_plan(lower_graph(*(lambda m: (m.graph, m.opset))(import_model(str(models_dir / "bert.onnx")))), "fp16")
    checked = 0
    for k in plan.specs():
        if getattr(k, "precision", None) != "fp16":
            continue
        cfgs = construct_rtiles(k.expr, H100, 10**6, "fp16")
        w = [c for c in cfgs if c.kind == "wgmma_gemm"]
        assert w and all("vector" in (c.param("load_a"), c.param("load_b")) for c in w), k.expr.name
        best = min(predict(c, H100).us for c in cfgs)
        assert predict(cfgs[0], H100).us == best and gemm_view(k.expr).M == 64
        assert cfgs[0].kind != "wgmma_gemm" and min(predict(c, H100).us for c in w) > best
        checked += 1
    assert checked >= 8
    rng = np.random.default_rng(24)
    big, _, _ = prepare("MatMul", [_f(rng, (4096, 1024)), _f(rng, (1024, 4096))], {}, "fp16", (1,))
    top = construct_rtiles(big.expr, H100, 8, "fp16")[0]
    assert top.kind == "wgmma_gemm" and top.param("load_a") == "vector"


def split_configs(kernel, precision):
    """The split-K wgmma candidates, one per (block tile, split factor)."""
    out, seen = [], set()
    for c in wgmma_configs(kernel, precision):
        key = (c.tile("block").size("m"), c.tile("block").size("n"), c.split_k)
        if c.split_k > 1 and key not in seen:
            seen.add(key)
            out.append(c)
    return out


@pytest.mark.parametrize("precision,consts,shape,trans", [
    ("fp16", (0, 1), (96, 136, 1544), (0, 0)),     # ragged M, N and K; TMA both sides
    ("bf16", (1,), (70, 72, 1600), (0, 1)),        # the fp32 activation register-staged, B MN-major
    ("fp16", (0,), (64, 200, 1040), (1, 0)),       # A MN-major, the fp32 B register-staged
])
def test_split_k_on_the_host(precision, consts, shape, trans):
    """Few output tiles over a long K: the wgmma kind offers split-K (each block a slice of the k
    tiles, the tile's last block summing the fp32 partials in slice order with the epilogue, in one
    launch), slices of unequal length and empty ones included; right in both thread orders."""
    m, n, k = shape
    ta, tb = trans
    rng = np.random.default_rng(31)
    a = _f(rng, (k, m) if ta else (m, k))
    b = _f(rng, (n, k) if tb else (k, n))
    kernel, values, ref = prepare("Gemm", [a, b, _f(rng, (n,))], {"transA": ta, "transB": tb, "beta": 1.5},
                                  precision, consts)
    cfgs = split_configs(kernel, precision)
    splits = sorted({c.split_k for c in cfgs})
    assert len(splits) >= 3, splits
    nk = -(-k // 64)
    uneven = [c for c in cfgs if nk % c.split_k]
    picked = [cfgs[0], cfgs[-1]] + uneven[:1]
    assert max(c.split_k for c in picked) > 1
    err = run_candidates(kernel, values, ref, precision, picked, build=False)
    assert err <= TOL_SAME[precision]


def test_split_k_builds_for_sm90a_and_is_chosen_where_the_tiles_are_few():
    """A (512 x 3072) . (3072 x 768) fp16 product (BERT-base's second FFN GEMM at 512 tokens) has
    24 output tiles of 128 x 128 for 132 SMs: the model's best wgmma candidate splits K, and it
    builds for sm_90a within the limits, with its arrival counters."""
    rng = np.random.default_rng(32)
    kernel, _, _ = prepare("MatMul", [_f(rng, (512, 3072)), _f(rng, (3072, 768))], {}, "fp16", (0, 1))
    cfgs = wgmma_configs(kernel, "fp16")
    best = min(cfgs, key=lambda c: predict(c, H100).us)
    assert best.split_k > 1, best.text()
    (k, names), = launches(kernel, best)
    assert names[-2:] == ["ws", "y"] and k.arrivals == k.grid[0] // best.split_k
    check_builds_for_sm90a(k)
