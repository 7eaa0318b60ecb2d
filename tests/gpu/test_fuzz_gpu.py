"""On a GPU: a few seeds of the CPU suite's random-model generators, run through CuPy against
onnxruntime: nested loops and branches as persistent cooperative kernels with grinder on
(tests/compiler/test_control_flow_fuzz.py) and on the host with it off, and pruned graphs through
SparTA with every stage on (tests/compiler/test_sparsity_fuzz.py).

What the host harness cannot prove: that the device's grid barriers, sub-block barriers and
block-sparse tables behave as the harness emulates them, on models nobody wrote by hand."""
from __future__ import annotations

import dataclasses

import pytest

from tests.gpu import gpu_module

cupy, pytestmark = gpu_module()

from tests.compiler import test_control_flow_fuzz as cf  # noqa: E402
from tests.compiler import test_sparsity_fuzz as sf  # noqa: E402

SEEDS = range(6)


def _device_target():
    from compiler.runtime.gpu import device_arch
    from compiler.targets import get_target
    return dataclasses.replace(get_target("h100"), arch=device_arch())


def _run_on_gpu(art, target, feeds: dict) -> dict:
    from compiler.runtime.executor import Executor, make_backend
    return Executor(art.plan, make_backend("gpu", cubins=art.cubins, arch=target.arch)).run(feeds)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("off", [(), ("grinder",)], ids=["grinder", "host"])
def test_random_control_flow_on_gpu(seed, off):
    from compiler import compile
    from compiler.context import CompileOptions
    from compiler.report import TOLERANCE
    from compiler.verify import max_rel_error
    model, draws, disable = cf.random_model(seed)
    target = _device_target()
    art = compile(model, target, CompileOptions(disable=disable + off, max_trip_count=cf.MAX_TRIPS))
    for feeds in draws:
        want = cf._reference(model, feeds)
        got = _run_on_gpu(art, target, feeds)
        for name, value in want.items():
            assert got[name].shape == value.shape, name
            assert max_rel_error({name: got[name]}, {name: value}) <= TOLERANCE["fp32"], name


@pytest.mark.parametrize("seed", SEEDS)
def test_random_pruned_graph_on_gpu(seed):
    """The device against the host harness running the same plan (what the CPU suite verified
    against onnxruntime), within the precision's tolerance (docs/report.md)."""
    from compiler import compile
    from compiler.context import CompileOptions
    from compiler.report import TOLERANCE
    from compiler.runtime.executor import Executor, make_backend
    from compiler.verify import max_rel_error
    data, feeds, precision, disable = sf.pruned_model(seed)
    target = _device_target()
    art = compile(data, target, CompileOptions(precision=precision, disable=disable))
    host = Executor(art.plan, make_backend("host")).run(feeds)
    got = _run_on_gpu(art, target, feeds)
    assert max_rel_error(got, host) <= TOLERANCE[precision], (precision, art.report["sparsity"]["kernels"])
