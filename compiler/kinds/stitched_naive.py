"""Kind `stitched_naive`: any multi-stage spec, one block per output element of its last stage.

The reference renderer of fused specs: it renders what a spec says (each carried value at its
memory level) in the plainest way, so that the representation can be checked on the host harness
before fusion passes and fast fused kinds exist (Welder, AStitch). Per output element:

- a value carried in REGISTERS is recomputed where it is read: the consumer's load of element `e`
  becomes a call that evaluates the producer's tensor expression at `e` (its reduction included),
  rounded to the producer's storage type as a store and a load would;
- a value carried in SHARED memory is produced for the consumer's whole reduction range first: the
  block's threads fill a shared buffer with the producer's values at the indices the consumer's
  reduction reads, then, after a barrier, the consumer reads the buffer instead of global memory;
- the last stage is evaluated by thread 0 and written to global memory.

Values carried in global memory need a grid barrier: not this kind's (it declines them)."""
from __future__ import annotations

import math

from ..codegen.block_function import BLOCK_X, GRID_X, block_function
from ..codegen.cuda import ExprRenderer, contiguous_strides, decompose_index
from ..codegen.naming import NAME_PLACEHOLDER, finish_source
from ..ir.dtypes import DType
from ..ir.kernel import Kernel, KernelParam
from ..ir.spec import KernelSpec, Level
from ..ir.texpr import ACC, Binary, Load, TensorExpr, children, replace_loads

NAME = "stitched_naive"
TIER = None          # not tiled: it renders what the spec says
THREADS = 128
INDEX = "long long"
_STRUCT = f"{NAME_PLACEHOLDER}_stage"   # named after the kernel: kernels share a translation unit on the host
_COMBINE = {"sum": "acc += v;", "prod": "acc *= v;",
            "max": "acc = have ? by_max(acc, v) : v; have = true;",
            "min": "acc = have ? by_min(acc, v) : v; have = true;"}
_INIT = {"sum": "0", "prod": "1", "max": "0", "min": "0"}


def applies(spec: KernelSpec) -> str | None:
    """None when this kind renders `spec`, else why not."""
    if len(spec.stages) < 2:
        return "one stage (the naive kind renders it)"
    if set(spec.written) != {spec.stages[-1].output}:
        return "writes a value other than its last stage's"
    for value, level in spec.carried:
        if level is Level.GLOBAL:
            return f"{value} is carried in global memory (needs a grid barrier)"
    for st in spec.stages:
        red = st.expr.reduce
        if red is not None and red.op not in _COMBINE:
            return f"{st.expr.name}: reduction {red.op}"
    for k, st in enumerate(spec.stages):
        for v in st.inputs:
            if spec.level(v) is Level.SHARED and (k != len(spec.stages) - 1 or st.expr.reduce is None):
                return f"{v} in shared memory is read by {st.expr.name}, not by the last stage's reduction"
    return None


def render(spec: KernelSpec, target=None) -> list[Kernel]:
    why = applies(spec)
    if why is not None:
        raise ValueError(f"spec {spec.name}: {NAME} does not apply: {why}")
    ext = spec.inputs
    producer = {st.output: k for k, st in enumerate(spec.stages)}
    in_args = {v: f"in{j}" for j, v in enumerate(ext)}
    ext_types = {}
    for st in spec.stages:
        for v, t in zip(st.inputs, st.expr.inputs):
            if v in in_args:
                ext_types[v] = t
    ptrs = [f"const {ext_types[v].dtype.ctype}* __restrict__ {in_args[v]}" for v in ext]
    helpers: list[str] = []
    for k, st in enumerate(spec.stages[:-1]):   # shared values too: the fill evaluates them
        helpers += _register_view(k, st, spec, producer, in_args, ptrs)
    last = spec.stages[-1]
    te = last.expr
    out_t = te.output
    shared = [v for v in dict.fromkeys(last.inputs) if spec.level(v) is Level.SHARED]
    if len(shared) > 1:
        raise ValueError(f"spec {spec.name}: {NAME} stages one shared value per kernel")
    L = [f"  for ({INDEX} lin = {BLOCK_X}; lin < {out_t.size}; lin += {GRID_X}) {{"]
    L += _decompose("    ", "lin", out_t.shape, "i")
    L += _views("    ", spec, in_args, producer, last.inputs)
    names = [_arg_name(v, spec, in_args, producer) for v in last.inputs]
    strides = [contiguous_strides(t.shape) for t in te.inputs]
    shared_bytes = 0
    if shared:
        value = shared[0]
        arg = last.inputs.index(value)
        extent = te.reduce.extent
        p = spec.stages[producer[value]]
        ctype = p.expr.output.dtype.ctype
        shared_bytes = extent * p.expr.output.dtype.itemsize
        # the consumer's loads of the shared value: one index (over output and reduction axes)
        loads = {e for e in _loads(te.body) if e.arg == arg} | \
            ({e for e in _loads(te.epilogue) if e.arg == arg} if te.epilogue is not None else set())
        if len(loads) != 1 or (te.epilogue is not None and any(e.arg == arg for e in _loads(te.epilogue))):
            raise ValueError(f"spec {spec.name}: {value} must be read at one index inside the reduction")
        (the_load,) = loads
        fill = ExprRenderer(names, strides, INDEX)
        L += [f"    const {_STRUCT}{producer[value]} by_v{producer[value]}{{{', '.join(in_args.values())}}};",
              "    BY_SHARED_BUFFER(by_smem_raw);",
              f"    {ctype}* by_smem = reinterpret_cast<{ctype}*>(by_smem_raw);",
              f"    for ({INDEX} by_r = threadIdx.x; by_r < {extent}; by_r += blockDim.x) {{"]
        L += _decompose("      ", "by_r", tuple(n for _, n in te.reduce.axes), None, [a for a, _ in te.reduce.axes])
        raw = Load(the_load.arg, the_load.index, the_load.dtype)
        fill.lines = []
        v = fill.render(raw, "      ")
        L += fill.lines + [f"      by_smem[by_r] = ({ctype})({v});", "    }", "    __syncthreads();"]
        # the consumer reads by_smem[r linear] instead
        te = _reading_shared(te, arg, [a for a, _ in te.reduce.axes], tuple(n for _, n in te.reduce.axes))
        names[arg] = "by_smem"
        strides[arg] = (1,)
    L += ["    if (threadIdx.x == 0) {"]
    rend = ExprRenderer(names, strides, INDEX)
    body, result = _value(te, rend, "      ")
    L += body
    L += [f"      out[lin] = ({out_t.dtype.ctype})({result});", "    }", "    __syncthreads();", "  }"]
    params = ptrs + [f"{out_t.dtype.ctype}* __restrict__ out"]
    source = block_function(params, L, launch_bounds=(THREADS,), helpers=helpers)
    entry, source = finish_source(spec.name + "_stitched", source)
    kparams = tuple(KernelParam(ext_types[v].dtype.ctype, v, False) for v in ext)
    kparams += (KernelParam(out_t.dtype.ctype, last.output, True),)
    blocks = max(1, min(out_t.size, 65535 * 4))
    return [Kernel(entry=entry, source=source, params=kparams, grid=(blocks, 1, 1), block=(THREADS, 1, 1),
                   shared_bytes=shared_bytes, ops=spec.ops,
                   config=(("schedule", NAME), ("stages", len(spec.stages)),
                           ("carried", ",".join(f"{v}:{lvl.value}" for v, lvl in spec.carried))))]


def _arg_name(value: str, spec: KernelSpec, in_args: dict, producer: dict) -> str:
    if value in in_args:
        return in_args[value]
    return f"by_v{producer[value]}"


def _views(indent: str, spec: KernelSpec, in_args: dict, producer: dict, reads) -> list[str]:
    """Locals standing for register-carried values a stage reads: indexing one evaluates its producer."""
    args = ", ".join(in_args.values())
    return [f"{indent}const {_STRUCT}{producer[v]} by_v{producer[v]}{{{args}}};"
            for v in dict.fromkeys(reads) if spec.level(v) is Level.REGISTER]


def _register_view(k: int, st, spec: KernelSpec, producer: dict, in_args: dict, ptrs: list[str]) -> list[str]:
    """A struct whose element access evaluates stage k at that element: a register-carried value is
    read through it, a shared one is filled through it."""
    te = st.expr
    out_t = te.output
    for v in st.inputs:
        if spec.level(v) is Level.SHARED:
            raise ValueError(f"spec {spec.name}: {te.name} reads {v} from shared memory")
    names = [_arg_name(v, spec, in_args, producer) for v in st.inputs]
    rend = ExprRenderer(names, [contiguous_strides(t.shape) for t in te.inputs], INDEX)
    L = [f"struct {_STRUCT}{k} {{"] + [f"  {p};" for p in ptrs]
    L += [f"  BY_DEVICE {out_t.dtype.ctype} operator[]({INDEX} by_e) const {{"]
    L += _decompose("    ", "by_e", out_t.shape, "i")
    L += _views("    ", spec, in_args, producer, st.inputs)
    body, result = _value(te, rend, "    ")
    L += body + [f"    return ({out_t.dtype.ctype})({result});", "  }", "};"]
    return L


def _decompose(indent: str, lin: str, shape, prefix: str | None, names=None) -> list[str]:
    """Index variables (prefix0.. or `names`) of linear index `lin` over `shape` (row-major)."""
    names = names or [f"{prefix}{k}" for k in range(len(shape))]
    return decompose_index(indent, lin, shape, names, f"{lin}_rem", INDEX)


def _value(te: TensorExpr, rend: ExprRenderer, indent: str) -> tuple[list[str], str]:
    """Statements computing te at the output index in scope, and the C expression of the result."""
    if te.reduce is None:
        rend.lines = []
        v = rend.render(te.body, indent)
        return list(rend.lines), v
    red = te.reduce
    vct = te.body.dtype.compute_ctype
    L = [f"{indent}{vct} acc = {_INIT[red.op]}; bool have = false; (void)have;"]
    ind = indent
    for name, extent in red.axes:
        L.append(f"{ind}for ({INDEX} {name} = 0; {name} < {extent}; ++{name}) {{")
        ind += "  "
    rend.lines = []
    rend.memo = {}
    v = rend.render(te.body, ind)
    L += rend.lines + [f"{ind}const {vct} v = {v};", f"{ind}{_COMBINE[red.op]}"]
    for _ in red.axes:
        ind = ind[:-2]
        L.append(f"{ind}}}")
    if te.epilogue is None:
        return L, ACC
    rend.lines = []
    rend.memo = {}
    v = rend.render(te.epilogue, indent)
    return L + rend.lines, v


def _loads(e) -> set:
    found = set()
    stack = [e]
    while stack:
        x = stack.pop()
        if isinstance(x, Load):
            found.add(x)
        stack.extend(children(x))
    return found


def _reading_shared(te: TensorExpr, arg: int, axes: list[str], extents: tuple[int, ...]) -> TensorExpr:
    """te with input `arg` read as a 1-D buffer at the reduction's linear index."""
    from ..ir.texpr import Var
    lin = None
    for name, n in zip(axes, extents):
        v = Var(name)
        lin = v if lin is None else Binary("add", Binary("mul", lin, _const(n), DType.int64), v, DType.int64)

    from ..ir.graph import TensorType
    inputs = list(te.inputs)
    inputs[arg] = TensorType(te.inputs[arg].dtype, (math.prod(extents),))
    body = replace_loads(te.body, lambda ld: Load(arg, (lin,), ld.dtype) if ld.arg == arg else ld)
    return te.replace(inputs=tuple(inputs), body=body)


def _const(n: int):
    from ..ir.texpr import Const
    return Const(n, DType.int64)
