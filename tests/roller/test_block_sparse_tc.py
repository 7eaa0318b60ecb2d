"""SparTA's block-sparse kernels on tensor cores (issue 16): kind `block_sparse_tc_gemm`, tc_gemm's
mma.sync pipeline walking only each block row's listed k tiles.

Every tiling drawn (1-4 shared stages, split-K, each loader) is rendered with a pattern at its own
tiles, built with NVRTC for sm_80 and sm_90 without spills, and run on the host harness (its mma,
ldmatrix and cp.async emulation) in fixed and shuffled thread order against the naive kernel of
the same rounded operands: skipped tiles are exactly zero, so only the order of the sums differs.
Then through the pipeline: a pruned weight at fp16 gets the kind where the micro-model prices it
faster, and a dense model is left as it was."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

import compiler
from compiler.context import CompileOptions
from compiler.ir.plan import LaunchStep
from compiler.kinds import block_sparse_tc_gemm
from compiler.passes.sparta_specialize import bcsr, sliced_evenly
from compiler.runtime.executor import Executor, HostBackend
from tests.roller.test_tensor_core import diverse, prepare, run_candidates, tc_configs


def _pruned(rng, shape, block, keep, empty):
    """A weight whose `block` x `block` tiles are kept with probability `keep`, and whose tiles
    along `empty` (rows 0:block of axis 0, or columns of axis 1) are all zero: a block row of the
    operand with no k tile to walk."""
    w = rng.standard_normal(shape).astype(np.float32)
    grid = (-(-shape[0] // block), -(-shape[1] // block))
    mask = rng.random(grid) < keep
    if empty == 0:
        mask[0, :] = False
    else:
        mask[:, 0] = False
    return w * np.kron(mask, np.ones((block, block)))[:shape[0], :shape[1]].astype(np.float32)


def _sparse(cfg, operand: str, nonzero: np.ndarray):
    """`cfg` (a tc_gemm configuration) as block_sparse_tc_gemm with the pattern at its own tiles;
    None where the search would not offer it: no tile skipped, or more slices than the longest
    block row lists tiles."""
    blk = cfg.tile("block")
    offsets, ktiles = bcsr(nonzero, blk.size("n" if operand == "b" else "m"), blk.size("k"))
    if len(ktiles) == (len(offsets) - 1) * -(-nonzero.shape[1] // blk.size("k")) or not sliced_evenly(cfg, offsets):
        return None
    return dataclasses.replace(cfg, kind=block_sparse_tc_gemm.NAME, params=cfg.params + (
        ("operand", operand), ("bcsr_offsets", offsets), ("bcsr_ktiles", ktiles)))


def _has_empty_row(cfg) -> bool:
    """Whether a block row of the sparse operand lists no k tile."""
    offsets = cfg.param("bcsr_offsets")
    return any(a == b for a, b in zip(offsets, offsets[1:]))


CASES = [
    # (x rows, K, W cols, block, weight first, precisions): a skinny one splits K
    (16, 512, 64, 32, False, ("fp16", "bf16", "tf32")),
    (37, 200, 90, 16, False, ("fp16",)),       # ragged M, N and K: guarded edges, a ragged last k tile
    (48, 160, 40, 16, True, ("fp16",)),        # the weight as A (W @ x)
]


@pytest.mark.parametrize("m,k,n,block,weight_first,precisions", CASES)
def test_every_tiling_walks_only_its_listed_tiles_and_is_right(m, k, n, block, weight_first, precisions):
    rng = np.random.default_rng(m + k + n)
    w = _pruned(rng, (m, k) if weight_first else (k, n), block, 0.35, empty=0 if weight_first else 1)
    x = rng.standard_normal((k, n) if weight_first else (m, k)).astype(np.float32)
    arrays, const = ([w, x], (0,)) if weight_first else ([x, w], (1,))
    # the sparse operand's [rows, K] mask as the view reads it: W's rows (A) or W's columns (B)
    operand, nonzero = ("a", w != 0) if weight_first else ("b", (w != 0).T)
    splits, stages, empty_rows = set(), set(), set()
    for precision in precisions:
        kernel, values, ref = prepare("MatMul", arrays, {}, precision, const)
        offered = (_sparse(c, operand, nonzero) for c in tc_configs(kernel, "a100", precision))
        every = [c for c in offered if c is not None]
        # the best of each pipeline depth and split, then of each other kind of tiling, and the
        # best whose tiles leave a block row with no tile to walk (its blocks write zeros)
        firsts = list({(c.param("stages"), c.split_k > 1): c for c in reversed(every)}.values())
        hollow = [c for c in every if _has_empty_row(c)][:1]
        cfgs = list(dict.fromkeys(firsts + diverse(every, 6) + hollow))
        splits |= {c.split_k > 1 for c in cfgs}
        stages |= {c.param("stages") for c in cfgs}
        empty_rows |= {_has_empty_row(c) for c in cfgs}
        run_candidates(kernel, values, ref, precision, cfgs)
    assert len(stages) > 1      # the prologue of S - 1 tiles in flight, or one stage (unaligned: no cp.async)
    assert True in empty_rows
    if m == 16:
        assert splits == {False, True}      # split slices divide a row's listed tiles


def _matmul_model(w: np.ndarray, m: int):
    g = helper.make_graph([helper.make_node("MatMul", ["x", "W"], ["y"]), helper.make_node("Relu", ["y"], ["z"])],
                          "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [m, w.shape[0]])],
                          [helper.make_tensor_value_info("z", TensorProto.FLOAT, [None, None])],
                          [numpy_helper.from_array(w, "W")])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])


def _compile(model, precision, *disable):
    return compiler.compile(model, "h100", CompileOptions(build=False, precision=precision, disable=disable))


@pytest.mark.parametrize("precision", ["fp16", "bf16"])
def test_a_pruned_weight_at_half_precision_gets_the_tensor_core_kind(precision):
    rng = np.random.default_rng(3)
    w = _pruned(rng, (512, 256), 32, 0.2, empty=1)
    model = _matmul_model(w, 64)
    on, off = _compile(model, precision), _compile(model, precision, "sparta")
    (entry,) = on.report["sparsity"]["kernels"]
    assert entry["chosen"] == "block_sparse" and entry["kind"] == block_sparse_tc_gemm.NAME, entry
    assert entry["flops_executed"] < 0.5 * entry["flops_dense"]
    assert entry["predicted_us"]["block_sparse"] < entry["predicted_us"]["dense"]
    (sparse,) = [s.kernel for s in on.plan.steps if isinstance(s, LaunchStep) and "by_bcsr" in s.kernel.source]
    assert "mma" in sparse.source and dict(sparse.config)["schedule"] == f"roller_{block_sparse_tc_gemm.NAME}"
    assert on.report["latency"]["predicted_us"] < off.report["latency"]["predicted_us"]
    x = rng.standard_normal((64, 512)).astype(np.float32)
    dense = Executor(off.plan, HostBackend()).run({"x": x})["z"]
    want = np.maximum(x.astype(np.float64) @ w, 0)
    np.testing.assert_allclose(dense, want, rtol=0, atol=0.05 * np.abs(want).max())
    for mode in ("default", "shuffle"):
        got = Executor(on.plan, HostBackend(mode=mode, seed=2)).run({"x": x})["z"]
        # the dense kernel's sums less the zero tiles: the same up to their order
        np.testing.assert_allclose(got, dense, rtol=0, atol=1e-4 * np.abs(dense).max())


def test_a_dense_model_at_fp16_gets_the_same_kernels_as_with_sparta_off(models_dir):
    path = str(models_dir / "bert.onnx")
    on, off = _compile(path, "fp16"), _compile(path, "fp16", "sparta")
    assert [k.digest for k in on.plan.kernels()] == [k.digest for k in off.plan.kernels()]
