"""Grouped experts: a MoE's token-expert pairs sorted by expert into groups of R rows, so that each
expert FC is a batched GEMM over the groups (on tensor cores where the precision has them) that
reads an expert's weights once per group instead of once per pair.

At a prompt each pair gathering its expert's weight rows (contrib_moe's pair layout) reads the
weights tokens x k times, from L2 at best, on SIMT lanes. Sorting the pairs by expert is what
grouped-GEMM MoE kernels do (vLLM's fused_moe, SparTA's SparseMoE); here it is tensor expressions,
like TopK's rank-then-invert (ops/reduce.py), with every size static:

  count[e]         pairs routed to expert e
  start[e]         groups before expert e's: the sum of ceil(count / R) over the experts before it
  rank[t, j]       earlier tokens routed to the same expert (a token picks an expert once)
  slot[t, j]       the pair's row: start[e] * R + rank
  slot_token[s]    the token at row s (token 0 in a group's unused rows: finite values never read)
  group_expert[g]  the expert of group g (the last expert for the groups past the used ones)

The groups are at most (pairs + experts (R - 1)) / R, whatever the routing, so the FCs are (groups,
R, rows) and the rows past the used ones compute values nothing reads. The rank and the inverse are
quadratic in the pairs, like TopK's and CumSum's; their operands stay on chip.

Where an expert serves enough pairs on average (`group_rows`), the MoE lowering prices both layouts
with the micro-model (LowerCtx.cheapest: the kernels as Roller would tile them) and keeps the
faster; a small layer's sort costs more than it saves. `--disable grouped_experts` keeps the pair
layout everywhere."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ..ir.dtypes import DType
from ..ir.graph import TensorType
from ..ir.texpr import Expr, Reduce, TensorExpr, Var, binary, eq, load, logical_and, minimum, out_vars, reduce_vars, \
    select
from .contrib_attention import ExprArgs

GROUP_ROWS = (16, 32, 64, 128)      # the rows of a group: tensor-core M tiles
# Grouping is tried only where an expert serves at least this many pairs on average: below it a
# 16-row tensor-core tile would be mostly padding, and a decode step is not lowered twice.
MIN_MEAN_ROWS = 8
I64 = DType.int64
SLOT_TOKEN = "expert_slot_token"     # the sort's last kernel: a plan holds it only for a grouped MoE


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


def grouped_moe_nodes(plan) -> list[str]:
    """The MoE nodes of a lowered plan whose pairs were grouped (their sort inverts the slots)."""
    return sorted({op for spec in plan.specs() for st in getattr(spec, "stages", ())
                   if st.expr.name == SLOT_TOKEN for op in spec.ops})


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


def grouped_rows(ctx, idx: str, idx_t: TensorType, experts: int, rows: int) -> Rows:
    """Emits the sort of the pairs by expert (the module docstring's tensors) and returns the
    grouped layout: (groups, rows)."""
    T, K = idx_t.shape
    E, R = experts, rows
    G = max_groups(T * K, E, R)
    r0, r1 = reduce_vars(2)
    pairs = Reduce("sum", (("r0", T), ("r1", K)))
    one, zero = 1, 0

    def emit(hint: str, shape: tuple[int, ...], inputs: list[tuple[str, TensorType]], body, reduce=None,
             epilogue=None) -> tuple[str, TensorType]:
        t = TensorType(I64, shape)
        name = ctx.temp(t, hint)
        ctx.emit(TensorExpr(hint, tuple(ty for _, ty in inputs), t, body, reduce, epilogue),
                 [n for n, _ in inputs], name)
        return name, t

    (e,) = out_vars(1)
    count = emit("expert_count", (E,), [(idx, idx_t)],
                 select(eq(load(0, idx_t, (r0, r1)), e), one, zero), pairs)
    # start has E + 1 entries: start[E] is the groups used
    start = emit("expert_group_start", (E + 1,), [count],
                 select(binary("lt", r0, e), (load(0, count[1], (r0,)) + (R - 1)) // R, zero),
                 Reduce("sum", (("r0", E),)))
    t, j = out_vars(2)
    mine = load(0, idx_t, (t, j))
    rank = emit("expert_rank", (T, K), [(idx, idx_t)],
                select(logical_and(eq(load(0, idx_t, (r0, r1)), mine), binary("lt", r0, t)), one, zero), pairs)
    slot = emit("expert_slot", (T, K), [(idx, idx_t), start, rank],
                load(1, start[1], (load(0, idx_t, (t, j)),)) * R + load(2, rank[1], (t, j)))
    (s,) = out_vars(1)
    slot_token = emit(SLOT_TOKEN, (G * R,), [slot],
                      select(eq(load(0, slot[1], (r0, r1)), s), r0, zero), pairs)
    # g's expert: how many experts' groups end at or before g (clamped for the unused groups)
    (g,) = out_vars(1)
    group_expert = emit("expert_of_group", (G,), [start],
                        select(binary("le", load(0, start[1], (r0 + 1,)), g), one, zero),
                        Reduce("sum", (("r0", E),)), minimum(Var("acc", I64), E - 1))
    return Rows((G, R),
                token=lambda args, a, b: load(args.arg(*slot_token), slot_token[1], (a * R + b,)),
                expert=lambda args, a, b: load(args.arg(*group_expert), group_expert[1], (a,)),
                at=lambda args, tt, jj: _slot_at(args, slot, tt, jj, R))


def _slot_at(args: ExprArgs, slot: tuple[str, TensorType], t: Expr, j: Expr, R: int) -> tuple[Expr, Expr]:
    s = load(args.arg(*slot), slot[1], (t, j))
    return s // R, s % R
