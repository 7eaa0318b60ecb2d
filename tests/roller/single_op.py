"""One ONNX op lowered to its tensor expressions, every Roller candidate rendered, built and run."""
from __future__ import annotations

import numpy as np

from compiler.codegen.nvrtc import build_cubin
from compiler.ir.dtypes import DType
from compiler.ir.graph import Node, TensorType
from compiler.ops.registry import LowerCtx, lookup
from compiler.kinds import construct_rtiles
from compiler.runtime.host_harness import build_host_module
from compiler.ir.plan import LaunchStep
from compiler.ir.spec import KernelSpec, Stage
from compiler.passes.precision import contraction_spec
from compiler.kinds import render_config
from compiler.passes.render import render_spec
from compiler.passes.roller import DEFAULT_TOP_K, tile_spec
from compiler.targets import get_target
from tests.ops.one_node import emit_rendered

OPSET = 18


def lower_types(op: str, in_types: list[TensorType], out_type: TensorType, attrs: dict, consts: dict | None = None,
                domain: str = ""):
    """The one naive kernel of `op` on inputs of these types (no data: shapes too large to compute)."""
    consts = consts or {}
    names = tuple(f"x{k}" for k in range(len(in_types)))
    node = Node(op, "n0", names, ("y",), tuple(sorted((k, tuple(v) if isinstance(v, list) else v)
                                                      for k, v in attrs.items())), domain=domain)
    steps: list = []
    ctx = LowerCtx(node, list(in_types), [out_type], [consts.get(k) for k in range(len(in_types))], OPSET,
                   emit=emit_rendered(steps), new_name=lambda s: s)
    lookup(op, domain).lower(ctx)
    kernels = [s.kernel for s in steps if isinstance(s, LaunchStep)]
    assert len(kernels) == 1, f"{op}: expected one kernel, got {len(steps)} steps"
    return kernels[0]


def spec_of(kernel) -> KernelSpec:
    """The one-stage spec a naive launch was rendered from (its expression, values, precision mark)."""
    ins = tuple(p.value for p in kernel.params[:-1])
    return KernelSpec(stages=(Stage(kernel.expr, ins, kernel.params[-1].value),), ops=kernel.ops,
                      precision=dict(kernel.config).get("precision"))


def tile_launch(kernel, target, top_k: int = DEFAULT_TOP_K, stats=None, types=None) -> list:
    """The launches the roller and render stages make of a naive kernel (a split's workspace added to `types`)."""
    return render_spec(tile_spec(spec_of(kernel), target, top_k, stats, types), target)


def contraction_kernel(kernel, precision: str, consts: dict, types: dict, converted: dict, stats: dict):
    """The precision stage's rewrite of a naive contraction kernel, rendered untiled (None: not one)."""
    spec = contraction_spec(spec_of(kernel), precision, consts, types, converted, stats)
    return None if spec is None else render_spec(spec)[0]


def lower_single(op: str, arrays: list, attrs: dict, consts: dict | None = None, domain: str = ""):
    """(kernels, reference output) of one op on `arrays`; consts maps input index -> constant."""
    names = tuple(f"x{k}" for k in range(len(arrays)))
    node = Node(op, "n0", names, ("y",), tuple(sorted((k, tuple(v) if isinstance(v, list) else v)
                                                      for k, v in attrs.items())), domain=domain)
    ref = lookup(op, domain).reference(node, arrays, OPSET)[0]
    in_types = [TensorType(DType.from_numpy(a.dtype), tuple(a.shape)) for a in arrays]
    out_type = TensorType(DType.from_numpy(ref.dtype), tuple(ref.shape))
    return lower_types(op, in_types, out_type, attrs, consts, domain), ref


def candidate_kernels(kernel, target_name: str = "h100", k: int = 3):
    """Every top-k candidate Roller constructs for a naive kernel, rendered (config, kernel) pairs."""
    te = kernel.expr
    target = get_target(target_name)
    cfgs = construct_rtiles(te, target, k)
    assert cfgs, f"{te.name}: no candidate"
    ins = tuple(p.value for p in kernel.params[:-1])
    return cfgs[0].kind, [(cfg, render_config(te, cfg, te.name, kernel.params[-1].value, ins))
                          for cfg in cfgs]


def check_builds(kernels, archs=("sm_80", "sm_90")) -> None:
    """NVRTC builds each kernel: no spills, registers and shared memory within the target's limits."""
    limits = {"sm_80": get_target("a100"), "sm_90": get_target("h100")}
    for kern in kernels:
        threads = kern.block[0] * kern.block[1] * kern.block[2]
        for arch in archs:
            t = limits[arch]
            r = build_cubin(kern.source, kern.entry, arch)
            assert r.spills == 0, f"{kern.entry} spills on {arch}"
            assert 0 < r.registers <= t.max_registers_per_thread
            assert r.registers * threads <= t.registers_per_block
            assert kern.shared_bytes + r.shared_bytes <= t.shared_per_block
            assert threads <= t.max_threads_per_block


def run_on_host(kernels, arrays, ref, *, rtol=1e-4, atol=1e-4) -> None:
    """Each kernel on the host harness, in fixed and in shuffled thread order, against `ref`."""
    args = [np.ascontiguousarray(a) for a in arrays]
    for mode in ("default", "shuffle"):
        module = build_host_module(kernels, mode=mode, seed=7)
        for kern in kernels:
            out = np.full(ref.shape, -12345, dtype=ref.dtype)
            module.launch(kern, args + [out])
            np.testing.assert_allclose(out.astype(np.float64), ref.astype(np.float64), rtol=rtol, atol=atol,
                                       err_msg=f"{kern.entry} ({mode})")


def sass_of(kernel, arch: str):
    """The SassFunction of a rendered kernel built for `arch` (skips where cuobjdump is not
    installed: the test extra brings it, `make install`)."""
    import pytest
    from compiler.codegen.sass import disassemble_many, find_cuobjdump
    tool = find_cuobjdump()
    if tool is None:
        pytest.skip("cuobjdump/nvdisasm not found: install the test extra (`make install`)")
    cubin = build_cubin(kernel.source, kernel.entry, arch).cubin
    return disassemble_many({"k": cubin}, tool)["k"][kernel.entry]

