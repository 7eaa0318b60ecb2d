"""Targets, the micro-performance model and determinism of the construction."""
from __future__ import annotations

import dataclasses
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from compiler.kinds import construct_rtiles
from compiler.roller.micro_model import blocks_per_sm, predict, predict_workload
from compiler.ir.tiles import Workload
from compiler.targets import PRESETS, get_target
from tests.roller.single_op import candidate_kernels, lower_single

REPO = Path(__file__).resolve().parents[2]


def test_presets_have_every_number_the_model_needs():
    for t in PRESETS.values():
        for f in ("sms", "warp_size", "registers_per_sm", "registers_per_block", "max_registers_per_thread",
                  "shared_per_sm", "shared_per_block", "shared_per_block_default", "transaction_bytes",
                  "shared_banks", "max_blocks_per_sm", "dram_gbps", "l2_gbps", "shared_gbps_per_sm",
                  "fp32_tflops", "fp64_tflops", "fp16_tflops", "int32_tops"):
            assert getattr(t, f) > 0, (t.name, f)
        assert t.shared_per_block <= t.shared_per_sm and t.registers_per_block <= t.registers_per_sm
        assert t.simt_tflops("float32") == t.fp32_tflops
        if t.sm_version >= 80:
            assert t.mma_shape("float16") == (16, 8, 16) and t.mma_shape("float32") == (16, 8, 8)
    assert get_target("t4").mma_shape("float32") is None
    spec = dataclasses.asdict(get_target("a100")) | {"name": "mine", "max_blocks_per_sm": 16}
    assert get_target(spec).max_blocks_per_sm == 16


def _w(**kw):
    base = dict(blocks=1000, threads=256, shared_bytes=16384, registers=64, flops=2e9, compute_dtype="float32",
                dram_bytes=8e6, l2_bytes=4e7, shared_bytes_moved=1e8, ilp=16.0, issue_efficiency=0.8)
    return Workload(**(base | kw))


def test_occupancy_limits():
    h100 = get_target("h100")
    assert blocks_per_sm(_w(), h100) == min(2048 // 256, 65536 // (64 * 256), 228 * 1024 // 16384)
    assert blocks_per_sm(_w(shared_bytes=h100.shared_per_block + 1), h100) == 0
    assert blocks_per_sm(_w(registers=300), h100) == 0
    assert math.isinf(predict_workload(_w(threads=2048), h100).us)


def test_model_levels_and_waves():
    h100, t4 = get_target("h100"), get_target("t4")
    p = predict_workload(_w(), h100)
    assert p.us >= max(p.compute_us, p.dram_us, p.l2_us, p.shared_us)
    assert p.bound in ("compute", "dram", "l2", "shared", "pipeline")
    # twice the blocks (same work per block) is never faster; more waves on a smaller GPU
    assert predict_workload(_w(blocks=2000, flops=4e9), h100).us >= p.us
    assert predict_workload(_w(), t4).waves > p.waves
    assert predict_workload(_w(), t4).us > p.us
    # DRAM-bound workloads scale with bytes
    big = predict_workload(_w(dram_bytes=8e9, flops=1e6), h100)
    assert big.bound == "dram" and big.dram_us == pytest.approx(8e9 / (h100.dram_gbps * 1e3), rel=1e-6)


def test_pipeline_bound():
    """A k-loop's serial round trips bound a wave's time (k-tiles over the stages in flight, after
    the first, which the wave's latency term counts, times the L2 latency); the term is 0 for a
    workload without one (or with one round trip) and sets the time when it is the
    longest; BERT-base's batch-1 FFN GEMM (128 x 768 . 768 x 3072, fp16) gets a candidate with at
    most 8 serial steps, not the 48 of 16-deep k-tiles in 2 stages."""
    h100 = get_target("h100")
    assert predict_workload(_w(), h100).pipeline_us == predict_workload(_w(serial_steps=1.0), h100).pipeline_us == 0.0
    p = predict_workload(_w(serial_steps=400.0), h100)
    assert p.pipeline_us == pytest.approx(p.waves * 399 * h100.l2_latency_ns * 1e-3)
    assert p.bound == "pipeline" and p.us >= p.pipeline_us > max(p.compute_us, p.dram_us, p.l2_us, p.shared_us)
    rng = np.random.default_rng(0)
    a, w = rng.standard_normal((128, 768)).astype(np.float16), rng.standard_normal((768, 3072)).astype(np.float16)
    kernel, _ = lower_single("MatMul", [a, w], {})
    best = construct_rtiles(kernel.expr, h100, 8)[0]
    assert best.workload.serial_steps <= 8, best.text()
    nk = math.ceil(768 / best.tile("block").size("k"))
    assert best.workload.serial_steps == pytest.approx(nk / max(1, best.param("stages") - 1))


def test_candidates_ranked_by_model():
    rng = np.random.default_rng(0)
    kernel, _ = lower_single("MatMul", [rng.standard_normal((256, 192)).astype(np.float32),
                                        rng.standard_normal((192, 320)).astype(np.float32)], {})
    target = get_target("a100")
    cfgs = construct_rtiles(kernel.expr, target, 8)
    times = [predict(c, target).us for c in cfgs]
    assert len(cfgs) == 8 and times == sorted(times) and all(math.isfinite(t) for t in times)
    assert len({c.key for c in cfgs}) == 8
    # a big enough GEMM fills the machine: at least one wave over all SMs for the best candidate
    assert cfgs[0].workload.blocks >= target.sms or cfgs[0].workload.threads * cfgs[0].workload.blocks >= 8192


def test_small_ops_shrink_to_fill_the_sms():
    rng = np.random.default_rng(1)
    kernel, _ = lower_single("MatMul", [rng.standard_normal((64, 128)).astype(np.float32),
                                        rng.standard_normal((128, 128)).astype(np.float32)], {})
    best = construct_rtiles(kernel.expr, get_target("h100"), 1)[0]
    blk = best.tile("block")
    assert blk.size("m") * blk.size("n") < 64 * 128 and best.workload.blocks > 1


def test_construction_is_deterministic():
    rng = np.random.default_rng(2)
    kernel, _ = lower_single("Conv", [rng.standard_normal((1, 3, 9, 9)).astype(np.float32),
                                      rng.standard_normal((5, 3, 3, 3)).astype(np.float32)], {"pads": [1, 1, 1, 1]})
    a = candidate_kernels(kernel, k=4)
    b = candidate_kernels(kernel, k=4)
    assert [c.key for c, _ in a[1]] == [c.key for c, _ in b[1]]
    assert [k.source for _, k in a[1]] == [k.source for _, k in b[1]]


def test_construction_is_deterministic_across_processes():
    code = ("import numpy as np\nfrom tests.roller.single_op import lower_single, candidate_kernels\n"
            "r = np.random.default_rng(2)\n"
            "k, _ = lower_single('MatMul', [r.standard_normal((33, 20)).astype(np.float32), "
            "r.standard_normal((20, 47)).astype(np.float32)], {})\n"
            "print([c.key for c, _ in candidate_kernels(k, k=4)[1]], [x.entry for _, x in candidate_kernels(k, k=4)[1]])\n")
    outs = []
    for seed in ("1", "2"):
        env = dict(os.environ, PYTHONHASHSEED=seed, PYTHONPATH=str(REPO))
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=REPO)
        assert r.returncode == 0, r.stderr
        outs.append(r.stdout)
    assert outs[0] == outs[1]
