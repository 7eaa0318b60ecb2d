"""Kind `stitched_maps`: a group of maps over one index space, each computed once per element into
a register and written where a later kernel reads it (AStitch's local stitching, several outputs).

The register level composes a map into its reader only when the reader is its sole one, because a
composed value is recomputed by every load of it. A value several maps read (an unrolled
elementwise recurrence's state: RWKV's time mixing, an LSTM cell written out step by step) stops
that composition, and every step is a launch. This kind takes such a group whole: a thread owns
one element index, evaluates the stages in order into locals, every read of an earlier stage's
value at its own index becomes the local, and each value a later kernel or the caller reads is
stored as soon as it is computed (a short live range). The spec (passes/stitch_maps.py builds it)
carries its inner values in registers and names every value it writes as an output."""
from __future__ import annotations

import json
import math

from ..analysis.dependence import unread_bytes
from ..codegen.block_function import BLOCK_X, GRID_X, finish_kernel
from ..codegen.cuda import ExprRenderer, contiguous_strides, decompose_index, index_ctype
from ..ir.dtypes import DType
from ..ir.kernel import Kernel, KernelParam
from ..ir.spec import KernelSpec, Level
from ..ir.texpr import Load, TensorExpr, Var, out_vars, replace_loads, walk
from ..ir.tiles import KernelConfig, RTile, Workload
from ..roller.cost_model import expr_flops
from ..roller.micro_model import predict
from .resident_rows import rounded

NAME = "stitched_maps"
TIER = None          # not tiled: one element a thread, like the maps it replaces at their smallest
THREADS = 128
MAX_BLOCKS = 65535 * 4


def applies(spec) -> str | None:
    """None when this kind renders `spec`: maps (no reduction, no epilogue) of one output shape,
    each reading the values earlier stages define only at its own index, in registers."""
    if not isinstance(spec, KernelSpec):
        return "a hand-written kernel"
    if len(spec.stages) < 2:
        return "one stage (the naive kind renders it)"
    shape = spec.stages[0].expr.output.shape
    defined: set[str] = set()
    for st in spec.stages:
        te = st.expr
        if te.reduce is not None or te.epilogue is not None:
            return f"{te.name} reduces"
        if te.output.shape != shape:
            return f"{te.name}'s output shape {te.output.shape} is not {shape}"
        for arg, v in enumerate(st.inputs):
            if v in defined and not own_index_only(te, arg):
                return f"{te.name} reads {v} away from its own index"
        defined.add(st.output)
    for v, level in spec.carried:
        if level is not Level.REGISTER:
            return f"{v} is carried in {level.value} memory"
    return None


def own_index_only(te: TensorExpr, arg: int) -> bool:
    """Whether every load of input `arg` in `te` reads the element at the output's own index."""
    own = out_vars(te.output.rank)
    return all(e.index == own for e in walk(te.body) if isinstance(e, Load) and e.arg == arg)


def _blocks(n: int) -> int:
    return max(1, min(math.ceil(n / THREADS), MAX_BLOCKS))


def configuration(spec: KernelSpec) -> KernelConfig:
    """The one configuration (a thread an element, THREADS a block) and its workload for the
    micro-model: each external input (what a slice of it leaves aside) and each written value
    moved once, every stage's arithmetic once per element."""
    types = spec.types
    n = math.prod(spec.stages[0].expr.output.shape)
    moved = float(sum(types[v].nbytes for v in (*spec.inputs, *spec.written)) - unread_bytes(spec.stages, types))
    per_element = float(sum(types[v].dtype.itemsize for v in (*spec.inputs, *spec.written)))
    w = Workload(blocks=_blocks(n), threads=THREADS, shared_bytes=0, registers=32,
                 flops=float(sum(expr_flops(st.expr) for st in spec.stages)), compute_dtype="float32",
                 dram_bytes=moved, l2_bytes=moved, shared_bytes_moved=0.0, issue_efficiency=0.5,
                 bytes_in_flight=per_element)
    return KernelConfig(NAME, (RTile("block", (("elems", THREADS),)), RTile("thread", (("elems", 1),))),
                        (("block_threads", THREADS),), w)


def render(spec: KernelSpec, target=None) -> list[Kernel]:
    why = applies(spec)
    if why is not None:
        raise ValueError(f"spec {spec.name}: {NAME} does not apply: {why}")
    shape = spec.stages[0].expr.output.shape
    n = math.prod(shape)
    wide = any(index_ctype(st.expr) != "int" for st in spec.stages)
    it = "long long" if wide else "int"
    types = spec.types
    in_args = {v: f"in{j}" for j, v in enumerate(spec.inputs)}
    out_args = {v: f"out{j}" for j, v in enumerate(spec.written)}
    local: dict[str, Var] = {}
    L = [f"  for ({it} lin = ({it}){BLOCK_X} * blockDim.x + threadIdx.x; lin < {n}; "
         f"lin += ({it}){GRID_X} * blockDim.x) {{"]
    L += decompose_index("    ", "lin", shape, [v.name for v in out_vars(len(shape))], "rem", it)
    for k, st in enumerate(spec.stages):
        te = st.expr
        stored = te.output.dtype       # a float kept in fp32 (fp64), rounded to `stored` as a store would
        reg = DType.float64 if stored is DType.float64 else (DType.float32 if stored.is_float else stored)
        names = [in_args.get(v, v) for v in st.inputs]
        rend = ExprRenderer(names, [contiguous_strides(t.shape) for t in te.inputs], it, prefix=f"t{k}_")
        # an earlier stage's value at the own index: its register (applies checked the index)
        body = replace_loads(te.body, lambda ld: local[st.inputs[ld.arg]] if st.inputs[ld.arg] in local else ld)
        value = rend.render(body, "    ")
        L += rend.lines
        name = f"v{k}"
        if stored is DType.bool:
            L.append(f"    const bool {name} = (({value}) != 0);")
        else:
            L.append(f"    const {reg.compute_ctype} {name} = {rounded(value, stored, reg)};")
        local[st.output] = Var(name, reg)
        if st.output in out_args:
            L.append(f"    {out_args[st.output]}[lin] = ({stored.ctype})({name});")
    L.append("  }")
    params = [f"const {types[v].dtype.ctype}* __restrict__ {in_args[v]}" for v in spec.inputs]
    params += [f"{types[v].dtype.ctype}* __restrict__ {out_args[v]}" for v in spec.written]
    entry, source = finish_kernel(spec.name + "_stitched", params, L, launch_bounds=(THREADS,))
    kparams = tuple(KernelParam(types[v].dtype.ctype, v, False) for v in spec.inputs)
    kparams += tuple(KernelParam(types[v].dtype.ctype, v, True) for v in spec.written)
    cfg = spec.config or configuration(spec)
    config = (("schedule", NAME), ("stages", len(spec.stages)), ("outputs", len(spec.written)),
              ("flops", int(cfg.workload.flops)))
    if target is not None:      # the micro-model's prediction, which the report's latency reads
        pred = predict(cfg, target)
        config += (("predicted_us", round(pred.us, 4)), ("model", json.dumps(pred.as_dict(), sort_keys=True)))
    return [Kernel(entry=entry, source=source, params=kparams, grid=(_blocks(n), 1, 1), block=(THREADS, 1, 1),
                   ops=spec.ops, carried=tuple((v, lvl.value) for v, lvl in spec.carried), config=config)]
