"""One error hierarchy for the whole compiler; every error is picklable (they cross processes)."""
from __future__ import annotations


class CompilerError(Exception):
    """Base of every error the compiler raises on purpose; `hint` says what the user can do."""

    category = "compiler"

    def __init__(self, message: str, *, node: str | None = None, hint: str | None = None):
        super().__init__(message)
        self.message = message
        self.node = node
        self.hint = hint

    def __reduce__(self):
        return (_rebuild, (type(self), self.message, self.node, self.hint, self._extra()))

    def _extra(self) -> dict:
        return {}

    def one_line(self) -> str:
        """The error as one line for a terminal: what is wrong, where, and what to do."""
        parts = [self.message]
        if self.node:
            parts.append(f"(node {self.node})")
        if self.hint:
            parts.append(f"- {self.hint}")
        return " ".join(parts)

    def __str__(self) -> str:
        return self.one_line()


def _rebuild(cls, message, node, hint, extra):
    err = cls.__new__(cls)
    CompilerError.__init__(err, message, node=node, hint=hint)
    err.__dict__.update(extra)
    return err


class ModelError(CompilerError):
    """The model file itself is bad: not ONNX, truncated, too large, unreadable external data, too deep."""

    category = "invalid_model"


class ShapeError(CompilerError):
    """A shape cannot be made static or is inconsistent."""

    category = "shape"


class UnsupportedOp(CompilerError):
    """An op (or an attribute/dtype combination of it) that has no lowering."""

    category = "unsupported_op"
    feature = False     # a refused attribute or input, whatever the shapes (compiler/passes/lower.py)

    def __init__(self, op_type: str, *, node: str | None = None, domain: str = "", detail: str = "",
                 feature: bool = False):
        where = f"{domain}::{op_type}" if domain else op_type
        msg = f"unsupported op {where}" + (f": {detail}" if detail else "")
        super().__init__(msg, node=node,
                         hint="add a definition in compiler/ops/ (see compiler/ops/registry.py)")
        self.op_type = op_type
        self.domain = domain
        self.feature = feature

    def _extra(self) -> dict:
        return {"op_type": self.op_type, "domain": self.domain}


class NeedsConstant(UnsupportedOp):
    """An input that the lowering must know at compile time (a shape, an axis, ...) is computed at
    run time; binding the graph's shape inputs to concrete values can make it constant."""


class CudaCompileError(CompilerError):
    """NVRTC or the host C++ compiler rejected a generated kernel."""

    category = "codegen"

    def __init__(self, message: str, *, source: str = "", log: str = "", repro: str = ""):
        super().__init__(message, hint=f"repro: {repro}" if repro else None)
        self.source = source
        self.log = log
        self.repro = repro

    def _extra(self) -> dict:
        return {"source": self.source, "log": self.log, "repro": self.repro}


class TargetError(CompilerError):
    """An unknown target name or an inconsistent target spec."""

    category = "target"


class TooLarge(CompilerError):
    """The compiled model cannot run on the target: a tensor or the whole footprint exceeds the device's
    memory, a launch exceeds the grid limits, or an element count exceeds a 64-bit index."""

    category = "too_large"


class RuntimeFault(CompilerError):
    """Running a compiled plan failed (bad inputs, device errors)."""

    category = "runtime"
