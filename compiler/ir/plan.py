"""The executable plan: launches, aliases and control-flow regions over named buffers."""
from __future__ import annotations

from dataclasses import dataclass

from .kernel import Kernel
from ..ir.graph import Constant, TensorType


@dataclass(frozen=True)
class LaunchStep:
    """Launch one kernel on the buffers its params name."""

    kernel: Kernel


@dataclass(frozen=True)
class AliasStep:
    """dst is a view of src's bytes with dst's own type (no data moves)."""

    dst: str
    src: str


@dataclass(frozen=True)
class IfStep:
    """Runs then_plan or else_plan on the value of a bool scalar; binds their outputs to `outputs`."""

    cond: str
    then_plan: "Plan"
    else_plan: "Plan"
    outputs: tuple[str, ...]
    node: str = ""


@dataclass(frozen=True)
class LoopStep:
    """ONNX Loop: body(iter, cond, carried...) -> (cond, carried..., scan...), repeated on the host.

    Scan outputs are stacked along a new first axis; their count is only known at run time."""

    trip_count: str       # "" when absent
    cond: str             # "" when absent
    carried_in: tuple[str, ...]
    body: "Plan"
    outputs: tuple[str, ...]   # carried finals, then scan outputs
    n_scan: int
    node: str = ""


@dataclass(frozen=True)
class ScanStep:
    """ONNX Scan (opset 9+): iterates body over slices of the scan inputs."""

    state_in: tuple[str, ...]
    scan_in: tuple[str, ...]
    body: "Plan"
    outputs: tuple[str, ...]
    n_state: int
    scan_input_axes: tuple[int, ...]
    scan_input_reverse: tuple[int, ...]
    scan_output_axes: tuple[int, ...]
    scan_output_reverse: tuple[int, ...]
    node: str = ""


Step = LaunchStep | AliasStep | IfStep | LoopStep | ScanStep


@dataclass(frozen=True)
class Plan:
    """A compiled graph: steps in order, every buffer's type, constant data and the arena layout.

    `outer` names values read from an enclosing plan (control-flow bodies)."""

    inputs: tuple[str, ...]
    outputs: tuple[str, ...]
    steps: tuple[Step, ...]
    types: tuple[tuple[str, TensorType], ...]
    constants: tuple[tuple[str, Constant], ...]
    arena: tuple[tuple[str, int], ...] = ()   # value -> byte offset in the intermediates arena
    arena_bytes: int = 0
    outer: tuple[str, ...] = ()

    def kernels(self) -> list[Kernel]:
        """Every kernel, this plan's and its regions', in order."""
        out = []
        for s in self.steps:
            if isinstance(s, LaunchStep):
                out.append(s.kernel)
            elif isinstance(s, IfStep):
                out += s.then_plan.kernels() + s.else_plan.kernels()
            elif isinstance(s, (LoopStep, ScanStep)):
                out += s.body.kernels()
        return out
