"""On a GPU: the stitched_maps kernel of tests/compiler/test_stitch_maps.py's unrolled elementwise
recurrence (RWKV's time mixing, 16 steps over 1024 channels) against float64 NumPy, every value
it writes, and its time per launch printed: a thread runs the whole recurrence of its channel, so
this is the serial latency the micro-model's workload does not price."""
from __future__ import annotations

import numpy as np

from tests.gpu import gpu_module

cupy, pytestmark = gpu_module()

from tests.compiler.test_stitch_maps import TARGET, recurrence, reference  # noqa: E402
from tests.gpu.test_register_rows_gpu import _time_us  # noqa: E402


def test_a_stitched_recurrence_on_gpu():
    from compiler.ir.plan import ComputeStep
    from compiler.kinds import stitched_maps
    from compiler.pipeline import plan_before
    from compiler.runtime.gpu import GpuBackend
    steps = 16
    data, feeds = recurrence(steps, 1024)
    plan = plan_before("roller", data, TARGET)
    specs = [s.spec for s in plan.steps if isinstance(s, ComputeStep) and s.spec.kind == stitched_maps.NAME]
    consts = {n: k.array() for n, k in plan.constants}
    want = reference(steps, feeds, consts["u"].astype(np.float64), consts["w"].astype(np.float64))
    values = {**feeds, **consts}
    be = GpuBackend()
    for spec in specs:
        (k,) = stitched_maps.render(spec, TARGET)
        be.prepare([k])
        args = [cupy.full(spec.types[p.value].shape, np.nan, np.float32) if p.output
                else cupy.asarray(values[p.value]) for p in k.params]
        be.launch(k, args)
        be.synchronize()
        for p, a in zip(k.params, args):
            if p.output:
                np.testing.assert_allclose(cupy.asnumpy(a), want[p.value], rtol=1e-4, atol=1e-5,
                                           err_msg=f"{k.entry} {p.value}")
        cfg = dict(k.config)
        print(f"stitched maps, {cfg['stages']} stages, {cfg['outputs']} outputs: {_time_us(be, k, args):.2f} us "
              f"a launch (predicted {cfg['predicted_us']} us)")
