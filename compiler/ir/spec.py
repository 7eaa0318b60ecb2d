"""Kernel specifications: what one launch computes, before any CUDA exists (DESIGN section 3).

A `KernelSpec` is a sequence of stages, each an op's tensor expression over named values; a value
one stage defines and a later stage reads is *carried* inside the kernel at a memory level
(registers, shared memory or global memory), and the spec's outputs are what it writes to global
memory. Lowering makes one-stage specs; fusion makes longer ones. The tile stage sets the kind,
the chosen configuration and the top-K candidates (typed, never JSON); the render stage is the one
place that turns a spec into CUDA and a launch record (`ir.kernel.Kernel`).

An `ExternSpec` is a hand-written kernel (recurrences, sorting, ...): its op wrote the CUDA
already, and fusion and tiling pass it by, by its type."""
from __future__ import annotations

import functools
from dataclasses import dataclass
from enum import Enum

from .compose import NotComposable, compose
from .graph import _fields_key
from .kernel import Kernel
from .texpr import TensorExpr
from .tiles import KernelConfig


class Level(str, Enum):
    """Where a carried value lives between the stage that defines it and the stages that read it."""

    REGISTER = "register"   # recomputed or kept per thread: the reader needs the element it computes
    SHARED = "shared"       # a block's tile of it, written before a barrier and read after
    GLOBAL = "global"       # written to device memory (a grid-wide barrier before it is read)


@dataclass(frozen=True)
class Stage:
    """One op's tensor expression: `output` = expr(`inputs`), the inputs in expr.inputs' order."""

    expr: TensorExpr
    inputs: tuple[str, ...]
    output: str

    def __post_init__(self):
        if len(self.inputs) != len(self.expr.inputs):
            raise ValueError(f"stage {self.expr.name}: {len(self.expr.inputs)} inputs expected, "
                             f"{len(self.inputs)} given")

    @functools.cached_property
    def key(self) -> str:
        return _fields_key(self)


@dataclass(frozen=True)
class KernelSpec:
    """One launch's computation: stages in order, the carried values' levels, the outputs, and what
    the tile stage chose (kind None: not tiled, rendered one thread per output element)."""

    stages: tuple[Stage, ...]
    carried: tuple[tuple[str, Level], ...] = ()
    outputs: tuple[str, ...] = ()         # () means the last stage's output
    ops: tuple[str, ...] = ()             # graph nodes it implements
    precision: str | None = None          # the precision stage's mark on a contraction (tf32, fp16, bf16)
    kind: str | None = None               # the chosen kernel kind (compiler/kinds), None before tiling
    config: KernelConfig | None = None    # the chosen configuration
    candidates: tuple[KernelConfig, ...] = ()   # top K, best predicted first (config among them)
    declined: tuple[str, ...] = ()        # kinds that would apply but declined this spec, and why
    workspace: str = ""                   # a split configuration's fp32 partial sums (a plan temporary)
    sparsity: tuple = ()                  # TeSA attributes of its inputs (SparTA; none yet)

    def __post_init__(self):
        if not self.stages:
            raise ValueError("a kernel spec has at least one stage")
        defined = {s.output for s in self.stages}
        levels = dict(self.carried)
        for s in self.stages[:-1]:
            if s.output not in levels and s.output not in self.outputs:
                raise ValueError(f"spec {self.name}: {s.output} is neither carried nor an output")
        for name in levels:
            if name not in defined:
                raise ValueError(f"spec {self.name}: carried value {name} is defined by no stage")

    @property
    def name(self) -> str:
        """The kernel's name prefix: its last stage's expression."""
        return self.stages[-1].expr.name

    @functools.cached_property
    def stage(self) -> Stage:
        """The spec as one stage: its only stage, or its stages composed when every carried value is
        in registers (ir/compose.py); ValueError (NotComposable) when a value is carried in shared
        or global memory, or the stages do not compose."""
        if len(self.stages) == 1:
            return self.stages[0]
        if set(self.written) != {self.stages[-1].output}:
            raise NotComposable(f"spec {self.name} writes {', '.join(self.written)}, not only its last stage's value")
        deeper = [v for v, lvl in self.carried if lvl is not Level.REGISTER]
        if deeper:
            raise NotComposable(f"spec {self.name} carries {', '.join(deeper)} beyond registers")
        te, inputs = compose(self.stages, {v for v, _ in self.carried})
        return Stage(te, inputs, self.stages[-1].output)

    @property
    def composable(self) -> bool:
        """Whether the spec is one tensor expression (one stage, or register-carried stages that compose)."""
        try:
            self.stage
        except NotComposable:
            return False
        return True

    @property
    def expr(self) -> TensorExpr:
        """The spec's one tensor expression (`stage`'s)."""
        return self.stage.expr

    @property
    def written(self) -> tuple[str, ...]:
        """Values written to global memory."""
        return self.outputs or (self.stages[-1].output,)

    @functools.cached_property
    def types(self) -> dict:
        """Every value its stages read or write -> its TensorType."""
        out: dict = {}
        for st in self.stages:
            out.update(zip(st.inputs, st.expr.inputs))
            out[st.output] = st.expr.output
        return out

    @property
    def inputs(self) -> tuple[str, ...]:
        """Values read from outside the kernel, in first-use order."""
        defined: set[str] = set()
        out: list[str] = []
        for s in self.stages:
            for v in s.inputs:
                if v not in defined and v not in out:
                    out.append(v)
            defined.add(s.output)
        return tuple(out)

    def level(self, value: str) -> Level | None:
        return dict(self.carried).get(value)

    @functools.cached_property
    def key(self) -> str:
        return _fields_key(self)


@dataclass(frozen=True)
class ExternSpec:
    """A hand-written kernel: its op wrote the CUDA (against the prelude) and its launch shape."""

    kernel: Kernel

    @property
    def name(self) -> str:
        return self.kernel.entry

    @property
    def inputs(self) -> tuple[str, ...]:
        return tuple(p.value for p in self.kernel.params if not p.output)

    @property
    def written(self) -> tuple[str, ...]:
        return tuple(p.value for p in self.kernel.params if p.output)

    @functools.cached_property
    def key(self) -> str:
        return self.kernel.key


Spec = KernelSpec | ExternSpec
