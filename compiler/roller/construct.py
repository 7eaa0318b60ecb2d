"""Roller's construction, kind-agnostic: rank the candidates the kernel kinds offer.

Each kernel kind (compiler/kinds/) constructs its own hardware-aligned rTile candidates, each
with the workload the micro-model reads; Roller ranks them by predicted time and keeps the top K.
The kinds come in tiers of preference (kinds/__init__.py TIERS): the first tier whose kinds offer
any candidate is ranked, a later one only when none does (a contraction no aligned tile fits is
reduced like any other reduction). Deterministic: no randomness, ties broken by a total order on
the configuration.

Beside the ranking, the pieces of Roller the kinds share: the growth path of block tiles by reuse
score (S = dQ / dF: global traffic saved per shared footprint added), bank-conflict and
coalescing simulation, and the bytes and instructions a workload counts."""
from __future__ import annotations

import contextlib
import contextvars
import math
from dataclasses import dataclass
from typing import Iterable, Iterator, Protocol

from ..analysis.dependence import input_bytes
from ..analysis.views import GemmView, decompose, sectors_per_request, vars_of
from ..ir.texpr import Binary, Load, TensorExpr, Unary, walk, walk_distinct
from ..ir.tiles import KernelConfig
from ..targets import Target
from .micro_model import predict

SECTOR = 32

@dataclass
class _Scope:
    """What Roller's searches know of the compilation they run in (`compilation_scope`)."""

    # whether a reduction may be divided among blocks: split-K contractions, split reductions of
    # few long rows and flash decoding's key splits, each split configuration's partial results in
    # an fp32 workspace that the tile's (row's, head's) last block combines (`--disable split_k`)
    splits: bool = True
    # construct()'s rankings by expression, target, k, precision and tiers: the passes that price
    # a spec as Roller would tile it (lowering's prices, welder's levels, split rows, half storage,
    # sparta) ask again and again of the same expressions; None outside a compilation
    memo: dict | None = None


# A context variable rather than parameters, because the kinds' candidate searches read it from
# passes that need not know of it, as TVM's PassContext carries its config. Outside a compilation
# (a test asking a kind directly) nothing is remembered, so a patched kind is asked afresh.
_SCOPE: contextvars.ContextVar[_Scope] = contextvars.ContextVar("brickyard_roller_scope", default=_Scope())


@contextlib.contextmanager
def compilation_scope(splits: bool = True) -> Iterator[None]:
    """Within this block (one compilation's passes): split configurations offered only if
    `splits`, and each ranking constructed once."""
    token = _SCOPE.set(_Scope(splits, {}))
    try:
        yield
    finally:
        _SCOPE.reset(token)


def offered(cands: list[KernelConfig]) -> list[KernelConfig]:
    """`cands` less their split configurations where the compilation switched splits off."""
    return cands if _SCOPE.get().splits else [c for c in cands if c.split_k == 1]


def pow2_ceil(n: int) -> int:
    return 1 << max(0, math.ceil(math.log2(max(1, n))))


class CandidateSource(Protocol):
    """What Roller needs of a kernel kind: its candidates for one tensor expression. A kind may
    also give `lower_bound(te, target, precision)`: microseconds no candidate of its is predicted
    below (`construct` then asks for its candidates only where they could place)."""

    def candidates(self, te: TensorExpr, target: Target, precision: str | None) -> list[KernelConfig]: ...


def construct(te: TensorExpr, target: Target, k: int, precision: str | None,
              tiers: Iterable[Iterable[CandidateSource]]) -> list[KernelConfig]:
    """The top-k configurations of `te` on `target` from the first tier of kinds that offers any,
    best predicted first (empty when no kind offers one).

    `precision`: the precision stage's mark (tf32, fp16, bf16); None lets a contraction's kinds
    infer it from the expression (fp16/bf16 when both operands are rounded to that type)."""
    tiers = tuple(tuple(tier) for tier in tiers)
    memo = _SCOPE.get().memo
    key = (te, target, k, precision, tiers)
    if memo is not None and key in memo:
        return list(memo[key])
    ranked: list[KernelConfig] = []
    for tier in tiers:
        found = _rank_tier(te, target, k, precision, tier)
        if found is not None:
            ranked = found
            break
    if memo is not None:
        memo[key] = tuple(ranked)
    return ranked


# A lower bound is taken as this much lower: predictions and bounds compute the same quantities in
# different orders, and a skipped kind must be strictly slower.
BOUND_SLACK = 1e-9


def _rank_tier(te: TensorExpr, target: Target, k: int, precision: str | None, tier) -> list[KernelConfig] | None:
    """rank() of the tier's candidates (None when it offers none). A kind with a lower bound is
    asked last, and not at all where the others' ranking is already decided below its bound: their
    k best, and where those all split, the best unsplit one that takes the last place, each
    predicted faster than anything the bounded kind could offer (the SIMT kind beside the
    tensor-core kinds at fp16: it ranks nowhere on most contractions, yet its thousands of
    candidates were made and priced for each)."""
    bound = min((kind.lower_bound(te, target, precision) for kind in tier if hasattr(kind, "lower_bound")),
                default=None)
    asked: list = [None] * len(tier)        # per kind (by position: a kind need not hash), its candidates priced

    def ask(n: int) -> None:
        got = offered(tier[n].candidates(te, target, precision))
        asked[n] = (got, _priced(got, target))
    for n, kind in enumerate(tier):
        if bound is None or not hasattr(kind, "lower_bound"):
            ask(n)
    if bound is not None:
        plain, priced = _joined([a for a in asked if a is not None])
        top = _select(plain, priced, k, bound * (1.0 - BOUND_SLACK)) if plain else None
        if top is not None:
            return top
        for n in range(len(tier)):
            if asked[n] is None:
                ask(n)
    cands, priced = _joined(asked)
    return _select(cands, priced, k) if cands else None


def _joined(parts) -> tuple[list[KernelConfig], list[tuple[float, float, int]]]:
    """The kinds' candidates in one list, in the tier's order, with their priced triples renumbered."""
    cands: list[KernelConfig] = []
    priced: list[tuple[float, float, int]] = []
    for got, theirs in parts:
        priced += [(us, cu, len(cands) + i) for us, cu, i in theirs]
        cands += got
    return cands, priced


def rank(cands: list[KernelConfig], target: Target, k: int) -> list[KernelConfig]:
    """The k best-predicted distinct configurations; equal predicted times (the same bound level):
    the one that issues less work first, then the total order. When all k split their reduction
    (split-K), the last place goes to the best unsplit one, so that the tuner measures the split's
    atomics and summing tail, which the model only estimates, against a configuration without."""
    return _select(cands, _priced(cands, target), k)


def _priced(cands: list[KernelConfig], target: Target) -> list[tuple[float, float, int]]:
    """(time, compute time, index) of each candidate the micro-model can launch."""
    priced = []
    for i, cfg in enumerate(cands):
        p = predict(cfg, target)
        if not math.isinf(p.us):
            priced.append((p.us, p.compute_us, i))
    return priced


def _select(cands: list[KernelConfig], priced: list[tuple[float, float, int]], k: int,
            bound: float = math.inf) -> list[KernelConfig] | None:
    """rank's choice from the candidates' (time, compute time, index) triples; with a finite
    `bound`, None where a configuration predicted at `bound` or later could still take a place
    (fewer than k distinct ones here, the k-th at or past it, or the last place's best unsplit one
    missing or at or past it)."""
    priced = sorted(priced)          # (input order within equal times: the total order below is stable on it)
    ordered = _in_rank_order(priced, cands)
    out, seen, unsplit, last = [], set(), None, -math.inf
    for us, cfg in ordered:
        if unsplit is None and cfg.split_k == 1:
            unsplit = (us, cfg)
        order = _order(cfg)
        if order in seen:
            continue
        seen.add(order)
        out.append(cfg)
        last = us
        if len(out) == k:
            break
    if bound < math.inf and (len(out) < k or last >= bound):
        return None
    if k > 1 and len(out) == k and all(c.split_k > 1 for c in out):
        unsplit = unsplit or next(((us, cfg) for us, cfg in ordered if cfg.split_k == 1), None)
        if bound < math.inf and (unsplit is None or unsplit[0] >= bound):
            return None
        if unsplit is not None:
            out[-1] = unsplit[1]
    return out


def _in_rank_order(priced: list[tuple[float, float, int]],
                   cands: list[KernelConfig]) -> Iterator[tuple[float, KernelConfig]]:
    """The candidates in ranking order, with their times, from their sorted (time, compute time,
    index) triples: a run of equal times in the total order of `_order`, built only for the runs a
    ranking reaches (thousands of candidates, of which it keeps k)."""
    i = 0
    while i < len(priced):
        j = i + 1
        while j < len(priced) and priced[j][0] == priced[i][0] and priced[j][1] == priced[i][1]:
            j += 1
        run = [cands[x[2]] for x in priced[i:j]]
        if len(run) > 1:
            run.sort(key=_order)
        yield from ((priced[i][0], cfg) for cfg in run)
        i = j


def _order(cfg: KernelConfig) -> tuple:
    """A total, process-independent order on configurations (ties in predicted time)."""
    return (cfg.kind, tuple((t.level, t.axes, t.padding) for t in cfg.tiles), cfg.params)


def ops_per_element(e) -> int:
    """Arithmetic per output element: each distinct operation once, as the renderer computes a
    repeated sub-expression once (hoisted into a local, or left to NVRTC's CSE)."""
    return max(1, len({x for x in walk_distinct(e) if isinstance(x, (Binary, Unary))}))


def load_count(e) -> int:
    """Loads per output element, each distinct load once (the renderer hoists a repeated one)."""
    return len({x for x in walk_distinct(e) if isinstance(x, Load)})


def io_sizes(te: TensorExpr) -> tuple[int, int, int]:
    """(input bytes, output bytes, largest input item size) of an expression (a gathered table:
    the rows its indices can name)."""
    ins = input_bytes(te)
    return ins, te.output.nbytes, max([t.dtype.itemsize for t in te.inputs] + [1])


def dram_bytes(sizes: tuple[int, int, int], l2_loads: float, target: Target, shared: int | None = None) -> float:
    """Compulsory bytes; repeated loads also reach DRAM in the measure the inputs overflow L2.
    `shared`: the bytes of the inputs that several outputs read (shared_input_bytes), where a
    kind knows its repeated loads are theirs (a matrix-vector product's vector): those that fit in
    a quarter of L2 stay there while the rest streams through, since every block keeps touching
    them, so only the compulsory bytes reach DRAM."""
    ins, outb, _ = sizes
    unique = ins + outb
    if shared and shared <= target.l2_bytes // 4:    # (no shared input: the repeats are sector waste)
        return unique
    spill = max(0.0, 1.0 - target.l2_bytes / max(1, 2 * ins))
    return unique + max(0.0, l2_loads - ins) * spill


def shared_input_bytes(te: TensorExpr) -> int:
    """Bytes of the inputs several outputs read alike: some load of them leaves an output variable
    out of its index (the vector of a matrix-vector product, a bias, a norm's weight)."""
    outs = {f"i{k}" for k, n in enumerate(te.output.shape) if n > 1}     # an axis of one output is no reuse
    total = 0
    for arg, t in enumerate(te.inputs):
        loads = [x for e in (te.body, te.epilogue) if e is not None for x in walk(e)
                 if isinstance(x, Load) and x.arg == arg]
        if any(outs - set().union(*(vars_of(i) for i in ld.index)) for ld in loads):
            total += t.nbytes
    return total


def bank_conflict_ways(addrs_words: list[int], banks: int = 32) -> int:
    """The largest number of distinct words one bank serves for one warp's access."""
    per_bank: dict[int, set] = {}
    for a in addrs_words:
        per_bank.setdefault(a % banks, set()).add(a)
    return max(len(s) for s in per_bank.values()) if per_bank else 1


def loader_sectors(te: TensorExpr, view: GemmView, expr, group, rows: int, bk: int, k_fast: bool,
                    extent: int) -> float:
    """Sectors per warp-wide load of one operand tile, relative to perfectly coalesced loads."""
    base = (extent // 2) // max(1, rows) * rows
    kbase = (view.K // 2) // bk * bk
    envs = []
    for lane in range(32):
        kk, rr = (lane % bk, lane // bk) if k_fast else (lane // rows, lane % rows)
        env = decompose(min(base + rr, extent - 1), group)
        env.update(decompose(min(kbase + kk, view.K - 1), view.k))
        envs.append(env)
    s = sectors_per_request(expr, te.inputs, envs, SECTOR)
    item = te.body.dtype.itemsize if te.body.dtype.itemsize else 4
    ideal = max(1.0, 32 * item / SECTOR)
    return max(1.0, s / ideal) if s else 1.0


def growth_path(ms: list[int], ns: list[int], i: int, j: int, traffic, footprint,
                 target: Target) -> list[tuple[int, int]]:
    """Block tiles (ms[i], ns[j]) onward along Roller's growth path: each step doubles the side
    with the best reuse score S = dQ / dF (global traffic saved per shared footprint added) while
    double-buffered shared memory fits; then every tile one step off the path."""
    path = [(ms[i], ns[j])]
    side = []
    while True:
        cur = (ms[i], ns[j])
        steps = []
        for di, dj in ((1, 0), (0, 1)):
            if i + di >= len(ms) or j + dj >= len(ns):
                continue
            nxt = (ms[i + di], ns[j + dj])
            if footprint(*nxt) * 2 > target.shared_per_block:
                continue
            dq = traffic(*cur) - traffic(*nxt)
            df = footprint(*nxt) - footprint(*cur)
            steps.append((-(dq / df), di, dj, nxt))     # best reuse score first; m before n on ties
        if not steps:
            break
        steps.sort()
        _, di, dj, nxt = steps[0]
        side += [s[3] for s in steps[1:]]
        i, j = i + di, j + dj
        path.append(nxt)
    out = []
    for t in path + side:
        if t not in out:
            out.append(t)
    return out


def index_instructions(rank: int, loads: int) -> int:
    """Integer instructions per computed element or vector besides the math: the index split
    (a multiply-shift and a subtract per axis), one per access, the loop."""
    return 2 * rank + loads + 1 + 4


def flow_dtype(te: TensorExpr) -> str:
    return te.output.dtype.name if te.output.dtype.is_float else "int32"
