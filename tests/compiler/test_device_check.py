"""Targets against a device's properties (the dict cudaGetDeviceProperties gives), without a GPU."""
from __future__ import annotations

import pytest

from compiler.targets import get_target
from compiler.targets.device_check import EXACT_FIELDS, compare, corrected

# What an H100 SXM reports (CUDA's documented limits for compute capability 9.0, 132 SMs, 50 MiB L2)
H100_SXM = {"name": "NVIDIA H100 80GB HBM3", "major": 9, "minor": 0, "multiProcessorCount": 132, "warpSize": 32,
            "maxThreadsPerBlock": 1024, "maxThreadsPerMultiProcessor": 2048, "regsPerMultiprocessor": 65536,
            "regsPerBlock": 65536, "sharedMemPerMultiprocessor": 233472, "sharedMemPerBlockOptin": 232448,
            "sharedMemPerBlock": 49152, "l2CacheSize": 52428800, "maxBlocksPerMultiProcessor": 32,
            "totalGlobalMem": 81559 * 2**20}   # what nvidia-smi showed on the H100 lent to this project


def test_the_h100_preset_matches_an_h100_sxm():
    assert compare(get_target("h100"), H100_SXM) == []


def test_a_pcie_board_is_reported_and_corrected():
    pcie = dict(H100_SXM, name="NVIDIA H100 PCIe", multiProcessorCount=114)
    t = get_target("h100")
    assert [m.line() for m in compare(t, pcie)] == ["sms: target 132, device 114"]
    fixed = corrected(t, pcie)
    assert fixed.sms == 114 and fixed.fp16_tc_tflops == t.fp16_tc_tflops and fixed.key != t.key
    assert compare(fixed, pcie) == []


def test_wrong_architecture_is_refused_and_unreported_fields_skipped():
    a100 = dict(H100_SXM, major=8, minor=0)
    assert compare(get_target("h100"), a100)[0].line() == "arch: target sm_90, device sm_80"
    with pytest.raises(ValueError, match="the device is sm_80"):
        corrected(get_target("h100"), a100)
    partial = {"major": 9, "minor": 0, "multiProcessorCount": 132}
    assert compare(get_target("h100"), partial) == []
    assert set(EXACT_FIELDS) <= {f for f in get_target("h100").describe()}


def test_device_memory_of_another_board_is_reported_and_corrected():
    nvl = dict(H100_SXM, name="NVIDIA H100 NVL", totalGlobalMem=95830 * 2**20)
    t = get_target("h100")
    assert [m.field for m in compare(t, nvl)] == ["memory_bytes"]
    assert corrected(t, nvl).memory_bytes == 95830 * 2**20
    h200 = dict(H100_SXM, totalGlobalMem=143771 * 2**20)   # an H200's 141 GB as nvidia-smi showed it
    assert "memory_bytes" not in [m.field for m in compare(get_target("h200"), h200)]
