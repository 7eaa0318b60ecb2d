"""On a GPU: the ops of the hybrid and mixture-of-experts LLMs onnxruntime-genai's builder writes
(LFM2, LFM2-MoE): com.microsoft CausalConvWithState, MoE and 4-bit QMoE, built by NVRTC and run
through CuPy against onnxruntime's CPU kernels, on the cases tests/ops checks on the host harness."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from tests.gpu import gpu_module

cupy, pytestmark = gpu_module()

from tests.ops.test_contrib_attention import ort_run  # noqa: E402
from tests.ops.test_contrib_causal_conv import CASES as CONV_CASES, conv_case  # noqa: E402
from tests.ops.test_contrib_moe import CASES as MOE_CASES, moe_case, qmoe_case  # noqa: E402


def _run_on_gpu(data: bytes, feeds: dict) -> dict:
    from compiler import compile
    from compiler.runtime.executor import Executor, make_backend
    from compiler.runtime.gpu import device_arch
    from compiler.targets import get_target
    target = dataclasses.replace(get_target("h100"), arch=device_arch())
    art = compile(data, target)
    return Executor(art.plan, make_backend("gpu", cubins=art.cubins, arch=target.arch)).run(feeds)


def _check(got: dict, want: dict, tol: float, what: str) -> None:
    for n, w in want.items():
        err = float(np.abs(got[n].astype(np.float32) - w.astype(np.float32)).max() / max(1.0, float(np.abs(w).max())))
        print(f"{what} {n}: max error {err:.2e}")
        assert err <= tol, (what, n, err)


@pytest.mark.parametrize("name", ["prompt_state_bias_silu", "lfm2_decode", "fp16"])
def test_causal_conv_with_state_on_gpu(name):
    case = CONV_CASES[name]
    data, feeds = conv_case(**case)
    _check(_run_on_gpu(data, feeds), ort_run(data, feeds), 2e-3 if case.get("dtype") is np.float16 else 1e-5, name)


@pytest.mark.parametrize("name", ["gpt_oss_swiglu", "lfm2_swiglu", "decode_one_token", "fp16"])
def test_moe_on_gpu(name):
    case = MOE_CASES[name]
    data, feeds = moe_case(**case)
    _check(_run_on_gpu(data, feeds), ort_run(data, feeds), 2e-2 if case.get("dtype") is np.float16 else 1e-5, name)


@pytest.mark.parametrize("block,zero_points", [(32, False), (0, True)])
def test_qmoe_on_gpu(block, zero_points):
    data, feeds = qmoe_case(4, 64, 32, 4, 2, block, zero_points)
    _check(_run_on_gpu(data, feeds), ort_run(data, feeds), 1e-5, f"qmoe block {block} zp {zero_points}")
