"""On a GPU: the weighted cover's kernels (BCSR tiles plus an ELL remainder gathered in the
epilogue) against onnxruntime, the same cases as tests/compiler/test_sparta_cover.py.

What the host harness cannot prove: that NVRTC compiles the remainder's fold (an immediately
invoked lambda in the epilogue, over int32 index tables) as the harness runs it, on the device."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from tests.gpu import gpu_module

cupy, pytestmark = gpu_module()

from tests.compiler import test_sparta_cover as tc  # noqa: E402


@pytest.mark.parametrize("case", sorted(tc.CASES))
def test_cover_on_gpu(case):
    import onnxruntime as ort

    import compiler
    from compiler.context import CompileOptions
    from compiler.runtime.executor import Executor, make_backend
    from compiler.runtime.gpu import device_arch
    from compiler.targets import get_target
    model, x = tc.CASES[case]()
    want = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]
    tgt = dataclasses.replace(get_target("h100"), arch=device_arch())
    art = compiler.compile(model, tgt, CompileOptions())
    assert any(e["chosen"] == "cover" for e in art.report["sparsity"]["kernels"]), art.report["sparsity"]
    got = Executor(art.plan, make_backend("gpu", cubins=art.cubins, arch=tgt.arch)).run({"x": x})["z"]
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
