"""Register-level composition: a spec's stages as one tensor expression (Welder's and AStitch's
register level, DESIGN section 4).

A value carried in registers is never stored: where a later stage loads element `idx` of it, the
producing stage's expression is evaluated at `idx` instead (rounded to the value's element type,
as a store and a load would). At most one stage may reduce (the *anchor*: a contraction,
convolution or reduction); the stages before it are maps substituted into its body, and the
stages after it are maps over its result, which become the composed expression's epilogue. They
must read the anchor at one index expression (its own output index, or a permutation or reshape
of it that the fusion pass checked is one-to-one): the composed expression then computes the
anchor once per output element, in the last stage's index space.

Every kind renders the composed expression as it renders any other: no fused kernel code."""
from __future__ import annotations

from .graph import TensorType
from .texpr import ACC, Expr, Load, TensorExpr, Var, cast, out_vars, replace_loads, substitute_vars


class NotComposable(ValueError):
    """The stages do not compose into one expression (two reductions, a reduction read at two
    different indices, ...)."""


def compose(stages, registers: set[str]) -> tuple[TensorExpr, tuple[str, ...]]:
    """The one tensor expression equivalent to `stages` (spec.Stage objects, in order) whose values
    named in `registers` are carried in registers, and the values its inputs bind (first use
    first); it computes the last stage's output. NotComposable says why when they do not compose."""
    producer = {st.output: k for k, st in enumerate(stages)}
    for v in registers:
        if v not in producer:
            raise NotComposable(f"{v} is carried but no stage defines it")
    reducing = [k for k, st in enumerate(stages) if st.expr.reduce is not None]
    if len(reducing) > 1:
        names = ", ".join(stages[k].expr.name for k in reducing)
        raise NotComposable(f"two reductions in one expression ({names})")
    anchor = reducing[0] if reducing else None
    last = len(stages) - 1

    ext_types: dict[str, TensorType] = {}   # the composed inputs, first use first (as KernelSpec.inputs)
    for st in stages:
        for value, t in zip(st.inputs, st.expr.inputs):
            if value not in registers:
                ext_types.setdefault(value, t)
    arg_of = {v: k for k, v in enumerate(ext_types)}
    anchor_index: list[tuple[Expr, ...]] = []

    def loads_of(k: int, e: Expr) -> Expr:
        """Stage k's expression `e` with its loads resolved (index variables already substituted)."""
        st = stages[k]

        def one(ld: Load) -> Expr:
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
        return {f"i{d}": x for d, x in enumerate(index)}

    def value_at(k: int, index: tuple[Expr, ...]) -> Expr:
        """Map stage k's element at `index`, over the external inputs."""
        te = stages[k].expr
        return cast(loads_of(k, substitute_vars(te.body, at(index))), te.output.dtype)

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
        te = TensorExpr(a.name, (), final.output, body, a.reduce, epilogue)
    return te.replace(inputs=tuple(ext_types.values())), tuple(ext_types)
