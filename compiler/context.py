"""What a compilation's passes read besides the plan: the options, the target, the imported model and
the kernel cache; and the results some passes leave for the report and the artifact.

Every pass in compiler/pipeline.py's table is `(plan, context) -> (plan, record)`. The plan is the
one thing passes transform; the record is the stage's line in the compile log. Results that are not
part of the plan live on the context, each written by one pass and read only after it:

    tune   -> tuning         (the tuning record and measured times, by launch digest)
    build  -> builds         (kernel digest -> cubin and ptxas report)
    fit    -> memory         (the footprint: report.json's `memory`)
    verify -> verification   (report.json's `verification`)

The inputs (model, imported, target, options, store) are set by the pipeline's prologue (import)
and never reassigned."""
from __future__ import annotations

import dataclasses
import hashlib
from dataclasses import dataclass, field
from typing import Any

from .errors import CompilerError
from .frontend.onnx_import import ImportedModel
from .passes.precision import check_precision
from .targets import Target


# Techniques a compilation may switch off (`--disable NAME`), so each one's effect is measured by
# comparison; the stage of each runs as if absent (it leaves the plan as it is). Five name parts
# of the welder stage, so each one's share of fusion can be measured too: `shared_level` (row
# chains, attention in one kernel, stitched memory-bound chains: passes/resident.py), `split_rows`
# (normalisations over a few long rows as their stages apart: passes/split_rows.py) and
# `sink_reshapes` (maps read through a reshape tried over a chain's rows: passes/sink_reshapes.py),
# both off with the shared level too, `prologue` (operand maps in attention kernels' loads: passes/prologue.py),
# `stitched_maps` (maps sharing values, one kernel: passes/stitch_maps.py) and `float_epilogues`
# (a float contraction's epilogue chain kept for its group, where the priced plan says it pays:
# passes/welder.py `_epilogue_of_a_reduction`, pipeline._welder) and `part_reads` (a map that
# reads a reduction in part, as a concat after a branch's conv, taken by the policy the priced
# plans choose; off: always taken: passes/welder.py `_reads_in_part`). `welder` switches off
# all of it. `grouped_experts`, `nms_bitmask`, `radix_topk` and `nonzero_grid` are lowerings' choices, not stages:
# a MoE's token-expert pairs sorted by expert into batched GEMMs (ops/moe_groups.py);
# NonMaxSuppression's overlap tests as a bit matrix across the grid (ops/nms_bitmask.py); a long
# TopK row's K best found by a radix select, only they ranked (ops/topk_select.py); a long
# NonZero's or Compress's scan across a grid of blocks, a chunk each (ops/indexing.py).
# `nms_cap` is the import's: a NonMaxSuppression whose readers read only its selection's first K
# rows selects at most K boxes a class (frontend/selection_caps.py); `scatter_box` too: a
# ScatterND over a box of indices becomes one elementwise select (frontend/canonicalize.py); and
# `defer_folds`: a broadcast of constants much larger than its source is left to run, unless a
# later fold reads it (frontend/fold.py `defers`); and `merge_repeats`: a node repeating an earlier
# one (op, inputs, attributes) merged into it (frontend/canonicalize.py); and `qdq_integer`: a Conv or
# MatMul of dequantized 8-bit values as an integer contraction scaled back (frontend/qdq_integer.py).
# `imma` (passes/imma.py): integer contractions over constant weights on the 8-bit integer mma.
# `split_k` is a part of the configuration space: configurations that divide a reduction among
# blocks (split-K contractions, in every contraction kind and SparTA's, split reductions of few
# long rows, flash decoding's key splits), their partial results in a workspace
# (roller/construct.py `compilation_scope`).
SWITCHABLE = ("nms_cap", "scatter_box", "defer_folds", "merge_repeats", "qdq_integer", "grouped_experts", "nms_bitmask",
              "radix_topk", "nonzero_grid", "welder", "shared_level", "split_rows", "sink_reshapes", "prologue",
              "stitched_maps", "float_epilogues", "part_reads", "half_storage", "imma", "roller", "split_k", "sparta", "tune", "rammer", "grinder")


MAX_TRIP_COUNT_LIMIT = 1 << 20   # scan outputs are allocated for the bound: keep it sane

# How a KV-cache node (GroupQueryAttention) gives its present K/V: `copy` (a new tensor, the past's
# rows then the new ones, zeros after: onnxruntime's meaning) or `in-place` (the new rows written
# into the past's buffer, which becomes the present: onnxruntime-genai's past_present_share_buffer;
# the rows after each entry's tokens keep the past's values). docs/llm.md.
KV_CACHE_MODES = ("copy", "in-place")


@dataclass(frozen=True)
class CompileOptions:
    """What the user may choose; part of the cache key of a compilation."""

    input_shapes: tuple[tuple[str, tuple[int, ...]], ...] = ()
    precision: str = "fp32"   # fp32 | tf32 | fp16 | bf16: contractions' inputs (accumulation stays fp32)
    build: bool = True          # NVRTC cubins (off only for host-only test runs)
    verify: str | None = None   # "host": run the compiled plan on the harness against onnxruntime
    disable: tuple[str, ...] = ()   # techniques switched off (names in SWITCHABLE), sorted
    # rammer's barrier variant: consecutive launches joined by step counters in one cooperative
    # launch; off by default until a GPU run has measured it (docs/rammer.md)
    barriers: bool = False
    # the most iterations of a Loop whose iteration count is only known at run time and that has
    # scan outputs: they are sized to it and trimmed on return (None: such a Loop is refused)
    max_trip_count: int | None = None
    kv_cache: str = "copy"      # KV_CACHE_MODES

    def __post_init__(self):
        check_precision(self.precision)
        if self.kv_cache not in KV_CACHE_MODES:
            raise CompilerError(f"kv_cache must be {' or '.join(KV_CACHE_MODES)}, not {self.kv_cache!r}")
        if self.max_trip_count is not None and (isinstance(self.max_trip_count, bool) or
                                                not isinstance(self.max_trip_count, int) or
                                                not 1 <= self.max_trip_count <= MAX_TRIP_COUNT_LIMIT):
            raise CompilerError(f"max_trip_count must be an integer from 1 to {MAX_TRIP_COUNT_LIMIT}, "
                                f"not {self.max_trip_count!r}")
        names = (self.disable,) if isinstance(self.disable, str) else tuple(self.disable)
        unknown = [n for n in names if n not in SWITCHABLE]
        if unknown:
            raise CompilerError(f"cannot disable {', '.join(map(repr, unknown))}: the techniques that can be "
                                f"switched off are {', '.join(SWITCHABLE)}")
        object.__setattr__(self, "disable", tuple(sorted(set(names))))
        if self.verify not in (None, "host", "gpu"):
            raise CompilerError(f"verify must be host, gpu or none, not {self.verify!r}")

    def enabled(self, technique: str) -> bool:
        """Whether `technique` (one of SWITCHABLE) runs in this compilation."""
        if technique not in SWITCHABLE:
            raise ValueError(f"{technique} is not a switchable technique")
        return technique not in self.disable

    @property
    def key(self) -> str:
        return hashlib.sha256(repr(dataclasses.astuple(self)).encode()).hexdigest()


@dataclass
class CompileContext:
    """One compilation's inputs and its passes' results besides the plan (see the module docstring)."""

    model: Any                  # as given to compile(): a path, bytes or a ModelProto (verify reads it)
    imported: ImportedModel     # the import stage's result (its graph is what lower starts from)
    target: Target
    options: CompileOptions
    store: Any = None           # the kernel cache (kernel_cache.KernelStore); None: the default store
    builds: dict[str, dict] = field(default_factory=dict)
    tuning: dict | None = None
    memory: dict | None = None
    verification: dict | None = None
    verify_inputs: dict | None = None   # the caller's inputs for the verify stage (None: seeded random)
    # SparTA's per-expression block-sparse choices: welder's pricing makes them, the sparta stage reuses them
    sparta_memo: dict = field(default_factory=dict)
    # the render stage's unsplit forms of split kernels, by launch: the rammer stage may co-launch them
    unsplit: dict = field(default_factory=dict)
    # the render stage's launches by spec key: the welder stage's trials render the final plan's too
    rendered: dict = field(default_factory=dict)

    def kernel_store(self):
        """The store given to compile(), else the default one (opened only by passes that need it)."""
        if self.store is not None:
            return self.store
        from kernel_cache import default_store
        return default_store()
