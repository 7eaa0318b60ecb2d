"""On a GPU: the tune stage measures a contraction that repeats in every layer once, stores it, and
a second compile on the same device finds it in the kernel cache (no measurement at all)."""
from __future__ import annotations

import dataclasses

import numpy as np

from tests.gpu import gpu_module

cupy, pytestmark = gpu_module()


def _layers_model(layers, m, d):
    from onnx import TensorProto, helper, numpy_helper
    rng = np.random.default_rng(11)
    nodes, inits, x = [], [], "x"
    for i in range(layers):
        inits.append(numpy_helper.from_array((rng.standard_normal((d, d)) / np.sqrt(d)).astype(np.float32), f"w{i}"))
        nodes.append(helper.make_node("MatMul", [x, f"w{i}"], [f"y{i}"]))
        x = f"y{i}"
    g = helper.make_graph(nodes, "layers", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [m, d])],
                          [helper.make_tensor_value_info(x, TensorProto.FLOAT, [m, d])], inits)
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)]), inits


def test_a_repeated_layer_is_measured_once_and_then_found_in_the_cache(tmp_path):
    from onnx import numpy_helper
    from compiler import compile
    from compiler.context import CompileOptions
    from compiler.runtime.executor import Executor, make_backend
    from compiler.runtime.gpu import device_arch
    from compiler.targets import get_target
    from kernel_cache.store import KernelStore
    layers = 4
    model, inits = _layers_model(layers, 256, 512)
    target = dataclasses.replace(get_target("h100"), arch=device_arch())
    store = KernelStore(tmp_path / "cache")
    opts = CompileOptions(precision="fp16", disable=("welder",))
    first = compile(model, target, opts, store=store)
    tune = first.report["tune"]
    print({k: tune.get(k) for k in ("status", "distinct", "shared", "cache_hits", "candidates_measured")})
    print("phases", [r.get("phases") for r in tune["kernels"]])
    assert tune["status"] == "measured"
    assert (len(tune["kernels"]), tune["distinct"], tune["shared"], tune["cache_hits"]) == (layers, 1, layers - 1, 0)
    records = tune["kernels"]
    assert len({(r["chosen"], r["measured_us"]) for r in records}) == 1
    assert tune["candidates_measured"] == sum(1 for c in records[0]["candidates"] if c["measured_us"] is not None)
    again = compile(model, target, opts, store=store)
    t2 = again.report["tune"]
    assert (t2["cache_hits"], t2["shared"], t2["candidates_measured"]) == (1, layers - 1, 0)
    assert [k.digest for k in again.plan.kernels()] == [k.digest for k in first.plan.kernels()]
    # the tuned plan computes the model
    x = np.random.default_rng(2).standard_normal((256, 512)).astype(np.float32)
    backend = make_backend("gpu", cubins=again.cubins, arch=target.arch)
    (got,) = Executor(again.plan, backend).run({"x": x}).values()
    want = x.astype(np.float64)
    for w in inits:
        want = want @ numpy_helper.to_array(w).astype(np.float64)
    err = np.max(np.abs(got.astype(np.float64) - want)) / np.max(np.abs(want))
    print(f"max rel error {err:.2e}")
    assert err < 1e-2
