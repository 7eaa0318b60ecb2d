"""Kind `block_sparse_tc_gemm` (SparTA, OSDI'22, on tensor cores): the mma.sync contraction of kind
`tc_gemm` (tf32, fp16, bf16) over a constant operand with zero tiles, each block's k loop walking
only its row's non-zero k tiles through the same multi-stage cp.async pipeline.

The pattern is `block_sparse_gemm`'s BCSR at the block tile's granularity, baked into the source
as device constant tables; split-K slices divide a row's listed tiles. A tile is skipped only if
every element of it is exactly zero. Roller never offers this kind: passes/sparta_specialize.py
chooses it for a tensor-core contraction where the micro-model predicts it faster than the dense
kernel Roller chose (tc_gemm or wgmma_gemm)."""
from __future__ import annotations

from ..codegen.tensor_core import render_tc_gemm
from ..ir.kernel import Kernel
from ..ir.spec import KernelSpec
from ..ir.texpr import TensorExpr
from ..ir.tiles import KernelConfig
from ..targets import Target
from ._tiled import render_tiled
from .block_sparse_gemm import chosen_by_sparta, tile_list, view

NAME = "block_sparse_tc_gemm"
TIER = None          # chosen by sparta_specialize, never by Roller's construction
TENSOR_CORE = True   # its arithmetic runs on tensor cores (the report's compute ceiling)


def applies(spec) -> str | None:
    return chosen_by_sparta(spec, NAME)


def render_config(te: TensorExpr, cfg: KernelConfig, prefix: str, out_value: str, in_values,
                  workspace: str = "") -> Kernel:
    return render_tc_gemm(te, view(te), cfg, prefix, out_value, in_values, workspace, tiles=tile_list(cfg))


def render(spec: KernelSpec, target: Target | None = None) -> list[Kernel]:
    return render_tiled(spec, target, render_config, workspace_in_launch=True)
