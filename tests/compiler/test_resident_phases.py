"""Row chains of several phases (kinds/resident_rows.py): resident rows that follow one another
(an MLP's hidden rows, then its output rows that a LayerNorm reduces), statistics between resident
rows (a LayerNorm whose output a GEMM contracts), and resident rows also written to global memory
when a later kernel reads them (a pre-norm transformer's residual sum). Each against onnxruntime on
the host harness in both thread orders and under AddressSanitizer, and against `--disable welder`
in the report's launches and predicted DRAM bytes."""
from __future__ import annotations

import numpy as np
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper

from compiler import compile
from compiler.ir.plan import ComputeStep
from compiler.kinds import resident_rows
from compiler.pipeline import CompileOptions, plan_before
from compiler.runtime.executor import Executor, make_backend

from .test_row_norms import check, make, row_kernels

RNG = np.random.default_rng(5)
T, H, F = 24, 64, 128       # rows, model width, hidden width


def weight(*shape) -> np.ndarray:
    return (RNG.standard_normal(shape) / np.sqrt(shape[0])).astype(np.float32)


def vector(n: int) -> np.ndarray:
    return (RNG.standard_normal(n) * 0.5).astype(np.float32)


def linear(x: str, name: str, out: str) -> list:
    return [helper.make_node("MatMul", [x, f"{name}_w"], [f"{name}_m"]),
            helper.make_node("Add", [f"{name}_m", f"{name}_b"], [out])]


def gelu(x: str, out: str) -> list:
    return [helper.make_node("Div", [x, "sqrt2"], [f"{out}_d"]), helper.make_node("Erf", [f"{out}_d"], [f"{out}_e"]),
            helper.make_node("Add", [f"{out}_e", "one"], [f"{out}_a"]),
            helper.make_node("Mul", [x, f"{out}_a"], [f"{out}_m"]),
            helper.make_node("Mul", [f"{out}_m", "half"], [out])]


def layernorm(x: str, name: str, out: str) -> list:
    return [helper.make_node("LayerNormalization", [x, f"{name}_g", f"{name}_b"], [out], axis=-1)]


def params(name: str, rows: int, cols: int, kind: str) -> list:
    if kind == "linear":
        return [(f"{name}_w", weight(rows, cols)), (f"{name}_b", vector(cols))]
    return [(f"{name}_g", vector(cols) + 1), (f"{name}_b", vector(cols))]


CONSTS = [("sqrt2", np.array(np.sqrt(2), np.float32)), ("one", np.array(1, np.float32)),
          ("half", np.array(0.5, np.float32))]


def post_norm_mlp() -> bytes:
    """y = LayerNorm(x + W2 gelu(W1 x + b1) + b2): BERT's feed-forward sublayer."""
    nodes = linear("x", "fc1", "h") + gelu("h", "g") + linear("g", "fc2", "o") + \
        [helper.make_node("Add", ["o", "x"], ["r"])] + layernorm("r", "ln", "y")
    inits = params("fc1", H, F, "linear") + params("fc2", F, H, "linear") + params("ln", H, H, "norm") + CONSTS
    return make(nodes, [("x", TensorProto.FLOAT, [T, H])], [("y", TensorProto.FLOAT, [T, H])], inits)


def pre_norm_block() -> bytes:
    """r = x + Wo x + bo; z = r + W2 gelu(W1 LayerNorm(r) + b1) + b2; y = LayerNorm(z): a pre-norm
    transformer's attention output projection, its residual, the MLP sublayer, the final norm.
    r is read by the LayerNorm and by the second residual add."""
    nodes = linear("x", "proj", "p") + [helper.make_node("Add", ["p", "x"], ["r"])] + layernorm("r", "ln1", "n") + \
        linear("n", "fc1", "h") + gelu("h", "g") + linear("g", "fc2", "o") + \
        [helper.make_node("Add", ["o", "r"], ["z"])] + layernorm("z", "ln2", "y")
    inits = params("proj", H, H, "linear") + params("ln1", H, H, "norm") + params("fc1", H, F, "linear") + \
        params("fc2", F, H, "linear") + params("ln2", H, H, "norm") + CONSTS
    return make(nodes, [("x", TensorProto.FLOAT, [T, H])], [("y", TensorProto.FLOAT, [T, H])], inits)


def residual_written() -> bytes:
    """r = x + Wx + b; out = LayerNorm(r) @ V, both outputs of the graph: r is resident rows (the
    LayerNorm's row) that is read outside the kernel too, so the kernel writes it as well."""
    nodes = linear("x", "proj", "p") + [helper.make_node("Add", ["p", "x"], ["r"])] + layernorm("r", "ln", "n") + \
        [helper.make_node("MatMul", ["n", "v"], ["out"])]
    inits = params("proj", H, H, "linear") + params("ln", H, H, "norm") + [("v", weight(H, H))]
    return make(nodes, [("x", TensorProto.FLOAT, [T, H])],
                [("out", TensorProto.FLOAT, [T, H]), ("r", TensorProto.FLOAT, [T, H])], inits)


def conv1d(x: str, name: str, out: str) -> list:
    """GPT-2's Conv1D as exporters write it: the (1, T, H) activations viewed as (T, H), a
    product and bias, the result viewed back as (1, T, N)."""
    return [helper.make_node("Reshape", [x, "flat"], [f"{name}_2d"])] + linear(f"{name}_2d", name, f"{name}_y") + \
        [helper.make_node("Reshape", [f"{name}_y", "batched"], [out])]


def gelu_tanh(x: str, out: str) -> list:
    """0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), op by op as GPT-2's exporter writes it."""
    return [helper.make_node("Pow", [x, "three"], [f"{out}_p"]), helper.make_node("Mul", [f"{out}_p", "c"], [f"{out}_c"]),
            helper.make_node("Add", [x, f"{out}_c"], [f"{out}_s"]), helper.make_node("Mul", [f"{out}_s", "k"], [f"{out}_k"]),
            helper.make_node("Tanh", [f"{out}_k"], [f"{out}_t"]), helper.make_node("Add", [f"{out}_t", "one"], [f"{out}_a"]),
            helper.make_node("Mul", [x, f"{out}_a"], [f"{out}_m"]), helper.make_node("Mul", [f"{out}_m", "half"], [out])]


def pre_norm_block_of_views() -> bytes:
    """pre_norm_block on (1, T, H) activations with every linear layer a Conv1D through reshape
    views, as GPT-2 exports it: the chain must look through the views (alias steps) and read the
    3-D and 2-D values as the same rows."""
    nodes = conv1d("x", "proj", "p") + [helper.make_node("Add", ["p", "x"], ["r"])] + layernorm("r", "ln1", "n") + \
        conv1d("n", "fc1", "h") + gelu_tanh("h", "g") + conv1d("g", "fc2", "o") + \
        [helper.make_node("Add", ["o", "r"], ["z"])] + layernorm("z", "ln2", "y")
    inits = params("proj", H, H, "linear") + params("ln1", H, H, "norm") + params("fc1", H, F, "linear") + \
        params("fc2", F, H, "linear") + params("ln2", H, H, "norm") + CONSTS + \
        [("flat", np.array([T, -1], np.int64)), ("batched", np.array([1, T, -1], np.int64)),
         ("three", np.array(3, np.float32)), ("c", np.array(0.044715, np.float32)),
         ("k", np.array(np.sqrt(2 / np.pi), np.float32))]
    return make(nodes, [("x", TensorProto.FLOAT, [1, T, H])], [("y", TensorProto.FLOAT, [1, T, H])], inits)


def feeds() -> dict:
    return {"x": RNG.standard_normal((T, H)).astype(np.float32)}


def written(data: bytes) -> list[list[str]]:
    """What each row-chain kernel of the compiled plan writes to global memory."""
    art = compile(data, "h100", CompileOptions(build=False))
    return [[p.value for p in s.kernel.params if p.output] for s in art.plan.steps
            if getattr(s, "kernel", None) is not None and dict(s.kernel.config).get("schedule") == resident_rows.NAME]


def right_under_asan(data: bytes, x: dict) -> None:
    art = compile(data, "h100", CompileOptions(build=False))
    sess = ort.InferenceSession(data, providers=["CPUExecutionProvider"])
    got = Executor(art.plan, make_backend("host", mode="asan")).run(x)
    for o, w in zip(sess.get_outputs(), sess.run(None, x)):
        np.testing.assert_allclose(got[o.name], w, rtol=1e-4, atol=1e-4, err_msg=o.name)


def test_an_mlp_then_its_layernorm_is_one_kernel_of_two_resident_phases():
    data, x = post_norm_mlp(), feeds()
    fused = check(data, x, 1e-4)
    apart = check(data, x, 1e-4, disable=("welder",))
    assert fused["launches_per_inference"] == 1 < apart["launches_per_inference"]
    (k,) = row_kernels(fused)
    # the hidden rows (F) and the output rows (H) in shared memory, then the LayerNorm's two statistics
    assert k["config"]["resident_stages"] == 2 and k["config"]["statistics"] == 2
    assert k["config"]["row_length"] == H
    assert fused["traffic"]["dram_bytes"] < apart["traffic"]["dram_bytes"]
    right_under_asan(data, x)


def test_a_pre_norm_block_keeps_its_residual_sum_resident_and_writes_it():
    data, x = pre_norm_block(), feeds()
    fused = check(data, x, 1e-4)
    apart = check(data, x, 1e-4, disable=("welder",))
    assert fused["launches_per_inference"] < apart["launches_per_inference"]
    assert fused["traffic"]["dram_bytes"] < apart["traffic"]["dram_bytes"]
    # the whole block is one kernel: r resident, its LayerNorm's statistics, the LayerNorm'd rows
    # (computed once for the product that reads them, not once per column), the MLP's hidden rows,
    # z = r + its output rows resident, the final LayerNorm's (r is read again inside: not written)
    (k,) = row_kernels(fused)
    assert k["config"]["resident_stages"] == 4 and k["config"]["statistics"] == 4
    assert {c["value"]: c["level"] for c in k["carried"]}["n"] == "shared"
    assert written(data) == [["y"]]
    right_under_asan(data, x)


def test_a_chain_reads_through_reshape_views():
    """The same block with Conv1D views (3-D activations, 2-D products) is one kernel too: the
    views are looked through, their alias steps go, and the 3-D values' batch of one is dropped
    inside the chain so that every stage reads the same rows."""
    data, x = pre_norm_block_of_views(), {"x": RNG.standard_normal((1, T, H)).astype(np.float32)}
    fused = check(data, x, 1e-4)
    apart = check(data, x, 1e-4, disable=("welder",))
    assert fused["launches_per_inference"] == 1 < apart["launches_per_inference"]
    assert fused["traffic"]["dram_bytes"] < apart["traffic"]["dram_bytes"]
    (k,) = row_kernels(fused)
    assert k["config"]["resident_stages"] == 4 and k["config"]["statistics"] == 4
    (g,) = [g for g in fused["fusion"]["groups"] if g.get("level") == "shared"]
    # the LayerNorm's output and the GELU's, each read by the next product through its 2-D view
    # (the views back to 3-D are the register level's: folded into the adds' loads)
    assert g["through_aliases"] == ["fc1_2d", "fc2_2d"]
    assert written(data) == [["y"]]
    right_under_asan(data, x)


def test_resident_rows_read_by_a_later_kernel_are_written_too():
    data, x = residual_written(), feeds()
    fused = check(data, x, 1e-4)
    (g,) = [g for g in fused["fusion"]["groups"] if g.get("level") == "shared"]
    assert g["carried"]["r"] == "shared"
    assert fused["launches_per_inference"] == 1
    assert written(data) == [["r", "out"]]
    right_under_asan(data, x)


@pytest.mark.parametrize("disable", [(), ("welder",)])
def test_the_chains_stay_right_with_the_stage_off(disable):
    for data in (post_norm_mlp(), pre_norm_block(), residual_written()):
        check(data, feeds(), 1e-4, disable=disable)
    check(pre_norm_block_of_views(), {"x": RNG.standard_normal((1, T, H)).astype(np.float32)}, 1e-4, disable=disable)


def test_analyse_reads_the_phases_in_order():
    """The post-norm MLP's fused kernel: its two resident phases, then the statistics."""
    plan = plan_before("roller", post_norm_mlp(), "h100", CompileOptions(build=False))
    (spec,) = [s.spec for s in plan.steps if isinstance(s, ComputeStep) and resident_rows.applies(s.spec) is None]
    chain = resident_rows.analyse(spec)
    kinds = ["resident" if p.length is not None else "statistic" for p in chain.phases]
    assert kinds == ["resident", "resident", "statistic", "statistic"]
    assert [p.length for p in chain.residents()] == [F, H]
    assert chain.resident.length == chain.length == H


def test_attention_that_writes_its_scores_is_no_flash_attention():
    """A chain that writes its resident rows too is rendered by resident_rows only: the tensor-core
    kernel keeps a tile of scores at a time and could not write them."""
    import dataclasses

    from compiler.kinds import flash_attention

    from .test_resident import exported_attention
    plan = plan_before("roller", exported_attention(1, 2, 32, 32, "float16", "padding"), "h100",
                       CompileOptions(build=False))
    (spec,) = [s.spec for s in plan.steps if isinstance(s, ComputeStep)
               and isinstance(flash_attention.analyse(s.spec), flash_attention.Attention)]
    scores = resident_rows.analyse(spec, fit=False).residents()[0].output     # QK^T (P is resident too)
    both = dataclasses.replace(spec, kind=None, config=None, outputs=(scores, spec.stages[-1].output))
    assert flash_attention.analyse(both) == "writes its scores too"
    assert isinstance(resident_rows.analyse(both), resident_rows.RowChain)
