"""The SIMT tiled contraction (kind `gemm`, compiler/codegen/tiled.py render_gemm): fragments read
from shared memory 16 bytes at a time where the thread tile and the tile rows allow, the output's
rows stored as 16-byte vectors where it is fp32 with contiguous rows, and the next k tile fetched
into registers during the current one's FMAs (two stages).

Every form (vector or scalar reads of A and of B, one or two stages, ragged tiles) is run on the
host harness in fixed and shuffled thread order against NumPy; a caller's output buffer that is
not 16-byte aligned gets the same bits; cuobjdump shows the vector loads and stores in SASS."""
from __future__ import annotations

import numpy as np
import pytest

from compiler.analysis.views import gemm_view
from compiler.codegen import tiled
from compiler.codegen.nvrtc import build_arch
from compiler.codegen.tiled import gemm_vector_reads
from compiler.kinds import construct_rtiles, render_config
from compiler.runtime.host_harness import build_host_module
from compiler.targets import get_target
from compiler.ir.dtypes import DType
from compiler.ir.graph import TensorType
from tests.roller.single_op import check_builds, lower_single, lower_types, sass_of

TARGET = get_target("h100")


def _gemm_configs(kernel):
    return [c for c in construct_rtiles(kernel.expr, TARGET, 10**6) if c.kind == "gemm"]


def _form(kernel, cfg):
    blk, thr = cfg.tile("block"), cfg.tile("thread")
    pad = dict(blk.padding)
    te = kernel.expr
    vec = gemm_vector_reads(te, gemm_view(te), thr.size("m"), thr.size("n"), blk.size("m") + pad.get("a", 0),
                            blk.size("n") + pad.get("b", 0))
    return (*vec, cfg.param("stages"))


def _forms(kernel):
    """The model's best configuration of each form (vector A, vector B, stages)."""
    out = {}
    for c in _gemm_configs(kernel):
        out.setdefault(_form(kernel, c), c)
    return out


def _render(kernel, cfg):
    ins = tuple(p.value for p in kernel.params[:-1])
    if cfg.split_k > 1:     # partial sums in the workspace, summed by each tile's last block
        return render_config(kernel.expr, cfg, kernel.expr.name, "y", ins, workspace="ws")
    return render_config(kernel.expr, cfg, kernel.expr.name, "y", ins)


def _run(kernel, arrays, cfgs, shape, out_offset_bytes=0):
    """Each configuration's output, both thread orders; the output starts `out_offset_bytes` past a
    16-byte boundary."""
    launches = [_render(kernel, c) for c in cfgs]
    outs = []
    for mode in ("default", "shuffle"):
        module = build_host_module(launches, mode=mode, seed=7)
        for k, cfg in zip(launches, cfgs):
            size = int(np.prod(shape))
            buf = np.full(size + 8, np.nan, np.float32)
            start = (-buf.ctypes.data // 4) % 4 + out_offset_bytes // 4
            y = buf[start:start + size].reshape(shape)
            assert y.ctypes.data % 16 == out_offset_bytes
            ws = [np.full(cfg.param("ws_elems"), np.nan, np.float32)] if cfg.split_k > 1 else []
            module.launch(k, arrays + ws + [y])
            assert np.isfinite(y).all(), f"{k.entry} ({mode}) left outputs unwritten"
            outs.append(y.copy())
    return outs


# (op, shapes, attrs, whether B's fragments and the stores can be vectors)
CASES = [
    ("MatMul", [(70, 48), (48, 40)], {}, True),                # ragged M and N
    ("MatMul", [(2, 3, 40, 32), (2, 3, 32, 20)], {}, True),    # two batch axes
    ("Gemm", [(33, 64), (24, 64), (24,)], {"transB": 1, "alpha": 0.5}, True),   # fused bias and scale
    ("MatMul", [(37, 20), (20, 42)], {}, False),                # N = 42: rows are not whole vectors
    ("Einsum", [(3, 24, 32), (32, 40)], {"equation": "bmk,kn->mnb"}, False),    # n is not innermost
]


@pytest.mark.parametrize("case", range(len(CASES)))
def test_every_form_is_right(case):
    op, shapes, attrs, b_vectors = CASES[case]
    rng = np.random.default_rng(case)
    arrays = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    kernel, ref = lower_single(op, arrays, attrs)
    forms = _forms(kernel)
    assert (True, b_vectors, 2) in forms and (False, False, 1) in forms, sorted(forms)
    if b_vectors:
        assert (True, True, 1) in forms and (True, False, 2) in forms, sorted(forms)
    scale = max(1.0, float(np.abs(ref).max()))
    for y in _run(kernel, arrays, list(forms.values()), ref.shape):
        np.testing.assert_allclose(y, ref, rtol=0, atol=1e-4 * scale)


def test_unaligned_output_gets_the_same_bits():
    """4 bytes past a 16-byte boundary (a caller's buffer), the vector-store form stores element
    by element and gives exactly the aligned output."""
    rng = np.random.default_rng(9)
    arrays = [rng.standard_normal(s).astype(np.float32) for s in ((70, 48), (48, 40))]
    kernel, ref = lower_single("MatMul", arrays, {})
    forms = _forms(kernel)
    cfgs = [forms[True, True, 1], forms[True, True, 2]]
    aligned = _run(kernel, arrays, cfgs, ref.shape)
    shifted = _run(kernel, arrays, cfgs, ref.shape, out_offset_bytes=4)
    for a, b in zip(aligned, shifted):
        np.testing.assert_array_equal(a, b)


def test_vector_reads_need_float_rows_of_whole_vectors():
    rng = np.random.default_rng(2)

    def te_of(op, shapes, attrs, dtype=np.float32):
        kernel, _ = lower_single(op, [rng.standard_normal(s).astype(dtype) for s in shapes], attrs)
        return kernel.expr

    te = te_of("MatMul", [(64, 32), (32, 64)], {})
    v = gemm_view(te)
    assert gemm_vector_reads(te, v, 4, 8, 64, 68) == (True, True)
    assert gemm_vector_reads(te, v, 2, 8, 64, 64) == (False, True)     # a thread tile of 2 rows
    assert gemm_vector_reads(te, v, 4, 4, 66, 65) == (False, False)    # rows not 16-byte aligned
    te = te_of("MatMul", [(64, 32), (32, 42)], {})
    assert gemm_vector_reads(te, gemm_view(te), 4, 4, 64, 44) == (True, False)
    te = te_of("MatMul", [(64, 32), (32, 64)], {}, np.float16)         # fp16 output: no 16-byte float rows
    assert gemm_vector_reads(te, gemm_view(te), 4, 4, 64, 64) == (True, False)


def test_the_model_counts_vector_reads_as_fewer_issue_slots():
    """The same tile with vector reads has the better issue efficiency, so the best fp32
    configuration of a large GEMM reads its fragments in vectors."""
    f32 = DType.float32
    kernel = lower_types("MatMul", [TensorType(f32, (4096, 1024)), TensorType(f32, (1024, 4096))],
                         TensorType(f32, (4096, 4096)), {})
    cfgs = _gemm_configs(kernel)
    assert _form(kernel, cfgs[0])[:2] == (True, True), cfgs[0].text()
    eight = [c for c in cfgs if c.tile("thread").size("m") == 8 and c.tile("thread").size("n") == 8]
    assert eight, "no 8x8 thread tile"
    w = eight[0].workload
    assert w.issue_efficiency == pytest.approx(64 / (64 + 2 + 2 + 2.0))


def _sass_counts(kernel):
    fn = sass_of(kernel, build_arch(TARGET.arch, kernel.arch_specific))
    lds128, stg128 = len(fn.having("LDS", "128")), len(fn.having("STG", "128"))
    return {"lds128": lds128, "lds": len(fn.having("LDS")) - lds128, "stg128": stg128,
            "stg": len(fn.having("STG")) - stg128, "local": len(fn.having("LDL")) + len(fn.having("STL"))}


@pytest.mark.parametrize("stages", [1, 2])
def test_sass_has_vector_fragment_reads_and_stores(stages, monkeypatch):
    """fp32 512x256 . 256x1024, an 8x8 thread tile: the vector form reads its fragments with
    LDS.128 (a quarter of the scalar form's LDS count, give or take the loader's) and stores with
    STG.E.128; neither form touches local memory (the prefetch registers do not spill)."""
    rng = np.random.default_rng(1)
    arrays = [rng.standard_normal(s).astype(np.float32) for s in ((512, 256), (256, 1024))]
    kernel, _ = lower_single("MatMul", arrays, {})
    cfg = next(c for c in _gemm_configs(kernel) if _form(kernel, c) == (True, True, stages)
               and c.tile("thread").size("m") == 8 and c.tile("thread").size("n") == 8)
    vec = _sass_counts(_render(kernel, cfg))
    monkeypatch.setattr(tiled, "gemm_vector_reads", lambda *a: (False, False))
    scalar = _sass_counts(_render(kernel, cfg))
    assert vec["lds128"] >= 2 * cfg.tile("block").size("k"), (vec, scalar)    # A and B each k step
    assert vec["stg128"] >= 1 and scalar["stg128"] == 0 and scalar["lds128"] == 0, (vec, scalar)
    assert scalar["lds"] >= 16 * cfg.tile("block").size("k"), (vec, scalar)   # 8 + 8 values each k step
    assert vec["local"] == 0 and scalar["local"] == 0, (vec, scalar)


def test_integer_contractions_keep_scalar_reads():
    """An int32 MatMul (4-byte values, but not floats) reads and stores element by element, and
    every candidate builds and is exact."""
    rng = np.random.default_rng(6)
    arrays = [rng.integers(-50, 50, s).astype(np.int32) for s in ((40, 32), (32, 48))]
    kernel, ref = lower_single("MatMul", arrays, {})
    cfgs = _gemm_configs(kernel)
    assert {_form(kernel, c)[:2] for c in cfgs} == {(False, False)}
    picked = list({(c.tile("thread").size("m"), c.param("stages")): c for c in cfgs}.values())
    assert any(c.tile("thread").size("m") % 4 == 0 for c in picked)
    launches = [_render(kernel, c) for c in picked]
    check_builds(launches)
    module = build_host_module(launches, mode="shuffle", seed=3)
    for k in launches:
        y = np.zeros(ref.shape, np.int32)
        module.launch(k, arrays + [y])
        np.testing.assert_array_equal(y, ref)


def test_vector_padding_costs_the_loader_conflicts_it_says():
    """docs/kernel-kinds.md's figures: for an operand whose k is innermost, the 16-byte-row paddings
    leave the loader's stores conflict-free at k steps of 8, 2-way at 16 and 4-way at 32, where
    the finer paddings (1, 2) are conflict-free at all three."""
    from compiler.kinds.gemm import PADS, VECTOR_PADS, _store_padding
    from compiler.roller.construct import bank_conflict_ways

    def ways(rows, bk, pads):
        ld = rows + _store_padding(rows, bk, True, 1, TARGET, pads)
        lanes = range(TARGET.warp_size)
        return bank_conflict_ways([(lane % bk) * ld + lane // bk for lane in lanes], TARGET.shared_banks)

    for rows in (32, 64, 128):
        assert [ways(rows, bk, VECTOR_PADS) for bk in (8, 16, 32)] == [1, 2, 4]
        assert [ways(rows, bk, PADS) for bk in (8, 16, 32)] == [1, 1, 1]


def _empty_last_slice(cfg, K):
    """Whether the configuration's last slice of K gets no k tile (ceil(k tiles / split) per slice)."""
    kt = -(-K // cfg.tile("block").size("k"))
    per = -(-kt // cfg.split_k)
    return (cfg.split_k - 1) * per >= kt


@pytest.mark.parametrize("shape", [(7, 280, 30), (2, 3, 20, 300, 18)])
def test_split_k_forms_are_right(shape):
    """Few output tiles over a long K: the model picks split-K (each tile's k tiles divided among
    blocks, whose partial sums the tile's last block adds in slice order, then the epilogue).
    Every split factor offered (powers of two and the wave-filling ones), one and two stages,
    ragged M, N and K, a last slice with no k tile at all: right on the host harness in both thread orders; a large square GEMM stays unsplit."""
    rng = np.random.default_rng(len(shape))
    *batch, m, k, n = shape
    arrays = [rng.standard_normal((*batch, m, k)).astype(np.float32), rng.standard_normal((k, n)).astype(np.float32)]
    kernel, ref = lower_single("MatMul", arrays, {})
    cfgs = _gemm_configs(kernel)
    assert cfgs[0].split_k > 1, cfgs[0].text()
    picked = {}
    for c in cfgs:
        picked.setdefault((c.split_k, c.param("stages")), c)
    empty = next((c for c in cfgs if c.split_k > 1 and _empty_last_slice(c, k)), None)
    assert empty is not None
    chosen = list(picked.values()) + [empty]
    assert {c.split_k for c in chosen} >= {1, 2, 4, 8, 16} and {c.param("stages") for c in chosen} == {1, 2}
    # and the wave-filling splits (tc_gemm.split_k_factors), which are not powers of two
    assert any(c.split_k & (c.split_k - 1) for c in chosen)
    check_builds([_render(kernel, c) for c in chosen])
    for y in _run(kernel, arrays, chosen, ref.shape):
        np.testing.assert_allclose(y, ref, rtol=0, atol=1e-4 * max(1.0, float(np.abs(ref).max())))
    f32 = DType.float32
    square = lower_types("MatMul", [TensorType(f32, (2048, 1024)), TensorType(f32, (1024, 2048))],
                         TensorType(f32, (2048, 2048)), {})
    assert _gemm_configs(square)[0].split_k == 1


def test_split_factors_fill_whole_waves():
    """BERT-base's 24 output tiles of 128 x 128 over 96 k tiles on an h100 (132 SMs): the powers of
    two leave block slots empty (192 of 264 at 8 slices), so the factors also hold 5 and 11
    (120 and 264 blocks: one and two whole waves of a block an SM) and one fewer each; none
    passes two blocks an SM (16 would), and every slice has two k tiles at least. Tiles that fill the SMs
    are never split. The tensor-core kinds keep the powers of two."""
    from compiler.kinds.tc_gemm import split_k_factors
    h100 = TARGET          # an h100: 132 SMs
    assert h100.sms == 132
    factors = split_k_factors(24, 96, h100, waves=True)
    assert factors == [1, 2, 4, 5, 8, 10, 11], factors
    assert all(24 * s <= 2 * h100.sms and 96 >= 2 * s for s in factors)
    assert split_k_factors(24, 12, h100, waves=True) == [1, 2, 4, 5]       # slices of two k tiles at least
    assert split_k_factors(h100.sms, 96, h100, waves=True) == [1]
    assert split_k_factors(24, 96, h100) == [1, 2, 4, 8]      # the tensor-core kinds' powers of two
