"""report.json format 2 (docs/report.md) on real compilations of the shared models: the roofline
fields per kernel against the target's own figures, the time split against the headline latency,
the totals per op type, memory, input shapes, the techniques' measured effects, verification's
outcome, and the JSON Schema (compiler/report.schema.json) rejecting what breaks it."""
from __future__ import annotations

import copy
import json
import math
import re

import jsonschema
import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

from compiler import report as report_mod
from compiler.context import CompileOptions
from compiler.pipeline import compile
from compiler.report import FORMAT, LATENCY_SOL, report_html, validate_report
from compiler.report_html import verification_sentence
from compiler.roller.cost_model import LAUNCH_US
from compiler.targets import get_target


def _compile(models_dir, name, **options):
    return compile(models_dir / f"{name}.onnx", "h100", CompileOptions(**options)).report


@pytest.fixture(scope="module")
def resnet(models_dir):
    return _compile(models_dir, "resnet", verify="host")


@pytest.fixture(scope="module")
def resnet_unfused(models_dir):
    return _compile(models_dir, "resnet", disable=("welder", "rammer"))


def test_report_validates_and_is_format_2(resnet):
    assert resnet["format"] == FORMAT == 2
    validate_report(resnet)
    assert re.fullmatch(r"[0-9a-f]{64}", resnet["compiler_key"])
    assert resnet["input_shapes"] == {"input_0": [1, 3, 64, 64]}


def test_kernel_roofline_fields_follow_the_targets_figures(resnet):
    h100 = get_target("h100")
    assert resnet["roofline"]["dram_gbps"] == h100.dram_gbps
    assert {"name": "fp32 SIMT", "peak_tflops": h100.fp32_tflops} in resnet["roofline"]["ceilings"]
    assert resnet["kernels"]
    for k in resnet["kernels"]:
        r = k["roofline"]
        assert r["ceiling"] == "fp32 SIMT" and r["peak_tflops"] == h100.fp32_tflops
        assert k["time_basis"] == "predicted" and k["time_us"] == k["predicted_us"]
        assert r["compute_us"] == pytest.approx(k["flops"]["executed"] / (h100.fp32_tflops * 1e6), abs=1e-4)
        assert r["memory_us"] == pytest.approx(k["dram_bytes"] / (h100.dram_gbps * 1e3), abs=1e-4)
        assert k["arithmetic_intensity"] == pytest.approx(k["flops"]["executed"] / k["dram_bytes"], rel=1e-3)
        frac = max(r["compute_us"], r["memory_us"]) / k["time_us"]
        assert k["roofline_fraction"] == pytest.approx(frac, rel=1e-2, abs=1e-3)
        want = "latency" if frac < LATENCY_SOL else ("compute" if r["compute_us"] >= r["memory_us"] else "memory")
        assert k["bound"] == want
        assert k["op_types"] and set(k["op_types"]) <= set(resnet["ops"])
    # the kernels' own traffic adds up to the plan's
    assert sum(k["dram_bytes"] for k in resnet["kernels"]) == resnet["traffic"]["dram_bytes"]


def test_time_split_accounts_for_the_headline(resnet):
    split, kernels = resnet["time_split"], resnet["kernels"]
    assert split["launches"] == len(kernels) == resnet["launches_per_inference"]
    assert split["launch_overhead_us"] == pytest.approx(LAUNCH_US * len(kernels))
    assert split["kernels_us"] == pytest.approx(sum(k["time_us"] for k in kernels), abs=1e-2)
    # kernel rows and launch overhead together are the headline, which the rows alone fall far short of
    assert split["total_us"] == pytest.approx(resnet["latency"]["predicted_us"], abs=0.01)
    assert split["kernels_us"] < 0.9 * resnet["latency"]["predicted_us"]
    assert sum(split["by_bound"].values()) == pytest.approx(split["kernels_us"], abs=1e-2)


def test_totals_per_op_type_cover_every_kernel(resnet):
    rows = resnet["by_op_type"]
    assert sum(r["kernels"] for r in rows) == len(resnet["kernels"])
    assert sum(r["time_us"] for r in rows) == pytest.approx(resnet["time_split"]["kernels_us"], abs=1e-2)
    assert sum(r["share"] for r in rows) == pytest.approx(1.0, abs=1e-3)
    assert [r["time_us"] for r in rows] == sorted((r["time_us"] for r in rows), reverse=True)
    conv = next(r for r in rows if r["op_types"] == "Conv + Relu")   # welder fused resnet's Conv and Relu
    assert conv["nodes"] == 2 * conv["kernels"]


def test_memory_is_the_fit_stages_footprint(resnet):
    mem = resnet["memory"]
    assert mem["weights_bytes"] > 0 and mem["arena_bytes"] > 0
    assert mem["total_bytes"] == mem["weights_bytes"] + mem["inputs_bytes"] + mem["arena_bytes"]
    # the partial sums' buffers, summed: each lives through its own launch only, so the arena
    # reuses their bytes and the sum may pass it. resnet's convolutions at batch 1 split K
    assert mem["workspace_bytes"] > 0
    assert any(k["config"].get("split_k", 1) > 1 for k in resnet["kernels"])


def test_split_k_effect_is_measured_against_its_switch(models_dir, resnet):
    """The split-K technique lists the specs whose configuration divides a reduction among blocks;
    `--disable split_k` leaves none of them, no workspace, and a plan predicted slower for resnet
    at batch 1 (its deep convolutions' few output tiles cannot fill the SMs unsplit). Still right."""
    on = next(t for t in resnet["techniques"] if t["name"] == "split-K")
    assert on["enabled"] and on["effect"]["split_kernels"] == len(on["effect"]["split"]) > 0
    assert all(s["split_k"] > 1 and s["ops"] for s in on["effect"]["split"])
    assert on["effect"]["workspace_bytes"] == resnet["memory"]["workspace_bytes"] > 0
    rep = _compile(models_dir, "resnet", disable=("split_k",), verify="host")
    off = next(t for t in rep["techniques"] if t["name"] == "split-K")
    assert not off["enabled"] and off["effect"] == {"split_kernels": 0, "split": [], "unsplit_to_co_launch": 0,
                                                    "workspace_bytes": 0}
    assert rep["memory"]["workspace_bytes"] == 0
    assert not any(int(k["config"].get("split_k", 1)) > 1 for k in rep["kernels"])
    assert rep["latency"]["predicted_us"] > resnet["latency"]["predicted_us"]
    assert rep["verification"]["outcome"] == "passed"
    assert f"Split-K (roller): {on['effect']['split_kernels']} kernels divide" in report_html(resnet)
    assert "Split-K (roller): off." in report_html(rep)


def test_fusion_effect_is_measured_against_the_unfused_compile(resnet, resnet_unfused):
    fusion = next(t for t in resnet["techniques"] if t["name"] == "fusion")
    fx = fusion["effect"]
    assert fusion["enabled"] and fx["kernels_before"] > fx["kernels_after"] == resnet["fusion"]["kernels_after"]
    assert fx["dram_bytes_after"] < fx["dram_bytes_before"]
    # the traffic before fusion is what the model moves compiled without fusion or scheduling,
    # less the split-K workspaces that compile's kernels chose (the welder stage measures specs
    # not yet tiled)
    assert fx["dram_bytes_before"] == resnet_unfused["traffic"]["dram_bytes"] - resnet_unfused["memory"]["workspace_bytes"]
    assert fx["kernels_before"] == len(resnet_unfused["kernels"])
    off = next(t for t in resnet_unfused["techniques"] if t["name"] == "fusion")
    assert not off["enabled"] and off["effect"] == {}


def test_tensor_core_kernels_take_the_tensor_core_ceiling(models_dir):
    # the welder stage off: at this size it folds bert's GEMMs into row chains the cost model
    # predicts faster than tensor-core GEMMs and the rest apart
    rep = _compile(models_dir, "bert", precision="fp16", disable=("welder",))
    h100 = get_target("h100")
    tc = [k for k in rep["kernels"] if k["config"].get("schedule") in ("roller_tc_gemm", "roller_wgmma_gemm")]
    assert tc, "bert in fp16 has tensor-core GEMMs"
    for k in tc:
        assert k["roofline"] == dict(k["roofline"], ceiling="tensor core float16", peak_tflops=h100.fp16_tc_tflops)
    precision = next(t for t in rep["techniques"] if t["name"] == "precision")
    co = [k for k in rep["kernels"] if k["config"].get("schedule") == "rammer_co_launch"
          and k["roofline"]["ceiling"].startswith("tensor core")]     # launches of tensor-core members
    assert precision["enabled"] and precision["effect"]["tensor_core_kernels"] == len(tc) + len(co)
    assert rep["verification"]["tolerance"] == 1e-2


def test_a_co_launch_takes_its_members_ceilings(models_dir):
    """bert in fp16 co-launches two tensor-core projections: the launch's ceiling is theirs, and a
    launch of members with different ceilings takes the FLOP-weighted (harmonic) peak of them."""
    rep = _compile(models_dir, "bert", precision="fp16")
    h100 = get_target("h100")
    co = [k for k in rep["kernels"] if k["config"].get("schedule") == "rammer_co_launch"]
    assert co and all(k["roofline"]["ceiling"] == "tensor core float16" for k in co)
    kinds = {m[0] for k in co for m in k["config"]["member_math"]}
    assert kinds <= {"roller_tc_gemm", "roller_wgmma_gemm"}
    mixed = type("K", (), {"config": (("member_math", (("roller_tc_gemm", "float16", 3_000_000),
                                                       ("roller_gemm", "", 1_000_000))),)})()
    name, peak = report_mod.compute_ceiling(mixed, h100)
    assert name == "tensor core float16 + fp32 SIMT"
    want = 4_000_000 / (3_000_000 / h100.fp16_tc_tflops + 1_000_000 / h100.fp32_tflops)
    assert peak == pytest.approx(want, rel=1e-3)
    assert h100.fp32_tflops < peak < h100.fp16_tc_tflops


def test_sparsity_reports_the_flops_it_skips(models_dir):
    rep = _compile(models_dir, "bert_block_sparse")
    fx = next(t for t in rep["techniques"] if t["name"] == "sparsity")["effect"]
    assert fx["sparse_kernels"] > 0
    assert fx["flops_skipped"] == fx["flops_dense"] - fx["flops_executed"] > 0
    assert fx["flops_executed"] == sum(k["flops"]["executed"] for k in rep["kernels"])


def test_grinder_reports_the_host_round_trips_it_removes(models_dir):
    rep = _compile(models_dir, "branchy")
    fx = next(t for t in rep["techniques"] if t["name"] == "control flow on the device")["effect"]
    assert fx["regions"] == fx["on_device"] >= 1
    assert fx["host_round_trips_before"] >= 1 and fx["host_round_trips_after"] == 0


def test_verification_outcome_and_sentence(resnet, models_dir):
    v = resnet["verification"]
    assert v["device"] == "host" and v["outcome"] == "passed" and v["max_rel_error"] <= v["tolerance"] == 1e-3
    assert v["inputs"] == "seeded"
    assert verification_sentence(v).startswith("Verification passed on the host")
    unverified = _compile(models_dir, "branchy")["verification"]
    assert unverified == {"device": None, "max_rel_error": None, "tolerance": 1e-3, "non_finite": None,
                          "rounding_error": None, "rounded_reference_error": None, "reference_finite": None,
                          "inputs": None, "outcome": "not run"}
    assert verification_sentence(unverified).startswith("Verification was not run")
    # a failed or non-finite comparison (not JSON as a float) still makes a valid report
    for err, outcome, non_finite in ((0.5, "failed", None), (math.nan, "failed", "nan"), (math.inf, "failed", "inf")):
        failed = report_mod._verification({"device": "gpu", "max_rel_error": err}, "fp32")
        assert (failed["outcome"], failed["non_finite"]) == (outcome, non_finite)
        validate_report(dict(resnet, verification=failed))
        assert verification_sentence(failed).startswith("Verification failed on the gpu")
        json.dumps(failed, allow_nan=False)


def test_schema_rejects_broken_reports(resnet):
    for breaks in (lambda r: r["kernels"][0].update(bound="fast"),
                   lambda r: r.pop("time_split"),
                   lambda r: r["kernels"][0].pop("dram_bytes"),
                   lambda r: r["memory"].update(arena_bytes=-1),
                   lambda r: r["verification"].update(outcome="passed", device=None),
                   lambda r: r.update(format=1)):
        broken = copy.deepcopy(resnet)
        breaks(broken)
        with pytest.raises(jsonschema.ValidationError):
            validate_report(broken)


def test_make_report_validates_under_the_test_flag(models_dir, monkeypatch):
    """tests/conftest.py sets BRICKYARD_CHECK_REPORT=1: a report that breaks the schema fails the compile."""
    monkeypatch.setattr(report_mod, "FORMAT", 99)
    with pytest.raises(jsonschema.ValidationError, match="99"):
        _compile(models_dir, "branchy")


def test_html_is_self_contained(resnet):
    page = report_html(resnet)
    refs = re.findall(r"""(?:src|href|action)\s*=\s*["']([^"']*)["']""", page)
    assert refs and all(r.startswith("#") for r in refs), refs
    assert "http://" not in page and "https://" not in page and "@import" not in page
    assert page.count("class='kpoint") == len(resnet["kernels"])
    assert "Verification passed" in page and "None" not in page


def _lookup(vocab: int) -> bytes:
    """An embedding lookup of 8 tokens from a vocab x 64 table, then a ReLU."""
    table = np.random.default_rng(3).standard_normal((vocab, 64)).astype(np.float32)
    g = helper.make_graph([helper.make_node("Gather", ["table", "ids"], ["e"], axis=0),
                           helper.make_node("Relu", ["e"], ["y"])], "g",
                          [helper.make_tensor_value_info("ids", TensorProto.INT64, [1, 8])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 8, 64])],
                          [numpy_helper.from_array(table, "table")])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)])
    m.ir_version = 9
    return m.SerializeToString()


def test_a_gather_counts_the_rows_its_ids_can_name_not_the_table():
    """The kernel reads at most 8 rows of a 5000-row table (and the ids): its DRAM bytes, the
    plan's traffic and its predicted time are those of a lookup from a 50-row table, not of the
    table's 1.28 MB."""
    big = compile(_lookup(5000), "h100", CompileOptions(build=False, verify="host")).report
    small = compile(_lookup(50), "h100", CompileOptions(build=False)).report
    (k,), (k_small,) = big["kernels"], small["kernels"]
    rows, ids, out = 8 * 64 * 4, 8 * 8, 8 * 64 * 4
    assert k["dram_bytes"] == rows + ids + out == big["traffic"]["dram_bytes"] == k_small["dram_bytes"]
    assert k["config"]["skipped_bytes"] == 5000 * 64 * 4 - rows
    assert k["predicted_us"] == k_small["predicted_us"]
    assert big["verification"]["outcome"] == "passed"


@pytest.mark.parametrize("disable, launches", [(("rammer",), [2, 2, 2]), ((), [6])])
def test_a_slice_counts_the_part_it_reads(disable, launches):
    """Split of a [64, 768] input into thirds, each through its own ReLU: each kernel reads its
    third and writes it, so the plan moves the input once and the outputs once, not the input
    three times; co-launched (rammer), the one launch reads the three thirds once."""
    g = helper.make_graph([helper.make_node("Split", ["x"], ["q", "k", "v"], axis=1, num_outputs=3),
                           *(helper.make_node("Relu", [a], [f"y{a}"]) for a in "qkv")], "g",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [64, 768])],
                          [helper.make_tensor_value_info(f"y{a}", TensorProto.FLOAT, [64, 256]) for a in "qkv"])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)])
    m.ir_version = 9
    report = compile(m.SerializeToString(), "h100",
                     CompileOptions(build=False, verify="host", disable=disable)).report
    third = 64 * 256 * 4
    assert [k["dram_bytes"] for k in report["kernels"]] == [n * third for n in launches]
    assert report["traffic"]["dram_bytes"] == 6 * third
    assert report["verification"]["outcome"] == "passed"
