"""Register-level composition: a spec's stages as one tensor expression (Welder's and AStitch's
register level, DESIGN section 4).

A value carried in registers is never stored: where a later stage loads element `idx` of it, the
producing stage's expression is evaluated at `idx` instead (rounded to the value's element type,
as a store and a load would). The last reducing stage is the *anchor* (a contraction,
convolution or reduction); the stages before it are substituted into its body, and the stages
after it are maps over its result, which become the composed expression's epilogue. They must
read the anchor at one index expression (its own output index, or a permutation or reshape of
it that the fusion pass checked is one-to-one): the composed expression then computes the anchor
once per output element, in the last stage's index space. An earlier reducing stage is *folded*:
where it is read, its reduction becomes a Fold expression over fresh axis names, evaluated there
(the fusion pass decides whether that recomputation pays; compose only makes it exact).

Every kind renders the composed expression as it renders any other: no fused kernel code."""
from __future__ import annotations

import functools

from .graph import TensorType
from .texpr import (ACC, FOLD_OPS, Expr, Fold, Load, TensorExpr, Var, cast, const, in_range, index_interval,
                    logical_and, out_vars, replace_loads, select, substitute_vars, walk)


class NotComposable(ValueError):
    """The stages do not compose into one expression (two reductions, a reduction read at two
    different indices, ...)."""


def compose(stages, registers: set[str]) -> tuple[TensorExpr, tuple[str, ...]]:
    """The one tensor expression equivalent to `stages` (spec.Stage objects, in order) whose values
    named in `registers` are carried in registers, and the values its inputs bind (first use
    first); it computes the last stage's output. NotComposable says why when they do not compose."""
    done = _composed(tuple(stages), frozenset(registers))
    if isinstance(done, NotComposable):
        raise NotComposable(str(done))
    return done


# The passes compose the same stages again and again (a spec's one stage after every pass that
# rebuilds the spec; a row chain's readers for each candidate chain): a composition is a pure
# function of its stages, which hash by value.
@functools.lru_cache(maxsize=1024)
def _composed(stages: tuple, registers: frozenset[str]) -> tuple[TensorExpr, tuple[str, ...]] | NotComposable:
    try:
        return _compose(stages, registers)
    except NotComposable as e:
        return e


def _compose(stages: tuple, registers: frozenset[str]) -> tuple[TensorExpr, tuple[str, ...]]:
    producer = {st.output: k for k, st in enumerate(stages)}
    for v in registers:
        if v not in producer:
            raise NotComposable(f"{v} is carried but no stage defines it")
    reducing = [k for k, st in enumerate(stages) if st.expr.reduce is not None]
    anchor = reducing[-1] if reducing else None
    folded = set(reducing[:-1])
    for k in folded:
        if stages[k].output not in registers:
            raise NotComposable(f"{stages[k].expr.name} reduces before the anchor but is not carried in registers")
        if stages[k].expr.reduce.op not in FOLD_OPS:
            raise NotComposable(f"{stages[k].expr.name}: a {stages[k].expr.reduce.op} cannot be folded")
    folds: dict[tuple[int, tuple[Expr, ...]], Expr] = {}
    last = len(stages) - 1

    ext_types: dict[str, TensorType] = {}   # the composed inputs, first use first (as KernelSpec.inputs)
    for st in stages:
        for value, t in zip(st.inputs, st.expr.inputs):
            if value not in registers:
                ext_types.setdefault(value, t)
    arg_of = {v: k for k, v in enumerate(ext_types)}
    anchor_index: list[tuple[Expr, ...]] = []
    prefixes = _Prefixes(stages, registers, anchor)

    def loads_of(k: int, e: Expr) -> Expr:
        """Stage k's expression `e` with its loads resolved (index variables already substituted)."""
        st = stages[k]

        def one(ld: Load) -> Expr:
            if ld.arg >= _RESOLVED:    # a load of the composed inputs, substituted in with an index
                return Load(ld.arg - _RESOLVED, ld.index, ld.dtype)
            value = st.inputs[ld.arg]
            if value in registers:
                p = producer[value]
                if p == anchor:
                    anchor_index.append(ld.index)
                    return cast(anchor_value(ld.index), ld.dtype)
                return cast(value_at(p, ld.index), ld.dtype)
            return Load(arg_of[value], ld.index, ld.dtype)

        return replace_loads(e, one)

    def at(index: tuple[Expr, ...]) -> dict[str, Expr]:
        """The variables of a stage read at `index`, an index already over the composed inputs: its
        loads (a gather's indices) are shielded from the stage's own load resolution."""
        return {f"i{d}": _shield(x) for d, x in enumerate(index)}

    def value_at(k: int, index: tuple[Expr, ...]) -> Expr:
        """Stage k's element at `index` (a map, or a folded reduction), over the external inputs."""
        te = stages[k].expr
        if k in folded:
            return fold_at(k, index)
        key = prefixes.key(k, index)
        if key is not None and key in _VALUES:
            value, read_anchor_at = _VALUES[key]
            anchor_index.extend(read_anchor_at)
            return value
        mark = len(anchor_index)
        value = cast(loads_of(k, substitute_vars(te.body, at(index))), te.output.dtype)
        if key is not None:
            _remember(key, (value, tuple(anchor_index[mark:])))
        return value

    def fold_at(k: int, index: tuple[Expr, ...]) -> Expr:
        """Folded stage k's element at `index`: its reduction over fresh axes (q<n>_<axis>), its
        epilogue applied; one Fold per distinct index, so a reader that loads an element twice
        evaluates it once (the renderers hoist the repeated subtree)."""
        if (k, index) not in folds:
            te = stages[k].expr
            n = len(folds)
            names = {name: f"q{n}_{j}" for j, (name, _) in enumerate(te.reduce.axes)}
            env = dict(at(index), **{name: Var(fresh) for name, fresh in names.items()})
            body = loads_of(k, substitute_vars(te.body, env))
            fold = Fold(te.reduce.op, tuple((names[name], m) for name, m in te.reduce.axes), body, te.body.dtype)
            value = fold if te.epilogue is None else \
                loads_of(k, substitute_vars(te.epilogue, {**at(index), ACC: _shield(fold)}))
            folds[(k, index)] = cast(value, te.output.dtype)
        return folds[(k, index)]

    def anchor_value(index: tuple[Expr, ...]) -> Expr:
        te = stages[anchor].expr
        acc = Var(ACC, te.body.dtype)
        value = acc if te.epilogue is None else loads_of(anchor, substitute_vars(te.epilogue, at(index)))
        return cast(value, te.output.dtype)

    final = stages[last].expr
    if anchor is None:
        body = loads_of(last, final.body)
        te = TensorExpr(final.name, (), final.output, body)
    elif anchor == last:
        body = loads_of(last, final.body)
        epilogue = None if final.epilogue is None else loads_of(last, final.epilogue)
        te = TensorExpr(final.name, (), final.output, body, final.reduce, epilogue)
    else:
        epilogue = value_at(last, out_vars(final.output.rank))
        index = set(anchor_index)
        if len(index) != 1:
            raise NotComposable(f"{stages[anchor].expr.name} is read at {len(index)} different indices")
        (e_index,) = index
        a = stages[anchor].expr
        body = loads_of(anchor, substitute_vars(a.body, at(e_index)))
        body = _guarded(body, e_index, a.output.shape, final.output.shape)
        te = TensorExpr(a.name, (), final.output, body, a.reduce, epilogue)
    return te.replace(inputs=tuple(ext_types.values())), tuple(ext_types)


class _Prefix:
    """Stages 0..k of a composition, as a key: hashed once, compared by the stages (the same
    objects from one admission to the next, so the comparison is by identity)."""

    __slots__ = ("stages", "_hash")

    def __init__(self, stages: tuple, chained: int):
        self.stages, self._hash = stages, chained

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other) -> bool:
        return isinstance(other, _Prefix) and self.stages == other.stages


class _Prefixes:
    """Which of a composition's stage values are pure functions of the stages up to them, and
    their keys. A map stage's value at an index depends on stages 0..k alone where all of them
    are carried in registers and none is folded: each is a map, or the anchor (inputs are
    numbered in first use, so 0..k number theirs alike in every longer composition; a reducing
    stage among them is the anchor in every composition that has them all usable, since one
    that a later reduction folds stops the prefixes before it). The fusion pass composes a group
    again at every admission, one stage longer each time; the values of the stages it had are
    then found, not composed again, and an admission costs its own stage. Values past a folded
    stage are not remembered: their Folds are named in the order a composition makes them."""

    def __init__(self, stages: tuple, registers: frozenset[str], anchor: int | None):
        self.stages, self.keys = stages, {}
        self.chained: list[int] = []     # per k, a hash of stages 0..k (each stage hashed once)
        self.usable = 0                  # stages 0..usable-1 qualify
        for k, st in enumerate(stages):
            if st.output not in registers or (st.expr.reduce is not None and k != anchor):
                break
            self.usable = k + 1

    def key(self, k: int, index: tuple) -> tuple | None:
        if k >= self.usable:
            return None
        prefix = self.keys.get(k)
        if prefix is None:
            while len(self.chained) <= k:
                self.chained.append(hash((self.chained[-1] if self.chained else 0, self.stages[len(self.chained)])))
            prefix = self.keys[k] = _Prefix(self.stages[:k + 1], self.chained[k])
        return prefix, index


# value_at's results by (_Prefix, index): (the value, the indices it read the anchor at)
_VALUES: dict = {}
_VALUES_LIMIT = 1 << 15


def _remember(key, entry) -> None:
    if len(_VALUES) >= _VALUES_LIMIT:
        _VALUES.clear()
    _VALUES[key] = entry


# Added to a load's input number while it sits in an index substituted into a stage: it already
# names a composed input, and `loads_of` takes the offset off instead of resolving it again.
_RESOLVED = 1 << 30


def _shield(x: Expr) -> Expr:
    return replace_loads(x, lambda ld: Load(ld.arg + _RESOLVED, ld.index, ld.dtype))


def _guarded(body: Expr, index: tuple[Expr, ...], extents, out_shape) -> Expr:
    """The anchor's body with its loads guarded where the epilogue's index into the anchor can leave
    the anchor's shape: a Concat after a conv computes the conv over the concatenated extent and
    reads it only inside its own part, so the conv's weight must not be loaded beyond its rows.
    A guarded load is 0 (Select is lazy: the load never runs); the epilogue never reads those."""
    bounds = {f"i{d}": (0, n - 1) for d, n in enumerate(out_shape)}
    conds = [in_range(x, 0, n) for x, n in zip(index, extents) if not _within(x, bounds, n)]
    if not conds:
        return body
    cond = conds[0]
    for c in conds[1:]:
        cond = logical_and(cond, c)
    names = {v.name for c in conds for v in _vars(c)}

    def guard(ld: Load) -> Expr:
        if not names & {v.name for v in _vars(ld)}:
            return ld
        return select(cond, ld, const(0, ld.dtype))
    return replace_loads(body, guard)


def _vars(e: Expr):
    return (v for v in walk(e) if isinstance(v, Var))


def _within(x: Expr, bounds: dict, n: int) -> bool:
    """Whether index `x` stays in [0, n) over the output's domain (False when it cannot tell)."""
    r = index_interval(x, bounds)
    return r is not None and r[0] >= 0 and r[1] <= n - 1
