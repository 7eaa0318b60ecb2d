"""Kind `block_sparse_gemm` (SparTA, OSDI'22): the SIMT tiled contraction of kind `gemm` over a
constant operand with zero tiles, each block's k loop walking only its non-zero k tiles.

The pattern is BCSR at the block tile's granularity, baked into the kernel: for each block row of
the sparse operand (N tiles of B, or M tiles of A), the list of k tiles holding a non-zero, as
`BY_DEVICE_CONST` tables in the source. A tile is skipped only if every element of it is exactly zero,
so the result is the dense one (up to the order of the additions; a NaN or infinity in the other
operand times a skipped zero is the one difference, as in every sparse library).

Roller never offers this kind: compiler/passes/sparta_specialize.py chooses it, per spec, among
the `gemm` kind's tile configurations re-priced by their density, where it beats the dense best."""
from __future__ import annotations

from ..analysis.views import GemmView, gemm_view
from ..codegen.tiled import TileList, render_gemm
from ..ir.kernel import Kernel
from ..ir.spec import KernelSpec
from ..ir.texpr import TensorExpr
from ..ir.tiles import KernelConfig
from ..targets import Target
from ._tiled import render_tiled

NAME = "block_sparse_gemm"
TIER = None         # chosen by sparta_specialize, never by Roller's construction


def view(te: TensorExpr) -> GemmView | None:
    return gemm_view(te)


def applies(spec) -> str | None:
    return chosen_by_sparta(spec, NAME)


def chosen_by_sparta(spec, kind: str) -> str | None:
    """None when `spec`'s configuration is of `kind`, which only sparta_specialize chooses."""
    if not isinstance(spec, KernelSpec) or spec.config is None or spec.config.kind != kind:
        return "only sparta_specialize's configurations (a zero-tile pattern) render as this kind"
    return None


def tile_list(cfg: KernelConfig) -> TileList:
    """The configuration's BCSR tables (params operand / bcsr_offsets / bcsr_ktiles)."""
    return TileList(str(cfg.param("operand")), tuple(cfg.param("bcsr_offsets")), tuple(cfg.param("bcsr_ktiles")))


def render_config(te: TensorExpr, cfg: KernelConfig, prefix: str, out_value: str, in_values,
                  workspace: str = "") -> Kernel:
    return render_gemm(te, view(te), cfg, prefix, out_value, in_values, tiles=tile_list(cfg), workspace=workspace)


def render(spec: KernelSpec, target: Target | None = None) -> list[Kernel]:
    return render_tiled(spec, target, render_config, workspace_in_launch=True)
