"""Dynamic input dimensions as exporters write them, and fixing them to sizes.

Exporters mark a dimension whose size is not fixed in several ways: a `dim_param` name (`batch`,
`s0`, `sequence_length`), a negative `dim_value` (Paddle2ONNX and others write -1), a dimension with
neither field set (the ONNX IR's "unknown"), and placeholder names: `?`, the empty string, `-1`,
`None`, and generated ones such as tf2onnx's and onnxruntime's `unk__123`. A real name shared by
several dimensions is one constraint (the torch.export and TorchScript exporters reuse a name
exactly where the sizes must agree); a placeholder is a fresh, independent dimension every time
it appears, so `?` on height and on width are two dimensions. An explicit `dim_value` of 0 is a
zero-size dimension, not an unknown one (ONNX shape inference reads it so too).

Declared shapes travel as lists of `int | str`, a dynamic dimension being its name, and a
placeholder normalised to `?`: the service stores them that way, and the rule above can be applied
again to the stored lists without the file."""
from __future__ import annotations

import numbers
import re
from dataclasses import dataclass

import onnx

from ..errors import ShapeError

ANONYMOUS = "?"
# names that exporters write for "unknown", not for a size shared with other dimensions
_PLACEHOLDER = re.compile(r"^(\s*|\?|-?\d+|none|null|unk__\d+|unknown(_\d+)?)$", re.IGNORECASE)
# a dimension whose name says it is the batch: 1 is a plausible example size for it
_BATCHY = re.compile(r"^(n|b|bs|batch([_\s-]?size)?|batch_?\d*|.*_batch(_size)?)$", re.IGNORECASE)

Declared = list  # one input's declared dims: int for a fixed size, str for a dynamic one; None: no rank


def is_placeholder(name: str) -> bool:
    return bool(_PLACEHOLDER.match(name))


def declared_dims(vi: onnx.ValueInfoProto) -> Declared | None:
    """The declared dims of a graph input or output: int for a fixed size, its name for a dynamic one
    (`?` for a placeholder, a negative size or a dimension with neither field set); None if no rank."""
    tt = vi.type.tensor_type
    if not tt.HasField("shape"):
        return None
    out: list[int | str] = []
    for d in tt.shape.dim:
        which = d.WhichOneof("value")
        if which == "dim_value" and d.dim_value >= 0:
            out.append(int(d.dim_value))
        elif which == "dim_param" and not is_placeholder(d.dim_param):
            out.append(d.dim_param)
        else:
            out.append(ANONYMOUS)
    return out


def normalised(dims: list | None) -> Declared | None:
    """Declared dims from elsewhere (a stored list, a user's JSON) under the same rule as declared_dims."""
    if dims is None:
        return None
    return [int(d) if _is_size(d) else d if isinstance(d, str) and not is_placeholder(d) else ANONYMOUS
            for d in dims]


@dataclass(frozen=True)
class DynamicDim:
    """One dynamic dimension of a runtime input; `symbol` is shared by the dims that must be equal."""

    input: str
    axis: int
    name: str          # as normalised by declared_dims: the name, or `?`

    @property
    def symbol(self) -> str:
        return f"{self.input}[{self.axis}]" if self.name == ANONYMOUS else self.name

    def describe(self) -> str:
        what = "unnamed" if self.name == ANONYMOUS else f"'{self.name}'"
        return f"{self.input} axis {self.axis} ({what})"

    def as_dict(self) -> dict:
        return {"input": self.input, "axis": self.axis, "name": self.name, "symbol": self.symbol}


def dynamic_dims(declared: dict[str, Declared | None]) -> list[DynamicDim]:
    """Every dynamic dimension of the inputs, in input and axis order."""
    return [DynamicDim(name, axis, d) for name, dims in declared.items() if dims is not None
            for axis, d in enumerate(dims) if isinstance(d, str)]


def resolve_shapes(declared: dict[str, Declared | None], given: dict[str, tuple[int, ...] | list[int]], *,
                   option: str = "input_shapes") -> dict[str, tuple[int, ...]]:
    """Static shapes for every input from the declared dims and the caller's sizes.

    `given` maps input names to whole shapes. A named dimension fixed through one input fixes it for
    every input that shares the name. Raises ShapeError for an unknown input, a wrong rank, a fixed
    size contradicted, a shared name given two sizes, or dynamic dimensions left unset (the message
    lists each with its input, axis and name, and an example)."""
    for k, v in given.items():
        if k not in declared:
            raise ShapeError(f"{option} names '{k}', which is not an input of the model "
                             f"(inputs: {', '.join(declared) or 'none'})", hint="check the input names")
        if not isinstance(v, (tuple, list)) or not all(_is_size(d) for d in v):
            raise ShapeError(f"{option}['{k}'] = {list(v) if isinstance(v, tuple) else v!r} is not a list of "
                             "non-negative integers")
    bound: dict[str, tuple[int, str, int]] = {}   # symbol -> (size, input, axis) that fixed it
    for name, want in given.items():
        dims = declared[name]
        want = tuple(int(w) for w in want)
        if dims is not None and len(dims) != len(want):
            raise ShapeError(f"input '{name}' has rank {len(dims)} ({_show(dims)}), but {option} gives "
                             f"{len(want)} sizes {list(want)}", hint="give one size per dimension")
        for axis, (d, w) in enumerate(zip(dims or [ANONYMOUS] * len(want), want)):
            if isinstance(d, int):
                if d != w:
                    raise ShapeError(f"input '{name}' has static size {d} on axis {axis}, but {option} "
                                     f"gives {w}", hint="only dynamic dimensions can be set")
                continue
            sym = DynamicDim(name, axis, d).symbol
            if sym in bound and bound[sym][0] != w:
                size, other, other_axis = bound[sym]
                raise ShapeError(f"dimension '{d}' is shared by input '{other}' axis {other_axis} and input "
                                 f"'{name}' axis {axis}, but {option} gives them {size} and {w}",
                                 hint="a named dimension has one size")
            bound[sym] = (w, name, axis)
    out: dict[str, tuple[int, ...]] = {}
    unset: list[DynamicDim] = []
    for name, dims in declared.items():
        if name in given:
            out[name] = tuple(int(w) for w in given[name])
            continue
        if dims is None:
            raise ShapeError(f"input '{name}' has no declared shape (not even its rank)",
                             hint=f"give {option}['{name}'] with one size per dimension")
        shape = []
        for axis, d in enumerate(dims):
            if isinstance(d, int):
                shape.append(d)
            elif DynamicDim(name, axis, d).symbol in bound:
                shape.append(bound[DynamicDim(name, axis, d).symbol][0])
            else:
                unset.append(DynamicDim(name, axis, d))
        out[name] = tuple(shape)
    if unset:
        raise UnsetDimensions(unset, declared, bound)
    return out


class UnsetDimensions(ShapeError):
    """Dynamic dimensions the caller left unset: lists every one and shows an example to fill in."""

    def __init__(self, unset: list[DynamicDim], declared: dict[str, Declared | None],
                 bound: dict[str, tuple[int, str, int]]):
        listed = "; ".join(d.describe() for d in unset)
        example = example_shapes(declared, {s: v[0] for s, v in bound.items()})
        cli = " ".join(f"--input-shape {n}={','.join(map(str, dims))}" for n, dims in example.items())
        super().__init__(f"the model has {len(unset)} dynamic dimension{'s' if len(unset) != 1 else ''} "
                         f"without a size: {listed}",
                         hint=f"fix them, e.g. {cli} (replace each <...> by the size you will run)")
        self.unset = [d.as_dict() for d in unset]
        self.example = {n: list(v) for n, v in example.items()}

    def _extra(self) -> dict:
        return {"unset": self.unset, "example": self.example}


def example_shapes(declared: dict[str, Declared | None], known: dict[str, int] | None = None
                   ) -> dict[str, list[int | str]]:
    """A shape per input for messages: fixed sizes, sizes already known, 1 for a dimension named as
    the batch, and `<symbol>` for the rest (no size is guessed for those)."""
    known = known or {}
    out: dict[str, list[int | str]] = {}
    for name, dims in declared.items():
        if dims is None:
            out[name] = ["<d0>", "<d1>", "..."]
            continue
        row: list[int | str] = []
        for axis, d in enumerate(dims):
            sym = DynamicDim(name, axis, d).symbol if isinstance(d, str) else ""
            if isinstance(d, int):
                row.append(d)
            elif sym in known:
                row.append(known[sym])
            elif d != ANONYMOUS and _BATCHY.match(d):
                row.append(1)
            else:
                row.append(f"<{sym}>")
        out[name] = row
    return out


def _is_size(d) -> bool:
    return isinstance(d, numbers.Integral) and not isinstance(d, bool) and d >= 0


def _show(dims: Declared) -> str:
    return "[" + ", ".join(str(d) for d in dims) + "]"
