"""On a GPU: the LinearAttention kernel (a block per batch element and key/value head, a thread per
state column in registers) against the NumPy reference, for the gated-delta rule with GQA and
per-key decay at a common head size, and each launch's time printed."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from tests.gpu import gpu_module

cupy, pytestmark = gpu_module()

from tests.ops.test_linear_attention import OPSET, case  # noqa: E402
from tests.ops.test_recurrent_attention import ours  # noqa: E402


@pytest.mark.parametrize("spec", [dict(rule="gated_delta", per_key=True, hq=4, hkv=2, dk=64, dv=64, t=64),
                                  dict(rule="linear", hq=2, hkv=2, dk=128, dv=128, t=16, dtype=np.float16)])
def test_linear_attention_on_gpu(spec):
    from compiler import compile
    from compiler.runtime.executor import Executor, make_backend
    from compiler.runtime.gpu import device_arch
    from compiler.targets import get_target
    model, node, feeds = case(**spec)
    want = ours("LinearAttention", node, {n: feeds.get(n) for n in node.input}, OPSET)
    target = dataclasses.replace(get_target("h100"), arch=device_arch())
    art = compile(model.SerializeToString(), target)
    ex = Executor(art.plan, make_backend("gpu", cubins=art.cubins, arch=target.arch))
    got = ex.run(feeds)
    tol = 1e-2 if spec.get("dtype") is np.float16 else 1e-4
    for name, w in zip(art.plan.outputs, want):
        np.testing.assert_allclose(np.asarray(got[name], np.float64), w, rtol=tol, atol=tol, err_msg=name)
    start, end = cupy.cuda.Event(), cupy.cuda.Event()
    start.record()
    for _ in range(20):
        ex.run(feeds)
    end.record()
    end.synchronize()
    print(f"linear attention {spec}: {cupy.cuda.get_elapsed_time(start, end) * 1e3 / 20:.1f} us an inference "
          f"(copies included), {art.report['latency']['predicted_us']:.1f} us predicted")
