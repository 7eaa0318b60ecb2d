"""Kernel kinds (DESIGN section 6): one module per kind, each answering whether it applies to a
spec and how to render it (candidates and workloads for the micro-model come with the tiled kinds).

Registered today: `stitched_naive`, the reference renderer of multi-stage (fused) specs. The
one-stage kinds (naive, SIMT tiled contraction, mma.sync, wgmma, reduction, split reduction,
vector elementwise, transpose) are still constructed by roller/construct.py and rendered through
passes/render.py's table of codegen renderers; moving each into a module here is issue 12's
remaining step."""
from __future__ import annotations

from types import ModuleType

from ..ir.spec import KernelSpec
from . import stitched_naive

KINDS: dict[str, ModuleType] = {stitched_naive.NAME: stitched_naive}


def kind_for(spec: KernelSpec) -> ModuleType:
    """The spec's chosen kind, or the first registered kind that applies; ValueError with every
    kind's reason when none does."""
    if spec.kind is not None and spec.kind in KINDS:
        return KINDS[spec.kind]
    reasons = []
    for name, kind in KINDS.items():
        why = kind.applies(spec)
        if why is None:
            return kind
        reasons.append(f"{name}: {why}")
    raise ValueError(f"spec {spec.name}: no kernel kind renders it ({'; '.join(reasons)})")
