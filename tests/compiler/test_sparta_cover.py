"""SparTA's weighted cover (issue 16, item 3): a weight whose non-zeros fill some tiles and are
scattered elsewhere becomes the tiles that pay (BCSR) plus an ELL remainder added in the same
kernel's epilogue; right against onnxruntime on the host harness (both thread orders, and under
ASan: the remainder gathers by index), fewer FLOPs, and left alone where it does not pay."""
from __future__ import annotations

import numpy as np
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

import compiler
from compiler.codegen.cuda import UNROLLED_FOLD_TRIPS
from compiler.context import CompileOptions
from compiler.passes.sparta_cover import COVER_MARGIN, _splits
from compiler.runtime.executor import Executor, HostBackend


def _compile(model, *disable):
    return compiler.compile(model, "h100", CompileOptions(build=False, disable=disable))


def _matmul(m, k, n, *, block=32, keep=0.0, scatter=0.0, weight_first=False, seed=0):
    """x @ W + b through GELU (or W @ x + b through ReLU): W pruned to `keep` of its block x block
    tiles plus `scatter` of its elements anywhere (the outliers a block pruning kept)."""
    rng = np.random.default_rng(seed)
    shape = (m, k) if weight_first else (k, n)
    w = rng.standard_normal(shape).astype(np.float32)
    tiles = rng.random((-(-shape[0] // block), -(-shape[1] // block))) < keep
    w *= np.kron(tiles, np.ones((block, block), bool))[:shape[0], :shape[1]] | (rng.random(shape) < scatter)
    x_shape = (k, n) if weight_first else (m, k)
    bias = rng.standard_normal((n,)).astype(np.float32)
    nodes = [helper.make_node("MatMul", ["W", "x"] if weight_first else ["x", "W"], ["y"]),
             helper.make_node("Add", ["y", "b"], ["yb"]),
             helper.make_node("Relu" if weight_first else "Gelu", ["yb"], ["z"])]
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(x_shape))],
                          [helper.make_tensor_value_info("z", TensorProto.FLOAT, [None, None])],
                          [numpy_helper.from_array(w, "W"), numpy_helper.from_array(bias, "b")])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 20)], ir_version=9), \
        rng.standard_normal(x_shape).astype(np.float32)


def _conv(scatter, seed=0):
    """A 3x3 convolution (padding 1) whose weight keeps `scatter` of its elements: the remainder's
    k index is (channel, kh, kw), read through the input's padding guard."""
    rng = np.random.default_rng(seed)
    w = rng.standard_normal((64, 32, 3, 3)).astype(np.float32)
    w *= rng.random(w.shape) < scatter
    nodes = [helper.make_node("Conv", ["x", "W"], ["y"], pads=[1, 1, 1, 1]), helper.make_node("Relu", ["y"], ["z"])]
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 32, 16, 16])],
                          [helper.make_tensor_value_info("z", TensorProto.FLOAT, [None] * 4)],
                          [numpy_helper.from_array(w, "W")])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)], ir_version=8), \
        rng.standard_normal((1, 32, 16, 16)).astype(np.float32)


# Rows enough that the dense kernel fills the SMs without splitting K: at fewer (64 rows of a
# 512 x 512 weight) split-K leaves every form at the micro-model's latency floor, and the cover,
# priced unsplit (its remainder runs in the epilogue), is no longer COVER_MARGIN faster
CASES = {
    "block tiles and outliers": lambda: _matmul(512, 512, 512, keep=0.15, scatter=0.003),
    "scattered only (ELL)": lambda: _matmul(512, 512, 512, scatter=0.02),
    "weight as A": lambda: _matmul(384, 256, 96, keep=0.2, scatter=0.005, weight_first=True),
    "ragged edges": lambda: _matmul(300, 200, 90, block=16, keep=0.2, scatter=0.01),
    "conv 3x3": lambda: _conv(0.01),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_mixed_weight_is_covered_right_and_cheaper(case):
    model, x = CASES[case]()
    want = ort.InferenceSession(model.SerializeToString()).run(None, {"x": x})[0]
    art = _compile(model)
    (entry,) = art.report["sparsity"]["kernels"]
    assert entry["chosen"] == "cover", entry
    us = entry["predicted_us"]
    # the tile part alone (block-sparse) walks nearly every tile: a stray non-zero keeps one
    assert us["cover"] * COVER_MARGIN < min(us["dense"], us.get("block_sparse", us["dense"])), us
    assert entry["cover"]["ell"] >= 1 and entry["flops_executed"] < 0.5 * entry["flops_dense"], entry
    (kernel,) = [k for k in art.report["kernels"] if k["config"].get("format") == "bcsr+ell"]
    assert kernel["flops"]["executed"] < kernel["flops"]["dense"]
    # the plan reads the two parts; the pruned weight itself is gone from it
    consts = dict(art.plan.constants)
    assert "W" not in consts and {"W.cover_tiles", "W.cover_idx", "W.cover_val"} <= set(consts)
    # DRAM: the buffers the launch touches (the ELL tables whole), less the tile part's zero tiles
    (launch,) = [k for k in art.plan.kernels() if dict(k.config).get("format") == "bcsr+ell"]
    types = dict(art.plan.types)
    touched = sum(types[v].nbytes for v in {p.value for p in launch.params})
    skipped = kernel["config"]["skipped_bytes"]
    assert 0 < skipped <= consts["W.cover_tiles"].type.nbytes      # all of it when no tile is kept (ELL only)
    assert kernel["dram_bytes"] == touched - skipped
    for mode in ("default", "shuffle", "asan"):
        got = Executor(art.plan, HostBackend(mode=mode, seed=3)).run({"x": x})["z"]
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4, err_msg=mode)
    off = _compile(model, "sparta")
    assert not any(k["config"].get("format") for k in off.report["kernels"])


def test_a_weight_of_whole_zero_tiles_keeps_its_block_sparse_kernel():
    """Zeros in whole 32x32 tiles: every threshold above "all non-zero tiles" only moves whole
    tiles into the remainder, which costs more than walking them; block-sparse stays."""
    model, _ = _matmul(128, 256, 128, keep=0.25)
    (entry,) = _compile(model).report["sparsity"]["kernels"]
    assert entry["chosen"] == "block_sparse", entry


def test_half_the_weight_scattered_is_not_worth_a_remainder():
    """50% unstructured: the remainder would be half of K per output, gathered: dense stays."""
    model, _ = _matmul(64, 256, 128, scatter=0.5)
    art = _compile(model)
    (entry,) = art.report["sparsity"]["kernels"]
    assert entry["chosen"] == "dense" and entry["why"], entry
    assert [k.digest for k in art.plan.kernels()] == [k.digest for k in _compile(model, "sparta").plan.kernels()]


def test_splits_keep_the_tiles_at_or_above_each_threshold_and_measure_the_remainder():
    """A [4, 8] mask at 2x4 blocks: block (0, 0) full (8 non-zeros), block (1, 1) with 2, block
    (0, 1) with 1; the thresholds past the smallest count are 2, 8 and 9 (no block kept)."""
    nz = np.zeros((4, 8), bool)
    nz[0:2, 0:4] = True
    nz[2, 5] = nz[3, 6] = True
    nz[1, 7] = True
    splits = {int(kept.sum()): (kept, offsets, ktiles, ell) for kept, offsets, ktiles, ell in _splits(nz, 2, 4)}
    assert sorted(splits) == [0, 1, 2]
    kept, offsets, ktiles, ell = splits[2]          # t = 2: blocks (0, 0) and (1, 1)
    assert offsets == (0, 1, 2) and ktiles == (0, 1) and ell == 1      # row 1's outlier at k 7
    kept, offsets, ktiles, ell = splits[1]          # t = 8: block (0, 0) only
    assert offsets == (0, 1, 1) and ktiles == (0,) and ell == 1
    kept, offsets, ktiles, ell = splits[0]          # t = 9: everything in the remainder
    assert offsets == (0, 0, 0) and ktiles == () and ell == 5          # row 1: 4 + 1


def test_an_operand_interleaved_with_the_other_is_not_covered():
    """x[i, r] * W[r, j] * s[j] built left to right: W's side (W * s) is no subtree of the body,
    so the tiles could not replace it; a cover would add its remainder to an unchanged sum."""
    from compiler.analysis.views import gemm_view
    from compiler.ir.dtypes import DType
    from compiler.ir.graph import Constant, TensorType
    from compiler.ir.texpr import Reduce, TensorExpr, load, out_vars, reduce_vars
    from compiler.passes.sparta_cover import _search
    from compiler.targets import get_target
    m, k, n = 64, 256, 128
    x, w, s, y = (TensorType(DType.float32, (m, k)), TensorType(DType.float32, (k, n)),
                  TensorType(DType.float32, (n,)), TensorType(DType.float32, (m, n)))
    i, j = out_vars(2)
    (r,) = reduce_vars(1)
    te = TensorExpr("mm", (x, w, s), y, (load(0, x, (i, r)) * load(1, w, (r, j))) * load(2, s, (j,)),
                    Reduce("sum", (("r0", k),)))
    rng = np.random.default_rng(0)
    consts = {"W": Constant.from_array((rng.standard_normal((k, n)) * (rng.random((k, n)) < 0.02)).astype(np.float32)),
              "s": Constant.from_array(rng.standard_normal(n).astype(np.float32))}
    assert gemm_view(te).b not in (te.body.a, te.body.b)
    assert _search(te, ("x", "W", "s"), consts, get_target("h100"), {}) is None
    # the same weight as one factor is covered
    te2 = te.replace(inputs=(x, w), body=load(0, x, (i, r)) * load(1, w, (r, j)))
    assert _search(te2, ("x", "W"), consts, get_target("h100"), {}) is not None


def test_the_remainder_in_an_unrolled_epilogue_is_a_loop_and_does_not_spill():
    """A tiled kind's epilogue is unrolled over a thread's outputs; the ELL remainder's fold in it
    is rendered as a rolled loop (BY_ROLLED), else every output carries its own copy of the terms
    and ptxas spills (at BERT-base's FFN: bench/results/spmm-dry-20261124T110802Z.json). The
    kernel as NVRTC builds it: no spill."""
    model, _ = _matmul(128, 768, 768, scatter=0.03, seed=4)
    art = compiler.compile(model, "h100", CompileOptions())
    (kernel,) = [k for k in art.report["kernels"] if k["config"].get("format") == "bcsr+ell"]
    (launch,) = [k for k in art.plan.kernels() if dict(k.config).get("format") == "bcsr+ell"]
    assert "BY_ROLLED for (int ell_j" in launch.source
    (entry,) = art.report["sparsity"]["kernels"]
    assert entry["cover"]["ell"] > UNROLLED_FOLD_TRIPS        # terms per output: a fold that is rolled
    assert kernel["spills"] == 0 and kernel["registers"] < 255, kernel


@pytest.mark.parametrize("case", ["block tiles and outliers", "scattered only (ELL)", "weight as A"])
def test_the_bounded_search_chooses_what_pricing_every_split_exactly_does(case, monkeypatch):
    """The cover and block-sparse searches price every configuration with a lower bound of the
    busiest SM's share first and simulate only those the bound does not rule out (the
    block-sparse search ranks them by a floor before that): the same choices as simulating them
    all (the bound replaced by the exact share, the floor by that of a table of no tiles), with
    fewer simulations."""
    from compiler.passes import sparta_specialize
    model, _ = CASES[case]()
    calls = []
    exact = sparta_specialize.grid_busiest_share.__wrapped__

    def counted(*args):
        calls.append(args)
        return exact(*args)
    monkeypatch.setattr(sparta_specialize, "grid_busiest_share", counted)
    bounded = _compile(model).report["sparsity"]["kernels"]
    simulated = len(calls)
    monkeypatch.setattr(sparta_specialize, "least_busiest_share", counted)
    fewest = sparta_specialize.fewest_tiles
    monkeypatch.setattr(sparta_specialize, "fewest_tiles", lambda nonzeros, *shape: fewest(0, *shape))
    calls.clear()
    everything = _compile(model).report["sparsity"]["kernels"]
    assert bounded == everything
    assert bounded[0]["chosen"] == "cover" and simulated < len(calls) / 2, (simulated, len(calls))
