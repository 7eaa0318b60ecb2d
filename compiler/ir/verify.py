"""IR verifiers: run after every stage in tests (and on demand), they raise on a broken invariant."""
from __future__ import annotations

from ..errors import CompilerError
from .graph import Graph


class VerifyError(CompilerError):
    """An IR invariant does not hold: a compiler bug, not a user error."""

    category = "internal"


def verify_graph(g: Graph, outer_scope: frozenset[str] = frozenset()) -> None:
    """Topological order, every value typed and defined once, outputs defined, subgraphs too."""
    types = g.type_map
    defined = set(g.inputs) | set(g.const_map) | set(g.outer) | set(outer_scope)
    for n in g.inputs:
        if n not in types:
            raise VerifyError(f"graph {g.name}: input {n} has no type")
    for c, const in g.constants:
        if c in types and types[c].shape != const.shape:
            raise VerifyError(f"graph {g.name}: constant {c} shape {const.shape} != type {types[c]}")
    for node in g.nodes:
        for i in node.inputs:
            if i and i not in defined:
                raise VerifyError(f"node {node.name} ({node.op}) reads {i} before it is defined")
        for sub in node.subgraphs():
            verify_graph(sub, frozenset(defined))
        for o in node.outputs:
            if not o:
                continue
            if o in defined and o not in g.outer:
                raise VerifyError(f"node {node.name} ({node.op}) redefines {o}")
            if o not in types:
                raise VerifyError(f"node {node.name} ({node.op}) output {o} has no type")
            defined.add(o)
    for o in g.outputs:
        if o not in defined:
            raise VerifyError(f"graph {g.name}: output {o} is never defined")


def verify_plan(plan, outer_scope: frozenset[str] = frozenset()) -> None:
    """Every step reads defined buffers of matching element type; arena slots of live values never overlap."""
    from .dataflow import bodies, reads, writes
    from .plan import ComputeStep, LaunchStep
    from .spec import KernelSpec
    types = dict(plan.types)
    defined = set(plan.inputs) | {n for n, _ in plan.constants} | set(plan.outer) | set(outer_scope)
    defined |= {n for n, t in types.items() if t.size == 0}   # an empty value needs no writer
    for i, s in enumerate(plan.steps):
        for n in reads(s):
            if n not in defined:
                raise VerifyError(f"step {i} reads {n} before it is defined")
        if isinstance(s, LaunchStep):
            for p in s.kernel.params:
                t = types.get(p.value)
                if t is None:
                    raise VerifyError(f"kernel {s.kernel.entry}: buffer {p.value} has no type")
                if t.dtype.ctype != p.ctype:
                    raise VerifyError(f"kernel {s.kernel.entry}: {p.value} is {t.dtype.name}, param is {p.ctype}")
            threads = s.kernel.threads
            if not 0 < threads <= 1024:
                raise VerifyError(f"kernel {s.kernel.entry}: block of {threads} threads")
        if isinstance(s, ComputeStep) and isinstance(s.spec, KernelSpec):
            _verify_spec(s.spec, types)
        for sub in bodies(s):
            verify_plan(sub, frozenset(defined))
        defined |= writes(s)
    for o in plan.returned:
        if o not in defined:
            raise VerifyError(f"plan output {o} (or the real extent an output is trimmed to) is never defined")
    _verify_donations(plan, types)
    offsets = dict(plan.arena)
    for n, off in offsets.items():
        if off % 256 or off + types[n].nbytes > plan.arena_bytes:
            raise VerifyError(f"arena slot of {n} at {off} is misaligned or out of the arena")


def _verify_donations(plan, types: dict) -> None:
    """A donated output is written into an input's buffer of its own type, one output per input,
    and no step reads that input by name (its bytes change under it)."""
    from .dataflow import reads
    if not plan.donated:
        return
    read = set()
    for s in plan.steps_within():
        read |= reads(s)
    taken = set()
    for out, src in plan.donated:
        if out not in plan.outputs or src not in plan.inputs:
            raise VerifyError(f"donation {src} -> {out}: not an input -> output pair of the plan")
        if types.get(out) != types.get(src):
            raise VerifyError(f"donation {src} -> {out}: types {types.get(src)} and {types.get(out)} differ")
        if src in taken or src in read:
            raise VerifyError(f"donated input {src} is given twice or read by a step")
        taken.add(src)


def _verify_spec(spec, types: dict) -> None:
    """Each stage's values have its expression's element types and sizes; a split configuration's
    workspace has a type."""
    for st in spec.stages:
        for v, want in list(zip(st.inputs, st.expr.inputs)) + [(st.output, st.expr.output)]:
            t = types.get(v)
            if t is None:
                if spec.level(v) is not None:
                    continue    # carried inside the kernel: no buffer
                raise VerifyError(f"spec {spec.name}: value {v} has no type")
            if t.dtype != want.dtype or t.size != want.size:
                raise VerifyError(f"spec {spec.name}: {v} is {t}, its expression wants {want}")
    if spec.workspace and spec.workspace not in types:
        raise VerifyError(f"spec {spec.name}: workspace {spec.workspace} has no type")
    if spec.kind is not None and spec.config is None:
        raise VerifyError(f"spec {spec.name}: kind {spec.kind} without a configuration")
