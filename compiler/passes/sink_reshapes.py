"""A map after a reshape of a row chain's value, computed over the chain's rows (what the
shared-memory level, passes/resident.py, tries when a map reads its chain through a reshape and
the chain would stop there).

Exporters write GroupNorm as a Reshape of [N, C, H, W] to [N, G, C/G*H*W], InstanceNormalization
over the groups' rows, a Reshape back, then the per-channel scale and shift and, in every diffusion
UNet and VAE, a SiLU. A row chain takes a map that reads its rows at (row..., j), but the scale's
map reads the normalised value through the reshape at (n, c, h, w), its statistics at
(n, c // (C/G)) with no plain row variable: the chain stopped there, and the maps were a kernel of
their own that read and wrote the whole tensor once more.

A reshape is a view: the two shapes are the same bytes in the same order. So a map that reads the
reshaped values only at its own output index (each element once, where it writes it) computes the
same elements, written to the same bytes, over the source's shape: its output index becomes the
source's, its other operands (the per-channel scale) are read at the reshaped index
(`reshape_index`: c = g (C/G) + l // (H W) once passes/indices.py simplifies it), and an alias
gives its result the old shape back (`ROWS_SUFFIX` names the new value). Only the broadcast
operands' index arithmetic differs, so it is tried only inside a chain, which the cost model then
keeps or declines as any other."""
from __future__ import annotations

import dataclasses

from ..analysis.dependence import reshape_index
from ..ir.graph import TensorType
from ..ir.spec import KernelSpec, Stage
from ..ir.texpr import Load, TensorExpr, out_vars, replace_loads, substitute_vars

ROWS_SUFFIX = "/rows"     # the moved map's value: `<its old value>/rows`, viewed by an alias as the old one


def map_stage(spec: KernelSpec) -> Stage | None:
    """The spec as one map stage (its stages composed: a register-level group of maps), or None
    unless it is an untiled map (no reduction, no epilogue) writing only its last value."""
    if spec.kind is not None or spec.workspace or not spec.composable:
        return None
    stage = spec.stage
    return stage if stage.expr.reduce is None and stage.expr.epilogue is None else None


def over_source_shape(spec: KernelSpec, via: dict[str, str], types: dict) -> KernelSpec | None:
    """`spec`, a map reading the reshape values in `via` (alias value -> the value it views), computed
    over those values' shape and writing `<output>/rows`; None unless it is a map that reads every
    one of them only at its own output index, all of one source shape other than its own."""
    stage = map_stage(spec)
    if stage is None:
        return None
    te = stage.expr
    shape = te.output.shape
    ident = out_vars(len(shape))
    args = {a: via[v] for a, v in enumerate(stage.inputs) if v in via and te.inputs[a].shape == shape}
    sources = {types[src].shape for src in args.values()}
    if not args or len(sources) != 1:
        return None
    (src_shape,) = sources
    if src_shape == shape or any(ld.index != ident for a in args for ld in te.loads[a]):
        return None
    if any(v in via for a, v in enumerate(stage.inputs) if a not in args):
        return None             # a view read at another shape: not this map's own index
    new_ident = out_vars(len(src_shape))
    # each element's old output index, in the source shape's variables (same bytes, same order)
    old = reshape_index(new_ident, src_shape, shape, dict(zip((v.name for v in new_ident), src_shape)))
    # every old output variable by its expression in the new ones (all at once: they share names);
    # the viewed values themselves are read at the new output index
    body = replace_loads(substitute_vars(te.body, {v.name: e for v, e in zip(ident, old)}),
                         lambda ld: Load(ld.arg, new_ident, ld.dtype) if ld.arg in args else ld)
    inputs = tuple(types[args[a]] if a in args else t for a, t in enumerate(te.inputs))
    new_te = TensorExpr(te.name, inputs, TensorType(te.output.dtype, src_shape), body)
    values = tuple(args.get(a, v) for a, v in enumerate(stage.inputs))
    name = stage.output + ROWS_SUFFIX
    while name in types:        # (a model's own value of that name)
        name += "'"
    return dataclasses.replace(spec, stages=(Stage(new_te, values, name),), outputs=(),
                               carried=())
