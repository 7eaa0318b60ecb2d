"""Normalisations as row chains (ops/normalization.py `_normalise_rows`, kinds/resident_rows.py)
and what the shared-memory level stitches around them (passes/resident.py): LayerNormalization,
RMSNormalization, InstanceNormalization and GroupNormalization against onnxruntime on the host
harness in both thread orders, fp32/fp16/bf16, rows of several trailing axes, few long rows (the
warps of a block sharing a row); LayerNorm written by hand (ReduceMean with keepdims, Sub, Pow,
...) and a GEMM or maps before it as one kernel; the cost model's word in the report."""
from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

from compiler import compile
from compiler.ir.graph import Node
from compiler.kinds import register_rows, resident_rows
from compiler.ops.registry import lookup
from compiler.pipeline import CompileOptions
from compiler.runtime.executor import Executor, make_backend

RNG = np.random.default_rng(21)
ONNX_TYPE = {"float32": TensorProto.FLOAT, "float16": TensorProto.FLOAT16}
TOL = {"float32": 2e-5, "float16": 4e-3}


def make(nodes, inputs, outputs, inits=(), opset=18) -> bytes:
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info(n, t, s) for n, t, s in inputs],
                          [helper.make_tensor_value_info(n, t, s) for n, t, s in outputs],
                          [numpy_helper.from_array(np.asarray(a), n) for n, a in inits])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 10 if opset >= 21 else 9
    onnx.checker.check_model(m)
    return m.SerializeToString()


def check(data: bytes, feeds: dict, tol: float, disable=(), want: dict | None = None) -> dict:
    """Right against onnxruntime (or `want`) in both thread orders; the report."""
    art = compile(data, "h100", CompileOptions(build=False, disable=disable))
    if want is None:
        sess = ort.InferenceSession(data, providers=["CPUExecutionProvider"])
        want = dict(zip([o.name for o in sess.get_outputs()], sess.run(None, feeds)))
    for mode, seed in (("default", 0), ("shuffle", 5)):
        got = Executor(art.plan, make_backend("host", mode=mode, seed=seed)).run(feeds)
        for name, w in want.items():
            np.testing.assert_allclose(got[name].astype(np.float32), w.astype(np.float32), rtol=tol, atol=tol,
                                       err_msg=f"{name} ({mode})")
    return art.report


ROW_KINDS = (register_rows.NAME, resident_rows.NAME)    # a warp's registers, or a block's shared memory


def row_kernels(report) -> list[dict]:
    return [k for k in report["kernels"] if k["config"].get("schedule") in ROW_KINDS]


@pytest.mark.parametrize("dtype", ["float32", "float16"])
@pytest.mark.parametrize("shape,axis", [((6, 40), -1), ((2, 3, 5, 8), -2), ((3, 7), 0), ((2, 3000), -1)])
def test_layernorm_is_one_row_chain_and_right(shape, axis, dtype):
    t, npt = ONNX_TYPE[dtype], np.dtype(dtype)
    pshape = shape[axis % len(shape):]
    scale = (RNG.standard_normal(pshape) * 0.5 + 1).astype(npt)
    bias = RNG.standard_normal(pshape).astype(npt)
    data = make([helper.make_node("LayerNormalization", ["x", "s", "b"], ["y"], axis=axis, epsilon=1e-4)],
                [("x", t, list(shape))], [("y", t, list(shape))], [("s", scale), ("b", bias)])
    x = (RNG.standard_normal(shape) * 2 + 3).astype(npt)
    rep = check(data, {"x": x}, TOL[dtype])
    (k,) = rep["kernels"]
    # statistics alone: the rows in registers, 3000 values on several warps
    assert k["config"]["schedule"] == register_rows.NAME and k["config"]["statistics"] == 2
    if shape == (2, 3000):       # two rows of 3000 on 256 threads: a block's eight warps share a row
        assert k["config"]["rows_per_block"] == 1 and k["config"]["warps_per_row"] == 8


def test_rms_instance_and_group_norm_are_row_chains_and_right():
    x = RNG.standard_normal((2, 6, 5, 3)).astype(np.float32)
    cases = [
        (helper.make_node("InstanceNormalization", ["x", "s", "b"], ["y"], epsilon=1e-3),
         [("s", RNG.standard_normal(6).astype(np.float32)), ("b", RNG.standard_normal(6).astype(np.float32))], 18),
        (helper.make_node("GroupNormalization", ["x", "s", "b"], ["y"], num_groups=3, epsilon=1e-3),
         [("s", RNG.standard_normal(6).astype(np.float32)), ("b", RNG.standard_normal(6).astype(np.float32))], 21),
    ]
    if onnx.defs.has("RMSNormalization"):
        cases.append((helper.make_node("RMSNormalization", ["x", "s"], ["y"], axis=2),
                      [("s", RNG.standard_normal((5, 3)).astype(np.float32))], 23))
    for node, inits, opset in cases:
        data = make([node], [("x", TensorProto.FLOAT, [2, 6, 5, 3])], [("y", TensorProto.FLOAT, [2, 6, 5, 3])],
                    inits, opset=opset)
        try:
            ort.InferenceSession(data, providers=["CPUExecutionProvider"])
            want = None
        except Exception:    # onnxruntime without the op at this opset: the op's NumPy reference
            ir_node = Node(node.op_type, "n", tuple(node.input), tuple(node.output),
                           tuple((a.name, helper.get_attribute_value(a)) for a in node.attribute))
            want = {"y": lookup(node.op_type).reference(ir_node, [x] + [a for _, a in inits], opset)[0]}
        rep = check(data, {"x": x}, 2e-5, want=want)
        assert [k["config"]["schedule"] for k in rep["kernels"]] == [register_rows.NAME], node.op_type


def decomposed_layernorm(head: str, t: int = 64, h: int = 128) -> tuple[bytes, dict]:
    """LayerNorm as exporters wrote it before opset 17, after `head` (a MatMul + residual add, or
    a ReLU + residual add): ReduceMean(keepdims), Sub, Pow, ReduceMean, Add, Sqrt, Div, Mul, Add."""
    w = (RNG.standard_normal((h, h)) / np.sqrt(h)).astype(np.float32)
    first = helper.make_node("MatMul", ["x", "w"], ["h"]) if head == "matmul" else helper.make_node("Relu", ["x"], ["h"])
    nodes = [first, helper.make_node("Add", ["h", "x"], ["r"]),
             helper.make_node("ReduceMean", ["r"], ["mu"], axes=[-1]),
             helper.make_node("Sub", ["r", "mu"], ["d"]),
             helper.make_node("Pow", ["d", "two"], ["d2"]),
             helper.make_node("ReduceMean", ["d2"], ["var"], axes=[-1]),
             helper.make_node("Add", ["var", "eps"], ["ve"]),
             helper.make_node("Sqrt", ["ve"], ["sd"]),
             helper.make_node("Div", ["d", "sd"], ["n"]),
             helper.make_node("Mul", ["n", "g"], ["ng"]),
             helper.make_node("Add", ["ng", "b"], ["y"])]
    inits = [("two", np.array(2, np.float32)), ("eps", np.array(1e-5, np.float32)),
             ("g", RNG.standard_normal(h).astype(np.float32)), ("b", RNG.standard_normal(h).astype(np.float32))]
    if head == "matmul":
        inits.append(("w", w))
    data = make(nodes, [("x", TensorProto.FLOAT, [t, h])], [("y", TensorProto.FLOAT, [t, h])], inits, opset=17)
    return data, {"x": RNG.standard_normal((t, h)).astype(np.float32)}


@pytest.mark.parametrize("head", ["matmul", "relu"])
def test_a_layernorm_written_by_hand_is_one_kernel_with_what_comes_before(head):
    data, feeds = decomposed_layernorm(head)
    fused = check(data, feeds, 2e-5)
    apart = check(data, feeds, 2e-5, disable=("welder",))
    assert fused["launches_per_inference"] == 1 < apart["launches_per_inference"]
    (g,) = [g for g in fused["fusion"]["groups"] if g.get("level") == "shared"]
    assert len(g["ops"]) == 11 and g["predicted_us"]["fused"] < g["predicted_us"]["apart"]
    assert sorted(lvl for lvl in g["carried"].values() if lvl == "shared") == ["shared"] * (3 if head == "matmul" else 2)
    (k,) = row_kernels(fused)
    # resident rows (the product) keep the chain in shared memory; statistics alone, in registers
    assert k["config"]["schedule"] == (resident_rows.NAME if head == "matmul" else register_rows.NAME)
    assert k["config"].get("resident", False) == (head == "matmul") and k["config"]["statistics"] == 2
    assert fused["traffic"]["dram_bytes"] < apart["traffic"]["dram_bytes"]


def test_a_gemm_then_layernorm_is_one_kernel_where_the_cost_model_says_so():
    """MatMul + bias + residual -> LayerNormalization, 64 rows of 128 (launches dominate: one
    kernel), and 4096 rows of 1024 (Roller's tiled GEMM wins: the GEMM stays tiled and the
    LayerNorm is its own row chain). The report gives both predictions either way."""
    for t, h, fused_expected in ((64, 128, True), (4096, 1024, False)):
        w = (RNG.standard_normal((h, h)) / np.sqrt(h)).astype(np.float32)
        nodes = [helper.make_node("MatMul", ["x", "w"], ["m"]), helper.make_node("Add", ["m", "bias"], ["mb"]),
                 helper.make_node("Add", ["mb", "x"], ["r"]),
                 helper.make_node("LayerNormalization", ["r", "g", "b"], ["y"], axis=-1)]
        inits = [("w", w), ("bias", RNG.standard_normal(h).astype(np.float32)),
                 ("g", RNG.standard_normal(h).astype(np.float32)), ("b", RNG.standard_normal(h).astype(np.float32))]
        data = make(nodes, [("x", TensorProto.FLOAT, [t, h])], [("y", TensorProto.FLOAT, [t, h])], inits)
        art = compile(data, "h100", CompileOptions(build=False))
        fusion = art.report["fusion"]
        shared = [g for g in fusion["groups"] if g.get("level") == "shared"]
        if fused_expected:
            (g,) = shared
            assert g["predicted_us"]["fused"] < g["predicted_us"]["apart"]
            assert art.report["launches_per_inference"] == 1
            x = RNG.standard_normal((t, h)).astype(np.float32)
            check(data, {"x": x}, 1e-4)
        else:
            assert not shared
            (d,) = [d for d in fusion["declined"] if "MatMul_0" in d["ops"]]
            assert d["predicted_us"]["fused"] >= d["predicted_us"]["apart"]
            assert [k["config"]["schedule"] for k in art.report["kernels"]][-1] == register_rows.NAME


def test_a_contraction_is_no_row_statistic_without_a_resident_stage():
    """Two convs added (a shortcut): the shortcut conv is a one-axis reduction read one-to-one,
    but it contracts with a weight every output reads again; as a statistic a block would compute
    it without Roller's tiles, so no chain forms from it."""
    conv = lambda x, w, y, **a: helper.make_node("Conv", [x, w], [y], **a)   # noqa: E731
    nodes = [conv("a", "w1", "main"), conv("x", "w2", "short", strides=[2, 2]),
             helper.make_node("Add", ["main", "short"], ["y"])]
    inits = [("w1", (RNG.standard_normal((8, 72, 1, 1)) / 8).astype(np.float32)),
             ("w2", (RNG.standard_normal((8, 72, 1, 1)) / 8).astype(np.float32))]
    data = make(nodes, [("a", TensorProto.FLOAT, [1, 72, 2, 2]), ("x", TensorProto.FLOAT, [1, 72, 4, 4])],
                [("y", TensorProto.FLOAT, [1, 8, 2, 2])], inits)
    rep = check(data, {"a": RNG.standard_normal((1, 72, 2, 2)).astype(np.float32),
                       "x": RNG.standard_normal((1, 72, 4, 4)).astype(np.float32)}, 1e-4)
    assert not row_kernels(rep)


def test_an_embedding_lookup_then_layernorm_is_one_kernel():
    """Gather(table, ids) -> LayerNormalization: the statistics read each gathered row once along
    the row (a repeated token reads its row again, as any reader of the gather's output would),
    so the lookup is stitched into the row chain and its output never reaches DRAM."""
    vocab, n, h = 50, 12, 64
    nodes = [helper.make_node("Gather", ["table", "ids"], ["e"], axis=0),
             helper.make_node("LayerNormalization", ["e", "g", "b"], ["y"], axis=-1)]
    inits = [("table", RNG.standard_normal((vocab, h)).astype(np.float32)),
             ("g", RNG.standard_normal(h).astype(np.float32)), ("b", RNG.standard_normal(h).astype(np.float32))]
    data = make(nodes, [("ids", TensorProto.INT64, [1, n])], [("y", TensorProto.FLOAT, [1, n, h])], inits)
    ids = RNG.integers(-vocab, vocab, (1, n))
    ids[0, :3] = 7                                        # a token repeated
    fused = check(data, {"ids": ids}, 2e-5)
    apart = check(data, {"ids": ids}, 2e-5, disable=("welder",))
    assert fused["launches_per_inference"] == 1 < apart["launches_per_inference"]
    (k,) = row_kernels(fused)
    assert k["ops"] == ["Gather_0", "LayerNormalization_1"]
