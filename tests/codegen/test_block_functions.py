"""Block functions (DESIGN section 6, issue 12 item 5): every emitted kernel is a `__device__` body
over a virtual block index plus a thin `__global__` wrapper (codegen/block_function.py).

Checked: the structure of every kernel the source goldens hold (shared models at fp32/fp16, the
wgmma MatMuls, one conformance case per op) and that no string the compiler writes reads
blockIdx/gridDim; then the point of it, for real on the host harness: bodies run by wrappers of
our own, with virtual indices that are not the hardware's: three bodies co-launched by block
range in one launch (Rammer's dispatch), whole models with every kernel's blocks reversed and
flattened to one dimension (2-D recurrence grids included), and a wgmma body whose tensor maps
reach it by reference through such a wrapper (TMA)."""
from __future__ import annotations

import ast
import collections
import dataclasses
import re
from pathlib import Path

import numpy as np
import pytest

from compiler.ir.kernel import Kernel
from tests.codegen.block_index_diff import KERNEL
from tests.codegen.test_kernel_goldens import golden_cases

HARDWARE = re.compile(r"\b(blockIdx|gridDim)\b")
COMPILER = Path(__file__).resolve().parents[2] / "compiler"
DECL_NAME = re.compile(r"([A-Za-z_]\w*)\s*$")


@pytest.fixture(scope="module")
def kernels() -> list[Kernel]:
    """Every distinct kernel of the source goldens."""
    out: dict[str, Kernel] = {}
    for _, _, got in golden_cases():
        if not isinstance(got, str):
            for k in got:
                out.setdefault(k.entry, k)
    return list(out.values())


def _param_names(params_text: str) -> list[str]:
    return [DECL_NAME.search(d).group(1) for d in params_text.split(",") if d.strip()]


def test_every_emitted_kernel_is_one_body_and_one_wrapper(kernels):
    schedules = collections.Counter()
    arrivals = 0
    for k in kernels:
        src = k.source
        assert not HARDWARE.search(src), f"{k.entry} reads {HARDWARE.search(src).group(0)}"
        assert "__global__" not in src and src.count("BY_KERNEL") == 1, k.entry
        found = list(KERNEL.finditer(src))
        assert len(found) == 1 and found[0]["name"] == k.entry, k.entry
        m = found[0]
        assert k.body == f"{k.entry}_body" and src.count(f"{k.body}(") == 2, k.entry   # defined, called once
        assert src[m.end():].strip() == "", f"{k.entry}: text after the wrapper"
        before = src[:m.start()].strip()
        assert not before or before.startswith("BY_DEVICE"), f"{k.entry}: {before[:80]}"
        # the wrapper passes its own parameters in order: pointers, then tensor maps
        names = _param_names(m["params"])
        assert len(names) == len(k.params) + len(k.tensor_maps), k.entry
        assert [a.strip() for a in m["args"].split(",") if a.strip()] == names, k.entry
        # tensor maps: __grid_constant__ parameters of the wrapper, const references in the body
        assert m["params"].count("const __grid_constant__ by_tensor_map ") == len(k.tensor_maps), k.entry
        assert m["bparams"].count("const by_tensor_map& ") == len(k.tensor_maps), k.entry
        # arrival counters (split-K): as many as the kernel says, the wrapper's own
        assert int(m["arrivals"] or 0) == k.arrivals, k.entry
        assert (m["state"] == f"{k.entry}_arrivals") == bool(k.arrivals), k.entry
        arrivals += bool(k.arrivals)
        schedules[str(dict(k.config).get("schedule", "?")).removeprefix("roller_")] += 1
    # every renderer and hand-written kind the goldens reach was looked at
    assert {"simt_elementwise", "gemm", "tc_gemm", "wgmma_gemm", "elementwise", "elementwise_vec", "reduce", "transpose",
            "row_warp", "device_loop_recurrence", "ordered_updates",
            "roi_per_thread", "matrix_per_thread"} <= set(schedules), sorted(schedules)
    assert arrivals, "no split-K kernel among the goldens"


def _string_literals(path: Path):
    """(line, text) of every string constant in a module (f-strings' literal parts included) but
    docstrings, which may talk about blockIdx."""
    tree = ast.parse(path.read_text(), str(path))
    docs = {id(n.body[0].value) for n in ast.walk(tree)
            if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
            and n.body and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
            yield node.lineno, node.value


def test_no_kernel_text_in_the_compiler_reads_the_hardware_block():
    """Kernels the goldens do not reach (MaxRoiPool, constant tables, ...) are held to the same
    rule: outside block_function.py no string the compiler writes names blockIdx/gridDim or
    declares a __global__ function itself."""
    bad = []
    for path in sorted(COMPILER.rglob("*.py")):
        if path.name == "block_function.py":
            continue
        for line, text in _string_literals(path):
            if HARDWARE.search(text) or re.search(r"\bBY_KERNEL\b|__global__", text):
                bad.append(f"{path.relative_to(COMPILER.parent)}:{line}: {text.strip()[:100]}")
    assert not bad, "\n".join(bad)


def test_block_function_refuses_hardware_indices():
    from compiler.codegen.block_function import block_function
    with pytest.raises(ValueError, match="by_block"):
        block_function(["float* out"], ["  out[blockIdx.x] = 0.0f;"])
    src = block_function(["const __grid_constant__ by_tensor_map by_tma", "float* __restrict__ out"],
                         ["  out[by_block.idx.x] = 1.0f;"], launch_bounds=(128, 1))
    assert "_body(const by_tensor_map& by_tma, float* __restrict__ out, const by_block_index by_block)" in src
    assert "__launch_bounds__(128, 1) BY_KERNEL_NAME(const __grid_constant__ by_tensor_map by_tma," in src
    assert "BY_KERNEL_NAME_body(by_tma, out, by_this_block());" in src


# ---- wrappers of our own ------------------------------------------------------------------------

def _wrapper_parts(k: Kernel) -> tuple[str, str, list[str]]:
    """(the wrapper's __launch_bounds__ text, its parameter list, the parameter names)."""
    m = KERNEL.search(k.source)
    bounds = re.search(r"__launch_bounds__\([^)]*\) ", m["sig"])
    return (bounds.group(0) if bounds else ""), m["params"], _param_names(m["params"])


def remapped(k: Kernel) -> Kernel:
    """k's body run by another wrapper: a 1-D launch of all k's blocks in which hardware block b
    runs block n-1-b of k's own (possibly 2-D) grid, so no body sees its hardware index."""
    bounds, params, names = _wrapper_parts(k)
    gx, gy, gz = k.grid
    n = gx * gy * gz
    at = f"{n - 1}u - hw.idx.x, dim3({gx}, {gy}, {gz})"
    state = ""
    if k.arrivals:      # a body whose blocks count arrivals (split-K) gets counters of this wrapper's
        state = f"BY_DEVICE_STATE unsigned int {k.entry}_remapped_arrivals[{k.arrivals}];\n"
        at += f", {k.entry}_remapped_arrivals"
    src = k.source + state + (
        f"BY_KERNEL void {bounds}{k.entry}_remapped({params}) {{\n"
        f"  const by_block_index hw = by_this_block();\n"
        f"  {k.body}({', '.join(names + [f'by_block_at({at})'])});\n"
        f"}}\n")
    return dataclasses.replace(k, entry=f"{k.entry}_remapped", source=src, grid=(n, 1, 1))


def co_launch(name: str, parts: list[Kernel]) -> Kernel:
    """One launch running several bodies, each on a range of its blocks: the hardware blocks are
    the parts' blocks laid end to end (last part first, so no part's range starts at 0), each part
    seeing its own grid. The parts share a block shape; shared memory is the largest part's."""
    assert len({k.block for k in parts}) == 1 and not any(k.tensor_maps for k in parts)
    params, kparams, lines = [], [], ["  const unsigned int b = by_this_block().idx.x;"]
    start = 0
    for j, k in reversed(list(enumerate(parts))):
        _, _, names = _wrapper_parts(k)
        decls = [d.strip() for d in _wrapper_parts(k)[1].split(",")]
        ours = [f"p{j}_{nm}" for nm in names]
        params[:0] = [re.sub(rf"\b{nm}$", o, d) for d, nm, o in zip(decls, names, ours)]
        kparams[:0] = list(k.params)
        n = k.grid[0] * k.grid[1] * k.grid[2]
        gx, gy, gz = k.grid
        lines.append(f"  {'if' if start == 0 else 'else if'} (b < {start + n}u) "
                     f"{k.body}({', '.join(ours + [f'by_block_at(b - {start}u, dim3({gx}, {gy}, {gz}))'])});")
        start += n
    src = "".join(k.source for k in parts) + f"BY_KERNEL void {name}({', '.join(params)}) {{\n" + \
        "\n".join(lines) + "\n}\n"
    return Kernel(entry=name, source=src, params=tuple(kparams), grid=(start, 1, 1), block=parts[0].block,
                  shared_bytes=max(k.shared_bytes for k in parts))


def _three_kernels():
    """A block-per-row softmax (shared memory, barriers, shuffles, helper functions), a grid-stride
    elementwise kernel (reads the grid's extent) and a reduction, all with 128 threads."""
    from compiler.codegen.cuda import render_texpr
    from compiler.kinds.row import RowOperand, render_row_kernel
    from compiler.ir.dtypes import DType
    from compiler.ir.graph import TensorType
    from compiler.ir.texpr import Reduce, TensorExpr, binary, const, load, out_vars, reduce_vars, unary
    f32 = DType.float32
    soft = render_row_kernel("softmax", rows=7, n=300, x=RowOperand(f32, "sx"), y=RowOperand(f32, "sy"),
                             block_threads=128, warp_per_row=False)
    tx = TensorType(f32, (37, 29))
    i = out_vars(2)
    ew = render_texpr(TensorExpr("ew", (tx,), tx, binary("mul", unary("tanh", load(0, tx, i)), const(3.0, f32))),
                      "ew", "ey", ("ex",), block_threads=128, max_blocks=3)      # 3 blocks: several strides
    tr, to = TensorType(f32, (19, 45)), TensorType(f32, (19,))
    (o,), (r,) = out_vars(1), reduce_vars(1)
    red = render_texpr(TensorExpr("rsum", (tr,), to, load(0, tr, (o, r)), reduce=Reduce("sum", (("r0", 45),))),
                       "rsum", "ry", ("rx",), block_threads=128)
    assert soft.shared_bytes > 0 and soft.grid[0] == 7 and ew.grid[0] == 3
    return soft, ew, red


def test_three_bodies_co_launched_by_block_range():
    from compiler.runtime.host_harness import build_host_module
    soft, ew, red = _three_kernels()
    k = co_launch("by_test_co_launch", [soft, ew, red])
    assert k.grid[0] == soft.grid[0] + ew.grid[0] + red.grid[0]
    rng = np.random.default_rng(5)
    sx = rng.standard_normal((7, 300)).astype(np.float32)
    ex = rng.standard_normal((37, 29)).astype(np.float32)
    rx = rng.standard_normal((19, 45)).astype(np.float32)
    for mode in ("default", "shuffle"):
        sy, ey, ry = np.full_like(sx, np.nan), np.full_like(ex, np.nan), np.full(19, np.nan, np.float32)
        build_host_module([k], mode=mode, seed=3).launch(k, [sx, sy, ex, ey, rx, ry])
        e = np.exp(sx.astype(np.float64) - sx.max(axis=1, keepdims=True))
        np.testing.assert_allclose(sy, e / e.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-7)
        np.testing.assert_allclose(ey, np.tanh(ex) * 3.0, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(ry, rx.astype(np.float64).sum(axis=1), rtol=1e-5, atol=1e-5)


def test_co_launch_builds_with_nvrtc_as_one_kernel():
    from compiler.codegen.nvrtc import build_cubin
    k = co_launch("by_test_co_launch", list(_three_kernels()))
    r = build_cubin(k.source, k.entry, "sm_90")
    assert r.registers > 0 and r.spills == 0
    from compiler.codegen.sass import disassemble_many, find_cuobjdump
    tool = find_cuobjdump()
    if tool is not None:      # the bodies are inlined: the cubin holds the wrappers alone
        fns = disassemble_many({"k": r.cubin}, tool)["k"]
        assert not any(f.endswith("_body") for f in fns), sorted(fns)
        assert not fns[k.entry].having("STL") and not fns[k.entry].having("LDL"), fns[k.entry].text[:500]


class RemappedHost:
    """The host backend with every kernel launched through remapped()."""

    name = "host"

    def __init__(self):
        from compiler.runtime.executor import HostBackend
        self.inner = HostBackend()
        self.kernels: dict[str, Kernel] = {}
        self.launched: collections.Counter = collections.Counter()

    def prepare(self, kernels) -> None:
        self.kernels = {k.entry: remapped(k) for k in kernels}
        self.inner.prepare(list(self.kernels.values()))

    def launch(self, kernel, args) -> None:
        self.launched[kernel.grid[1] > 1] += 1
        self.inner.launch(self.kernels[kernel.entry], args)

    def __getattr__(self, name):        # buffers, views, copies: the host backend's own
        return getattr(self.inner, name)


def _bidirectional_gru():
    from onnx import TensorProto, helper
    rng = np.random.default_rng(2)
    S, B, I, H = 5, 3, 8, 16
    w = [helper.make_tensor(n, TensorProto.FLOAT, s, rng.standard_normal(s).astype(np.float32).ravel() * 0.3)
         for n, s in (("W", (2, 3 * H, I)), ("R", (2, 3 * H, H)), ("Bias", (2, 6 * H)))]
    g = helper.make_graph([helper.make_node("GRU", ["x", "W", "R", "Bias"], ["y", "yh"], hidden_size=H,
                                            direction="bidirectional")], "bigru",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [S, B, I])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [S, 2, B, H]),
                           helper.make_tensor_value_info("yh", TensorProto.FLOAT, [2, B, H])], w)
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 14)])
    return model, {"x": rng.standard_normal((S, B, I)).astype(np.float32)}


@pytest.mark.parametrize("case", ["vit.fp16", "resnet.fp16", "lstm.fp32", "gpt2.fp32", "bigru.fp32"])
def test_models_match_with_every_block_remapped(case, models_dir):
    """Every kernel of the model run with its blocks reversed and flattened gives bit for bit the
    outputs of the plain launches (each block's work depends only on its virtual index)."""
    from compiler import compile
    from compiler.pipeline import CompileOptions
    from compiler.runtime.executor import Executor, make_backend
    name, precision = case.split(".")
    if name == "bigru":
        model, inputs = _bidirectional_gru()
    else:
        model = str(models_dir / f"{name}.onnx")
        ref = np.load(models_dir / f"{name}.npz")
        inputs = {k[3:]: ref[k] for k in ref.files if k.startswith("in:")}
    plan = compile(model, "h100", CompileOptions(build=False, precision=precision)).plan
    want = Executor(plan, make_backend("host")).run(inputs)
    backend = RemappedHost()
    got = Executor(plan, backend).run(inputs)
    assert sum(backend.launched.values()) >= len(plan.kernels())
    if name == "bigru":
        assert backend.launched[True] > 0, "no 2-D grid among the GRU's kernels"
    for out in want:
        assert np.array_equal(got[out], want[out], equal_nan=True), out


def test_wgmma_body_reads_its_tensor_maps_through_a_wrapper_of_ours():
    """A wgmma kernel loading both operands by TMA: its body gets the tensor maps by reference
    from a remapping wrapper's __grid_constant__ parameters; the host's copy engine reads them
    there (it faults on anything that is not a launch's tensor map), and on sm_90a the body still
    inlines to HGMMA without local memory."""
    from compiler.codegen.nvrtc import build_arch, build_cubin
    from compiler.kinds import construct_rtiles
    from compiler.runtime.host_harness import build_host_module
    from compiler.targets import get_target
    from tests.roller.test_tensor_core import TOL_REF, _f, launches, prepare
    rng = np.random.default_rng(4)
    kernel, values, ref = prepare("MatMul", [_f(rng, (2, 100, 72)), _f(rng, (2, 72, 136))], {}, "bf16", (0, 1))
    cfg = next(c for c in construct_rtiles(kernel.expr, get_target("h100"), 10**6, "bf16") if c.kind == "wgmma_gemm")
    (k, names), = launches(kernel, cfg)
    assert len(k.tensor_maps) == 2 and k.grid[0] > 1
    rk = remapped(k)
    y = np.full(ref.shape, np.nan, np.float32)
    build_host_module([rk]).launch(rk, [values[n] for n in names[:-1]] + [y])
    np.testing.assert_allclose(y, ref, rtol=0, atol=TOL_REF["bf16"] * float(np.abs(ref).max()))
    r = build_cubin(rk.source, rk.entry, build_arch("sm_90", True))
    assert r.spills == 0
    from compiler.codegen.sass import disassemble_many, find_cuobjdump
    tool = find_cuobjdump()
    if tool is not None:
        fn = disassemble_many({"k": r.cubin}, tool)["k"][rk.entry]
        assert fn.having("HGMMA") and not fn.having("STL") and not fn.having("LDL")
