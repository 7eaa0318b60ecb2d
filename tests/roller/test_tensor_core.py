"""Tensor-core contraction kernels (mma.sync) and the precision option.

Every tensor-core candidate drawn here is rendered, built with NVRTC for sm_80 and sm_90 (no
spills, registers and shared memory within the limits) and run on the host harness in fixed and
shuffled thread order (incl. the ldmatrix/mma/cp.async emulation) on shapes that are not
multiples of the tiles. The reference of a candidate is the precision-rewritten expression run
by the naive kernel (the same rounded operands, fp32 sums: only the order of the sums differs),
and, more loosely, the op's NumPy reference in full precision."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from compiler.codegen.nvrtc import build_cubin
from compiler.codegen.tensor_core import tc_plan
from compiler.errors import CompilerError
from compiler.ir.dtypes import DType
from compiler.ir.graph import Constant
from compiler.passes.precision import precision_plan
from compiler.kinds import render_config
from compiler.pipeline import CompileOptions
from compiler.kinds import construct_rtiles
from compiler.kinds.tc_gemm import SPLIT_K_STEPS, fragment_conflicts
from compiler.analysis.views import gemm_view
from compiler.runtime.host_harness import build_host_module
from compiler.targets import get_target
from tests.roller.single_op import contraction_kernel, lower_single, tile_launch

FAST = settings(max_examples=4, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
PRECISIONS = ("fp16", "bf16", "tf32")
# candidate vs the naive kernel of the same expression (same rounded operands; tf32 rounds in the
# kernel only), and vs the op's float64 reference
TOL_SAME = {"fp16": 1e-4, "bf16": 1e-4, "tf32": 5e-3}
TOL_REF = {"fp16": 1e-2, "bf16": 4e-2, "tf32": 1e-2}
LIMITS = {"sm_80": get_target("a100"), "sm_90": get_target("h100")}


def _f(rng, shape):
    return rng.standard_normal(shape).astype(np.float32)


def _stats():
    return {"contractions": 0, "weights_converted": 0, "weight_bytes_saved": 0}


def prepare(op, arrays, attrs, precision, const_inputs=()):
    """(naive kernel of the precision-rewritten op, its argument arrays by value name, reference)."""
    kernel, ref = lower_single(op, arrays, attrs)
    names = [p.value for p in kernel.params[:-1]]
    consts = {names[i]: Constant.from_array(arrays[i]) for i in const_inputs}
    k = contraction_kernel(kernel, precision, consts, {}, {}, _stats())
    if k is None:               # a 1-wide contraction is lowered as a map, not a GEMM
        return None, None, None
    assert dict(k.config)["precision"] == precision
    values = {n: (consts[n].array().copy() if n in consts else arrays[names.index(n)]) for n in names}
    values.update({n: c.array().copy() for n, c in consts.items()})
    return k, values, ref


def tc_configs(kernel, target_name="a100", precision="fp16"):
    """Every tensor-core configuration constructed for the kernel, in the model's order."""
    return [c for c in construct_rtiles(kernel.expr, get_target(target_name), 10**6, precision) if c.kind == "tc_gemm"]


def diverse(cfgs, n):
    """The best of each kind of configuration (stages, split-K, loaders, warp tile, k step), up to n."""
    out, seen = [], set()
    for c in cfgs:
        key = (c.param("stages"), c.param("split_k") > 1, c.param("load_a"), c.param("load_b"),
               c.tile("warp").axes, c.tile("block").size("k"))
        if key not in seen:
            seen.add(key)
            out.append(c)
    return out[:n]


def launches(kernel, cfg):
    """The launches of one configuration: [(kernel, [arg value names])]."""
    te = kernel.expr
    ins = tuple(p.value for p in kernel.params[:-1])
    if cfg.split_k > 1:      # one launch: partial sums in the workspace, summed by each tile's last block
        return [(render_config(te, cfg, te.name, "y", ins, workspace="ws"), list(ins) + ["ws", "y"])]
    return [(render_config(te, cfg, te.name, "y", ins), list(ins) + ["y"])]


def check_builds(kernels) -> None:
    for k in kernels:
        threads = k.block[0] * k.block[1] * k.block[2]
        for arch, t in LIMITS.items():
            r = build_cubin(k.source, k.entry, arch)
            assert r.spills == 0, f"{k.entry} spills on {arch}"
            assert 0 < r.registers <= t.max_registers_per_thread and r.registers * threads <= t.registers_per_block
            assert k.shared_bytes + r.shared_bytes <= t.shared_per_block and threads <= t.max_threads_per_block


def run_candidates(kernel, values, ref, precision, cfgs, *, build=True):
    """Builds and runs every configuration; returns the worst error against the naive kernel."""
    runs = [(c, launches(kernel, c)) for c in cfgs]
    kernels = [k for _, ls in runs for k, _ in ls]
    if build:
        check_builds(kernels)
    worst = 0.0
    for mode in ("default", "shuffle"):
        module = build_host_module(kernels + [kernel], mode=mode, seed=11)
        y0 = np.full(ref.shape, np.nan, np.float32)
        ins = [p.value for p in kernel.params[:-1]]
        module.launch(kernel, [values[n] for n in ins] + [y0])
        scale = max(1.0, float(np.abs(ref).max()))
        np.testing.assert_allclose(y0, ref, rtol=0, atol=TOL_REF[precision] * scale)
        for cfg, ls in runs:
            bufs = dict(values, y=np.full(ref.shape, np.nan, np.float32))
            if cfg.split_k > 1:
                bufs["ws"] = np.full(cfg.param("ws_elems"), np.nan, np.float32)
            for k, names in ls:
                module.launch(k, [bufs[n] for n in names])
            y = bufs["y"]
            assert np.isfinite(y).all(), f"{cfg.text()} ({mode}) left outputs unwritten"
            err = float(np.abs(y.astype(np.float64) - y0).max()) / max(1.0, float(np.abs(y0).max()))
            assert err <= TOL_SAME[precision], f"{cfg.text()} ({mode}): {err}"
            worst = max(worst, err)
    return worst


# ---- drawn shapes -------------------------------------------------------------------------------

@st.composite
def matmuls(draw):
    m, n, k = draw(st.integers(2, 70)), draw(st.integers(2, 70)), draw(st.integers(16, 90))
    batch = draw(st.sampled_from([(), (2,), (1, 3)]))
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    # a constant 2-D weight is converted at compile time (the cp.async path when rows align)
    const_b = not batch and draw(st.booleans())
    b = _f(rng, (k, n)) if const_b or draw(st.booleans()) else _f(rng, batch + (k, n))
    return ("MatMul", [_f(rng, batch + (m, k)), b], {}, (1,) if const_b else (),
            draw(st.sampled_from(PRECISIONS)))


@st.composite
def gemms(draw):
    m, n, k = draw(st.integers(2, 48)), draw(st.integers(2, 48)), draw(st.integers(16, 64))
    ta, tb = draw(st.booleans()), draw(st.booleans())
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    a = _f(rng, (k, m) if ta else (m, k))
    b = _f(rng, (n, k) if tb else (k, n))
    c = _f(rng, draw(st.sampled_from([(n,), (m, n)])))
    return ("Gemm", [a, b, c], {"transA": int(ta), "transB": int(tb), "alpha": 0.5, "beta": 2.0},
            (1,) if draw(st.booleans()) else (), draw(st.sampled_from(PRECISIONS)))


@st.composite
def convs(draw):
    n, c = draw(st.integers(1, 2)), draw(st.integers(4, 9))
    h, w = draw(st.integers(3, 9)), draw(st.integers(3, 9))
    kh = draw(st.integers(2, 3))            # K = c * kh * kh >= 16
    m = draw(st.integers(2, 20))
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    arrays = [_f(rng, (n, c, h, w)), _f(rng, (m, c, kh, kh))] + ([_f(rng, (m,))] if draw(st.booleans()) else [])
    attrs = {"strides": [draw(st.integers(1, 2))] * 2, "pads": [draw(st.integers(0, 1))] * 4}
    return "Conv", arrays, attrs, (1,), draw(st.sampled_from(PRECISIONS))


def _check_case(case, n=4):
    op, arrays, attrs, const_inputs, precision = case
    kernel, values, ref = prepare(op, arrays, attrs, precision, const_inputs)
    assume(kernel is not None)
    cfgs = tc_configs(kernel, "a100", precision)
    assert cfgs, f"{op}: no tensor-core candidate"
    run_candidates(kernel, values, ref, precision, diverse(cfgs, n))


@FAST
@given(matmuls())
def test_matmul_tensor_core_candidates(case):
    _check_case(case)


@FAST
@given(gemms())
def test_gemm_tensor_core_candidates(case):
    _check_case(case)


@FAST
@given(convs())
def test_conv_implicit_gemm_tensor_core_candidates(case):
    _check_case(case)


@pytest.mark.parametrize("precision", PRECISIONS)
def test_fixed_row_gathers(precision):
    """Implicit-GEMM gathers whose rows stay with a thread (codegen/tensor_core.py `gather_rows`):
    several rows a thread, one row with several threads on it (k strided), output pixels and K
    both ragged, padded and strided convolutions; each against the naive kernel, both harness modes."""
    from compiler.analysis.views import gemm_view as view_of
    from compiler.codegen.tensor_core import _fixed_rows
    rng = np.random.default_rng(3)
    seen = set()
    for shapes, attrs in ((((2, 5, 9, 11), (12, 5, 3, 3)), {"pads": [1, 1, 1, 1], "strides": [2, 1]}),
                          (((1, 24, 7, 7), (40, 24, 1, 1)), {}),
                          (((2, 3, 12, 12), (8, 3, 5, 5)), {"pads": [2, 2, 2, 2]})):
        kernel, values, ref = prepare("Conv", [_f(rng, s) for s in shapes], attrs, precision, (1,))
        v = view_of(kernel.expr)
        picked = []
        for c in tc_configs(kernel, "h100", precision):
            p = tc_plan(kernel.expr, v, c)
            q = _fixed_rows(p, "b", 32 * p.warps)
            key = (q > 1, q == 1 and 32 * p.warps > p.BN, v.N % p.BN != 0, v.K % p.BK != 0)
            if q and key not in seen and len(picked) < 4:   # `seen`: the forms that ran
                seen.add(key)
                picked.append(c)
        run_candidates(kernel, values, ref, precision, picked)
    assert {k[0] for k in seen} == {True, False} and any(k[1] for k in seen)
    assert any(k[2] for k in seen) and any(k[3] for k in seen)


@pytest.mark.parametrize("precision", PRECISIONS)
def test_every_loader_layout_and_pipeline_depth(precision):
    """One shape per operand layout (k-major and row-major A and B: ldmatrix and .trans), all
    loaders (cp.async weights, 16-byte vector activations, generic gathers) and 1-4 stages."""
    rng = np.random.default_rng(21)
    cases = [("MatMul", [_f(rng, (72, 200)), _f(rng, (200, 40))], {}, (1,)),
             ("Gemm", [_f(rng, (96, 56)), _f(rng, (48, 96)), _f(rng, (48,))], {"transA": 1, "transB": 1}, (1,)),
             ("MatMul", [_f(rng, (2, 33, 24)), _f(rng, (2, 24, 20))], {}, ())]
    seen = set()
    for op, arrays, attrs, consts in cases:
        kernel, values, ref = prepare(op, arrays, attrs, precision, consts)
        cfgs = tc_configs(kernel, "a100", precision)
        picked = []
        for c in cfgs:
            key = (c.param("stages"), c.param("load_a"), c.param("load_b"), c.param("layout_a"), c.param("layout_b"))
            if key not in seen:
                seen.add(key)
                picked.append(c)
        run_candidates(kernel, values, ref, precision, picked[:6])
    stages = {k[0] for k in seen}
    layouts = {(k[3], k[4]) for k in seen}
    loaders = {k[1] for k in seen} | {k[2] for k in seen}
    assert {2, 3, 4} <= stages and len(layouts) >= 2
    assert "async" in loaders and (precision == "tf32" or "vector" in loaders)


@pytest.mark.parametrize("precision", PRECISIONS)
def test_heaviest_candidates_build_without_spills(precision):
    """The largest warp tiles (64x64: 128 fp32 accumulators per thread), deepest pipelines and
    largest shared tiles of a big GEMM build for sm_80 and sm_90 within the limits."""
    rng = np.random.default_rng(5)
    kernel, _, _ = prepare("MatMul", [_f(rng, (512, 512)), _f(rng, (512, 512))], {}, precision, (1,))
    cfgs = tc_configs(kernel, "h100", precision)
    heavy = sorted(cfgs, key=lambda c: (-c.tile("warp").size("m") * c.tile("warp").size("n"), -c.param("stages"),
                                        -c.workload.shared_bytes, c.key))[:2]
    assert heavy[0].tile("warp").size("m") == 64 and heavy[0].tile("warp").size("n") == 64
    check_builds([k for c in heavy for k, _ in launches(kernel, c)])


def test_split_k_for_skinny_contractions():
    """Small M x N with a long K: the model picks split-K. One launch: its blocks write partial sums
    to an fp32 workspace the plan gains and arrive on their output tile's counter; the last to
    arrive sums the slices in a fixed order (bitwise the same in any block or thread order) and
    resets the counter, so launching it again (new inputs) is right too."""
    rng = np.random.default_rng(8)
    kernel, values, ref = prepare("MatMul", [_f(rng, (8, 2048)), _f(rng, (2048, 24))], {}, "fp16", (1,))
    target = get_target("a100")
    best = construct_rtiles(kernel.expr, target, 4, "fp16")[0]
    sk = best.param("split_k")
    assert best.kind == "tc_gemm" and sk > 1
    types: dict = {}
    ks = tile_launch(kernel, target, 4, {"tiled": 0, "naive": 0, "kinds": {}}, types)
    assert len(ks) == 1 and dict(ks[0].config)["schedule"] == "roller_tc_gemm"
    (k,) = ks
    (ws, t), = types.items()
    assert t.dtype is DType.float32 and t.shape == (sk * ref.size,)
    assert [(p.value, p.output) for p in k.params[-2:]] == [(ws, True), (kernel.params[-1].value, True)]
    tiles = k.blocks // sk
    assert k.arrivals == tiles and f"_arrivals[{tiles}];" in k.source
    a_name = kernel.params[0].value
    outs = []
    for mode in ("default", "shuffle"):
        module = build_host_module(ks, mode=mode, seed=2)
        for run in range(3):         # the counters are back at zero after each launch
            a = values[a_name] if run == 0 else _f(rng, values[a_name].shape)
            bufs = dict(values, **{a_name: a, ws: np.full(t.shape, np.nan, np.float32)})
            y = np.full(ref.shape, np.nan, np.float32)
            bufs[kernel.params[-1].value] = y
            module.launch(k, [bufs[p.value] for p in k.params])
            want = ref if run == 0 else a.astype(np.float64) @ values[kernel.params[1].value].astype(np.float64)
            np.testing.assert_allclose(y, want, rtol=0, atol=1e-2 * float(np.abs(want).max()))
            if run == 0:
                outs.append(y)
    np.testing.assert_array_equal(outs[0], outs[1])
    check_builds(ks)
    # one launch: the ranking prices the partial sums' round trip and the arrival's serial L2
    # accesses, not a second kernel
    assert best.workload.l2_bytes >= 2 * sk * ref.size * 4
    assert best.workload.serial_steps >= SPLIT_K_STEPS


def test_one_split_k_body_co_launched_thrice_keeps_three_sets_of_counters():
    """Rammer may co-launch launches of one split-K kernel (the same body, other buffers): each
    member gets counters of its own from the co-launch, so the blocks of one never complete the
    other's tiles, and the body is called once, its pointers and counters picked by member;
    right in both block orders (shuffled, the members' blocks interleave)."""
    import dataclasses
    from compiler.codegen.co_launch import co_launch
    rng = np.random.default_rng(9)
    kernel, values, ref = prepare("MatMul", [_f(rng, (8, 2048)), _f(rng, (2048, 24))], {}, "fp16", (1,))
    types: dict = {}
    (k,) = tile_launch(kernel, get_target("a100"), 4, {"tiled": 0, "naive": 0, "kinds": {}}, types)
    assert k.arrivals
    others = [dataclasses.replace(k, params=tuple(dataclasses.replace(p, value=p.value + tag) for p in k.params))
              for tag in ("#2", "#3")]
    co = co_launch([k, *others])
    # the body's definition and one call
    assert co.source.count("BY_DEVICE_STATE unsigned int ") == 3 and co.source.count(f"{k.body}(") == 2
    (ws, t), = types.items()
    a_name, b_name, y_name = kernel.params[0].value, kernel.params[1].value, kernel.params[-1].value
    a_of = {"": values[a_name], **{tag: _f(rng, values[a_name].shape) for tag in ("#2", "#3")}}
    for mode in ("default", "shuffle"):
        module = build_host_module([co], mode=mode, seed=4)
        bufs = dict(values)
        for tag, a in a_of.items():
            bufs.update({ws + tag: np.full(t.shape, np.nan, np.float32),
                         y_name + tag: np.full(ref.shape, np.nan, np.float32),
                         a_name + tag: a, b_name + tag: values[b_name]})
        module.launch(co, [bufs[p.value] for p in co.params])
        for tag, a in a_of.items():
            want = ref if not tag else a.astype(np.float64) @ values[b_name].astype(np.float64)
            np.testing.assert_allclose(bufs[y_name + tag], want, rtol=0, atol=1e-2 * float(np.abs(want).max()),
                                       err_msg=f"{mode} {tag}")


def test_fragment_reads_are_bank_conflict_free():
    """Every shared tile the construction picks (swizzled or padded) serves a warp's ldmatrix
    phases / tf32 fragment loads without bank conflicts (by simulation)."""
    rng = np.random.default_rng(9)
    for precision in PRECISIONS:
        for op, arrays, attrs in (("MatMul", [_f(rng, (96, 160)), _f(rng, (160, 80))], {}),
                                  ("Gemm", [_f(rng, (64, 40)), _f(rng, (24, 64)), _f(rng, (24,))],
                                   {"transA": 1, "transB": 1})):
            kernel, _, _ = prepare(op, arrays, attrs, precision, (1,))
            view = gemm_view(kernel.expr)
            for c in tc_configs(kernel, "h100", precision)[:200]:
                p = tc_plan(kernel.expr, view, c)
                assert fragment_conflicts(p.tile_a, p.elem, p.orient_a) == 1, c.text()
                assert fragment_conflicts(p.tile_b, p.elem, p.orient_b) == 1, c.text()


def test_sm75_gets_no_cp_async_bf16_or_emulated_mma():
    """T4 (sm_75): no tensor-core candidates (the preludes emulate m16n8k16 there), so no cp.async
    and no bf16; the fp16 SIMT kernels still compute with the rounded operands."""
    rng = np.random.default_rng(4)
    for precision in PRECISIONS:
        kernel, values, ref = prepare("MatMul", [_f(rng, (40, 64)), _f(rng, (64, 48))], {}, precision, (1,))
        cfgs = construct_rtiles(kernel.expr, get_target("t4"), 8, precision)
        assert cfgs and all(c.kind == "gemm" for c in cfgs)
        ins = tuple(p.value for p in kernel.params[:-1])
        ks = [render_config(kernel.expr, c, kernel.expr.name, "y", ins) for c in cfgs[:2]]
        assert not any("cp_async" in k.source or "by_mma" in k.source or "ldmatrix" in k.source for k in ks)
        module = build_host_module(ks)
        for k in ks:
            y = np.zeros(ref.shape, np.float32)
            module.launch(k, [values[n] for n in ins] + [y])
            np.testing.assert_allclose(y, ref, rtol=0, atol=TOL_REF[precision] * float(np.abs(ref).max()))
        # the same expression on sm_80 does get tensor-core candidates (bf16 included)
        assert tc_configs(kernel, "a100", precision)


def test_fp32_is_unchanged_and_deterministic(models_dir):
    """fp32: the precision stage returns the plan itself and no tensor-core candidate exists; the
    construction with tensor cores is deterministic."""
    from compiler.frontend.onnx_import import import_model
    from compiler.passes.lower import lower_graph
    im = import_model(str(models_dir / "bert.onnx"))
    plan = lower_graph(im.graph, im.opset)
    same, info = precision_plan(plan, "fp32")
    assert same is plan and info["contractions"] == 0
    rng = np.random.default_rng(3)
    kernel, _ = lower_single("MatMul", [_f(rng, (64, 96)), _f(rng, (96, 80))], {})
    fp32 = construct_rtiles(kernel.expr, get_target("h100"), 8)
    assert fp32 == construct_rtiles(kernel.expr, get_target("h100"), 8, "fp32")
    assert all(c.kind != "tc_gemm" for c in fp32)
    k16, _, _ = prepare("MatMul", [_f(rng, (64, 96)), _f(rng, (96, 80))], {}, "fp16", (1,))
    a, b = tc_configs(k16, "h100", "fp16"), tc_configs(k16, "h100", "fp16")
    assert [c.key for c in a] == [c.key for c in b] and a
    # without a precision (the tuner's call) a half-rounded contraction still gets its candidates
    assert construct_rtiles(k16.expr, get_target("h100"), 8) == construct_rtiles(k16.expr, get_target("h100"), 8, "fp16")
    # a contraction shorter than one mma k step (depthwise conv, K = 9) stays fp32
    short, _ = lower_single("MatMul", [_f(rng, (64, 9)), _f(rng, (9, 80))], {})
    assert contraction_kernel(short, "fp16", {}, {}, {}, _stats()) is None
    with pytest.raises(CompilerError, match="precision 'fp8'"):
        CompileOptions(precision="fp8")


def test_precision_pass_converts_weights_not_boundaries(models_dir):
    """fp16/bf16: constant weights of contractions become half constants (other readers keep fp32),
    graph inputs and outputs keep their types, every contraction is marked; tf32 changes no data."""
    from compiler.frontend.onnx_import import import_model
    from compiler.passes.lower import lower_graph
    im = import_model(str(models_dir / "bert.onnx"))
    plan = lower_graph(im.graph, im.opset)
    for precision, half in (("fp16", DType.float16), ("bf16", DType.bfloat16)):
        new, info = precision_plan(plan, precision)
        assert info["contractions"] >= 8 and info["weights_converted"] >= 8 and info["weight_bytes_saved"] > 0
        types, old_types = dict(new.types), dict(plan.types)
        for n in plan.inputs + plan.outputs:
            assert types[n] == old_types[n]
        halves = [n for n, c in new.constants if c.dtype is half]
        assert len(halves) == info["weights_converted"]
        for n in halves:
            c = dict(new.constants)[n]
            src = dict(plan.constants)[n.rsplit(".", 1)[0]]
            np.testing.assert_array_equal(c.array(), src.array().astype(half.np))
        marked = [k for k in new.specs() if getattr(k, "precision", None) == precision]
        assert len(marked) == info["contractions"]
    new, info = precision_plan(plan, "tf32")
    assert info["weights_converted"] == 0 and dict(new.constants).keys() == dict(plan.constants).keys()


@pytest.mark.parametrize("precision", PRECISIONS)
def test_bert_in_reduced_precision(models_dir, precision):
    """BERT with tf32/fp16/bf16 contractions: tensor-core kernels (built for h100 without spills),
    the report states the precision and (fp16) the verified error; the plan matches bert.npz
    within 1e-2 on the host harness in fixed and shuffled thread order."""
    from compiler import compile
    from compiler.runtime.executor import Executor, make_backend
    build = precision == "fp16"
    art = compile(str(models_dir / "bert.onnx"), "h100",
                  CompileOptions(precision=precision, build=build, verify="host" if build else None))
    rep = art.report
    assert rep["precision"] == precision
    stages = {s["name"]: s["seconds"] for s in rep["compile"]["stages"]}
    assert stages["precision"] < 2.0 and stages["roller"] < 10.0, stages
    tc = [k for k in rep["kernels"] if k["config"].get("schedule") == "roller_tc_gemm"]
    # the output and FFN projections at least (2 layers x 3), each a tensor-core kernel or in a
    # row chain with a LayerNorm that the cost model predicts faster than its members apart, the
    # tensor-core GEMMs among them (at this model's 64 rows, launches dominate: a post-norm
    # layer's projection, LayerNorm, FFN and LayerNorm are one kernel); the Q/K/V projections,
    # fused with their bias, head transpose and scale, are a near tie between mma.sync and SIMT
    with_norm = [g for g in rep["fusion"]["groups"] if g.get("level") == "shared"
                 and any("layer_norm" in op for op in g["ops"]) and any("MatMul" in op for op in g["ops"])]
    assert all(g["predicted_us"]["fused"] < g["predicted_us"]["apart"] for g in with_norm)
    in_chains = sum(op.startswith("node_MatMul") for g in with_norm for op in g["ops"])
    assert len(tc) + in_chains >= 6, (len(tc), in_chains)
    if build:
        assert all(k["registers"] > 0 and k["spills"] == 0 for k in rep["kernels"])
        v = rep["verification"]
        assert v["device"] == "host" and v["max_rel_error"] is not None and v["max_rel_error"] < 1e-2
    ref = np.load(models_dir / "bert.npz")
    inputs = {k[3:]: ref[k] for k in ref.files if k.startswith("in:")}
    for mode in ("default", "shuffle"):
        out = Executor(art.plan, make_backend("host", mode=mode, seed=3)).run(inputs)
        for k in ref.files:
            if k.startswith("out:"):
                got, want = out[k[4:]].astype(np.float64), ref[k]
                assert want.dtype == np.float32 and out[k[4:]].dtype == np.float32
                assert np.max(np.abs(got - want)) / np.max(np.abs(want)) < 1e-2
