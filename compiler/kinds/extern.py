"""Kind `extern`: a hand-written kernel (recurrences, sorting, the row kernels of kinds/row.py, ...).

Its op wrote the CUDA against the prelude when it was lowered and chose its launch shape; fusion
and tiling skip it by its type (`ExternSpec`), and rendering it is handing back that kernel."""
from __future__ import annotations

from ..ir.kernel import Kernel
from ..ir.spec import ExternSpec
from ..targets import Target

NAME = "extern"
TIER = None


def applies(spec) -> str | None:
    return None if isinstance(spec, ExternSpec) else "not a hand-written kernel"


def render(spec: ExternSpec, target: Target | None = None) -> list[Kernel]:
    return [spec.kernel]
