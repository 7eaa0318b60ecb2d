"""Grouped experts: a MoE's token-expert pairs sorted by expert into groups of R rows, so that each
expert FC is a batched GEMM over the groups (on tensor cores where the precision has them) that
reads an expert's weights once per group instead of once per pair.

At a prompt each pair gathering its expert's weight rows (contrib_moe's pair layout) reads the
weights tokens x k times, from L2 at best, on SIMT lanes. Sorting the pairs by expert is what
grouped-GEMM MoE kernels do (vLLM's fused_moe, SparTA's SparseMoE); here it is tensor expressions
with every size static. Both sorts end in the same tensors:

  start[e]          groups before expert e's: the sum of ceil(count / R) over the experts before it
  slot[t, j]        the pair's row: start[e] R + its rank among e's tokens
  group_expert[g]   the expert of group g (the last expert for the groups past the used ones)
  slot_token[s]     the token at row s (token 0 where no token: finite values never read)

`rank` compares the pairs with each other (a count per expert, each pair's rank among the earlier
tokens of its expert, the slot inverted by a sum over the pairs): few kernels, quadratic in the
pairs. `scan` cuts the tokens into chunks of C (a power of two near sqrt(tokens)) and scans per
expert at two levels: member[t, e], within[t, e] (the chunk's tokens up to t that picked e),
before[c, e] (the chunks before c's; c up to the chunks gives the count); a pair's rank is before +
within - 1, and a row's token is found in two steps, the chunk whose tokens of e pass the row's
rank, then the position in it: more kernels, linear in the tokens times C or the chunks. The
lowering prices both (bench/moe_grouping.py: gpt-oss-20b's layer takes `rank` up to 512 tokens and
`scan` at 2048).

The groups are at most (pairs + experts (R - 1)) / R, whatever the routing, so the FCs are (groups,
R, rows) and the rows past the used ones compute values nothing reads.

Where an expert serves enough pairs on average (`group_rows`), the MoE lowering prices the pair
layout and the grouped one with each sort with the micro-model (LowerCtx.cheapest: the kernels as
Roller would tile them) and keeps the fastest; a small layer's sort costs more than it saves.
`--disable grouped_experts` keeps the pair layout everywhere."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ..ir.dtypes import DType
from ..ir.graph import TensorType
from ..ir.texpr import Expr, Reduce, TensorExpr, Var, binary, eq, load, logical_and, minimum, out_vars, select
from .contrib_attention import ExprArgs

GROUP_ROWS = (16, 32, 64, 128)      # the rows of a group: tensor-core M tiles
# Grouping is tried only where an expert serves at least this many pairs on average: below it a
# 16-row tensor-core tile would be mostly padding, and a decode step is not lowered twice.
MIN_MEAN_ROWS = 8
I64 = DType.int64
SLOT_TOKEN = "expert_slot_token"     # both sorts' last kernel: the token at each row
SORTS = ("rank", "scan")             # the two sorts (the module docstring), both priced


def max_groups(pairs: int, experts: int, rows: int) -> int:
    """The most groups `pairs` pairs of `experts` experts can fill, `rows` rows each."""
    return (pairs + experts * (rows - 1)) // rows


def group_rows(tokens: int, k: int, experts: int) -> int | None:
    """R, the smallest of GROUP_ROWS at or above the mean pairs per expert (the largest where none
    is), or None (the pair layout) where that mean is below MIN_MEAN_ROWS."""
    pairs = tokens * k
    if pairs < MIN_MEAN_ROWS * experts:
        return None
    return next((r for r in GROUP_ROWS if r * experts >= pairs), GROUP_ROWS[-1])


@dataclass(frozen=True)
class Rows:
    """How a MoE's FC rows are laid out: `shape` (a, b) before the FC's own axis, and for output
    vars (a, b) the token whose input row it reads and the expert whose weights it uses; `at(t, j)`
    is where pair (token t, its j-th expert) is in that layout. Each adds its operands to `args`."""

    shape: tuple[int, int]
    token: Callable[[ExprArgs, Expr, Expr], Expr]
    expert: Callable[[ExprArgs, Expr, Expr], Expr]
    at: Callable[[ExprArgs, Expr, Expr], tuple[Expr, Expr]]


def pair_rows(idx: str, idx_t: TensorType) -> Rows:
    """The pair layout: row (t, j) is token t with its j-th expert."""
    T, K = idx_t.shape
    return Rows((T, K), token=lambda args, t, j: t,
                expert=lambda args, t, j: load(args.arg(idx, idx_t), idx_t, (t, j)),
                at=lambda args, t, j: (t, j))


def chunk_tokens(tokens: int) -> int:
    """C: the smallest power of two at or above sqrt(tokens), so the scan's two levels match."""
    c = 1
    while c * c < tokens:
        c *= 2
    return c


class _Emitter:
    """Emits the sort's int64 tensors as kernels of the node being lowered."""

    def __init__(self, ctx):
        self.ctx = ctx

    def __call__(self, hint: str, shape: tuple[int, ...], inputs: list[tuple[str, TensorType]], body,
                 reduce: Reduce | None = None, epilogue=None) -> tuple[str, TensorType]:
        t = TensorType(I64, shape)
        name = self.ctx.temp(t, hint)
        self.ctx.emit(TensorExpr(hint, tuple(ty for _, ty in inputs), t, body, reduce, epilogue),
                      [n for n, _ in inputs], name)
        return name, t


def _over(n: int, k: int = 0) -> Reduce:
    return Reduce("sum", (("r0", n),) + ((("r1", k),) if k else ()))


def grouped_rows(ctx, idx: str, idx_t: TensorType, experts: int, rows: int, sort: str = "scan") -> Rows:
    """Emits the sort of the pairs by expert (`sort`: one of SORTS, the module docstring's) and
    returns the grouped layout: (groups, rows)."""
    T, K = idx_t.shape
    E, R = experts, rows
    G = max_groups(T * K, E, R)
    emit = _Emitter(ctx)
    slot, slot_token, group_expert = (_rank_sort if sort == "rank" else _scan_sort)(emit, (idx, idx_t), E, R, G)
    return Rows((G, R),
                token=lambda args, a, b: load(args.arg(*slot_token), slot_token[1], (a * R + b,)),
                expert=lambda args, a, b: load(args.arg(*group_expert), group_expert[1], (a,)),
                at=lambda args, tt, jj: _slot_at(args, slot, tt, jj, R))


def _starts(emit, count_at, count, E: int, R: int, G: int) -> tuple[tuple, tuple]:
    """(start, group_expert): start[e] for e in 0..E (start[E] the groups used) from the counts
    (`count_at(r0)`: expert r0's count read from `count`), and each group's expert (how many
    experts' groups end at or before it, clamped for the unused groups)."""
    r0 = Var("r0")
    (e,) = out_vars(1)
    start = emit("expert_group_start", (E + 1,), [count],
                 select(binary("lt", r0, e), (count_at(r0) + (R - 1)) // R, 0), _over(E))
    (g,) = out_vars(1)
    group_expert = emit("expert_of_group", (G,), [start],
                        select(binary("le", load(0, start[1], (r0 + 1,)), g), 1, 0), _over(E),
                        minimum(Var("acc", I64), E - 1))
    return start, group_expert


def _rank_sort(emit, idx: tuple[str, TensorType], E: int, R: int, G: int) -> tuple[tuple, tuple, tuple]:
    """The pairs compared with each other: few kernels, quadratic in the pairs (a short prompt)."""
    idx_t = idx[1]
    T, K = idx_t.shape
    r0, r1 = Var("r0"), Var("r1")
    (e,) = out_vars(1)
    count = emit("expert_count", (E,), [idx], select(eq(load(0, idx_t, (r0, r1)), e), 1, 0), _over(T, K))
    start, group_expert = _starts(emit, lambda x: load(0, count[1], (x,)), count, E, R, G)
    t, j = out_vars(2)
    mine = load(0, idx_t, (t, j))
    rank = emit("expert_rank", (T, K), [idx],
                select(logical_and(eq(load(0, idx_t, (r0, r1)), mine), binary("lt", r0, t)), 1, 0), _over(T, K))
    slot = emit("expert_slot", (T, K), [idx, start, rank],
                load(1, start[1], (load(0, idx_t, (t, j)),)) * R + load(2, rank[1], (t, j)))
    (s,) = out_vars(1)
    slot_token = emit(SLOT_TOKEN, (G * R,), [slot], select(eq(load(0, slot[1], (r0, r1)), s), r0, 0), _over(T, K))
    return slot, slot_token, group_expert


def _scan_sort(emit, idx: tuple[str, TensorType], E: int, R: int, G: int) -> tuple[tuple, tuple, tuple]:
    """Per expert a two-level scan over chunks of C tokens: more kernels, linear in the tokens
    times C or the chunks (a long prompt)."""
    idx_t = idx[1]
    T, K = idx_t.shape
    C = chunk_tokens(T)
    NC = -(-T // C)
    r0 = Var("r0")
    t, e = out_vars(2)
    member = emit("expert_member", (T, E), [idx], select(eq(load(0, idx_t, (t, r0)), e), 1, 0), _over(K))
    # within t's chunk, positions r0 <= t's own (clamped: the last chunk may be short)
    first = (t // C) * C
    within = emit("expert_within_chunk", (T, E), [member],
                  select(binary("le", r0, t % C), load(0, member[1], (minimum(first + r0, T - 1), e)), 0), _over(C))
    c, e = out_vars(2)
    before = emit("expert_chunks_before", (NC + 1, E), [within],
                  select(binary("lt", r0, c), load(0, within[1], (minimum(r0 * C + (C - 1), T - 1), e)), 0),
                  _over(NC))
    start, group_expert = _starts(emit, lambda x: load(0, before[1], (NC, x)), before, E, R, G)
    t, j = out_vars(2)
    ex = load(0, idx_t, (t, j))
    slot = emit("expert_slot", (T, K), [idx, start, before, within],
                load(1, start[1], (ex,)) * R + load(2, before[1], (t // C, ex)) + load(3, within[1], (t, ex)) - 1)
    (s,) = out_vars(1)
    ge = load(0, group_expert[1], (s // R,))
    rank = s - load(1, start[1], (ge,)) * R
    slot_chunk = emit("expert_slot_chunk", (G * R,), [group_expert, start, before],
                      select(binary("le", load(2, before[1], (r0 + 1, ge)), rank), 1, 0), _over(NC))
    ge = load(1, group_expert[1], (s // R,))
    rank = s - load(2, start[1], (ge,)) * R
    ch = load(0, slot_chunk[1], (s,))
    chc = minimum(ch, NC - 1)
    pos = chc * C + r0
    here = binary("le", load(4, within[1], (minimum(pos, T - 1), ge)), rank - load(3, before[1], (chc, ge)))
    slot_token = emit(SLOT_TOKEN, (G * R,), [slot_chunk, group_expert, start, before, within],
                      select(logical_and(here, binary("lt", pos, T)), 1, 0), _over(C),
                      select(binary("lt", ch, NC), minimum(chc * C + Var("acc", I64), T - 1), 0))
    return slot, slot_token, group_expert


def _slot_at(args: ExprArgs, slot: tuple[str, TensorType], t: Expr, j: Expr, R: int) -> tuple[Expr, Expr]:
    s = load(args.arg(*slot), slot[1], (t, j))
    return s // R, s % R
