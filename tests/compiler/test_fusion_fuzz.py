"""Random graphs through every fusion pass: chains of the ops whose compositions the welder stage,
the shared-memory level (row chains, maps after a reshaped norm, split statistics), stitched maps
and half storage rewrite, drawn on one activation shape so that any op can follow any other;
compiled with fusion on at fp32 or fp16, run on the host harness in both thread orders, checked
against onnxruntime by the verify stage's own measure (and its rounded reference in fp16).

CI runs FUZZ_SEEDS seeds; `BRICKYARD_FUZZ_SEEDS=500 pytest tests/compiler/test_fusion_fuzz.py`
runs more (a failing seed's model is written to $BRICKYARD_FUZZ_OUT when set)."""
from __future__ import annotations

import os

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from compiler import compile
from compiler.context import CompileOptions
from compiler.runtime.executor import Executor, make_backend
from compiler.verify import max_rel_error

FUZZ_SEEDS = int(os.environ.get("BRICKYARD_FUZZ_SEEDS", "16"))
# What a seed found becomes a test of its own (a seed's graph changes with the generator): seed 29
# of the first generator, a Where on a Conv's output thresholded in fp16, is
# tests/compiler/test_verify_rounding.py's test_a_threshold_on_a_rounded_conv_ties_and_is_within_rounding.
# images; token sequences (attention: one long enough for the tensor-core flash kernel in fp16); an
# image whose GroupNorm rows are few and long (split statistics)
SHAPES = ((1, 16, 8, 8), (2, 8, 6, 10), (1, 32, 16, 16), (1, 64, 24), (1, 32, 48, 48), (2, 40, 32), (1, 128, 64))
# techniques switched off at random, so that the paths they leave are drawn too
SWITCHES = ("shared_level", "stitched_maps", "half_storage", "split_rows", "sink_reshapes", "prologue", "rammer")
UNARY = ("Relu", "Sigmoid", "Tanh", "Neg", "Abs", "Erf", "Softsign")


class Graph:
    """A graph under construction: nodes, initializers, and the values of the activation shape."""

    def __init__(self, rng, shape):
        self.rng, self.shape = rng, shape
        self.nodes, self.inits, self.values, self.n = [], [], ["x0", "x1"], 0

    def new(self, stem: str) -> str:
        self.n += 1
        return f"{stem}{self.n}"

    def const(self, array) -> str:
        name = self.new("c")
        self.inits.append(numpy_helper.from_array(np.asarray(array, np.float32 if np.asarray(array).dtype.kind == "f"
                                                              else np.int64), name))
        return name

    def node(self, op: str, ins: list[str], **attrs) -> str:
        out = self.new("v")
        self.nodes.append(helper.make_node(op, ins, [out], **attrs))
        return out

    def pick(self) -> str:
        return self.values[int(self.rng.integers(len(self.values)))]

    def weight(self, *shape) -> str:
        return self.const(self.rng.standard_normal(shape) / np.sqrt(max(1, shape[0])))


def _step(g: Graph) -> str:
    """One op (or a short idiom) over values of the activation shape, returning its result."""
    rng, shape = g.rng, g.shape
    rank = len(shape)
    c = shape[1] if rank == 4 else shape[-1]
    kind = rng.choice(["unary", "binary", "bias", "matmul", "softmax", "layernorm", "rowstat", "groupnorm",
                       "transpose", "reshape", "concat_slice", "conv", "silu", "where", "half", "rowmax", "cumsum",
                       "pad_slice", "pool", "attention"])
    a = g.pick()
    if kind == "unary":
        return g.node(str(rng.choice(UNARY)), [a])
    if kind == "binary":
        return g.node(str(rng.choice(["Add", "Mul", "Sub"])), [a, g.pick()])
    if kind == "bias":      # a per-channel (or per-feature) constant, as a norm's scale or a bias
        bshape = [1, c, 1, 1] if rank == 4 else [c]
        return g.node(str(rng.choice(["Add", "Mul"])), [a, g.const(rng.standard_normal(bshape))])
    if kind == "silu":
        return g.node("Mul", [a, g.node("Sigmoid", [a])])
    if kind == "matmul":    # over the last axis, by a constant
        return g.node("MatMul", [a, g.weight(shape[-1], shape[-1])])
    if kind == "softmax":
        return g.node("Softmax", [a], axis=int(rng.choice([-1, 1])))
    if kind == "layernorm":
        return g.node("LayerNormalization", [a, g.const(rng.standard_normal(shape[-1]) * 0.5 + 1),
                                             g.const(rng.standard_normal(shape[-1]))], axis=-1, epsilon=1e-5)
    if kind == "rowstat":   # a mean over some trailing axes, subtracted back (a broadcast read)
        axes = list(range(int(rng.integers(1, rank)), rank))
        m = g.node("ReduceMean", [a, g.const(np.array(axes))], keepdims=1)
        return g.node("Sub", [g.pick(), m])
    if kind == "groupnorm" and rank == 4 and c % 4 == 0:     # as exporters write GroupNorm
        groups = 4
        rows = g.node("Reshape", [a, g.const(np.array([shape[0], groups, -1]))])
        normed = g.node("InstanceNormalization", [rows, g.const(np.ones(groups)), g.const(np.zeros(groups))],
                        epsilon=1e-5)
        back = g.node("Reshape", [normed, g.const(np.array(shape))])
        return g.node("Add", [g.node("Mul", [back, g.const(rng.standard_normal([1, c, 1, 1]))]),
                              g.const(rng.standard_normal([1, c, 1, 1]))])
    if kind == "transpose":     # a permutation and its inverse, another op between
        perm = list(rng.permutation(rank))
        t = g.node("Transpose", [a], perm=perm)
        t = g.node(str(rng.choice(UNARY)), [t])
        inv = list(np.argsort(perm))
        return g.node("Transpose", [t], perm=inv)
    if kind == "reshape":       # merge two axes, act, split them back
        k = int(rng.integers(0, rank - 1))
        merged = list(shape[:k]) + [shape[k] * shape[k + 1]] + list(shape[k + 2:])
        r = g.node("Reshape", [a, g.const(np.array(merged))])
        r = g.node(str(rng.choice(UNARY)), [r])
        return g.node("Reshape", [r, g.const(np.array(shape))])
    if kind == "concat_slice":  # halves along the last axis, swapped
        half = shape[-1] // 2
        lo = g.node("Slice", [a, g.const(np.array([0])), g.const(np.array([half])), g.const(np.array([-1]))])
        hi = g.node("Slice", [a, g.const(np.array([half])), g.const(np.array([shape[-1]])), g.const(np.array([-1]))])
        return g.node("Concat", [hi, lo], axis=-1)
    if kind == "where":     # a mask from one value selecting between two
        return g.node("Where", [g.node("Greater", [a, g.const(np.float32(0.25))]), g.pick(), g.pick()])
    if kind == "half":      # the model's own fp16 round trip (native half storage in the graph)
        return g.node("Cast", [g.node("Cast", [a], to=TensorProto.FLOAT16)], to=TensorProto.FLOAT)
    if kind == "rowmax":    # a max over the last axis, subtracted back (softmax's first half)
        return g.node("Sub", [a, g.node("ReduceMax", [a, g.const(np.array([-1]))], keepdims=1)])
    if kind == "cumsum":
        return g.node("CumSum", [a, g.const(np.array(rank - 1))])
    if kind == "pad_slice":     # padded by one on the last axis, then the other end sliced off
        pads = [0] * (2 * rank)
        pads[rank - 1] = 1
        p = g.node("Pad", [a, g.const(np.array(pads))])
        return g.node("Slice", [p, g.const(np.array([0])), g.const(np.array([shape[-1]])), g.const(np.array([-1]))])
    if kind == "attention" and rank == 3:     # heads split and merged, an optional mask, as exporters write it
        b, s, d = shape
        heads = 2 if d % 2 == 0 else 1
        hd = d // heads

        def proj(src):
            p = g.node("MatMul", [src, g.weight(d, d)])
            p = g.node("Reshape", [p, g.const(np.array([b, s, heads, hd]))])
            return g.node("Transpose", [p], perm=[0, 2, 1, 3])
        q, k, v = proj(a), proj(g.pick()), proj(g.pick())
        scores = g.node("MatMul", [q, g.node("Transpose", [k], perm=[0, 1, 3, 2])])
        scores = g.node("Mul", [scores, g.const(np.float32(1 / np.sqrt(hd)))])
        if rng.random() < 0.5:     # a causal mask added as -inf-like values above the diagonal
            mask = np.triu(np.full((s, s), -1e4, np.float32), 1)
            scores = g.node("Add", [scores, g.const(mask)])
        o = g.node("MatMul", [g.node("Softmax", [scores], axis=-1), v])
        o = g.node("Transpose", [o], perm=[0, 2, 1, 3])
        return g.node("Reshape", [o, g.const(np.array([b, s, d]))])
    if kind == "pool" and rank == 4:
        return g.node(str(rng.choice(["MaxPool", "AveragePool"])), [a], kernel_shape=[3, 3], pads=[1, 1, 1, 1])
    if kind == "conv" and rank == 4:
        k = int(rng.choice([1, 3]))
        return g.node("Conv", [a, g.weight(c, c, k, k)], pads=[k // 2] * 4)
    return g.node("Relu", [a])


def random_model(seed: int, shapes=SHAPES) -> tuple[bytes, dict, str, tuple[str, ...]]:
    """(model, inputs, precision, techniques off) of seed, on one of `shapes`: 4..14 steps, every
    value nobody reads an output."""
    rng = np.random.default_rng(seed)
    shape = shapes[seed % len(shapes)]
    g = Graph(rng, shape)
    for _ in range(int(rng.integers(4, 15))):
        g.values.append(_step(g))
    read = {i for n in g.nodes for i in n.input}
    outs = [v for v in g.values[2:] if v not in read] or [g.values[-1]]
    graph = helper.make_graph(g.nodes, f"fuzz{seed}",
                              [helper.make_tensor_value_info(x, TensorProto.FLOAT, list(shape)) for x in ("x0", "x1")],
                              [helper.make_tensor_value_info(v, TensorProto.FLOAT, list(shape)) for v in outs], g.inits)
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    m.ir_version = 9
    onnx.checker.check_model(m)
    feeds = {x: rng.standard_normal(shape).astype(np.float32) for x in ("x0", "x1")}
    disable = tuple(str(x) for x in rng.choice(SWITCHES, size=int(rng.integers(0, 3)), replace=False))
    return m.SerializeToString(), feeds, str(rng.choice(["fp32", "fp16"])), disable


def compiled_and_checked(data: bytes, feeds: dict, precision: str, disable: tuple[str, ...], name: str):
    """The artifact of a random model, verified against onnxruntime on the host harness (the
    verify stage's outcome) and run in both thread orders alike; a failing model is written to
    $BRICKYARD_FUZZ_OUT/<name>.onnx when set."""
    try:
        art = compile(data, "h100", CompileOptions(build=False, precision=precision, verify="host", disable=disable))
        v = art.report["verification"]
        assert v["outcome"] in ("passed", "within rounding"), v
        runs = [Executor(art.plan, make_backend("host", mode=m)).run(feeds) for m in ("default", "shuffle")]
        # both thread orders give the same results (no race between the fused stages)
        assert max_rel_error(runs[1], runs[0]) <= 1e-6
        return art
    except BaseException:
        out = os.environ.get("BRICKYARD_FUZZ_OUT")
        if out:
            os.makedirs(out, exist_ok=True)
            with open(os.path.join(out, f"{name}.onnx"), "wb") as f:
                f.write(data)
        raise


@pytest.mark.parametrize("seed", range(FUZZ_SEEDS))
def test_random_graph_is_right_with_fusion(seed):
    data, feeds, precision, disable = random_model(seed)
    compiled_and_checked(data, feeds, precision, disable, f"fuzz{seed}-{precision}")
