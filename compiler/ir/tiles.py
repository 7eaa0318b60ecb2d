"""rTiles and kernel configurations: frozen, keyed by sha256 over their fields (never hash())."""
from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from typing import Any

from .graph import _fields_key

LEVELS = ("block", "warp", "thread")   # shared memory per block; registers per warp and per thread


@dataclass(frozen=True)
class RTile:
    """A tile over named (fused) loop axes at one memory level, with its storage padding."""

    level: str
    axes: tuple[tuple[str, int], ...]
    padding: tuple[tuple[str, int], ...] = ()

    def __post_init__(self):
        if self.level not in LEVELS:
            raise ValueError(f"unknown rTile level {self.level}")

    def size(self, axis: str, default: int = 1) -> int:
        return self._sizes.get(axis, default)

    @functools.cached_property
    def _sizes(self) -> dict[str, int]:   # (the searches ask sizes of thousands of configurations)
        return dict(self.axes)

    def text(self) -> str:
        return "x".join(str(n) for _, n in self.axes)

    @functools.cached_property
    def key(self) -> str:
        return _fields_key(self)


@dataclass(frozen=True)
class Workload:
    """What one configuration launches, moves and computes: the micro-model's inputs."""

    blocks: int
    threads: int                 # per block
    shared_bytes: int            # dynamic shared memory per block
    registers: int               # per thread (an estimate until ptxas reports)
    flops: float                 # useful multiply-adds x 2 (or ops), whole kernel, tiles padded
    compute_dtype: str           # DType name arithmetic runs in
    dram_bytes: float            # compulsory traffic, or more when reuse does not fit in L2
    l2_bytes: float              # global loads and stores as sectors requested
    shared_bytes_moved: float    # shared-memory reads + writes, whole kernel
    ilp: float = 1.0             # independent accumulators per thread
    issue_efficiency: float = 1.0  # fraction of issued instructions that are the math
    # bytes of global loads and stores each thread keeps in flight (0: not modelled, the
    # calibration of MEMORY_WARPS_PER_SM applies; >0: Little's law against DRAM latency)
    bytes_in_flight: float = 0.0
    # global round trips a block's main loop waits for one after another: its k-tiles over the
    # k-tiles its pipeline keeps in flight (0: no such loop modelled)
    serial_steps: float = 0.0

    @functools.cached_property
    def key(self) -> str:
        return _fields_key(self)


def serial_steps(k_tiles: float, stages: int) -> float:
    """Workload.serial_steps of a k-loop of `k_tiles` tiles whose pipeline of `stages` shared
    stages keeps stages - 1 of them in flight (one stage: each tile waits for its own loads)."""
    return k_tiles / max(1, stages - 1)


@dataclass(frozen=True)
class KernelConfig:
    """One candidate: the kernel kind, one rTile per memory level, and the remaining knobs."""

    kind: str          # the kind module's NAME (compiler/kinds/)
    tiles: tuple[RTile, ...]
    params: tuple[tuple[str, Any], ...]
    workload: Workload

    @functools.cached_property
    def key(self) -> str:
        return _fields_key(self)

    def tile(self, level: str) -> RTile:
        return self._by_level[level]

    def param(self, name: str, default=None):
        return self._params.get(name, default)

    # (the searches ask tiles and params of thousands of configurations; fields alone key and compare)
    @functools.cached_property
    def _by_level(self) -> dict[str, RTile]:
        out: dict[str, RTile] = {}
        for t in self.tiles:
            out.setdefault(t.level, t)     # the first of a level, as a search of the tuple finds it
        return out

    @functools.cached_property
    def _params(self) -> dict[str, Any]:
        return dict(self.params)

    @property
    def split_k(self) -> int:
        """The slices its reduction is split into (split-K, a split reduction); 1 unsplit."""
        return int(self.param("split_k", 1) or 1)

    def describe(self) -> dict:
        """A JSON-able summary for reports and the tuner."""
        d = {"kind": self.kind, "key": self.key[:16]}
        for t in self.tiles:
            d[f"{t.level}_tile"] = {n: v for n, v in t.axes}
            if t.padding:
                d[f"{t.level}_padding"] = {n: v for n, v in t.padding}
        d.update({k: v for k, v in self.params})
        w = self.workload
        d.update({"blocks": w.blocks, "threads": w.threads, "shared_bytes": w.shared_bytes})
        return d

    def text(self) -> str:
        """A short human label: kind, tiles per level, knobs."""
        tiles = "/".join(t.text() for t in self.tiles)
        knobs = ",".join(f"{k}={v}" for k, v in self.params)
        return f"{self.kind}:{tiles}" + (f"[{knobs}]" if knobs else "")


def configs_json(configs) -> str:
    """A compact, deterministic JSON list of configurations (stored on a kernel for the tuner)."""
    return json.dumps([c.describe() for c in configs], sort_keys=True, separators=(",", ":"))
