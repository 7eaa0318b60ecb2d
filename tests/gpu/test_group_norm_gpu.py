"""On a GPU: GroupNorm as exporters write it, in both forms the shared level makes of it, against
onnxruntime: the norm, scale, shift and SiLU as one row kernel over the rows' shape with the conv
after reading it through a view (passes/sink_reshapes.py), and over a few long rows the statistics
as split reductions and the rest one elementwise map (passes/split_rows.py). Each plan's time per
inference is printed beside its prediction: the split's decision rests on the 32-block chain being
slow, which only a GPU measures."""
from __future__ import annotations

import dataclasses

import numpy as np
import onnxruntime as ort
import pytest

from tests.gpu import gpu_module, timed_us

cupy, pytestmark = gpu_module()

from tests.compiler.test_sink_reshapes import feeds, group_norm  # noqa: E402



# the small case is one row kernel; the large one splits, and against --disable split_rows its time
# says whether the split pays (tests/gpu shares make gpu-check's deadline: three cases)
@pytest.mark.parametrize("shape,split,disable", [((1, 32, 16, 16, 8), False, ()),
                                                 ((1, 64, 256, 256, 32), True, ()),
                                                 ((1, 64, 256, 256, 32), False, ("split_rows",))])
def test_group_norm_on_gpu(shape, split, disable):
    from compiler import compile
    from compiler.pipeline import CompileOptions
    from compiler.runtime.executor import Executor, make_backend
    from compiler.runtime.gpu import device_arch
    from compiler.targets import get_target
    n, c, h, w, g = shape
    data = group_norm(n, c, h, w, g, conv=True)
    target = dataclasses.replace(get_target("h100"), arch=device_arch())
    art = compile(data, target, CompileOptions(disable=disable))
    assert [e["split"] for e in art.report["fusion"]["split_rows"]] == ([split] if not disable else [])
    inputs = feeds(n, c, h, w)
    want = ort.InferenceSession(data, providers=["CPUExecutionProvider"]).run(None, inputs)[0]
    ex = Executor(art.plan, make_backend("gpu", cubins=art.cubins, arch=target.arch))
    got = ex.run(inputs)[art.plan.outputs[0]]
    err = np.max(np.abs(got.astype(np.float64) - want)) / np.max(np.abs(want))
    us = timed_us(ex, inputs)
    print(f"group norm {shape} disable={disable}: {art.report['launches_per_inference']} launches, "
          f"{us:.1f} us measured, {art.report['latency']['predicted_us']:.1f} us predicted, max rel error {err:.1e}")
    assert err < 1e-3
