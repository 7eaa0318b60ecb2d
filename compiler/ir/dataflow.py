"""What a plan step reads and writes, and the one walk over regions (DESIGN section 3).

Every pass that looks inside If/Loop/Scan bodies goes through `all_steps` (reading) or
`rewrite` (transforming); nothing else re-implements the walk."""
from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator

from .plan import AliasStep, ComputeStep, IfStep, LaunchStep, LoopStep, Plan, ScanStep, Step


def bodies(step: Step) -> tuple[Plan, ...]:
    """A region step's body plans; () for launches, computes and aliases."""
    return getattr(step, "bodies", ())


def reads(step: Step) -> set[str]:
    """Names a step reads from its plan's scope (a region's bodies' outer reads included)."""
    if isinstance(step, LaunchStep):
        # a value one member of a joined launch writes and a later member reads (rammer's barrier
        # variant) is the launch's own, not read from the scope; a kernel that updates a value in
        # place (a scatter's updates) reads it too, which readers_of adds from the earlier write
        k = step.kernel
        return {p.value for p in k.params if not p.output} - {p.value for p in k.params if p.output}
    if isinstance(step, ComputeStep):
        return set(step.spec.inputs)
    if isinstance(step, AliasStep):
        return {step.src}
    if isinstance(step, IfStep):
        return {step.cond} | set(step.then_plan.outer) | set(step.else_plan.outer)
    if isinstance(step, LoopStep):
        return {n for n in (step.trip_count, step.cond, *step.carried_in) if n} | set(step.body.outer)
    if isinstance(step, ScanStep):
        return set(step.state_in) | set(step.scan_in) | set(step.body.outer)
    raise TypeError(type(step).__name__)


def writes(step: Step) -> set[str]:
    """Names a step defines in its plan's scope."""
    if isinstance(step, LaunchStep):
        return {p.value for p in step.kernel.params if p.output}
    if isinstance(step, ComputeStep):
        written = set(step.spec.written)
        return written | ({step.spec.workspace} if getattr(step.spec, "workspace", "") else set())
    if isinstance(step, AliasStep):
        return {step.dst}
    if isinstance(step, LoopStep) and step.iterations:
        return {n for n in step.outputs if n} | {step.iterations}
    return {n for n in step.outputs if n}


def readers_of(steps) -> dict[str, set[int]]:
    """Value -> the indices of the steps that read it. A step that writes a value an earlier step
    wrote updates it in place (a scatter's update kernel after its copy of the data), so it reads
    it too: no fusion pass may take the first writer's result as the value's final contents."""
    readers: dict[str, set[int]] = {}
    written: set[str] = set()
    for k, s in enumerate(steps):
        w = writes(s)
        for v in reads(s) | (w & written):
            readers.setdefault(v, set()).add(k)
        written |= w
    return readers


def first_reader(values, after: int, readers: dict[str, set[int]],
                 aliases: dict[int, AliasStep]) -> tuple[int, dict[str, tuple[tuple[int, ...], str]]] | None:
    """The first step after index `after` that reads one of `values`, directly or through reshape
    aliases (`aliases`: step index -> alias step; an alias's readers are followed, not returned),
    and how it reads through them: {alias value it reads: (the alias steps, the value)}. None when
    no later step reads them. The fusion passes grow groups with it."""
    best: tuple[int, dict] | None = None
    for v in sorted(values):
        frontier = [(v, ())]
        while frontier:
            value, hops = frontier.pop()
            for r in readers.get(value, ()):
                if r in aliases:
                    frontier.append((aliases[r].dst, hops + (r,)))
                    continue
                if r <= after:
                    continue
                if best is None or r < best[0]:
                    best = (r, {})
                if r == best[0] and hops:
                    best[1][value] = (hops, v)
    return best


def readers_through(v: str, readers: dict[str, set[int]], aliases: dict[int, AliasStep]) -> set[int]:
    """The steps that read `v`, a reshape alias of it (`aliases`: step index -> alias step)
    standing for the steps that read the alias."""
    out, todo = set(), [v]
    while todo:
        for r in readers.get(todo.pop(), ()):
            if r in aliases:
                todo.append(aliases[r].dst)
            else:
                out.add(r)
    return out


def downstream(k: int, steps, readers: dict[str, set[int]]) -> set[int]:
    """The steps that wait for step k: those reading what it writes, and so on."""
    seen, todo = set(), [k]
    while todo:
        for v in writes(steps[todo.pop()]):
            for r in readers.get(v, ()):
                if r not in seen:
                    seen.add(r)
                    todo.append(r)
    return seen


def sole_source(v: str, reader: int, readers: dict[str, set[int]], pinned: set[str],
                alias_by_dst: dict[str, int], steps) -> tuple[str | None, set[int]]:
    """The value step `reader` reads as `v`, back through reshape aliases (`alias_by_dst`: alias
    value -> its step index in `steps`), and those alias steps: None when it or a value on the way
    has another reader or is a plan output (`pinned`). A fusion pass may take its producer in."""
    hops: set[int] = set()
    while True:
        if v in pinned or readers.get(v, set()) != {reader}:
            return None, hops
        a = alias_by_dst.get(v)
        if a is None:
            return v, hops
        hops.add(a)
        reader, v = a, steps[a].src


def all_steps(plan: Plan) -> Iterator[Step]:
    """Every step in execution order, a region step before its bodies' steps."""
    return plan.steps_within()


def all_plans(plan: Plan) -> Iterator[Plan]:
    """The plan and every region body in it, outermost first."""
    yield plan
    for s in plan.steps:
        for body in bodies(s):
            yield from all_plans(body)


def all_types(plan: Plan) -> dict:
    """Value name -> TensorType over the plan and its regions' bodies."""
    types: dict = {}
    for p in all_plans(plan):
        types.update(p.types)
    return types


StepRewrite = Callable[[Step, dict], "Step | list[Step] | tuple[Step, ...]"]


def rewrite(plan: Plan, fn: StepRewrite) -> Plan:
    """The plan with every non-region step replaced by fn(step, types) (one step or several), in
    every body too. `types` is the step's own plan's value types: fn may add temporaries to it."""
    types = dict(plan.types)
    steps: list[Step] = []
    for s in plan.steps:
        subs = bodies(s)
        if subs:
            steps.append(s.with_bodies(*(rewrite(b, fn) for b in subs)))
            continue
        out = fn(s, types)
        steps += list(out) if isinstance(out, (list, tuple)) else [out]
    return dataclasses.replace(plan, steps=tuple(steps), types=tuple(types.items()))


def map_bodies(step: Step, fn: Callable[[Plan], Plan]) -> Step:
    """A region step with fn applied to each body; any other step as it is."""
    subs = bodies(step)
    return step.with_bodies(*(fn(b) for b in subs)) if subs else step


def with_steps(plan: Plan, steps, constants: dict, types: dict) -> Plan:
    """`plan` with new steps and the constants (and types) a pass added to, keeping only the constants
    that a step or an output still reads: a weight a pass replaced (converted, compressed) leaves."""
    used = set(plan.returned)
    for s in steps:
        used |= reads(s)
    kept = tuple((n, c) for n, c in constants.items() if n in used)
    dropped = set(constants) - {n for n, _ in kept}
    return dataclasses.replace(plan, steps=tuple(steps), constants=kept,
                               types=tuple((n, t) for n, t in types.items() if n not in dropped))


def graph_obstacle(plan: Plan) -> str | None:
    """Why the plan cannot be replayed as one graph (None when it can): a control-flow region left
    on the host (--disable grinder, or a region the grinder stage could not put in a persistent
    kernel) has its condition and trip count read on the host between launches."""
    regions = sorted({type(s).__name__ for s in plan.steps if isinstance(s, (IfStep, LoopStep, ScanStep))})
    if regions:
        return f"control-flow regions run on the host ({', '.join(regions)})"
    if not any(isinstance(s, LaunchStep) for s in plan.steps):
        return "no launches"
    return None
