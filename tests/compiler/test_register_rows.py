"""Row chains of statistics in a warp's registers (kinds/register_rows.py): softmax, LayerNorm with
its residual add, RMSNorm and a mean/variance pair, each a warp per row that loads its columns
once and reduces them by shuffles, against NumPy on the host harness in both thread orders, with
vector loads and stores where the buffers are aligned and element ones (the same bits) where a
caller's buffer is not; in SASS, one load of the row and no barrier or shared memory, against
resident_rows' load per phase."""
from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

from compiler.codegen.nvrtc import build_arch
from compiler.ir.plan import ComputeStep
from compiler.kinds import kind_for, register_rows, resident_rows
from compiler.pipeline import CompileOptions, plan_before
from compiler.runtime.host_harness import build_host_module, run_kernels_asan
from compiler.targets import get_target
from tests.roller.single_op import sass_of

TARGET = get_target("h100")
ONNX = {"float32": TensorProto.FLOAT, "float16": TensorProto.FLOAT16}
RNG = np.random.default_rng(11)


def _model(nodes, inputs, output, shape, dtype, inits=()):
    t = ONNX[dtype]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info(n, t, s) for n, s in inputs],
                              [helper.make_tensor_value_info(output, t, shape)],
                              [numpy_helper.from_array(a, n) for n, a in inits])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    m.ir_version = 8
    return m.SerializeToString()


def _row_spec(model, options=None):
    """The one row-chain spec of the model as the render stage receives it."""
    plan = plan_before("render", model, TARGET, options)
    specs = [s.spec for s in plan.steps if isinstance(s, ComputeStep)
             and isinstance(resident_rows.analyse(s.spec), resident_rows.RowChain)]
    assert len(specs) == 1, [s.spec.name for s in plan.steps if isinstance(s, ComputeStep)]
    return specs[0]


def softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def _softmax_case(shape, dtype):
    x = (RNG.standard_normal(shape) * 3).astype(dtype)
    m = _model([helper.make_node("Softmax", ["x"], ["y"], axis=-1)], [("x", list(shape))], "y", list(shape), dtype)
    return m, {"x": x}, softmax(x.astype(np.float64))


def _residual_layernorm_case(shape, dtype):
    n = shape[-1]
    x, r = (RNG.standard_normal(shape) * 2 + 1).astype(dtype), RNG.standard_normal(shape).astype(dtype)
    g, b = (RNG.standard_normal(n) * 0.5 + 1).astype(dtype), RNG.standard_normal(n).astype(dtype)
    nodes = [helper.make_node("Add", ["x", "r"], ["s"]),
             helper.make_node("LayerNormalization", ["s", "g", "b"], ["y"], axis=-1, epsilon=1e-5)]
    m = _model(nodes, [("x", list(shape)), ("r", list(shape))], "y", list(shape), dtype, [("g", g), ("b", b)])
    s = x.astype(np.float64) + r.astype(np.float64)
    mu, var = s.mean(-1, keepdims=True), s.var(-1, keepdims=True)
    return m, {"x": x, "r": r, "g": g, "b": b}, (s - mu) / np.sqrt(var + 1e-5) * g + b


def _rmsnorm_case(shape, dtype):
    n = shape[-1]
    x, g = RNG.standard_normal(shape).astype(dtype), (RNG.standard_normal(n) + 1).astype(dtype)
    m = _model([helper.make_node("RMSNormalization", ["x", "g"], ["y"], axis=-1, epsilon=1e-6)],
               [("x", list(shape))], "y", list(shape), dtype, [("g", g)])
    m = _opset(m, 23)
    x64 = x.astype(np.float64)
    return m, {"x": x, "g": g}, x64 / np.sqrt((x64 * x64).mean(-1, keepdims=True) + 1e-6) * g


def _variance_case(shape, dtype):
    """ReduceMean, x - mean, its square, ReduceMean: the final is a statistic written out."""
    x = (RNG.standard_normal(shape) * 2 + 5).astype(dtype)
    axes = np.array([-1], np.int64)
    nodes = [helper.make_node("ReduceMean", ["x", "axes"], ["m"], keepdims=1),
             helper.make_node("Sub", ["x", "m"], ["d"]), helper.make_node("Mul", ["d", "d"], ["q"]),
             helper.make_node("ReduceMean", ["q", "axes"], ["y"], keepdims=1)]
    out = list(shape[:-1]) + [1]
    m = _model(nodes, [("x", list(shape))], "y", out, dtype, [("axes", axes)])
    return m, {"x": x, "axes": axes}, x.astype(np.float64).var(-1, keepdims=True)


def _layernorm_two_axes_case(shape, dtype):
    """LayerNorm over the last two axes: the row is 5 x 8, its column decomposed in every phase."""
    x = (RNG.standard_normal(shape) + 2).astype(dtype)
    g, b = (RNG.standard_normal(shape[-2:]) + 1).astype(dtype), RNG.standard_normal(shape[-2:]).astype(dtype)
    m = _model([helper.make_node("LayerNormalization", ["x", "g", "b"], ["y"], axis=-2, epsilon=1e-5)],
               [("x", list(shape))], "y", list(shape), dtype, [("g", g), ("b", b)])
    x64 = x.astype(np.float64)
    mu, var = x64.mean((-2, -1), keepdims=True), x64.var((-2, -1), keepdims=True)
    return m, {"x": x, "g": g, "b": b}, (x64 - mu) / np.sqrt(var + 1e-5) * g + b


def _softmax_transposed_case(shape, dtype):
    """Softmax, then a Transpose folded into its index map: the final writes a column of the output."""
    x = (RNG.standard_normal(shape) * 3).astype(dtype)
    nodes = [helper.make_node("Softmax", ["x"], ["t"], axis=-1), helper.make_node("Transpose", ["t"], ["y"], perm=[1, 0])]
    m = _model(nodes, [("x", list(shape))], "y", list(shape[::-1]), dtype)
    return m, {"x": x}, softmax(x.astype(np.float64)).T


def _opset(model: bytes, opset: int) -> bytes:
    import onnx
    m = onnx.load_from_string(model)
    m.opset_import[0].version = opset
    m.ir_version = 10
    return m.SerializeToString()


# (case, shape, dtype, cached values, columns a lane owns as one run, warps a row)
CASES = [
    (_softmax_case, (3, 5, 40), "float32", 1, 1, 1),    # 40 columns: two runs a lane, the second partial
    (_softmax_case, (6, 128), "float16", 1, 4, 1),      # 4 halves a lane: one 8-byte vector
    (_softmax_case, (2, 197), "float32", 1, 1, 1),      # an odd row: element loads only
    # x and the residual, then the scale and bias (vectors a phase reads once); 2 warps for 5 rows
    (_residual_layernorm_case, (5, 768), "float32", 4, 4, 2),
    (_rmsnorm_case, (3, 1000), "float16", 2, 8, 2),     # x and the scale, 16-byte vectors, the last run partial
    (_variance_case, (7, 96), "float32", 1, 2, 1),      # the final reduces: written by lane 0
    (_layernorm_two_axes_case, (2, 3, 5, 8), "float32", 1, 1, 1),   # the column a (5, 8) index
    (_softmax_transposed_case, (6, 64), "float32", 1, 2, 1),        # element stores down the output's columns
    (_softmax_case, (3, 3000), "float32", 1, 4, 8),     # 3000 > 64 values a lane of one warp; 8 for 3 rows
    (_rmsnorm_case, (1, 4096), "float16", 2, 8, 8),     # one row (batch 1): 8 warps share it
    # 2 warps hold x and the residual (48 values a lane), 4 for 2 rows; the warps meet in shared memory
    (_residual_layernorm_case, (2, 1536), "float32", 4, 4, 4),
]


def _args(kernel, feeds, out_like: np.ndarray, offset: int):
    """The kernel's arguments (its output NaN, shaped and typed as `out_like`), each starting
    `offset` elements past a 16-byte boundary."""
    out = []
    for p in kernel.params:
        a = np.full(out_like.shape, np.nan, out_like.dtype) if p.output else feeds.get(p.value)
        if a is None:
            raise AssertionError(f"{p.value}: no array for the parameter")
        buf = np.empty(a.size + 16, a.dtype)
        start = (-buf.ctypes.data // a.itemsize) % (16 // a.itemsize) + offset
        view = buf[start:start + a.size].reshape(a.shape)
        view[...] = a
        out.append(view)
    return out


def _run(kernel, feeds, ref, dtype, offset=0, mode="default"):
    args = _args(kernel, feeds, ref.astype(dtype), offset)
    build_host_module([kernel], mode=mode, seed=3).launch(kernel, args)
    return args[-1]


@pytest.mark.parametrize("case", range(len(CASES)))
def test_register_rows_are_right_in_both_thread_orders_and_alignments(case):
    make, shape, dtype, n_cached, width, warps_per_row = CASES[case]
    model, feeds, ref = make(shape, dtype)
    spec = _row_spec(model)
    assert kind_for(spec) is register_rows, register_rows.applies(spec)
    plan = register_rows.analyse(spec)
    assert (len(plan.cached), plan.width, plan.warps_per_row) == (n_cached, width, warps_per_row)
    (k,) = register_rows.render(spec, TARGET)
    # a row of one warp: no shared memory, no barrier; of several: only the warps' partials
    if warps_per_row == 1:
        assert k.shared_bytes == 0 and "__syncthreads" not in k.source
    else:
        assert k.shared_bytes == 8 * warps_per_row and k.block[0] == 32 * warps_per_row
    tol = 2e-3 if dtype == "float16" else 2e-5
    scale = max(1.0, float(np.abs(ref).max()))
    got = {}
    for mode in ("default", "shuffle"):
        for offset in (0, 1):      # 1: every pointer an element past a 16-byte boundary
            y = _run(k, feeds, ref, dtype, offset, mode)
            assert np.isfinite(y).all(), f"{mode}, offset {offset}: outputs left unwritten"
            np.testing.assert_allclose(y.astype(np.float64), ref, rtol=tol, atol=tol * scale,
                                       err_msg=f"{mode}, offset {offset}")
            got[mode, offset] = y
    # the element loads and stores of an unaligned buffer compute exactly what the vectors do
    np.testing.assert_array_equal(got["default", 0], got["default", 1])
    # and the shared-memory form of the same chain agrees
    (shared,) = resident_rows.render(spec, TARGET)
    np.testing.assert_allclose(_run(shared, feeds, ref, dtype).astype(np.float64), got["default", 0].astype(np.float64),
                               rtol=tol, atol=tol * scale)


def test_partial_runs_stay_in_bounds_under_the_sanitizer():
    """RMSNorm over 1000 halves (the last 16-byte runs past the row's end are skipped), softmax
    over 40 floats and over 3000 on 8 warps, aligned and not: AddressSanitizer sees no access
    outside the buffers."""
    for make, shape, dtype, *_ in (CASES[0], CASES[4], CASES[8]):
        model, feeds, ref = make(shape, dtype)
        (k,) = register_rows.render(_row_spec(model), TARGET)
        for offset in (0, 1):
            args = _args(k, feeds, ref.astype(dtype), offset)
            run_kernels_asan([(k, args)])
            np.testing.assert_allclose(args[-1].astype(np.float64), ref, rtol=2e-3, atol=2e-3 * max(1.0, np.abs(ref).max()))


def test_the_mapping_follows_the_rows():
    """Add + LayerNorm over BERT-base's 768: at batch 1 (128 rows, too few for the GPU) a row gets
    2 warps; at batch 32 (4096 rows) a warp, 8 rows a block (docs/fusion.md quotes both)."""
    for batch, warps_per_row, rows_per_block in ((1, 2, 1), (32, 1, 8)):
        model, _, _ = _residual_layernorm_case((batch, 128, 768), "float32")
        plan = register_rows.analyse(_row_spec(model))
        assert (plan.warps_per_row, plan.rows_per_block) == (warps_per_row, rows_per_block), batch


def test_what_declines_goes_to_resident_rows():
    """Rows longer than a block's registers hold, and chains with resident rows (a product kept for
    a LayerNorm), are resident_rows' with the reason recorded."""
    model, _, _ = _softmax_case((1, 32 * register_rows.MAX_ROW_WARPS * register_rows.MAX_CACHED + 1024), "float32")
    # one row that long is split into its stages by default (passes/split_rows.py): kept whole here
    spec = _row_spec(model, CompileOptions(disable=("split_rows",)))
    assert "registers a lane" in register_rows.applies(spec) and kind_for(spec) is resident_rows
    h = 64
    w = (RNG.standard_normal((h, h)) / 8).astype(np.float32)
    nodes = [helper.make_node("MatMul", ["x", "w"], ["m"]),
             helper.make_node("LayerNormalization", ["m", "g", "b"], ["y"], axis=-1)]
    model = _model(nodes, [("x", [16, h])], "y", [16, h], "float32",
                   [("w", w), ("g", np.ones(h, np.float32)), ("b", np.zeros(h, np.float32))])
    spec = _row_spec(model)
    assert "resident rows" in register_rows.applies(spec) and kind_for(spec) is resident_rows


def test_the_row_is_loaded_once_with_no_barrier():
    """SASS of softmax over 128 halves (BERT's attention rows): the register form loads the row
    with one 8-byte LDG a lane (its element loads serve unaligned buffers only), stores one 8-byte
    STG, and has no barrier, no shared memory and no local memory; resident_rows' form of the same
    spec loads the row in each of its three phases and waits at barriers between them."""
    model, _, _ = _softmax_case((64, 128), "float16")
    spec = _row_spec(model)
    arch = build_arch(TARGET.arch, False)
    (reg,) = register_rows.render(spec, TARGET)
    (shr,) = resident_rows.render(spec, TARGET)
    r, s = sass_of(reg, arch), sass_of(shr, arch)
    wide = r.having("LDG", "64")
    assert len(wide) == 1 and len(r.having("STG", "64")) == 1, [i.opcode for i in r.having("LDG")]
    assert not r.having("BAR") and not r.having("LDS") and not r.having("STS")
    assert not r.having("LDL") and not r.having("STL")
    assert len(s.having("BAR")) >= 2 and len(s.having("LDG")) >= 3


def test_independent_row_chains_co_launched_stay_right():
    """Two LayerNorms over 4 rows of 1024 (4 warps a row, barriers between them) and a softmax over
    128 (a warp a row, early return) are independent: Rammer runs them in one launch, each body on
    its own range of blocks (narrowed to its own threads where the block is wider); the model is
    right in both thread orders."""
    from tests.compiler.test_row_norms import check, make
    h = 1024
    nodes = [helper.make_node("LayerNormalization", ["a", "g", "b"], ["ya"], axis=-1),
             helper.make_node("LayerNormalization", ["c", "g", "b"], ["yc"], axis=-1),
             helper.make_node("Softmax", ["d"], ["yd"], axis=-1)]
    f = TensorProto.FLOAT
    data = make(nodes, [("a", f, [4, h]), ("c", f, [4, h]), ("d", f, [6, 128])],
                [("ya", f, [4, h]), ("yc", f, [4, h]), ("yd", f, [6, 128])],
                [("g", RNG.standard_normal(h).astype(np.float32)), ("b", RNG.standard_normal(h).astype(np.float32))])
    feeds = {"a": RNG.standard_normal((4, h)).astype(np.float32), "c": RNG.standard_normal((4, h)).astype(np.float32),
             "d": RNG.standard_normal((6, 128)).astype(np.float32)}
    rep = check(data, feeds, 2e-5)
    (launch,) = rep["kernels"]
    assert launch["config"]["schedule"] == "rammer_co_launch", launch["config"]
    members = launch["config"]["members"]
    assert len(members) == 3 and all("_regrows_" in m for m in members), members


def test_the_report_says_the_statistics_are_in_registers():
    """The spec carries a softmax's max and sum in shared memory (the welder stage's level for a
    row statistic); register_rows keeps them in registers, and the report's kernel says so."""
    from compiler import compile
    from compiler.pipeline import CompileOptions
    model, _, _ = _softmax_case((8, 128), "float32")
    spec = _row_spec(model)
    assert {lvl.value for _, lvl in spec.carried} == {"shared"}
    (k,) = compile(model, TARGET, CompileOptions(build=False)).report["kernels"]
    assert k["config"]["schedule"] == register_rows.NAME
    assert [c["level"] for c in k["carried"]] == ["register"] * len(spec.carried) and len(spec.carried) == 2
