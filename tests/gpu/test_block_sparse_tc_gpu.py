"""On a GPU: the block-sparse tensor-core kernels (kind block_sparse_tc_gemm) of a pruned MatMul at
fp16 and bf16, against the dense tensor-core plan (--disable sparta) on the same device, the case
of tests/roller/test_block_sparse_tc.py.

What the host harness cannot prove: that NVRTC compiles the BCSR tables (device constants) and the
cp.async pipeline stepping through them as the harness runs them, on the device."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from tests.gpu import gpu_module

cupy, pytestmark = gpu_module()

from tests.roller import test_block_sparse_tc as bs  # noqa: E402


@pytest.mark.parametrize("precision", ["fp16", "bf16"])
def test_block_sparse_tensor_core_matmul_on_gpu(precision):
    import compiler
    from compiler.context import CompileOptions
    from compiler.runtime.executor import Executor, make_backend
    from compiler.runtime.gpu import device_arch
    from compiler.targets import get_target
    rng = np.random.default_rng(3)
    w = bs._pruned(rng, (512, 256), 32, 0.2, empty=1)
    model = bs._matmul_model(w, 64)
    x = rng.standard_normal((64, 512)).astype(np.float32)
    tgt = dataclasses.replace(get_target("h100"), arch=device_arch())
    outs = {}
    for disable in ((), ("sparta",)):
        art = compiler.compile(model, tgt, CompileOptions(precision=precision, disable=disable))
        kinds = {e.get("kind") for e in art.report["sparsity"]["kernels"] if e["chosen"] == "block_sparse"}
        assert kinds == ({"block_sparse_tc_gemm"} if not disable else set()), art.report["sparsity"]
        outs[disable] = Executor(art.plan, make_backend("gpu", cubins=art.cubins, arch=tgt.arch)).run({"x": x})["z"]
    dense = outs[("sparta",)]
    np.testing.assert_allclose(outs[()], dense, rtol=0, atol=1e-4 * np.abs(dense).max())
    want = np.maximum(x.astype(np.float64) @ w, 0)
    np.testing.assert_allclose(dense, want, rtol=0, atol=0.05 * np.abs(want).max())
