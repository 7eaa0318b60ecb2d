"""Memory-bound kernel kinds: vectorised elementwise maps, shared-memory transposes and
reductions split across blocks.

Every candidate drawn here is rendered, built with NVRTC for sm_80 and sm_90 (no spills, within
the limits) and run on the host harness in fixed and shuffled thread order against NumPy, on
ragged shapes (tails that are no multiple of the vector or the tile), broadcasts, fp32 and fp16."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compiler.ir.dtypes import DType
from compiler.ir.graph import TensorType
from compiler.ir.texpr import Binary, Const, Load, TensorExpr, Var
from compiler.kinds import render_config
from compiler.kinds import KINDS, construct_rtiles
from compiler.kinds.transpose import transpose_padding
from compiler.roller.construct import bank_conflict_ways
from compiler.roller.micro_model import predict
from compiler.analysis.views import transpose_view, vector_view
from compiler.runtime.host_harness import build_host_module
from compiler.targets import get_target
from tests.roller.single_op import check_builds, lower_single, run_on_host, tile_launch

FAST = settings(max_examples=4, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
H100 = get_target("h100")


def _a(rng, shape, dtype=np.float32):
    return rng.standard_normal(shape).astype(dtype)


def configs_of(te, kind, n=3):
    """The best configurations of `kind` for `te`, one per distinct parameter set, up to n."""
    return [c for c in construct_rtiles(te, H100, 10**6) if c.kind == kind][:n]


def rendered(kernel, cfgs):
    te = kernel.expr
    ins = tuple(p.value for p in kernel.params[:-1])
    return [render_config(te, c, te.name, kernel.params[-1].value, ins) for c in cfgs]


def check_kind(op, arrays, attrs, kind, consts=None, tol=1e-5):
    """Every drawn candidate of `kind` builds and computes the op's result on the host harness."""
    consts = consts or {}
    kernel, ref = lower_single(op, arrays, attrs, consts)
    cfgs = configs_of(kernel.expr, kind)
    assert cfgs, f"{op} {[a.shape for a in arrays]}: no {kind} candidate"
    kernels = rendered(kernel, cfgs)
    check_builds(kernels)
    inputs = [a for i, a in enumerate(arrays) if i not in consts]
    scale = max(1.0, float(np.abs(ref.astype(np.float64)).max()))
    run_on_host(kernels, inputs, ref, rtol=tol, atol=tol * scale)
    return kernel, ref, cfgs


# ---- vectorised elementwise ---------------------------------------------------------------------

@st.composite
def vector_maps(draw):
    rank = draw(st.integers(1, 3))
    shape = tuple(draw(st.integers(1, 23)) for _ in range(rank - 1)) + (draw(st.integers(8, 70)),)
    dtype = draw(st.sampled_from([np.float32, np.float16]))
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    form = draw(st.sampled_from(["same", "bias", "scalar", "unary"]))
    if form == "unary":
        return "Sigmoid", [_a(rng, shape, dtype)], {}
    if form == "same":
        other = shape
    elif form == "bias":
        width = 16 // np.dtype(dtype).itemsize
        shape = shape[:-1] + (width * draw(st.integers(1, 6)),)      # rows of whole vectors
        other = shape[-1:]
    else:
        other = (1,)
    return "Add", [_a(rng, shape, dtype), _a(rng, other, dtype)], {}


@FAST
@given(vector_maps())
def test_vector_elementwise_candidates(case):
    op, arrays, attrs = case
    tol = 2e-3 if arrays[0].dtype == np.float16 else 1e-5
    kernel, _, _ = check_kind(op, arrays, attrs, "elementwise_vec", tol=tol)
    v = vector_view(kernel.expr)
    assert v.width * arrays[0].dtype.itemsize == 16


def test_vector_broadcast_kinds():
    """Same-index operands and a bias along the last axis are read as vectors; a per-channel
    operand constant along the vector is read once per vector; a strided one is not vectorised."""
    rng = np.random.default_rng(1)
    k, _ = lower_single("Add", [_a(rng, (6, 24)), _a(rng, (24,))], {})
    v = vector_view(k.expr)
    assert len(v.vector) == 2 and not v.uniform and [a for a, _ in v.group] == ["i1"]
    k, _ = lower_single("Add", [_a(rng, (3, 5, 8)), _a(rng, (3, 1, 1))], {})
    v = vector_view(k.expr)
    assert len(v.vector) == 1 and len(v.uniform) == 1 and [a for a, _ in v.group] == ["i1", "i2"]
    k, _ = lower_single("Add", [_a(rng, (7, 9)), _a(rng, (7, 9))], {})
    v = vector_view(k.expr)
    assert v.flat and v.n % v.width == 3          # a scalar tail of 3
    k, _ = lower_single("Transpose", [_a(rng, (8, 12))], {"perm": [1, 0]})
    assert vector_view(k.expr) is None
    k, _ = lower_single("Add", [_a(rng, (5, 6)), _a(rng, (6,))], {})
    assert vector_view(k.expr) is None            # a bias row of 6 floats: vectors would straddle rows


def test_vector_kernel_falls_back_on_misaligned_buffers():
    """A graph input that is not 16-byte aligned takes the scalar path (the harness faults on a
    misaligned vector access, so a wrong guard cannot pass); the same input aligned, the vector path."""
    rng = np.random.default_rng(2)
    x, b = _a(rng, (9, 32)), _a(rng, (32,))
    kernel, ref = lower_single("Add", [x, b], {})
    ks = rendered(kernel, configs_of(kernel.expr, "elementwise_vec", 1))
    module = build_host_module(ks, mode="default", seed=3)
    for shift in (4, 0):                          # x 4 bytes past a 16-byte boundary, then on one
        xs = at_alignment(x, shift)
        assert xs.ctypes.data % 16 == shift
        out = at_alignment(np.full(ref.shape, np.nan, np.float32), 0)
        module.launch(ks[0], [xs, at_alignment(b, 0), out])
        np.testing.assert_allclose(out, ref, rtol=1e-6)


def at_alignment(a: np.ndarray, shift: int) -> np.ndarray:
    """A copy of `a` that starts `shift` bytes past a 16-byte boundary (np.empty promises less)."""
    store = np.empty(a.nbytes + 16 + shift, np.uint8)
    start = (-store.ctypes.data) % 16 + shift
    out = store[start:start + a.nbytes].view(a.dtype).reshape(a.shape)
    out[...] = a
    return out


# ---- transposes ---------------------------------------------------------------------------------

@st.composite
def transposes(draw):
    rank = draw(st.integers(2, 4))
    shape = tuple(draw(st.integers(1, 5)) for _ in range(rank - 2)) + \
        (draw(st.integers(17, 75)), draw(st.integers(17, 75)))
    perm = list(range(rank))
    last = draw(st.integers(0, rank - 2))           # the input's fast axis leaves the last place
    perm[last], perm[-1] = perm[-1], perm[last]
    if draw(st.booleans()) and rank > 2:
        head = perm[:-1]
        perm = list(draw(st.permutations(head))) + [perm[-1]]
    dtype = draw(st.sampled_from([np.float32, np.float16]))
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    return "Transpose", [_a(rng, shape, dtype)], {"perm": perm}


@FAST
@given(transposes())
def test_transpose_candidates(case):
    op, arrays, attrs = case
    kernel, _, cfgs = check_kind(op, arrays, attrs, "transpose", tol=0.0)
    assert all(c.param("pad") >= 1 for c in cfgs)


def test_fused_map_on_a_permuted_load():
    """x[j, i] * 2 + y[i, j]: the permuted load goes through shared memory, y is read directly;
    the detection is from the loads' strides, not from an op name."""
    A, B = 45, 70
    f32 = DType.float32
    i0, i1 = Var("i0"), Var("i1")
    xt = TensorType(f32, (B, A))
    yt = TensorType(f32, (A, B))
    body = Binary("add", Binary("mul", Load(0, (i1, i0), f32), Const(2.0, f32), f32), Load(1, (i0, i1), f32), f32)
    te = TensorExpr("fused_t", (xt, yt), TensorType(f32, (A, B)), body)
    tv = transpose_view(te)
    assert tv is not None and tv.staged == (Load(0, (i1, i0), f32),) and tv.A == A and tv.B == B
    cfgs = configs_of(te, "transpose")
    assert cfgs
    ks = [render_config(te, c, te.name, "y", ("x0", "x1")) for c in cfgs]
    check_builds(ks)
    rng = np.random.default_rng(4)
    x, y = _a(rng, (B, A)), _a(rng, (A, B))
    run_on_host(ks, [x, y], x.T * 2 + y, rtol=1e-6, atol=1e-6)


def test_transpose_tiles_are_bank_conflict_free():
    """The padding the construction picks makes both phases conflict-free; without it, the
    column writes of a 32-wide fp32 tile would hit one bank 32 times."""
    for tile in (32, 64):
        for words in (1, 2):
            pad, ways = transpose_padding(tile, words, H100)
            assert ways == 1 and pad >= 1
    assert bank_conflict_ways([lane * 32 for lane in range(32)]) == 32


def test_big_transpose_picks_the_tiled_kernel():
    """A 4096 x 4096 fp32 transpose: the model prefers the shared-memory tile over the strided map."""
    rng = np.random.default_rng(5)
    kernel, _ = lower_single("Transpose", [_a(rng, (64, 64))], {"perm": [1, 0]})
    te = kernel.expr
    big = te.replace(inputs=(TensorType(DType.float32, (4096, 4096)),), output=TensorType(DType.float32, (4096, 4096)))
    cfgs = construct_rtiles(big, H100, 8)
    assert cfgs[0].kind == "transpose"
    plain = [c for c in construct_rtiles(big, H100, 10**6) if c.kind == "elementwise"][0]
    assert predict(cfgs[0], H100).us < 0.6 * predict(plain, H100).us


# ---- reductions split across blocks ------------------------------------------------------------

OPS = ["ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL2", "ReduceSumSquare",
       "ReduceLogSumExp"]


def _split_launch(kernel, cfg, ws="ws"):
    te = kernel.expr
    ins = tuple(p.value for p in kernel.params[:-1])
    return render_config(te, cfg, te.name, kernel.params[-1].value, ins, workspace=ws)


def run_split(kernel, cfg, arrays, ref_shape, ref_dtype):
    """Outputs of one split configuration's launch, in fixed and shuffled thread and block order;
    launched twice, the second on a poisoned output (the rows' arrival counters are ready again)."""
    k = _split_launch(kernel, cfg)
    assert k.arrivals == cfg.param("ws_elems") // cfg.split_k      # one counter per row
    outs = []
    for mode in ("default", "shuffle"):
        module = build_host_module([k], mode=mode, seed=5)
        bufs = {p.value: a for p, a in zip(kernel.params[:-1], arrays)}
        bufs["ws"] = np.full(cfg.param("ws_elems"), np.nan, np.float32)
        for _ in range(2):
            bufs[kernel.params[-1].value] = np.full(ref_shape, np.nan, ref_dtype)
            module.launch(k, [bufs[p.value] for p in k.params])
            assert np.isfinite(bufs["ws"]).all(), "a slice left its partial unwritten"
            outs.append(bufs[kernel.params[-1].value])
    np.testing.assert_array_equal(outs[0], outs[1])
    return outs[::2], k


@st.composite
def long_rows(draw):
    rows = draw(st.sampled_from([(), (2,), (3,)]))
    k = draw(st.integers(4097, 40000))
    op = draw(st.sampled_from(OPS))
    dtype = draw(st.sampled_from([np.float32, np.float16]))
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    x = _a(rng, rows + (k,), dtype)
    if op == "ReduceProd":
        x = (1.0 + 1e-4 * x.astype(np.float32)).astype(dtype)
    ax = np.array([-1], np.int64)
    return op, [x, ax], {"keepdims": draw(st.integers(0, 1))}, {1: ax}


@FAST
@given(long_rows())
def test_split_reduce_candidates(case):
    op, arrays, attrs, consts = case
    kernel, ref = lower_single(op, arrays, attrs, consts)
    cfgs = [c for c in construct_rtiles(kernel.expr, H100, 10**6) if c.kind == "reduce_split"]
    assert cfgs
    picked = {c.param("block_threads"): c for c in reversed(cfgs)}       # the best of each block size
    ref64 = lower_single(op, [arrays[0].astype(np.float64), arrays[1]], attrs, consts)[1]
    for cfg in picked.values():
        (o1, o2), _ = run_split(kernel, cfg, [arrays[0]], ref.shape, ref.dtype)
        np.testing.assert_array_equal(o1, o2)          # a fixed combination order: deterministic
        tol = 2e-3 if arrays[0].dtype == np.float16 else 1e-4
        np.testing.assert_allclose(o1.astype(np.float64), ref64, rtol=tol, atol=tol * max(1.0, float(np.abs(ref64).max())))
    check_builds([_split_launch(kernel, c) for c in list(picked.values())[:2]])


def test_single_long_row_picks_the_split_reduction():
    """One row of 4M: one block per row uses one SM; the model picks the split reduction, one
    launch through an fp32 workspace the plan gains."""
    rng = np.random.default_rng(6)
    ax = np.array([-1], np.int64)
    kernel, _ = lower_single("ReduceSum", [_a(rng, (1, 4096)), ax], {"keepdims": 1}, {1: ax})
    te = kernel.expr
    from compiler.ir.texpr import Reduce
    big = te.replace(inputs=(TensorType(DType.float32, (1, 1 << 22)),),
                     reduce=Reduce(te.reduce.op, tuple((n, 1 << 22) for n, _ in te.reduce.axes)))
    best = construct_rtiles(big, H100, 4)[0]
    assert best.kind == "reduce_split" and best.param("split_k") >= H100.sms
    single = [c for c in construct_rtiles(big, H100, 10**6) if c.kind == "reduce"][0]
    assert predict(best, H100).us < 0.2 * predict(single, H100).us


@pytest.mark.parametrize("op", ["ReduceSum", "ReduceMax", "ReduceMean"])
def test_split_reduce_through_the_roller_stage(op):
    """tile_launch of a long row: one kernel, a float32 workspace of rows x slices, the result."""
    rng = np.random.default_rng(7)
    ax = np.array([-1], np.int64)
    x = _a(rng, (2, 300000))
    kernel, ref = lower_single(op, [x, ax], {"keepdims": 0}, {1: ax})
    types: dict = {}
    ks = tile_launch(kernel, H100, 8, {"tiled": 0, "naive": 0, "kinds": {}}, types)
    assert [dict(k.config)["schedule"] for k in ks] == ["roller_reduce_split"]
    (ws, t), = types.items()
    assert t.dtype is DType.float32 and t.shape[0] == 2 * dict(ks[0].config)["split_k"]
    module = build_host_module(ks, mode="default", seed=1)
    bufs = {kernel.params[0].value: x, ws: np.full(t.shape, np.nan, np.float32),
            kernel.params[-1].value: np.full(ref.shape, np.nan, np.float32)}
    for k in ks:
        module.launch(k, [bufs[p.value] for p in k.params])
    np.testing.assert_allclose(bufs[kernel.params[-1].value], ref, rtol=1e-4, atol=1e-3)


# ---- reductions with outputs across lanes (k strided) ------------------------------------------

def column_configs(te):
    return [c for c in construct_rtiles(te, H100, 10**6) if c.kind == "reduce" and c.param("k_groups")]


@pytest.mark.parametrize("op,shape,attrs", [
    ("ReduceSum", (300, 97), {"axes": [0]}),          # a column sum: outputs not a multiple of a warp
    ("ReduceMax", (77, 130), {"axes": [0]}),
    ("ReduceMin", (40, 3, 33), {"axes": [0, 1]}),      # two reduced axes, k = 120
    ("ReduceProd", (12, 64), {"axes": [0]}),           # k = 12: fewer than some groups (those are left out)
])
def test_column_reductions_are_right_over_every_mapping(op, shape, attrs):
    """Every lanes x groups mapping offered, built by NVRTC and run on the host harness in fixed
    and shuffled thread order (max/min need no flag across groups: each group has a k)."""
    rng = np.random.default_rng(len(shape) + shape[0])
    x = (1 + 0.05 * _a(rng, shape)) if op == "ReduceProd" else _a(rng, shape)
    axes = attrs["axes"]
    kernel, ref = lower_single(op, [x.astype(np.float32), np.array(axes, np.int64)], {"keepdims": 0},
                               consts={1: np.array(axes, np.int64)})
    cfgs = column_configs(kernel.expr)
    K = int(np.prod([shape[a] for a in axes]))
    assert cfgs and all(c.param("k_groups") <= K for c in cfgs)
    assert {c.param("k_groups") for c in cfgs} == {g for g in (2, 4, 8, 16, 32) if g <= K}
    kernels = rendered(kernel, cfgs)
    check_builds(kernels[:4])
    run_on_host(kernels, [x.astype(np.float32)], ref, rtol=1e-5, atol=1e-5 * max(1.0, float(np.abs(ref).max())))


def test_a_matrix_vector_product_is_right_and_takes_the_column_mapping():
    """x . W with one row (a decoder step's Linear, W stored k-major as exporters write it): the
    micro-model picks outputs across lanes with k split among groups at 1 x 4096 x 4096, predicted
    faster than any threads-per-output mapping; at a small size every such mapping is right."""
    from tests.roller.single_op import lower_types
    rng = np.random.default_rng(3)
    x, w = _a(rng, (1, 1, 200)), _a(rng, (200, 100))
    kernel, ref = lower_single("MatMul", [x, w], {})
    cfgs = column_configs(kernel.expr)
    run_on_host(rendered(kernel, cfgs), [x, w], ref, rtol=1e-5, atol=1e-4)
    big = lower_types("MatMul", [TensorType(DType.float32, (1, 1, 4096)), TensorType(DType.float32, (4096, 4096))],
                      TensorType(DType.float32, (1, 1, 4096)), {})
    ranked = construct_rtiles(big.expr, H100, 10**6)
    best = ranked[0]
    assert best.kind == "reduce" and best.param("k_groups")
    per_output = [c for c in ranked if c.kind == "reduce" and not c.param("k_groups")]
    assert per_output and predict(best, H100).us < min(predict(c, H100).us for c in per_output)
    # the check can fail: a row-major reduction (k contiguous) keeps threads along its rows
    rows = lower_types("ReduceSum", [TensorType(DType.float32, (64, 4096)), TensorType(DType.int64, (1,))],
                       TensorType(DType.float32, (64,)), {"keepdims": 0}, consts={1: np.array([1], np.int64)})
    assert not construct_rtiles(rows.expr, H100, 10**6)[0].param("k_groups")
