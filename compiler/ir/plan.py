"""The plan: steps over named buffers, in order (DESIGN section 3).

Before the render stage a kernel is a `ComputeStep` holding its specification; render turns every
one into a `LaunchStep` holding the launch record. If/Loop/Scan are regions whose bodies are plans;
each region step names its bodies (`bodies`) and rebuilds itself with new ones (`with_bodies`), so
that walks over regions are written once (compiler/ir/dataflow.py)."""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from .graph import Constant, TensorType
from .kernel import Kernel
from .spec import ExternSpec, KernelSpec


@dataclass(frozen=True)
class ComputeStep:
    """A kernel not yet rendered: its specification (a tensor-expression spec or a hand-written one)."""

    spec: KernelSpec | ExternSpec


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

    @property
    def bodies(self) -> tuple["Plan", ...]:
        return (self.then_plan, self.else_plan)

    def with_bodies(self, then_plan: "Plan", else_plan: "Plan") -> "IfStep":
        return dataclasses.replace(self, then_plan=then_plan, else_plan=else_plan)


@dataclass(frozen=True)
class LoopStep:
    """ONNX Loop: body(iter, cond, carried...) -> (cond, carried..., scan...), repeated on the host.

    Scan outputs are stacked along a new first axis. A bounded Loop (max_trips > 0: its iteration
    count is only known at run time) has scan outputs of max_trips rows, writes the count of
    iterations that ran to `iterations` (int64 scalar; -1 when it would have run more than
    max_trips) and the plan's output_lengths trims them on return."""

    trip_count: str       # "" when absent
    cond: str             # "" when absent
    carried_in: tuple[str, ...]
    body: "Plan"
    outputs: tuple[str, ...]   # carried finals, then scan outputs
    n_scan: int
    node: str = ""
    max_trips: int = 0
    iterations: str = ""

    @property
    def bodies(self) -> tuple["Plan", ...]:
        return (self.body,)

    def with_bodies(self, body: "Plan") -> "LoopStep":
        return dataclasses.replace(self, body=body)


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

    @property
    def bodies(self) -> tuple["Plan", ...]:
        return (self.body,)

    def with_bodies(self, body: "Plan") -> "ScanStep":
        return dataclasses.replace(self, body=body)


Step = ComputeStep | LaunchStep | AliasStep | IfStep | LoopStep | ScanStep
REGIONS = (IfStep, LoopStep, ScanStep)   # the control-flow steps, whose bodies are plans
RegionStep = IfStep | LoopStep | ScanStep


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
    output_lengths: tuple[tuple[str, str, int], ...] = ()   # (output, its real extent's value, axis): trimmed on return
    # output -> the input whose buffer it is written into (a KV cache updated in place: the
    # output's unwritten elements are the input's); no step reads such an input by its name
    donated: tuple[tuple[str, str], ...] = ()

    @property
    def returned(self) -> tuple[str, ...]:
        """What a run reads at its end: the outputs and the real extents it trims them to (a pass
        that drops what nothing reads keeps these)."""
        return self.outputs + tuple(n for _, n, _ in self.output_lengths)

    def steps_within(self):
        """Every step in execution order, a region step before its bodies' steps (the walk
        compiler/ir/dataflow.py builds on)."""
        for s in self.steps:
            yield s
            for body in getattr(s, "bodies", ()):
                yield from body.steps_within()

    def kernels(self) -> list[Kernel]:
        """Every rendered kernel, this plan's and its regions', in order."""
        return [s.kernel for s in self.steps_within() if isinstance(s, LaunchStep)]

    def specs(self) -> list[KernelSpec | ExternSpec]:
        """Every kernel not yet rendered, this plan's and its regions', in order."""
        return [s.spec for s in self.steps_within() if isinstance(s, ComputeStep)]
