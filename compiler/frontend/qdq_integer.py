"""QDQ contractions as integer contractions: a Conv or MatMul whose data input is dequantized from
an 8-bit value (DequantizeLinear of a per-tensor scale and zero point) and whose weight is
dequantized from an 8-bit constant (per tensor, or per output channel) computes

    conv(sx (xq - zx), sw (wq - zw)) = sx sw * ConvInteger(xq, wq, zx, zw)

exactly in real arithmetic, so it becomes the integer contraction (exact int32 sums), a Cast to
float, one multiplication by the constant sx * sw (rounded once, in fp32) and the bias added after:
the form onnxruntime's own QDQ fusion gives it (QLinearConv, MatMulIntegerToFloat), and the one
the imma stage moves onto the integer tensor cores (passes/imma.py). A Gemm reaches here as
canonicalize's MatMul (its transposed weight a Transpose of the dequantized one). Where the
dequantized value has other readers they keep reading it. `--disable qdq_integer` keeps the float
contraction of dequantized values (onnxruntime's meaning with its optimizations off); the two
differ by float rounding only."""
from __future__ import annotations

import dataclasses

import numpy as np

from ..ir.dtypes import DType
from ..ir.graph import Constant, Graph, Node, TensorType
from ..ops.registry import lookup
from .canonicalize import _map_subgraphs, _Names, _rebuild, remove_dead_nodes

EIGHT_BITS = (DType.int8, DType.uint8)


@dataclasses.dataclass(frozen=True)
class _Dequantized:
    """A DequantizeLinear's operands: the 8-bit value, its scale and zero point (constants) and the
    axis a per-channel scale runs along (normalised to the value's rank)."""

    q: str
    scale: np.ndarray
    zero: np.ndarray
    axis: int


def integer_contractions(graph: Graph, opset: int) -> tuple[Graph, int]:
    """The graph with each QDQ Conv / MatMul it can rewrite as an integer contraction, and how many
    it rewrote (subgraphs included); `opset` the model's ai.onnx version (a dequantized bias's)."""
    count = [0]

    def one(g: Graph) -> Graph:
        g = _map_subgraphs(g, one)
        producers = {o: n for n in g.nodes for o in n.outputs if o}
        names = _Names(g)
        consts: dict[str, Constant] = {}
        types: dict[str, TensorType] = {}
        nodes: list[Node] = []
        rewritten = 0
        for n in g.nodes:
            repl = _rewrite(n, g, producers, names, consts, types, opset) if n.domain == "" else None
            rewritten += repl is not None
            nodes.extend(repl if repl is not None else [n])
        count[0] += rewritten
        return remove_dead_nodes(_rebuild(g, nodes, consts, types)) if rewritten else g

    out = one(graph)
    return out, count[0]


def _dequantized(value: str, g: Graph, producers: dict, constant_q: bool) -> _Dequantized | None:
    """The DequantizeLinear that computes `value` from an 8-bit tensor (a constant one where
    `constant_q`) with a constant scale and zero point, in float32, else None."""
    dq = producers.get(value)
    if dq is None or dq.op != "DequantizeLinear" or dq.domain != "" or int(dq.attr("block_size", 0) or 0):
        return None
    q = dq.inputs[0]
    qt = g.type_of(q)
    if qt.dtype not in EIGHT_BITS or g.type_of(value).dtype is not DType.float32:
        return None
    if constant_q and g.constant(q) is None:
        return None
    scale = g.constant(dq.inputs[1]) if len(dq.inputs) > 1 and dq.inputs[1] else None
    if scale is None or scale.dtype is not DType.float32:
        return None
    zero_name = dq.inputs[2] if len(dq.inputs) > 2 else ""
    zero = g.constant(zero_name) if zero_name else None
    if zero_name and zero is None:
        return None
    s = scale.array().astype(np.float32)
    z = zero.array().astype(np.int64) if zero is not None else np.zeros(s.shape, np.int64)
    if z.size != s.size:
        return None
    axis = int(dq.attr("axis", 1))
    axis = axis + qt.rank if axis < 0 else axis
    return _Dequantized(q, s.reshape(-1) if s.size > 1 else s.reshape(()),
                        z.reshape(-1) if z.size > 1 else z.reshape(()), axis)


def _weight(value: str, g: Graph, producers: dict) -> tuple[_Dequantized, bool] | None:
    """The dequantized constant weight `value` is, directly or through a 2-D Transpose (a Gemm's
    transB, canonicalize.gemm_to_matmul): (its DequantizeLinear, whether it is transposed)."""
    d = _dequantized(value, g, producers, constant_q=True)
    if d is not None:
        return d, False
    t = producers.get(value)
    if t is not None and t.op == "Transpose" and g.type_of(value).rank == 2 \
            and tuple(t.attr("perm", (1, 0))) == (1, 0):
        d = _dequantized(t.inputs[0], g, producers, constant_q=True)
        if d is not None:
            return d, True
    return None


def _constant_value(value: str, g: Graph, producers: dict, opset: int) -> np.ndarray | None:
    """A constant, or a DequantizeLinear of constants (a QDQ model's int32 bias) evaluated by the
    op's own reference: the values its node would compute, now. None for anything else."""
    c = g.constant(value)
    if c is not None:
        return c.array()
    dq = producers.get(value)
    if dq is None or dq.op != "DequantizeLinear" or dq.domain != "" \
            or any(i and g.constant(i) is None for i in dq.inputs):
        return None
    return lookup("DequantizeLinear").reference(dq, [g.constant(i).array() if i else None for i in dq.inputs],
                                                opset)[0]


def _rewrite(n: Node, g: Graph, producers: dict, names: _Names, consts: dict, types: dict,
             opset: int) -> list[Node] | None:
    if n.op not in ("Conv", "MatMul") or len(n.inputs) < 2:
        return None
    x = _dequantized(n.inputs[0], g, producers, constant_q=False)
    found = _weight(n.inputs[1], g, producers)
    if x is None or found is None or x.scale.size != 1:
        return None
    w, transposed = found
    wq = g.constant(w.q).array()
    if transposed:
        wq = np.ascontiguousarray(wq.T)
        w = dataclasses.replace(w, axis=1 - w.axis)
    out = n.outputs[0]
    out_t = g.type_of(out)
    rows = out_t.size // out_t.shape[1 if n.op == "Conv" else -1] if out_t.size else 0
    if rows <= 1:
        # a matrix-vector product (a classifier at batch 1, a squeeze-excitation FC) reads its weight
        # once either way, int8 in both: the integer form gains nothing there and is left float
        return None
    if n.op == "Conv":
        if wq.ndim < 3:
            return None
        channel_axis, channels = 0, wq.shape[0]
        scale_shape = (channels,) + (1,) * (wq.ndim - 2)
    else:
        if wq.ndim != 2 or g.type_of(n.inputs[0]).rank < 2:
            return None
        channel_axis, channels = 1, wq.shape[1]
        scale_shape = (channels,)
    if w.scale.size != 1 and (w.scale.size != channels or w.axis != channel_axis):
        return None
    new: list[Node] = []

    def constant(base: str, arr: np.ndarray) -> str:
        name = names.value(base)
        consts[name] = Constant.from_array(np.ascontiguousarray(arr))
        types[name] = consts[name].type
        return name

    q_w = w.q if not transposed else constant(f"{w.q}/T", wq)
    zx = constant(f"{n.name}/x_zero_point", x.zero.astype(g.type_of(x.q).dtype.np))
    zw = constant(f"{n.name}/w_zero_point", w.zero.astype(wq.dtype))
    acc = names.value(f"{out}/integer")
    types[acc] = TensorType(DType.int32, out_t.shape)
    if n.op == "Conv":
        attrs = tuple((k, v) for k, v in n.attrs if k in ("auto_pad", "dilations", "group", "kernel_shape", "pads",
                                                        "strides"))
        new.append(Node("ConvInteger", names.node(f"{n.name}/integer"), (x.q, q_w, zx, zw), (acc,), attrs))
    else:
        new.append(Node("MatMulInteger", names.node(f"{n.name}/integer"), (x.q, q_w, zx, zw), (acc,)))
    as_float = names.value(f"{out}/float")
    types[as_float] = TensorType(DType.float32, out_t.shape)
    new.append(Node("Cast", names.node(f"{n.name}/float"), (acc,), (as_float,), (("to", 1),)))
    scale = np.float32(x.scale.reshape(())) * w.scale.astype(np.float32)   # sx * sw, rounded once in fp32
    scale = scale.reshape(scale_shape) if scale.size > 1 else scale.reshape(())
    bias = n.inputs[2] if n.op == "Conv" and len(n.inputs) > 2 and n.inputs[2] else ""
    # the bias as a constant where it is one, or a dequantized one (so the scale and the bias join
    # the integer kernel's epilogue with nothing computed at run time besides)
    bias_value = _constant_value(bias, g, producers, opset) if bias else None
    scaled = out if not bias else names.value(f"{out}/scaled")
    types[scaled] = out_t
    new.append(Node("Mul", names.node(f"{n.name}/scale"), (as_float, constant(f"{n.name}/scale", scale)),
                    (scaled,)))
    if bias_value is not None:
        b = constant(f"{bias}/channels", bias_value.reshape(scale_shape))
        new.append(Node("Add", names.node(f"{n.name}/bias"), (scaled, b), (out,)))
    elif bias:
        shape = constant(f"{n.name}/bias_shape", np.array(scale_shape, np.int64))
        b = names.value(f"{bias}/channels")
        types[b] = TensorType(g.type_of(bias).dtype, scale_shape)
        new.append(Node("Reshape", names.node(f"{n.name}/bias_shape"), (bias, shape), (b,)))
        new.append(Node("Add", names.node(f"{n.name}/bias"), (scaled, b), (out,)))
    return new
