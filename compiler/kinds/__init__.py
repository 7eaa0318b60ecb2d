"""Kernel kinds (DESIGN section 6): one module per kind, and their registry.

Every kind module answers the same questions:

- `NAME`, and `TIER`: None for a kind Roller does not tile; else its tier of preference (0
  contractions, 1 reductions, 2 maps): Roller ranks the candidates of the first tier that offers
  any (roller/construct.py `construct`);
- `applies(spec) -> str | None`: None when it can render the spec, else why not;
- `render(spec, target) -> list[Kernel]`: the spec's launches (the render stage's only call);

and a tiled kind (TIER set) also:

- `view(te)`: what its construction and renderer read of a tensor expression (analysis/views.py);
- `candidates(te, target, precision) -> list[KernelConfig]`: its aligned rTile configurations, each
  with the workload the micro-model reads;
- `render_config(te, cfg, prefix, out, ins) -> Kernel`: the kernel of one configuration (the
  tuner renders its candidates with it; a kind that finishes a split inside its launch, tc_gemm,
  sparse24_gemm and reduce_split, takes the split's `workspace=` too);
- optionally `TENSOR_CORE = True` for a kind whose arithmetic runs on tensor cores (the report
  takes its compute ceiling from the tensor-core peak of the configuration's `elem`);
- optionally `declined(te, target, precision)`, why it offers nothing for an expression it would
  otherwise take.

A new kind (fused row, tile graph, block-sparse) is a new module listed in KINDS."""
from __future__ import annotations

from types import ModuleType

from ..ir.spec import ExternSpec, KernelSpec
from ..ir.texpr import TensorExpr
from ..ir.tiles import KernelConfig
from ..ir.kernel import Kernel
from ..roller.construct import construct
from ..targets import Target
from . import (block_sparse_gemm, block_sparse_tc_gemm, elementwise, elementwise_vec, extern, flash_attention,
               flash_attention_simt, flash_decoding, gemm, naive, reduce, reduce_split, register_rows, resident_rows,
               sparse24_gemm, stitched_maps, stitched_naive, tc_gemm, transpose, wgmma_gemm)

# Order matters within a tier: candidates are listed in this order before ranking.
KINDS: dict[str, ModuleType] = {m.NAME: m for m in (
    naive, gemm, tc_gemm, wgmma_gemm, reduce, reduce_split, elementwise, elementwise_vec, transpose,
    register_rows, resident_rows, flash_attention, flash_attention_simt, flash_decoding, stitched_maps, stitched_naive,
    extern, block_sparse_gemm, block_sparse_tc_gemm, sparse24_gemm)}
TIERS: tuple[tuple[ModuleType, ...], ...] = tuple(
    tuple(m for m in KINDS.values() if m.TIER == t) for t in sorted({m.TIER for m in KINDS.values() if m.TIER is not None}))
# What a spec whose kind is unset renders as: the first of these that applies.
# (register_rows before resident_rows: a chain of statistics whose rows fit in a warp's registers)
UNTILED: tuple[ModuleType, ...] = (extern, naive, register_rows, resident_rows, stitched_naive)


def kind_for(spec: KernelSpec | ExternSpec) -> ModuleType:
    """The spec's chosen kind, or the first untiled kind that applies; ValueError with every
    reason when none does."""
    if isinstance(spec, KernelSpec) and spec.kind is not None:
        if spec.kind not in KINDS:
            raise ValueError(f"spec {spec.name}: unknown kernel kind {spec.kind!r} (known: {', '.join(KINDS)})")
        return KINDS[spec.kind]
    reasons = []
    for kind in UNTILED:
        why = kind.applies(spec)
        if why is None:
            return kind
        reasons.append(f"{kind.NAME}: {why}")
    raise ValueError(f"spec {spec.name}: no kernel kind renders it ({'; '.join(reasons)})")


def construct_rtiles(te: TensorExpr, target: Target, k: int = 8, precision: str | None = None) -> list[KernelConfig]:
    """Roller's top-k configurations of `te` over every tiled kind, best predicted first (empty
    when only the naive kind applies). `precision`: the precision stage's mark; None lets the
    contraction kinds infer fp16/bf16 from operands rounded to that type."""
    return construct(te, target, k, precision, TIERS)


def declined(te: TensorExpr, target: Target, kind: str, precision: str | None = None) -> tuple[str, ...]:
    """Why kinds of `kind`'s tier that would take `te` offered nothing (e.g. 32-bit coordinates
    it exceeds): the chosen kernel's config says why the choice was made among fewer kinds."""
    tier = next((t for t in TIERS if KINDS[kind] in t), ())
    reasons = (m.declined(te, target, precision) for m in tier if hasattr(m, "declined"))
    return tuple(r for r in reasons if r)


def render_config(te: TensorExpr, cfg: KernelConfig, prefix: str, out_value: str, in_values,
                  workspace: str = "") -> Kernel:
    """The kernel of one configuration of any tiled kind: of a split-K one (tc_gemm), the whole launch
    (its partial sums in `workspace`); of a split reduction, the partial-sum kernel."""
    if workspace:
        return KINDS[cfg.kind].render_config(te, cfg, prefix, out_value, in_values, workspace=workspace)
    return KINDS[cfg.kind].render_config(te, cfg, prefix, out_value, in_values)
