"""Operand prologues (part of the welder stage, after its shared-memory level): a map that makes an
attention kernel's Q, K or V operand, computed where the kernel loads the operand.

The register level composes a map into a contraction's loads only when the contraction reads
each element once, or the map costs a few adds and multiplies (welder.cheap): a tiled contraction
loads an operand element once per tile of the other side, and recomputes the map each time. The
attention kinds load differently: a block loads its Q rows once and reads them from shared memory
or registers for every key, and loads each key and value once per block (kinds/flash_attention.py,
flash_attention_simt.py, flash_decoding.py). So a map the register level left on its own, such
as a rotary embedding on Q in a decoder step (a one-query product, read once per key: not one-to-
one, and five operations), is computed once per block that holds its rows when it joins the
attention kernel, and its launch and its result's round trip through DRAM go.

For each attention chain (a row chain of the shared-memory level or an online-softmax kind's
spec, as flash_attention.recognise reads it), each value that only its Q, K or V expression
reads, made by a map spec (register stages, no reduction) whose result nothing else reads
(directly or through reshape aliases), is tried: the map's stage goes before the attention's
stages, carried in registers, and the kinds that render the chain price that spec
(resident.fused_kinds): the online-softmax kinds count the operands' arithmetic where they
evaluate it (flash_attention.operand_ops), the rows kernel the map's recomputation for every key
it reads Q at (resident_rows.chain_flops). The fastest is kept when it beats the chain as it is
plus the map as a launch of its own (resident.apart_us, as the shared-memory level prices members
apart); so the kind may change (a rows kernel gives way to flash_decoding where recomputing Q for
every key costs it more). A joined map's own inputs are tried in turn. The record lists every map
tried, joined or not, with the predictions."""
from __future__ import annotations

import dataclasses

from ..ir.dataflow import map_bodies, readers_of, sole_source
from ..ir.plan import AliasStep, ComputeStep, Plan
from ..ir.spec import KernelSpec, Level
from ..ir.texpr import Expr, Load, walk
from ..kinds import flash_attention, flash_attention_simt, flash_decoding, resident_rows
from ..targets import Target
from . import resident
from .roller import with_workspace

# the kinds that load a block's Q rows once and each key and value once a block, and price their
# operands' arithmetic where they evaluate it
KINDS = frozenset(k.NAME for k in (flash_attention, flash_attention_simt, flash_decoding))


def prologue_plan(plan: Plan, target: Target) -> tuple[Plan, dict]:
    """The plan with operand maps joined to the attention kernels that read them; the record lists
    each map tried (joined or not, both predictions) and counts the kernels removed."""
    record: dict = {"tried": [], "removed": 0}
    return _plan(plan, record, target), record


def _plan(plan: Plan, record: dict, target: Target) -> Plan:
    plan = dataclasses.replace(plan, steps=tuple(map_bodies(s, lambda b: _plan(b, record, target))
                                                 for s in plan.steps))
    steps = list(plan.steps)
    types = dict(plan.types)
    dropped: set[int] = set()
    for k, s in enumerate(steps):
        if _attention_step(s):
            tried: set[str] = set()
            while (found := _try_next(k, steps, dropped, set(plan.returned), types, target, tried)) is not None:
                record["tried"].append(found)
                record["removed"] += found["joined"]
    out = [s for k, s in enumerate(steps) if k not in dropped]
    return dataclasses.replace(plan, steps=tuple(out), types=tuple(types.items()))


def _try_next(k: int, steps: list, dropped: set[int], pinned: set[str], types: dict, target: Target,
              tried: set[str]) -> dict | None:
    """Tries the next operand map of attention step `k` not in `tried`: when it pays, `steps[k]`
    takes it and the map's step and the aliases it was read through join `dropped`. Its record,
    or None when no map is left to try."""
    spec = steps[k].spec
    att = flash_attention.recognise(spec)
    if isinstance(att, str):
        return None
    live = [k2 for k2 in range(len(steps)) if k2 not in dropped]
    readers = {v: {live[r] for r in rs} for v, rs in readers_of([steps[k2] for k2 in live]).items()}
    alias_by_dst = {steps[a].dst: a for a in live if isinstance(steps[a], AliasStep)}
    producer = {steps[p].spec.stages[-1].output: p for p in live if _map_step(steps[p])}
    for v, side in sorted(operand_values(att).items()):
        if v in tried:
            continue
        tried.add(v)
        src, hops = sole_source(v, k, readers, pinned, alias_by_dst, steps)
        p = producer.get(src) if src is not None else None
        if p is None:
            continue
        joined, record = _with_map(spec, v, src, steps[p].spec, types, target)
        if joined is not None:
            steps[k] = ComputeStep(with_workspace(joined, types))
            dropped.add(p)
            dropped.update(hops)
        return dict(record, operand=side)
    return None


def operand_values(att: flash_attention.Attention) -> dict[str, str]:
    """The values the attention reads in its Q, K or V expression alone -> "q", "k" or "v" (the
    scores' epilogue, the logit and the final epilogue read none of them)."""
    chain = att.chain
    everywhere: dict[str, int] = {}
    for r in chain.residents() + chain.stats + (chain.final,):
        for e in (r.expr.body, r.expr.epilogue):
            for ld in _loads(e):
                v = r.values[ld.arg]
                everywhere[v] = everywhere.get(v, 0) + 1
    out = {}
    for side, e, reader in (("q", att.q, chain.resident), ("k", att.k, chain.resident), ("v", att.v, chain.final)):
        counts: dict[str, int] = {}
        for ld in _loads(e):
            v = reader.values[ld.arg]
            counts[v] = counts.get(v, 0) + 1
        out.update({v: side for v, n in counts.items() if everywhere.get(v) == n})
    return out


def _loads(e: Expr | None) -> list[Load]:
    return [] if e is None else [x for x in walk(e) if isinstance(x, Load)]


def _attention_step(step) -> bool:
    """A row chain of the shared-memory level (kind None: resident rows) or an online-softmax kind's
    spec; whether it is attention is flash_attention.recognise's to say."""
    return (isinstance(step, ComputeStep) and isinstance(step.spec, KernelSpec) and len(step.spec.stages) > 1
            and (step.spec.kind in KINDS or step.spec.kind is None))


def _map_step(step) -> bool:
    """A kernel spec that only maps (no reduction), in registers, writing its last value alone."""
    if not (isinstance(step, ComputeStep) and isinstance(step.spec, KernelSpec)):
        return False
    spec = step.spec
    return (spec.kind is None and not spec.workspace and spec.composable and spec.written == (spec.stages[-1].output,)
            and all(st.expr.reduce is None for st in spec.stages))


def _with_map(spec: KernelSpec, v: str, src: str, map_spec: KernelSpec, types: dict, target: Target
              ) -> tuple[KernelSpec | None, dict]:
    """`spec` with `map_spec` (which makes `src`, read as `v`) as its first stage, as the kind
    predicted fastest renders it, when that beats `spec` as it is and the map apart (else None),
    and the record."""
    # read through reshape aliases: the map's value at the reshaped index
    reading = resident.read_through(spec, {v: ((), src)}, types) if v != src else spec
    trial = KernelSpec(stages=(map_spec.stage, *reading.stages), carried=((src, Level.REGISTER), *spec.carried),
                       outputs=spec.outputs, ops=map_spec.ops + spec.ops,
                       precision=spec.precision or map_spec.precision)
    before = spec.kind or resident_rows.NAME
    record = {"ops": list(map_spec.ops), "kind": before, "joined": False}
    kinds = resident.fused_kinds(trial, target)
    if not kinds:
        return None, dict(record, why="no kind renders the attention with it")
    kind = min(kinds, key=lambda name: kinds[name][0])
    fused, joined = kinds[kind]
    without = (flash_attention.predict_us(spec.config, target) if spec.kind in KINDS
               else resident.apart_us(spec, target))
    apart = resident.apart_us(map_spec, target)
    record["predicted_us"] = {"fused": round(fused, 3), "without": round(without, 3), "map_apart": round(apart, 3)}
    if not fused < without + apart:
        return None, dict(record, kind_with_map=kind,
                          why="the kernel with it is predicted no faster than the two apart")
    return dataclasses.replace(joined, workspace=spec.workspace), dict(record, kind=kind, joined=True,
                                                                       **({"kind_before": before} if kind != before else {}))
