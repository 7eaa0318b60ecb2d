"""On an sm_80+ GPU: mma.sp and the sparse24_gemm kernels against NumPy.

What the host harness cannot prove: that its emulation of mma.sp (the compressed A fragment, the
B fragment of m16n8k32, the metadata's lanes, halves and nibbles under sparsity selector 0) is
the hardware's. The same kernels and expectations as tests/codegen/test_prelude_sparse_tensor_core.py
and tests/compiler/test_sparse24.py run here."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from tests.gpu import gpu_module

cupy, pytestmark = gpu_module(min_capability=80)

from tests.codegen import test_prelude_sparse_tensor_core as sp  # noqa: E402  (kernels only)
from tests.compiler import test_sparse24 as t24  # noqa: E402


def _target():
    from compiler.runtime.gpu import device_arch
    from compiler.targets import get_target
    return dataclasses.replace(get_target("h100"), arch=device_arch())


@pytest.mark.parametrize("dtype", ["f16", "bf16"])
@pytest.mark.parametrize("fewer", [False, True])
def test_mma_sp_on_gpu(dtype, fewer):
    from compiler.runtime.gpu import GpuBackend, device_arch
    npt = sp.TYPES[dtype][0]
    rng = np.random.default_rng(11)
    dense, comp, words = (np.stack(x) for x in zip(*(sp.two_four(rng, 16, 32, npt, fewer=fewer)
                                                      for _ in range(sp.NWARPS))))
    b = rng.standard_normal((sp.NWARPS, 32, 8)).astype(npt)
    c = rng.standard_normal((sp.NWARPS, 16, 8)).astype(np.float32)
    be = GpuBackend(cubins={}, arch=device_arch())
    k = sp.KERNELS[dtype]
    be.prepare([k])
    dev = [cupy.asarray(a) for a in (comp.view(np.uint16), words, b.view(np.uint16), c, np.zeros_like(c))]
    be.launch(k, dev)
    be.synchronize()
    ref = dense.astype(np.float64) @ b.astype(np.float64) + c
    np.testing.assert_allclose(cupy.asnumpy(dev[4]), ref, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("m,k,n,layout,precision,x_dtype,target", t24.LAYOUTS)
def test_sparse24_contraction_on_gpu(m, k, n, layout, precision, x_dtype, target):
    import compiler
    from compiler.context import CompileOptions
    from compiler.runtime.executor import Executor, make_backend
    model, x, w = t24._contraction(m, k, n, layout=layout, x_dtype=x_dtype)
    tgt = _target()
    art = compiler.compile(model, tgt, CompileOptions(precision=precision))
    assert any(e["chosen"] == "sparse24" for e in art.report["sparsity"]["kernels"]), art.report["sparsity"]
    backend = make_backend("gpu", cubins=art.cubins, arch=tgt.arch)
    got = Executor(art.plan, backend).run({"x": x})["z"].astype(np.float64)
    np.testing.assert_allclose(got, t24._want(layout, x, w, precision), rtol=2e-3, atol=2e-3)


def test_two_four_bert_on_gpu(tmp_path):
    """The 2:4-pruned BERT at fp16: as close to the fp32 reference as the dense fp16 kernels."""
    import os

    import onnxruntime as ort

    import compiler
    from compiler.context import CompileOptions
    from compiler.runtime.executor import Executor, make_backend
    path = str(tmp_path / "bert_24.onnx")
    t24.pruned_bert(os.path.join(t24.MODELS, "bert.onnx"), path)
    data = np.load(os.path.join(t24.MODELS, "bert.npz"))
    inputs = {k[3:]: data[k] for k in data if k.startswith("in:")}
    ref = ort.InferenceSession(path, providers=["CPUExecutionProvider"]).run(None, inputs)[0]
    tgt = _target()
    errs = {}
    for disable in ((), ("sparta",)):
        art = compiler.compile(path, tgt, CompileOptions(precision="fp16", disable=disable))
        out = Executor(art.plan, make_backend("gpu", cubins=art.cubins, arch=tgt.arch)).run(inputs)
        errs[disable] = float(np.abs(next(iter(out.values())) - ref).max())
    print(f"bert_24 fp16 on the GPU: max |error| sparse {errs[()]:.3g}, dense {errs[('sparta',)]:.3g}")
    assert errs[()] <= 2 * errs[("sparta",)] + 1e-3
