"""Kernels index in 64 bits wherever a tensor can exceed 2^31 elements, and never wrap silently.

Small ONNX models whose tensors are just over 2^31 elements (float16 and int8 keep the bytes
modest) are compiled by `compiler.compile(model, "h100")`: NVRTC builds every kernel, nothing
is allocated or run. Each kernel is then checked by tests/codegen/index_check.py, which
evaluates its source abstractly at its real grid and block (integers as intervals in their C
types, see that module for why this and not a grep): no index computation may wrap in 32 bits,
and every output over 2^31 elements must be addressed up to its last element, so the check
followed the arithmetic that reaches it. The Roller kernels' other top-K candidates, which the
tuner may pick on a GPU, are rendered and checked the same way.

Besides the large tensors: an index product of two small extents (a 65536-point DFT's k * n)
must not wrap either; wgmma, whose tensor-map coordinates are 32-bit, declines a K beyond them
(and says so in the kernel's config); a split-K workspace [split_k][outputs] over 2^31 elements
is indexed in 64 bits even when the outputs alone are not. Small kernels keep 32-bit indices
(the kernel goldens in tests/goldens pin them for the shared models)."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from onnx import TensorProto as TP
from onnx import helper as h
from onnx import numpy_helper

import compiler
from compiler.codegen.cuda import index_ctype, render_texpr
from compiler.codegen.tensor_core import render_tc_gemm
from compiler.pipeline import CompileOptions
from compiler.kinds import render_config
from compiler.passes.roller import DEFAULT_TOP_K
from compiler.kinds import construct_rtiles
from compiler.analysis.views import gemm_view
from compiler.targets import get_target
from tests.codegen.index_check import INT32_MAX, check_kernel

BIG = 2**31 + 64                 # elements: just past what a 32-bit signed index reaches
ROWS = BIG // 64                 # rows of 64
F16, I8, F32, I64 = TP.FLOAT16, TP.INT8, TP.FLOAT, TP.INT64
vi = h.make_tensor_value_info


def model(nodes, inputs, outputs, inits=(), opset=17) -> bytes:
    g = h.make_graph(nodes, "index64", inputs, outputs, initializer=list(inits))
    return h.make_model(g, opset_imports=[h.make_opsetid("", opset)]).SerializeToString()


def i64(name, values, dims=None):
    return h.make_tensor(name, I64, [len(values)] if dims is None else dims, values)


def node(op, ins, outs, **attrs):
    return h.make_node(op, ins, outs, **attrs)


# name -> ONNX model; every one has a tensor of more than 2^31 elements
CASES = {
    # elementwise: unary, broadcast binary (inner and outer axis), three inputs, a cast
    "relu": lambda: model([node("Relu", ["x"], ["y"])], [vi("x", F16, [BIG])], [vi("y", F16, [BIG])]),
    "add_broadcast": lambda: model([node("Add", ["x", "b"], ["y"])], [vi("x", F16, [ROWS, 64]), vi("b", F16, [64])],
                                   [vi("y", F16, [ROWS, 64])]),
    "mul_broadcast_rows": lambda: model([node("Mul", ["x", "b"], ["y"])], [vi("x", F16, [ROWS, 64]), vi("b", F16, [ROWS, 1])],
                                        [vi("y", F16, [ROWS, 64])]),
    "where_int8": lambda: model([node("Where", ["c", "x", "z"], ["y"])],
                                [vi("c", TP.BOOL, [ROWS, 64]), vi("x", I8, [ROWS, 64]), vi("z", I8, [64])],
                                [vi("y", I8, [ROWS, 64])]),
    "cast_int8": lambda: model([node("Cast", ["x"], ["y"], to=F16)], [vi("x", I8, [BIG])], [vi("y", F16, [BIG])]),
    # reductions: rows, columns (split across blocks, then combined), arg-reduction
    "reduce_rows": lambda: model([node("ReduceSum", ["x", "ax"], ["y"], keepdims=0)], [vi("x", F16, [ROWS, 64])],
                                 [vi("y", F16, [ROWS])], [i64("ax", [1])]),
    "reduce_columns": lambda: model([node("ReduceMax", ["x"], ["y"], axes=[0], keepdims=0)], [vi("x", F16, [ROWS, 64])],
                                    [vi("y", F16, [64])]),
    "argmax": lambda: model([node("ArgMax", ["x"], ["y"], axis=1, keepdims=0)], [vi("x", F16, [ROWS, 64])],
                            [vi("y", I64, [ROWS])]),
    "cumsum": lambda: model([node("CumSum", ["x", "a"], ["y"])], [vi("x", F16, [ROWS, 64])], [vi("y", F16, [ROWS, 64])],
                            [i64("a", [1], [])]),
    # contractions whose output exceeds 2^31: tensor cores (fp16) and SIMT (fp32)
    "matmul_fp16": lambda: model([node("MatMul", ["a", "b"], ["y"])], [vi("a", F16, [65538, 64]), vi("b", F16, [64, 32768])],
                                 [vi("y", F16, [65538, 32768])]),
    "matmul_fp32": lambda: model([node("MatMul", ["a", "b"], ["y"])], [vi("a", F32, [65538, 16]), vi("b", F32, [16, 32768])],
                                 [vi("y", F32, [65538, 32768])]),
    # data movement
    "transpose": lambda: model([node("Transpose", ["x"], ["y"], perm=[1, 0])], [vi("x", F16, [ROWS, 64])],
                               [vi("y", F16, [64, ROWS])]),
    "concat": lambda: model([node("Concat", ["a", "b"], ["y"], axis=0)], [vi("a", F16, [ROWS - 1, 64]), vi("b", F16, [1, 64])],
                            [vi("y", F16, [ROWS, 64])]),
    "slice": lambda: model([node("Slice", ["x", "s", "e", "ax"], ["y"])], [vi("x", F16, [ROWS, 64])],
                           [vi("y", F16, [ROWS - 2, 32])], [i64("s", [1, 16]), i64("e", [ROWS - 1, 48]), i64("ax", [0, 1])]),
    "gather_rows_of_big": lambda: model([node("Gather", ["x", "i"], ["y"], axis=0)],
                                        [vi("x", F16, [ROWS, 64]), vi("i", I64, [8])], [vi("y", F16, [8, 64])]),
    "gather_into_big": lambda: model([node("Gather", ["x", "i"], ["y"], axis=0)],
                                     [vi("x", F16, [1000, 64]), vi("i", I64, [ROWS])], [vi("y", F16, [ROWS, 64])]),
    "scatter_nd": lambda: model([node("ScatterND", ["x", "i", "u"], ["y"])],
                                [vi("x", F16, [ROWS, 64]), vi("i", I64, [2, 1]), vi("u", F16, [2, 64])],
                                [vi("y", F16, [ROWS, 64])]),
    # convolution and pooling over a 2^31-element image
    "conv3x3": lambda: model([node("Conv", ["x", "w"], ["y"], pads=[1, 1, 1, 1])], [vi("x", F16, [1, 1, 32770, 65536])],
                             [vi("y", F16, [1, 1, 32770, 65536])],
                             [numpy_helper.from_array(np.ones((1, 1, 3, 3), np.float16), "w")]),
    "maxpool": lambda: model([node("MaxPool", ["x"], ["y"], kernel_shape=[2, 2], strides=[2, 2])],
                             [vi("x", F16, [1, 2, 32768, 32770])], [vi("y", F16, [1, 2, 16384, 16385])]),
    "roi_align": lambda: model([node("RoiAlign", ["x", "r", "b"], ["y"], output_height=2, output_width=2)],
                               [vi("x", F16, [1, 2, 32768, 32770]), vi("r", F16, [4, 4]), vi("b", I64, [4])],
                               [vi("y", F16, [4, 2, 2, 2])], opset=16),
    # row kernels: short rows (a warp each), long rows (a block each), layer normalisation
    "softmax": lambda: model([node("Softmax", ["x"], ["y"], axis=-1)], [vi("x", F16, [ROWS, 64])], [vi("y", F16, [ROWS, 64])]),
    "softmax_long_rows": lambda: model([node("Softmax", ["x"], ["y"], axis=-1)], [vi("x", F16, [BIG // 4096, 4096])],
                                       [vi("y", F16, [BIG // 4096, 4096])]),
    # rows longer than a block's registers hold: statistics in shared memory (resident_rows)
    "softmax_huge_rows": lambda: model([node("Softmax", ["x"], ["y"], axis=-1)], [vi("x", F16, [BIG // 131072, 131072])],
                                       [vi("y", F16, [BIG // 131072, 131072])]),
    "layernorm": lambda: model([node("LayerNormalization", ["x", "g", "b"], ["y"], axis=-1)],
                               [vi("x", F16, [ROWS, 64]), vi("g", F16, [64]), vi("b", F16, [64])], [vi("y", F16, [ROWS, 64])]),
    "layernorm_long_rows": lambda: model([node("LayerNormalization", ["x", "g", "b"], ["y"], axis=-1)],
                                         [vi("x", F16, [BIG // 4096, 4096]), vi("g", F16, [4096]), vi("b", F16, [4096])],
                                         [vi("y", F16, [BIG // 4096, 4096])]),
    # LayerNormalization asked for its training outputs (mean, inv_std_dev): the hand-written row kernel
    "layernorm_stats": lambda: model([node("LayerNormalization", ["x", "g", "b"], ["y", "m", "s"], axis=-1)],
                                     [vi("x", F16, [ROWS, 64]), vi("g", F16, [64]), vi("b", F16, [64])],
                                     [vi("y", F16, [ROWS, 64]), vi("m", F32, [ROWS, 1]), vi("s", F32, [ROWS, 1])]),
    "layernorm_stats_long_rows": lambda: model(
        [node("LayerNormalization", ["x", "g", "b"], ["y", "m", "s"], axis=-1)],
        [vi("x", F16, [BIG // 4096, 4096]), vi("g", F16, [4096]), vi("b", F16, [4096])],
        [vi("y", F16, [BIG // 4096, 4096]), vi("m", F32, [BIG // 4096, 1]), vi("s", F32, [BIG // 4096, 1])]),
}


def candidates(kernel, target):
    """The other kernels the tuner may pick for a Roller kernel: its top-K configurations, rendered
    (a split configuration writes a workspace not in the plan)."""
    te = kernel.expr
    if te is None or "top_k" not in dict(kernel.config):
        return []
    ins = tuple(p.value for p in kernel.params[:-1])
    out = kernel.params[-1].value
    made = []
    for cfg in construct_rtiles(te, target, DEFAULT_TOP_K, dict(kernel.config).get("precision")):
        made.append(_render(te, cfg, te.name, out, ins, f"{out}.candidate_ws"))
    return made


def _render(te, cfg, prefix, out, ins, ws):
    """One configuration's launch; a split one (split-K, a split reduction) writes `ws` too."""
    if cfg.split_k == 1:
        return render_config(te, cfg, prefix, out, ins)
    return render_config(te, cfg, prefix, out, ins, workspace=ws)


def check_plan_kernels(art, target_name: str, built: bool = True) -> tuple[set[str], int]:
    """Checks every kernel of the artifact (built by NVRTC) and its candidates; returns the
    schedules seen and how many kernels address a tensor of more than 2^31 elements."""
    types = dict(art.plan.types)
    target = get_target(target_name)
    schedules, big = set(), 0
    for k in art.plan.kernels():
        assert not built or k.digest in art.cubins, f"{k.entry}: not built"
        schedules.add(dict(k.config).get("schedule", "?"))
        for kern in [k, *candidates(k, target)]:
            report = check_kernel(kern)
            assert report.accesses, f"{kern.entry}: the check found no global-memory address"
            assert not report.problems(), "\n".join(report.problems())
            touches_big = False
            for p in kern.params:
                t = types.get(p.value)
                if t is None or t.size <= INT32_MAX:
                    continue
                if not p.output and not any(a.param == p.value for a in report.accesses):
                    continue       # bound but not read (a split reduction's second pass)
                touches_big = True
                span = report.span(p.value)
                assert span is not None, f"{kern.entry}: addresses into {p.value} not followed"
                if p.output:   # every element is written: the last one's address was evaluated
                    assert span[1] >= t.size - 1, f"{kern.entry}: {p.value} ({t.size} elements) addressed up to {span}"
            big += touches_big and kern is k
    return schedules, big


@pytest.mark.parametrize("case", sorted(CASES))
def test_kernels_over_2_31_elements_index_in_64_bits(case):
    art = compiler.compile(CASES[case](), "h100")
    schedules, big = check_plan_kernels(art, "h100")
    assert big, f"{case}: no kernel addresses a tensor of more than 2^31 elements ({schedules})"


def test_the_cases_cover_every_kernel_kind():
    """The spread the issue asks for, by the kinds the models compile to (Roller's choices may move
    between equivalent kinds; these are the ones each family must still reach)."""
    seen = {}
    for case in ("relu", "reduce_rows", "reduce_columns", "argmax", "matmul_fp16", "matmul_fp32", "transpose",
                 "softmax", "softmax_long_rows", "softmax_huge_rows", "layernorm", "layernorm_long_rows", "layernorm_stats",
                 "layernorm_stats_long_rows", "scatter_nd", "roi_align"):
        art = compiler.compile(CASES[case](), "h100", CompileOptions(build=False))
        seen[case] = {dict(k.config).get("schedule") for k in art.plan.kernels()}
    kinds = set().union(*seen.values())
    for want in ("roller_elementwise_vec", "roller_reduce", "roller_reduce_split",
                 "simt_elementwise", "roller_tc_gemm", "roller_gemm", "roller_transpose", "register_rows", "resident_rows", "row_warp",
                 "row_block",
                 "ordered_updates", "roi_per_thread"):
        assert want in kinds, f"no case compiles to {want}: {seen}"


# ---- index products of small extents --------------------------------------------------------------

def test_dft_index_product_does_not_wrap():
    """A 65536-point DFT: every tensor is small, but its twiddle index k * n reaches 2^32 (it used
    to be an `int` product, wrapping into wrong angles)."""
    m = model([node("DFT", ["x"], ["y"], axis=1)], [vi("x", F32, [1, 65536, 1])], [vi("y", F32, [1, 65536, 2])])
    art = compiler.compile(m, "h100")
    check_plan_kernels(art, "h100")
    (k,) = [k for k in art.plan.kernels() if k.expr is not None]
    assert index_ctype(k.expr) == "long long"


def test_small_kernels_keep_32_bit_indices():
    """32 bits where every size and index product is small (faster; the goldens stay byte-identical):
    the same DFT at 4096 points, and a small elementwise kernel."""
    m = model([node("DFT", ["x"], ["y"], axis=1)], [vi("x", F32, [1, 4096, 1])], [vi("y", F32, [1, 4096, 2])])
    art = compiler.compile(m, "h100", CompileOptions(build=False))
    check_plan_kernels(art, "h100", built=False)
    assert all(index_ctype(k.expr) == "int" for k in art.plan.kernels() if k.expr is not None)
    relu = model([node("Relu", ["x"], ["y"])], [vi("x", F16, [1 << 20])], [vi("y", F16, [1 << 20])])
    art = compiler.compile(relu, "h100", CompileOptions(build=False))
    (k,) = art.plan.kernels()
    declared = check_kernel(k).declared
    assert index_ctype(k.expr) == "int" and any(t.base == "int" for t in declared.values()), declared
    assert not [v for v, t in declared.items() if t.is_int and t.base == "long long"], declared
    # a row chain (softmax: two statistics and the final map) indexes in 32 bits too
    sm = model([node("Softmax", ["x"], ["y"], axis=-1)], [vi("x", F16, [4, 12, 128, 128])], [vi("y", F16, [4, 12, 128, 128])])
    art = compiler.compile(sm, "h100", CompileOptions(build=False))
    (k,) = art.plan.kernels()
    assert dict(k.config)["schedule"] == "register_rows"
    declared = check_kernel(k).declared
    assert any(t.base == "int" for t in declared.values()), declared
    assert not [v for v, t in declared.items() if t.is_int and t.base == "long long"], declared


def test_shared_model_kernels_never_wrap(models_dir):
    """Every kernel of the shared models, 32-bit indices included, passes the same check: where a
    kernel keeps `int`, no index computation of it can leave the int range."""
    from tests.conftest import shared_models
    for name in shared_models():
        art = compiler.compile(str(models_dir / f"{name}.onnx"), "h100", CompileOptions(build=False))
        for k in {k.entry: k for k in art.plan.kernels()}.values():
            problems = check_kernel(k).problems()
            assert not problems, f"{name}: " + "\n".join(problems)


# ---- kinds with 32-bit limits of their own -----------------------------------------------------------

def test_wgmma_declines_k_beyond_its_32_bit_coordinates():
    """On an H200 (141 GB: room for 2^31 + 64 fp16 k), wgmma's TMA coordinates and k-tile counter
    are 32-bit: it declines, the reason is in the kernel's config, and what takes the spec indexes
    in 64 bits."""
    kb = BIG
    m = model([node("MatMul", ["a", "b"], ["y"])], [vi("a", F16, [16, kb]), vi("b", F16, [kb, 16])], [vi("y", F16, [16, 16])])
    art = compiler.compile(m, "h200")
    check_plan_kernels(art, "h200")
    first = art.plan.kernels()[0]
    made = construct_rtiles(first.expr, get_target("h200"), 64, dict(first.config).get("precision"))
    for cfg in made:                # every configuration of every kind, not only the top K
        k = _render(first.expr, cfg, "mm", "y", ("a", "b"), "ws")
        assert not check_kernel(k).problems(), (cfg.kind, check_kernel(k).problems())
    assert made and not [c for c in made if c.kind == "wgmma_gemm"]
    assert "wgmma_gemm declined" in dict(first.config).get("declined", ""), dict(first.config)


def test_split_k_workspace_beyond_2_31_indexes_in_64_bits():
    """A split-K launch writes and reads back [split_k][outputs]: with 2^28 outputs (32-bit indices
    would do for them) and 16 slices the workspace has 2^32 elements."""
    small = model([node("MatMul", ["a", "b"], ["y"])], [vi("a", F16, [128, 4096]), vi("b", F16, [4096, 128])],
                  [vi("y", F16, [128, 128])])
    big = model([node("MatMul", ["a", "b"], ["y"])], [vi("a", F16, [32768, 4096]), vi("b", F16, [4096, 8192])],
                [vi("y", F16, [32768, 8192])])
    te_small = compiler.compile(small, "h100", CompileOptions(build=False, disable=("roller",))).plan.kernels()[0].expr
    te_big = compiler.compile(big, "h100", CompileOptions(build=False, disable=("roller",))).plan.kernels()[0].expr
    split = [c for c in construct_rtiles(te_small, get_target("h100"), 64) if c.split_k == 16]
    assert split, "no split-K configuration to render"
    assert index_ctype(te_big) == "int"          # the outputs alone fit 32 bits
    k = render_tc_gemm(te_big, gemm_view(te_big), split[0], "mm", "y", ("a", "b"), workspace="ws")
    report = check_kernel(k)
    assert not report.problems(), "\n".join(report.problems())
    assert report.span("ws")[1] >= 16 * te_big.output.size - 1
    assert report.span("y")[1] >= te_big.output.size - 1


# ---- the check itself ---------------------------------------------------------------------------

def test_the_check_catches_32_bit_indices_on_a_big_tensor():
    """The naive kernel of a 2^31 + 64 element map, its indices forced to `int`: flagged."""
    art = compiler.compile(CASES["relu"](), "h100", CompileOptions(build=False, disable=("roller",)))
    (k,) = art.plan.kernels()
    assert not check_kernel(k).problems()
    forced = dataclasses.replace(k, source=k.source.replace("long long", "int"))
    problems = check_kernel(forced).problems()
    # the grid-stride step past 2^31 wraps `lin`, and the output's address carries it
    assert any("narrows" in p and "to int" in p for p in problems), problems
    assert any("the address into y carries" in p for p in problems), problems
    # a kernel that computes in 64 bits but narrows the offset back is flagged too
    narrowed = dataclasses.replace(k, source=k.source.replace("out[lin]", "out[(int)lin]"))
    assert any("(int) cast narrows" in p for p in check_kernel(narrowed).problems())
    # and a 32-bit kernel whose sizes are small passes (no wrap can happen)
    small = render_texpr(dataclasses.replace(k.expr, inputs=(dataclasses.replace(k.expr.inputs[0], shape=(4096,)),),
                                             output=dataclasses.replace(k.expr.output, shape=(4096,))),
                         "small", "y", ("x",))
    assert "long long" not in small.source and not check_kernel(small).problems()
