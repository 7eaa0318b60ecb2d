"""Element-level dependence between a producer and a consumer, from the consumer's index maps
alone (AStitch's one-to-one / one-to-many, Welder's tile propagation; DESIGN section 3).

- `dependence(te, arg)`: how consumer `te` reads its input `arg`. ONE_TO_ONE: every load of it is
  at the consumer's own output index (same shape), so each produced element feeds exactly the
  consumer element at the same place; ONE_TO_MANY: the loads are affine (a broadcast, a
  reduction, a window, a transpose): an element feeds a region or a region feeds an element;
  ARBITRARY: an index depends on loaded data or is not affine (gathers, resize, reshapes with
  division).
- `input_region(te, arg, tile)`: the box of input `arg` the consumer reads to compute an output
  tile (bounds per output variable), by interval arithmetic over the index expressions: the
  region a fused group's producer must provide (Welder's propagation, stage by stage with
  `propagate`).
- `injective(index, shape, extents)`: whether distinct values of the variables read distinct
  elements: a fused reduction read at such an index is computed once per element, never again.
- `reshape_index(index, from_shape, to_shape, extents)`: the index into a buffer's other shape
  (a reshape alias) that reads the same element, simplified to affine components when no digit
  carries into the next; `read_reshaped(te, arg, src_type)`: `te` reading input `arg` through
  that alias's source instead."""
from __future__ import annotations

import math
from enum import Enum

from ..ir.dtypes import DType
from ..ir.texpr import Expr, Load, TensorExpr, Var, binary, const, index_interval, replace_loads, walk
from .views import affine

INDEX = DType.int64


class Dependence(str, Enum):
    ONE_TO_ONE = "one-to-one"
    ONE_TO_MANY = "one-to-many"
    ARBITRARY = "arbitrary"


def extents_of(te: TensorExpr) -> dict[str, int]:
    """Every index variable of `te` and its extent: output axes i0.., reduction axes, the axes of
    folds inside it."""
    ext = {f"i{d}": n for d, n in enumerate(te.output.shape)}
    if te.reduce is not None:
        ext.update(dict(te.reduce.axes))
    ext.update(te.fold_extents)
    return ext


def loads_of(te: TensorExpr, arg: int) -> list[Load]:
    """The distinct loads of input `arg` in the body and the epilogue."""
    return list(te.loads[arg]) if 0 <= arg < len(te.inputs) else []


def is_identity(index: tuple[Expr, ...], shape: tuple[int, ...], out_shape: tuple[int, ...]) -> bool:
    """Whether `index` is the output index itself (i0, i1, ...) over an input of the output's shape."""
    return tuple(shape) == tuple(out_shape) and all(
        isinstance(x, Var) and x.name == f"i{d}" for d, x in enumerate(index))


def dependence(te: TensorExpr, arg: int) -> Dependence:
    """How `te` reads input `arg` (see the module docstring)."""
    loads = loads_of(te, arg)
    shape = te.inputs[arg].shape
    if loads and all(is_identity(ld.index, shape, te.output.shape) for ld in loads):
        return Dependence.ONE_TO_ONE
    for ld in loads:
        for x in ld.index:
            if any(isinstance(y, Load) for y in walk(x)) or affine(x) is None:
                return Dependence.ARBITRARY
    return Dependence.ONE_TO_MANY


def offset_form(index: tuple[Expr, ...], shape: tuple[int, ...]) -> tuple[dict[str, int], int] | None:
    """The row-major element offset of `index` into `shape`, as an affine form (None if not affine)."""
    coeffs: dict[str, int] = {}
    c0, stride = 0, 1
    for x, n in zip(reversed(index), reversed(shape)):
        a = affine(x)
        if a is None:
            return None
        for v, c in a[0].items():
            coeffs[v] = coeffs.get(v, 0) + c * stride
        c0 += a[1] * stride
        stride *= n
    return {v: c for v, c in coeffs.items() if c}, c0


def injective(index: tuple[Expr, ...], shape: tuple[int, ...], extents: dict[str, int]) -> bool:
    """Whether distinct values of the variables in `extents` always read distinct elements."""
    form = offset_form(index, shape)
    if form is None:
        return False
    coeffs, _ = form
    moving = {v: n for v, n in extents.items() if n > 1}
    if not set(moving) <= set(coeffs):
        return False          # a variable the index ignores: its values read the same element
    span = 0
    for c, n in sorted((abs(coeffs[v]), n) for v, n in moving.items()):
        if c <= span:
            return False
        span += c * (n - 1)
    return True


def injective_but_gathers(index: tuple[Expr, ...], extents: dict[str, int]) -> bool:
    """Whether distinct values of the variables in `extents` read distinct elements except where
    gathered indices repeat (a component loaded from a tensor: an embedding row chosen by a token
    id, which two tokens may share): every other component moves one variable of its own by +-1,
    and every variable moves some component."""
    return _per_axis(index, {v for v, n in extents.items() if n > 1}, gathered=True)


def _per_axis(index: tuple[Expr, ...], moving: set[str], gathered: bool = False) -> bool:
    """Whether each component of `index` moves one variable of its own by +-1 (or, `gathered`,
    is loaded data, which moves the variables it reads at), and every variable in `moving` moves
    one."""
    seen: set[str] = set()
    for x in index:
        if gathered and any(isinstance(y, Load) for y in walk(x)):
            seen |= {y.name for y in walk(x) if isinstance(y, Var)}
            continue
        a = affine(x)
        if a is None:
            return False
        terms = {v: c for v, c in a[0].items() if c}
        if len(terms) > 1 or any(abs(c) != 1 for c in terms.values()) or set(terms) & seen:
            return False
        seen |= set(terms)
    return moving <= seen


def elements_read(te: TensorExpr, arg: int) -> int | None:
    """At most how many elements of input `arg` `te` reads: per load, per axis, no more values than
    the index component's variables can take, than its interval spans, or than the axis holds.
    A gather (an embedding table's rows chosen by token ids) reads the rows its ids can name, a
    slice or a strided window its extent, not the whole input; None where `te` has no load of it
    (nothing to bound: the input is counted whole, as before)."""
    ext = extents_of(te)
    shape = te.inputs[arg].shape
    loads = loads_of(te, arg)
    if not loads:
        return None
    env = {v: (0, n - 1) for v, n in ext.items()}
    total = 0
    for ld in loads:
        count = 1
        for x, n in zip(ld.index, shape):
            values = math.prod(ext.get(y.name, 1) for y in {v for v in walk(x) if isinstance(v, Var)})
            iv = index_interval(x, env)
            if iv is not None:       # the interval, clipped to the axis (a guard keeps the rest out)
                values = min(values, max(1, min(n - 1, iv[1]) - max(0, iv[0]) + 1))
            count *= min(n, values)
        total += count
    return min(total, te.inputs[arg].size)


def input_bytes(te: TensorExpr) -> int:
    """Bytes of its inputs `te` can read (`elements_read`: a gathered table the rows its indices can
    name, a slice its extent)."""
    total = 0
    for arg, t in enumerate(te.inputs):
        n = elements_read(te, arg)
        total += t.nbytes if n is None else n * t.dtype.itemsize
    return total


def unread_by_value(stages, types: dict) -> dict[str, int]:
    """Per input of `stages` (spec.Stage objects), the bytes they never read (`elements_read`: the
    rows of a gathered table no index can name, what a slice leaves); inputs read whole are left
    out. Several stages reading one input add up, at most to the whole."""
    made = {st.output for st in stages}
    reads: dict[str, int | None] = {}
    for st in stages:
        for arg, v in enumerate(st.inputs):
            if v in made or v not in types or reads.get(v, 0) is None:
                continue
            n = elements_read(st.expr, arg)
            reads[v] = None if n is None else reads.get(v, 0) + n
    unread = {v: types[v].nbytes - n * types[v].dtype.itemsize for v, n in reads.items() if n is not None}
    return {v: b for v, b in unread.items() if b > 0}


def unread_bytes(stages, types: dict) -> int:
    """Bytes of the inputs of `stages` that they never read (`unread_by_value`, summed); 0 when
    every input is read whole."""
    return sum(unread_by_value(stages, types).values())


def reads_once(te: TensorExpr, arg: int) -> bool:
    """Whether `te` reads each element of input `arg` at most once: every load's index is
    injective over `te`'s variables, or moves each variable along an axis of its own (a slice's or
    a concat's offset, a transpose), which is injective whatever range a guard leaves it."""
    ext = extents_of(te)
    moving = {v for v, n in ext.items() if n > 1}
    shape = te.inputs[arg].shape
    return all(injective(ld.index, shape, ext) or _per_axis(ld.index, moving) for ld in loads_of(te, arg))


def reshape_index(index: tuple[Expr, ...], from_shape: tuple[int, ...], to_shape: tuple[int, ...],
                  extents: dict[str, int]) -> tuple[Expr, ...]:
    """The index into `to_shape` of the element `index` reads in `from_shape` (same bytes, another
    shape): affine per axis when the offset's terms fall within single axes without carries,
    else the offset's division and remainder by each axis's stride."""
    if math.prod(from_shape) != math.prod(to_shape):
        raise ValueError(f"reshape of {from_shape} to {to_shape}: sizes differ")
    strides = [math.prod(to_shape[d + 1:]) for d in range(len(to_shape))]
    form = offset_form(index, from_shape)
    if form is not None:
        simple = _digits(form, strides, to_shape, extents)
        if simple is not None:
            return simple
    offset = const(0, INDEX)
    stride = 1
    for x, n in zip(reversed(index), reversed(from_shape)):
        offset = binary("add", offset, binary("mul", x, const(stride, INDEX)))
        stride *= n
    return tuple(binary("imod", binary("idiv", offset, const(s, INDEX)), const(n, INDEX)) if d else
                 binary("idiv", offset, const(s, INDEX)) for d, (s, n) in enumerate(zip(strides, to_shape)))


def read_reshaped(te: TensorExpr, arg: int, src_type) -> TensorExpr:
    """`te` reading input `arg` (a reshape alias) through the alias's source type `src_type` instead,
    each load at the source's index of the same element."""
    shape = te.inputs[arg].shape
    ext = extents_of(te)

    def one(ld: Load) -> Expr:
        if ld.arg != arg:
            return ld
        return Load(arg, reshape_index(ld.index, shape, src_type.shape, ext), ld.dtype)

    ins = list(te.inputs)
    ins[arg] = src_type
    body = replace_loads(te.body, one)
    epilogue = None if te.epilogue is None else replace_loads(te.epilogue, one)
    return te.replace(inputs=tuple(ins), body=body, epilogue=epilogue)


def _digits(form, strides, shape, extents) -> tuple[Expr, ...] | None:
    coeffs, c0 = form
    if c0 < 0 or any(c < 0 for c in coeffs.values()):
        return None
    terms: list[list[tuple[str, int]]] = [[] for _ in shape]
    consts = []
    rest = c0
    for s in strides:
        consts.append(rest // s)
        rest %= s
    for v, c in coeffs.items():
        if extents.get(v, 2) <= 1:
            continue          # an axis of extent 1: the variable is always 0
        d = next((d for d, s in enumerate(strides) if c % s == 0 and c // s < shape[d]), None)
        if d is None:
            return None
        terms[d].append((v, c // strides[d]))
    out = []
    for d, n in enumerate(shape):
        top = consts[d] + sum(c * (extents.get(v, 1) - 1) for v, c in terms[d])
        if top >= n:
            return None       # this axis would carry into the next: not a per-axis map
        e: Expr = const(consts[d], INDEX)
        for v, c in sorted(terms[d]):
            e = binary("add", e, binary("mul", Var(v), const(c, INDEX)))
        out.append(e)
    return tuple(out)


# ---- tile propagation ---------------------------------------------------------------------------

Box = tuple[tuple[int, int], ...]      # inclusive bounds per axis


def input_region(te: TensorExpr, arg: int, tile: dict[str, tuple[int, int]]) -> Box:
    """The box of input `arg` that `te` reads for the output tile `tile` (inclusive bounds per
    output variable; missing ones span their axis); reduction variables span their axes. An
    index the intervals cannot bound (data-dependent) spans its whole axis."""
    env = {v: (0, n - 1) for v, n in extents_of(te).items()}
    env.update(tile)
    shape = te.inputs[arg].shape
    box = [None] * len(shape)
    for ld in loads_of(te, arg):
        for d, x in enumerate(ld.index):
            iv = index_interval(x, env) or (0, shape[d] - 1)
            iv = (max(0, iv[0]), min(shape[d] - 1, iv[1]))
            box[d] = iv if box[d] is None else (min(box[d][0], iv[0]), max(box[d][1], iv[1]))
    return tuple(b if b is not None else (0, n - 1) for b, n in zip(box, shape))


def box_size(box: Box) -> int:
    return math.prod(hi - lo + 1 for lo, hi in box)


def propagate(stages, tile: dict[str, tuple[int, int]]) -> dict[str, Box]:
    """Welder's backward propagation through a group (spec.Stage objects in order): for an output
    tile of the last stage, the region of every value the group reads or carries (the union box
    over the stages that read it)."""
    regions: dict[str, Box] = {}
    out_tiles = {stages[-1].output: tile}
    for st in reversed(stages):
        t = out_tiles.get(st.output)
        if t is None:
            continue
        for arg, value in enumerate(st.inputs):
            box = input_region(st.expr, arg, t)
            if value in regions:
                box = tuple((min(a[0], b[0]), max(a[1], b[1])) for a, b in zip(regions[value], box))
            regions[value] = box
            out_tiles[value] = {f"i{d}": b for d, b in enumerate(box)}
    return regions
