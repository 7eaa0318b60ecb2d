"""Operand prologues (compiler/passes/prologue.py): a map that makes an attention kernel's Q (or K,
V) operand, left a kernel of its own by the register level, joins the attention kernel that loads
the operand once a block, where the kinds' prices say that pays. Checked on the host harness
against NumPy (fixed and shuffled block order) for the three attention kinds, with the report's
record, and the cases that must stay apart: a map value read elsewhere, one read as two operands,
a map whose recomputation costs more than its launch."""
from __future__ import annotations

import numpy as np
import pytest
from onnx import helper, numpy_helper

from compiler import compile
from compiler.ir.dtypes import DType
from compiler.ir.plan import ComputeStep
from compiler.kinds import flash_attention, flash_attention_simt, flash_decoding, resident_rows
from compiler.passes import prologue
from compiler.pipeline import CompileOptions, plan_before

from .test_resident import ONNX_TYPE, TOL, attention_np, make_model, run


def _ints(name: str, values) -> object:
    return numpy_helper.from_array(np.array(values, np.int64), name)


def query_map_nodes(x: str, out: str, d: int, how: str) -> tuple[list, list]:
    """`out` = a map of `x` (..., d), as exporters write it: "rotary" (rotate-half: halves, a
    negation, a concat, products with cos and sin, their sum: five operations an element), "silu"
    (x * sigmoid(x)), "chain" (tanh twelve times over, then times 3: what no launch is worth
    recomputing per block)."""
    if how == "rotary":
        h = d // 2
        inits = [_ints("r0", [0]), _ints("r1", [h]), _ints("r2", [d]), _ints("rax", [-1])]
        nodes = [helper.make_node("Slice", [x, "r0", "r1", "rax"], ["x1"]),
                 helper.make_node("Slice", [x, "r1", "r2", "rax"], ["x2"]),
                 helper.make_node("Neg", ["x2"], ["n2"]),
                 helper.make_node("Concat", ["n2", "x1"], ["rot"], axis=-1),
                 helper.make_node("Mul", [x, "cos"], ["xc"]),
                 helper.make_node("Mul", ["rot", "sin"], ["rs"]),
                 helper.make_node("Add", ["xc", "rs"], [out])]
        return nodes, inits
    if how == "silu":
        return [helper.make_node("Sigmoid", [x], ["sg"]), helper.make_node("Mul", [x, "sg"], [out])], []
    assert how == "chain"
    nodes, prev = [], x
    for n in range(12):
        nodes.append(helper.make_node("Tanh", [prev], [f"t{n}"]))
        prev = f"t{n}"
    return nodes + [helper.make_node("Mul", [prev, "three"], [out])], []


def query_map_np(x: np.ndarray, how: str, cos: np.ndarray, sin: np.ndarray) -> np.ndarray:
    x = x.astype(np.float32)
    if how == "rotary":
        h = x.shape[-1] // 2
        return x * cos + np.concatenate([-x[..., h:], x[..., :h]], -1) * sin
    if how == "silu":
        return x / (1 + np.exp(-x))
    for _ in range(12):
        x = np.tanh(x)
    return 3 * x


def mapped_attention(b, h, sq, sk, d, dtype, how: str, *, side: str = "q", expose: bool = False,
                     shared: bool = False, reshaped: bool = False) -> tuple[bytes, np.ndarray, np.ndarray]:
    """Attention (decoding_attention's: scale, Softmax, NaN guard, .V, transpose) whose `side`
    operand is `how` of an input; `expose`: the map's value is a graph output too; `shared`: Q
    and K are both the mapped value (sq == sk); `reshaped`: the input is (b * h, n, d) and the
    map's value reaches the attention through a Reshape. The model, and cos and sin (constants)."""
    t = ONNX_TYPE[dtype]
    np_t = DType[dtype].np
    rng = np.random.default_rng(d + sq)
    n = sq if side == "q" else sk
    ang = rng.uniform(0, 2 * np.pi, (1, 1, n, d)).astype(np.float32)
    cos, sin = np.cos(ang), np.sin(ang)
    inits = [numpy_helper.from_array(cos.astype(np_t), "cos"), numpy_helper.from_array(sin.astype(np_t), "sin"),
             numpy_helper.from_array(np.array(1 / np.sqrt(d), np_t), "scale"),
             numpy_helper.from_array(np.array(3, np_t), "three"),
             numpy_helper.from_array(np.array(0, np_t), "zero")]
    nodes, more = query_map_nodes(f"{side}_in", f"{side}m", d, how)
    names = {"q": "q", "k": "k", "v": "v", side: f"{side}m"}
    if reshaped:
        more = more + [_ints("shape4", [b, h, n, d])]
        nodes.append(helper.make_node("Reshape", [f"{side}m", "shape4"], [f"{side}m4"]))
        names[side] = f"{side}m4"
    if shared:
        names["k"] = "qm"
    nodes += [helper.make_node("Transpose", [names["k"]], ["kt"], perm=[0, 1, 3, 2]),
              helper.make_node("MatMul", [names["q"], "kt"], ["qk"]),
              helper.make_node("Mul", ["qk", "scale"], ["scores"]),
              helper.make_node("Softmax", ["scores"], ["p"], axis=-1),
              helper.make_node("IsNaN", ["p"], ["nan"]),
              helper.make_node("Where", ["nan", "zero", "p"], ["pz"]),
              helper.make_node("MatMul", ["pz", names["v"]], ["o"]),
              helper.make_node("Transpose", ["o"], ["y"], perm=[0, 2, 1, 3])]
    shapes = {"q": [b, h, sq, d], "k": [b, h, sk, d], "v": [b, h, sk, d]}
    in_shape = [b * h, n, d] if reshaped else shapes[side]
    inputs = [(f"{side}_in", t, in_shape)] + [(s, t, shapes[s]) for s in ("q", "k", "v")
                                                  if s != side and not (shared and s == "k")]
    outputs = [("y", t, [b, sq, h, d])] + ([(f"{side}m", t, in_shape)] if expose else [])
    return make_model(nodes, inputs, outputs, inits + more), cos, sin


def feeds_and_want(b, h, sq, sk, d, dtype, how, cos, sin, *, side="q", shared=False, reshaped=False):
    rng = np.random.default_rng(sk + 3 * d)
    np_t = DType[dtype].np
    shapes = {"q": (b, h, sq, d), "k": (b, h, sk, d), "v": (b, h, sk, d)}
    raw = {s: rng.standard_normal(shapes[s]).astype(np.float32).astype(np_t) for s in ("q", "k", "v")}
    feeds = {(f"{s}_in" if s == side else s): x for s, x in raw.items() if not (shared and s == "k")}
    if reshaped:
        feeds[f"{side}_in"] = raw[side].reshape(b * h, -1, d)
    ref = {s: x.astype(np.float32) for s, x in raw.items()}
    ref[side] = query_map_np(raw[side], how, cos, sin)
    if dtype != "float32":      # the graph stores the map's value in its own type
        ref[side] = ref[side].astype(np_t).astype(np.float32)
    if shared:
        ref["k"] = ref["q"]
    return feeds, attention_np(ref, d)


def check(data, feeds, want, dtype) -> dict:
    art, got = run(data, feeds)
    for g in got:
        np.testing.assert_allclose(g.astype(np.float32), want, rtol=TOL[dtype], atol=TOL[dtype])
    return art.report


def kinds_of(report) -> list[str]:
    return [k["config"].get("schedule") for k in report["kernels"]]


def tried(report) -> list[dict]:
    return report["fusion"]["prologues"]


@pytest.mark.parametrize("b,h,sq,sk,d,dtype,how,kind", [
    (1, 4, 1, 1000, 64, "float32", "rotary", flash_decoding.NAME),      # a decoder step's Q rotary
    (1, 4, 1, 255, 64, "float32", "rotary", resident_rows.NAME),        # few keys: the rows kernel recomputes it
    (2, 2, 1, 300, 128, "float16", "rotary", flash_decoding.NAME),      # rows alone; decoding with the map
    (1, 8, 256, 256, 64, "float32", "silu", flash_attention_simt.NAME),   # prefill, on SIMT lanes
    (1, 2, 256, 256, 64, "float16", "silu", flash_attention.NAME),        # prefill, on tensor cores
])
def test_a_query_map_joins_the_attention_kernel(b, h, sq, sk, d, dtype, how, kind):
    data, cos, sin = mapped_attention(b, h, sq, sk, d, dtype, how)
    feeds, want = feeds_and_want(b, h, sq, sk, d, dtype, how, cos, sin)
    rep = check(data, feeds, want, dtype)
    assert rep["launches_per_inference"] == 1
    assert kinds_of(rep) == [kind]
    (joined,) = tried(rep)
    map_ops = {"rotary": ["Slice", "Slice", "Neg", "Concat", "Mul", "Mul", "Add"], "silu": ["Sigmoid", "Mul"]}[how]
    assert sorted(op.rsplit("_", 1)[0] for op in joined["ops"]) == sorted(map_ops)
    assert (joined["operand"], joined["kind"], joined["joined"]) == ("q", kind, True)
    p = joined["predicted_us"]
    assert p["fused"] < p["without"] + p["map_apart"]
    assert set(joined["ops"]) <= set(rep["kernels"][0]["ops"])
    assert rep["fusion"]["kernels_after"] == 1


def test_disable_prologue_leaves_the_map_apart():
    """`--disable prologue` switches off this part of the welder stage alone: the map stays a kernel
    of its own, the attention chain stays one, and the result is the same."""
    b, h, sq, sk, d, dtype = 1, 4, 1, 1000, 64, "float32"
    data, cos, sin = mapped_attention(b, h, sq, sk, d, dtype, "rotary")
    feeds, want = feeds_and_want(b, h, sq, sk, d, dtype, "rotary", cos, sin)
    art, got = run(data, feeds, disable=("prologue",))
    for g in got:
        np.testing.assert_allclose(g, want, rtol=TOL[dtype], atol=TOL[dtype])
    rep = art.report
    assert rep["launches_per_inference"] == 2
    assert (rep["fusion"]["prologue"], rep["fusion"]["shared_level"], tried(rep)) == (False, True, [])
    assert flash_decoding.NAME in kinds_of(rep)


def test_a_map_read_through_a_reshape_joins():
    """The map's value reaches Q through a Reshape (an alias step): the kernel reads the map's
    value at the reshaped index, and the alias goes with the map."""
    b, h, sq, sk, d, dtype = 1, 4, 1, 1000, 64, "float32"
    data, cos, sin = mapped_attention(b, h, sq, sk, d, dtype, "rotary", reshaped=True)
    feeds, want = feeds_and_want(b, h, sq, sk, d, dtype, "rotary", cos, sin, reshaped=True)
    rep = check(data, feeds, want, dtype)
    assert rep["launches_per_inference"] == 1
    assert [(j["operand"], j["joined"]) for j in tried(rep)] == [("q", True)]
    assert kinds_of(rep) == [flash_decoding.NAME]


def test_the_map_can_change_the_kind():
    """Alone, the rows kernel is predicted a little faster than flash_decoding for this step; with
    Q's map, which the rows kernel recomputes for every key, the decoding kernel (Q once a block)
    and one launch less win."""
    b, h, sq, sk, d, dtype = 2, 2, 1, 300, 128, "float16"
    data, cos, sin = mapped_attention(b, h, sq, sk, d, dtype, "rotary")
    feeds, want = feeds_and_want(b, h, sq, sk, d, dtype, "rotary", cos, sin)
    rep = check(data, feeds, want, dtype)
    (chain,) = [g for g in rep["fusion"]["groups"] if g.get("level") == "shared"]
    alone = chain["predicted_us"]["kinds"]
    assert chain["predicted_us"]["kind"] == resident_rows.NAME and alone[resident_rows.NAME] < alone[flash_decoding.NAME]
    (joined,) = tried(rep)
    assert (joined["kind_before"], joined["kind"], joined["joined"]) == (resident_rows.NAME, flash_decoding.NAME, True)
    assert kinds_of(rep) == [flash_decoding.NAME]


def test_a_value_map_joins_the_tensor_core_kernel():
    """V's map under prefill on tensor cores: each value element is loaded once a block of query
    rows; four blocks of 64 rows a head here, so the map runs four times, for one launch less."""
    b, h, s, d, dtype = 1, 2, 256, 64, "float16"
    data, cos, sin = mapped_attention(b, h, s, s, d, dtype, "silu", side="v")
    feeds, want = feeds_and_want(b, h, s, s, d, dtype, "silu", cos, sin, side="v")
    rep = check(data, feeds, want, dtype)
    assert rep["launches_per_inference"] == 1
    assert kinds_of(rep) == [flash_attention.NAME]
    assert [(j["operand"], j["joined"]) for j in tried(rep)] == [("v", True)]


def test_a_map_whose_value_is_read_elsewhere_stays_apart():
    b, h, sq, sk, d, dtype = 1, 4, 1, 1000, 64, "float32"
    data, cos, sin = mapped_attention(b, h, sq, sk, d, dtype, "rotary", expose=True)
    feeds, want = feeds_and_want(b, h, sq, sk, d, dtype, "rotary", cos, sin)
    rep = check(data, feeds, want, dtype)
    assert tried(rep) == []
    assert rep["launches_per_inference"] == 2
    assert kinds_of(rep).count(flash_decoding.NAME) == 1


def test_a_map_read_as_both_query_and_key_stays_apart():
    """One value as Q and K: the kind would evaluate it in both loads, which its price does not
    weigh as one operand's, so it is not tried."""
    b, h, s, d, dtype = 1, 8, 256, 64, "float32"
    data, cos, sin = mapped_attention(b, h, s, s, d, dtype, "silu", shared=True)
    feeds, want = feeds_and_want(b, h, s, s, d, dtype, "silu", cos, sin, shared=True)
    rep = check(data, feeds, want, dtype)
    assert tried(rep) == []
    assert rep["launches_per_inference"] == 2
    assert kinds_of(rep).count(flash_attention_simt.NAME) == 1


def test_a_key_map_recomputed_by_every_query_block_stays_apart():
    """Prefill on tensor cores loads every key once per block of query rows: a map of twelve tanh
    there runs once per block (64 of them at 4096 queries), which the kind's price counts
    (flash_attention.operand_ops), so the map stays a kernel of its own, and the report says why."""
    b, h, s, d, dtype = 1, 1, 4096, 64, "float16"
    data, _, _ = mapped_attention(b, h, s, s, d, dtype, "chain", side="k")
    rep = compile(data, "h100", CompileOptions(build=False)).report
    (declined,) = tried(rep)
    assert (declined["operand"], declined["kind"], declined["joined"]) == ("k", flash_attention.NAME, False)
    p = declined["predicted_us"]
    assert p["fused"] >= p["without"] + p["map_apart"]
    assert "Tanh_0" in declined["ops"] and "predicted no faster" in declined["why"]
    assert declined["kind_with_map"] == flash_attention.NAME
    assert rep["launches_per_inference"] == 2


def test_operand_values_names_each_side():
    """Each value the recogniser's Q, K and V expressions read, by the side that reads it: after
    the join, Q's expression reads the map's inputs (the raw queries, cos and sin)."""
    data, _, _ = mapped_attention(1, 4, 1, 1000, 64, "float32", "rotary")
    plan = plan_before("roller", data, "h100", CompileOptions(build=False))
    (spec,) = [s.spec for s in plan.steps if isinstance(s, ComputeStep) and s.spec.kind == flash_decoding.NAME]
    assert prologue.operand_values(flash_decoding.analyse(spec)) == {
        "q_in": "q", "cos": "q", "sin": "q", "k": "k", "v": "v"}
