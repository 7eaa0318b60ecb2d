"""Kind `naive`: any spec that is one tensor expression (one stage, or stages composed in registers), one thread per output element (codegen/cuda.py render_texpr).

What every spec no tiled kind takes is rendered as: the roller stage leaves such a spec's kind
unset (None), and the render stage gives it to this kind."""
from __future__ import annotations

import dataclasses

from ..codegen.cuda import render_texpr
from ..ir.kernel import Kernel
from ..ir.spec import KernelSpec
from ..targets import Target

NAME = "naive"
TIER = None          # not tiled: Roller never constructs candidates for it


def applies(spec) -> str | None:
    if not isinstance(spec, KernelSpec):
        return "a hand-written kernel"
    if len(spec.stages) == 1 or spec.composable:
        return None
    return f"{len(spec.stages)} stages that are not one expression (values carried beyond registers)"


def render(spec: KernelSpec, target: Target | None = None) -> list[Kernel]:
    stage = spec.stage
    te = stage.expr
    k = render_texpr(te, te.name, stage.output, stage.inputs)
    extra = (("precision", spec.precision),) if spec.precision is not None else ()
    return [dataclasses.replace(k, ops=spec.ops, config=k.config + extra)]
