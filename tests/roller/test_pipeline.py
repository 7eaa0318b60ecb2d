"""The roller stage in the pipeline: BERT compiles in seconds, still matches, and the report lists
every kernel's configuration, predicted time and resources."""
from __future__ import annotations

import json
import time

import numpy as np
import pytest

from compiler import compile
from compiler.pipeline import STAGES, CompileOptions
from compiler.runtime.executor import Executor, make_backend


def _rel_err(got, ref):
    return float(np.max(np.abs(got.astype(np.float64) - ref)) / max(np.max(np.abs(ref)), 1e-30))


def test_roller_stage_is_between_lower_and_build():
    assert STAGES.index("lower") < STAGES.index("roller") < STAGES.index("build")


def test_bert_with_roller(models_dir):
    t0 = time.perf_counter()
    # kernels as Roller made them: without co-launches, and without the row chains that at this
    # size fold the GEMMs in (tests/compiler/test_resident_phases.py)
    art = compile(str(models_dir / "bert.onnx"), "h100", CompileOptions(disable=("rammer", "welder")))
    seconds = time.perf_counter() - t0
    rep = art.report
    stages = {s["name"]: s["seconds"] for s in rep["compile"]["stages"]}
    assert stages["roller"] < 10.0 and seconds < 120.0, stages
    schedules = [k["config"].get("schedule") for k in rep["kernels"]]
    assert schedules.count("roller_gemm") >= 8          # every projection MatMul of the two layers is tiled
    # every kernel but the row kernels (layer norm; attention's softmax chain, register_rows and
    # resident_rows) is tiled
    assert all(str(s).startswith(("roller_", "row_", "resident_rows", "register_rows")) for s in schedules), schedules
    # half at least: the normalisations and softmaxes are row chains
    assert sum(1 for s in schedules if str(s).startswith("roller_")) >= 0.5 * len(schedules)
    for k in rep["kernels"]:
        assert k["registers"] > 0 and k["spills"] == 0 and k["predicted_us"] > 0
        if str(k["config"].get("schedule")).startswith("roller_"):
            cfg = k["config"]
            assert cfg["tiles"] and abs(cfg["predicted_us"] - k["predicted_us"]) < 1e-3
            model = json.loads(cfg["model"])
            assert model["bound"] in ("compute", "dram", "l2", "shared", "pipeline")
            top = json.loads(cfg["top_k"])
            assert 1 <= len(top) <= 8 and top[0]["key"] == cfg["config_key"]
    ref = np.load(models_dir / "bert.npz")
    inputs = {k[3:]: ref[k] for k in ref.files if k.startswith("in:")}
    for mode in ("default", "shuffle"):
        backend = make_backend("host", mode=mode, seed=3)
        out = Executor(art.plan, backend).run(inputs)
        for k in ref.files:
            if k.startswith("out:"):
                assert _rel_err(out[k[4:]], ref[k]) < 1e-3


def test_roller_can_be_switched_off(models_dir):
    # rammer off on both sides: bert's Roller-tiled GEMMs are otherwise members of co-launches
    off = compile(str(models_dir / "bert.onnx"), "h100", CompileOptions(build=False, disable=("roller", "rammer")))
    on = compile(str(models_dir / "bert.onnx"), "h100", CompileOptions(build=False, disable=("rammer",)))
    assert not any(str(dict(k.config).get("schedule")).startswith("roller_") for k in off.plan.kernels())
    assert any(str(dict(k.config).get("schedule")).startswith("roller_") for k in on.plan.kernels())
    assert len(off.plan.kernels()) == len(on.plan.kernels())


def test_a_compilation_ranks_each_expression_once(models_dir, monkeypatch):
    """Within one compilation Roller's ranking of an expression is remembered: the passes that
    price specs as Roller would tile them (welder's levels, split rows, half storage, sparta) ask
    again and again. Outside a compilation nothing is remembered (a kind patched afterwards is
    asked afresh), and a second compilation ranks again."""
    from compiler.roller import construct as construct_mod
    ranked = []
    rank_tier = construct_mod._rank_tier

    def counting(te, target, k, precision, tier):
        found = rank_tier(te, target, k, precision, tier)
        if found is not None:           # a tier that offered candidates, ranked
            ranked.append(len(found))
        return found
    monkeypatch.setattr(construct_mod, "_rank_tier", counting)
    opts = CompileOptions(build=False, precision="fp16")
    compile(str(models_dir / "bert.onnx"), "h100", opts)
    first = len(ranked)
    keys = []
    original = construct_mod.construct

    def keyed(te, target, k, precision, tiers):
        keys.append((te, precision))
        return original(te, target, k, precision, tiers)
    monkeypatch.setattr(construct_mod, "construct", keyed)
    from compiler import kinds
    monkeypatch.setattr(kinds, "construct", keyed)
    compile(str(models_dir / "bert.onnx"), "h100", opts)
    assert len(ranked) == 2 * first          # the second compilation ranked again, as many
    assert first <= len(set(keys)) < len(keys), (first, len(set(keys)), len(keys))
    from compiler.kinds import construct_rtiles
    from compiler.targets import get_target
    te = keys[0][0]
    construct_rtiles(te, get_target("h100"), 8, keys[0][1])
    construct_rtiles(te, get_target("h100"), 8, keys[0][1])
    assert len(ranked) == 2 * first + 2      # outside a compilation: ranked each time


@pytest.mark.parametrize("shapes, precision", [
    (((1, 8, 64), (64, 64)), None),           # few output tiles: split-K candidates, many equal times
    (((512, 256), (256, 1024)), None),
    (((12, 128, 64), (12, 64, 128)), "fp16"),   # the SIMT, mma.sync and wgmma kinds together
])
def test_rank_keeps_the_documented_order(shapes, precision):
    """construct.rank sorts by time alone and orders a run of equal times by the configurations'
    total order only where it reaches one; its top-k, and the unsplit fallback, are those of the
    whole sort by (time, compute time, total order) it replaced."""
    import math

    from compiler.ir.dtypes import DType
    from compiler.ir.graph import TensorType
    from compiler.kinds import TIERS
    from compiler.roller import construct as construct_mod
    from compiler.roller.micro_model import predict
    from compiler.targets import get_target
    from tests.roller.single_op import lower_types

    dtype = DType.float16 if precision == "fp16" else DType.float32
    a, b = shapes
    out = a[:-1] + b[-1:]
    te = lower_types("MatMul", [TensorType(dtype, a), TensorType(dtype, b)], TensorType(DType.float32, out), {}).expr
    target = get_target("h100")
    cands = next(c for tier in TIERS for c in ([cfg for kind in tier for cfg in kind.candidates(te, target, precision)],) if c)
    whole = sorted(((p.us, p.compute_us, construct_mod._order(cfg), cfg) for cfg in cands
                    for p in (predict(cfg, target),)), key=lambda x: (x[0], x[1], x[2]))
    ties = len(whole) - len({(us, cu) for us, cu, _, _ in whole})
    for k in (1, 3, 8, 40):
        expect, seen = [], set()
        for us, _, order, cfg in whole:
            if not math.isinf(us) and order not in seen:
                seen.add(order)
                expect.append(cfg)
            if len(expect) == k:
                break
        if k > 1 and len(expect) == k and all(c.split_k > 1 for c in expect):
            unsplit = next((cfg for us, _, _, cfg in whole if not math.isinf(us) and cfg.split_k == 1), None)
            if unsplit is not None:
                expect[-1] = unsplit
        assert construct_mod.rank(cands, target, k) == expect, (k, ties)
    assert ties > 0, "no equal times: the case does not exercise the tie order"


# contractions at each precision: (A shape, B shape, operand type, the precision stage's mark)
BOUNDED = [((1, 8, 64), (64, 64), "float32", None), ((512, 256), (256, 1024), "float32", None),
           ((12, 128, 64), (12, 64, 128), "float16", "fp16"), ((1, 128, 768), (768, 3072), "float16", "fp16"),
           ((3136, 576), (576, 64), "float16", "fp16"), ((16, 32), (32, 24), "float16", "fp16"),
           ((128, 768), (768, 768), "bfloat16", "bf16"), ((128, 3072), (3072, 768), "float32", "tf32"),
           ((4, 4096), (4096, 64), "float16", "fp16")]


def _contraction(a, b, dtype: str):
    from compiler.ir.dtypes import DType
    from compiler.ir.graph import TensorType
    from tests.roller.single_op import lower_types
    t = getattr(DType, dtype)
    return lower_types("MatMul", [TensorType(t, a), TensorType(t, b)],
                       TensorType(DType.float32, a[:-1] + b[-1:]), {}).expr


def _simt_kind_skipped(a, b, dtype: str, precision) -> bool:
    """Checks one contraction (see the test below); whether construct skipped the SIMT kind."""
    import math

    from compiler.kinds import TIERS
    from compiler.kinds import gemm
    from compiler.roller import construct as construct_mod
    from compiler.roller.micro_model import predict
    from compiler.targets import get_target
    target = get_target("h100")
    te = _contraction(a, b, dtype)
    offered = [predict(c, target).us for c in gemm.candidates(te, target, precision)]
    bound = gemm.lower_bound(te, target, precision)
    assert offered and bound <= min(us for us in offered if not math.isinf(us))
    asked = []
    real = gemm.candidates
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(gemm, "candidates", lambda *args: asked.append(1) or real(*args))
        with_bound = {k: construct_mod.construct(te, target, k, precision, TIERS) for k in (1, 3, 8)}
        mp.delattr(gemm, "lower_bound")
        for k, top in with_bound.items():
            assert top == construct_mod.construct(te, target, k, precision, TIERS), k
    # the three constructs without the bound ask it three times; with it, fewer where it skipped
    return len(asked) < 6


@pytest.mark.parametrize("a, b, dtype, precision", BOUNDED)
def test_the_simt_kind_is_asked_only_where_it_could_place(a, b, dtype, precision):
    """kinds/gemm.lower_bound is below every candidate the SIMT kind offers, and construct skips
    the kind only where the other kinds' ranking is already decided below that bound: its top-k
    for k = 1, 3, 8 (the unsplit fallback included) is the one without the bound."""
    skipped = _simt_kind_skipped(a, b, dtype, precision)
    if precision is None:        # fp32: the SIMT kind alone, always asked
        assert not skipped


def test_the_bound_skips_the_simt_kind_on_some_contractions_and_not_others():
    """Across BOUNDED the bound both skips the SIMT kind (a large fp16 contraction the tensor-core
    kinds take faster than any SIMT tiling) and asks it (fp32; small fp16 products near the
    latency floor), so the test above compares both paths."""
    assert {_simt_kind_skipped(*case) for case in BOUNDED} == {True, False}


def test_a_bounded_selection_refuses_what_a_bounded_kind_could_change():
    """construct._select with a bound: None where fewer than k configurations rank, where the k-th
    is at or past the bound, or where all k split and the best unsplit one (the fallback's) is at
    or past it or missing; else rank's choice."""
    from compiler.ir.tiles import KernelConfig, RTile, Workload
    from compiler.roller.construct import _select

    def cfg(n: int, split: int) -> KernelConfig:
        w = Workload(blocks=1, threads=32, shared_bytes=0, registers=32, flops=1.0, compute_dtype="float32",
                     dram_bytes=0.0, l2_bytes=0.0, shared_bytes_moved=0.0)
        params = (("split_k", split),) if split > 1 else ()
        return KernelConfig("gemm", (RTile("block", (("m", n),)),), params, w)
    split = [cfg(n, 2) for n in (1, 2, 3)]
    unsplit = cfg(9, 1)
    cands = split + [unsplit]
    priced = [(1.0, 1.0, 0), (2.0, 1.0, 1), (3.0, 1.0, 2), (5.0, 1.0, 3)]
    assert _select(cands, priced, 2) == [split[0], unsplit]                    # the fallback's place
    assert _select(cands, priced, 2, bound=6.0) == [split[0], unsplit]
    assert _select(cands, priced, 2, bound=5.0) is None                         # the fallback at the bound
    assert _select(cands, priced, 2, bound=2.0) is None                         # the 2nd at the bound
    assert _select(cands, priced, 5, bound=100.0) is None                       # fewer than k
    assert _select(split, priced[:3], 2, bound=100.0) is None                   # no unsplit one to fall back on
    assert _select(split, priced[:3], 2) == split[:2]
