"""Elementwise ops: one thread per output element, inputs broadcast by NumPy's rules.

The module is table-driven: each op is a row (name, accepted dtypes, expression builder, NumPy
function) and `register_elementwise` turns a row into both the lowering (one TensorExpr kernel)
and the reference. Ops with more logic (Pow, Clip, BitShift, Cast, Dropout) have small builders
of their own but go through the same two helpers."""
from __future__ import annotations

import functools
import math
from typing import Callable

import numpy as np

from ..errors import NeedsConstant, UnsupportedOp
from ..ir.dtypes import FLOATS, INTS, NUMERIC, DType
from ..ir.texpr import (Const, Expr, TensorExpr, binary, broadcast_index, cast, const, load, maximum,
                        minimum, out_vars, select, unary)
from .registry import LowerCtx, dtype_of_code, register

SIGNED = tuple(d for d in NUMERIC if d.is_signed)
BOOL = (DType.bool,)
ANY = NUMERIC + BOOL
_HALF_NP = (DType.float16.np, DType.bfloat16.np)
_FLT_MAX = float(np.finfo(np.float32).max)
_SIXTH = float(np.float32(1 / 6))  # HardSwish is HardSigmoid(alpha=1/6, beta=0.5) * x


# ------------------------------------------------------------------------------------------------
# Shared helpers

def broadcast_operands(ctx: LowerCtx, which, out: int = 0):
    """Expressions for inputs `which` broadcast to output `out` (None for an absent input).

    A constant single-element input becomes a literal; every other input is loaded. Returns
    (expressions, kernel input types, kernel input names)."""
    y = ctx.out_types[out]
    idx = out_vars(y.rank)
    exprs: list[Expr | None] = []
    types, names = [], []
    for k in which:
        if not ctx.has_input(k):
            exprs.append(None)
            continue
        t, c = ctx.input(k), ctx.const(k)
        if c is not None and np.size(c) == 1:
            exprs.append(const(np.asarray(c).reshape(-1)[0], t.dtype))
        else:
            exprs.append(load(len(types), t, broadcast_index(y.shape, t.shape, idx)))
            types.append(t)
            names.append(ctx.in_name(k))
    return exprs, types, names


def emit_elementwise(ctx: LowerCtx, body: Callable[..., Expr], which=None, out: int = 0) -> None:
    """Emits output `out` = body(*operands) as one kernel over the (broadcast) inputs `which`."""
    which = range(len(ctx.node.inputs)) if which is None else which
    exprs, types, names = broadcast_operands(ctx, which, out)
    te = TensorExpr(ctx.node.op.lower(), tuple(types), ctx.out_types[out], body(*exprs))
    ctx.emit(te, names, ctx.out_name(out))


def _compute(a):
    """NumPy counterpart of the kernels' compute type: half types compute in float32."""
    if a is None:
        return None
    a = np.asarray(a)
    return a.astype(np.float32) if a.dtype in _HALF_NP else a


def _fattr(node, name: str, default: float) -> float:
    """A float attribute as the float32 value ONNX stores."""
    return float(np.float32(node.attr(name, default)))


def _sattr(node, name: str, default: str) -> str:
    v = node.attr(name, default)
    return v.decode() if isinstance(v, bytes) else str(v)


# every op registered as one broadcast kernel (output element i reads each operand at i, broadcast)
ELEMENTWISE_OPS: set[str] = set()


def register_elementwise(op: str, dtypes, body, ref, *, which=None, like: int = 0) -> None:
    """Registers `op` as one broadcast kernel.

    body(ctx, *operands) -> Expr builds the lowering; ref(node, opset, *arrays) computes the
    reference on compute-type arrays; a non-bool result is cast to input `like`'s dtype."""
    def reference(node, inputs, opset):
        with np.errstate(all="ignore"):
            r = np.asarray(ref(node, opset, *[_compute(a) for a in inputs]))
        return [r if r.dtype == np.bool_ else r.astype(np.asarray(inputs[like]).dtype)]

    def lower(ctx: LowerCtx) -> None:
        t = ctx.input(0)
        if dtypes is not None and t.dtype not in dtypes:
            raise ctx.unsupported(f"input type {t.dtype.name}")
        emit_elementwise(ctx, lambda *ops: body(ctx, *ops), which)

    register(op, reference=reference)(lower)
    ELEMENTWISE_OPS.add(op)


def register_unary_table(rows) -> None:
    """Registers every (op, dtypes, expr builder(x, node), numpy fn(x, node)) row."""
    for op, dtypes, build, fn in rows:
        register_elementwise(op, dtypes,
                             lambda ctx, x, _b=build: _b(x, ctx.node),
                             lambda node, opset, x, _f=fn: _f(x, node), which=[0])


# ------------------------------------------------------------------------------------------------
# Unary math and activations

def _un(fn: str):
    return lambda x, node: unary(fn, x)


def _np_erf(x):
    return np.frompyfunc(math.erf, 1, 1)(x.astype(np.float64)).astype(np.float64).astype(x.dtype)


def _sign(x, node):
    s = unary("sign", x)
    return select(unary("isnan", x), x, s) if x.dtype.is_float else s


def _isinf(x, node):
    pos, neg = node.attr("detect_positive", 1), node.attr("detect_negative", 1)
    if pos and neg:
        return unary("isinf", x)
    if pos or neg:
        return unary("isposinf" if pos else "isneginf", x)
    return const(False, DType.bool)


def _ref_isinf(x, node):
    pos, neg = node.attr("detect_positive", 1), node.attr("detect_negative", 1)
    return (np.isposinf(x) & bool(pos)) | (np.isneginf(x) & bool(neg))


def _selu(x, node):
    a, g = _fattr(node, "alpha", 1.67326319217681884765625), _fattr(node, "gamma", 1.05070102214813232421875)
    return select(x > 0, x * g, unary("expm1", x) * (a * g))


def _ref_selu(x, node):
    a, g = _fattr(node, "alpha", 1.67326319217681884765625), _fattr(node, "gamma", 1.05070102214813232421875)
    return np.where(x > 0, x, a * np.expm1(x)) * g


def _celu(x, node):
    a = _fattr(node, "alpha", 1.0)
    return maximum(x, 0) + minimum(unary("expm1", x / a) * a, 0)


def _ref_celu(x, node):
    a = _fattr(node, "alpha", 1.0)
    return np.maximum(x, 0) + np.minimum(a * np.expm1(x / a), 0)


def _hardsigmoid(x, alpha, beta):
    return maximum(minimum(x * alpha + beta, 1), 0)


def gelu(x, tanh: bool = False):
    """GELU of the expression x: exact (erf), or its tanh approximation (also compiler/ops/contrib.py's)."""
    if tanh:
        inner = (x + x * x * x * 0.044715) * math.sqrt(2 / math.pi)
        return x * 0.5 * (unary("tanh", inner) + 1)
    return x * 0.5 * (unary("erf", x * math.sqrt(0.5)) + 1)


def gelu_np(x, tanh: bool = False):
    """`gelu` in NumPy."""
    if tanh:
        return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))
    return 0.5 * x * (1 + _np_erf(x * math.sqrt(0.5)))


def _gelu(x, node):
    return gelu(x, _sattr(node, "approximate", "none") == "tanh")


def _ref_gelu(x, node):
    return gelu_np(x, _sattr(node, "approximate", "none") == "tanh")


def _shrink(x, node):
    lambd, bias = _fattr(node, "lambd", 0.5), _fattr(node, "bias", 0.0)
    v = x if x.dtype.is_float else cast(x, DType.float64)  # attributes are floats
    return select(v < -lambd, v + bias, select(v > lambd, v - bias, 0))


def _ref_shrink(x, node):
    lambd, bias = _fattr(node, "lambd", 0.5), _fattr(node, "bias", 0.0)
    v = x if x.dtype.kind == "f" else x.astype(np.float64)
    return np.where(v < -lambd, v + bias, np.where(v > lambd, v - bias, 0))


def _np_sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _np_softplus(x):
    return np.logaddexp(np.zeros((), x.dtype), x)


_F = FLOATS
register_unary_table([
    ("Abs", NUMERIC, _un("abs"), lambda x, n: np.abs(x)),
    ("Neg", SIGNED, _un("neg"), lambda x, n: np.negative(x)),
    ("Sign", NUMERIC, _sign, lambda x, n: np.sign(x)),
    ("Reciprocal", _F, _un("reciprocal"), lambda x, n: 1 / x),
    ("Sqrt", _F, _un("sqrt"), lambda x, n: np.sqrt(x)),
    ("Exp", _F, _un("exp"), lambda x, n: np.exp(x)),
    ("Log", _F, _un("log"), lambda x, n: np.log(x)),
    ("Sin", _F, _un("sin"), lambda x, n: np.sin(x)),
    ("Cos", _F, _un("cos"), lambda x, n: np.cos(x)),
    ("Tan", _F, _un("tan"), lambda x, n: np.tan(x)),
    ("Asin", _F, _un("asin"), lambda x, n: np.arcsin(x)),
    ("Acos", _F, _un("acos"), lambda x, n: np.arccos(x)),
    ("Atan", _F, _un("atan"), lambda x, n: np.arctan(x)),
    ("Sinh", _F, _un("sinh"), lambda x, n: np.sinh(x)),
    ("Cosh", _F, _un("cosh"), lambda x, n: np.cosh(x)),
    ("Tanh", _F, _un("tanh"), lambda x, n: np.tanh(x)),
    ("Asinh", _F, _un("asinh"), lambda x, n: np.arcsinh(x)),
    ("Acosh", _F, _un("acosh"), lambda x, n: np.arccosh(x)),
    ("Atanh", _F, _un("atanh"), lambda x, n: np.arctanh(x)),
    ("Erf", _F, _un("erf"), lambda x, n: _np_erf(x)),
    ("Floor", _F, _un("floor"), lambda x, n: np.floor(x)),
    ("Ceil", _F, _un("ceil"), lambda x, n: np.ceil(x)),
    ("Round", _F, _un("round"), lambda x, n: np.rint(x)),  # half to even
    ("IsNaN", _F, _un("isnan"), lambda x, n: np.isnan(x)),
    ("IsInf", _F, _isinf, _ref_isinf),
    ("Not", BOOL, _un("not"), lambda x, n: np.logical_not(x)),
    ("BitwiseNot", INTS, _un("bitnot"), lambda x, n: np.invert(x)),
    ("Relu", SIGNED, lambda x, n: maximum(x, 0), lambda x, n: np.maximum(x, np.zeros((), x.dtype))),
    ("LeakyRelu", _F, lambda x, n: select(x < 0, x * _fattr(n, "alpha", 0.01), x),
     lambda x, n: np.where(x < 0, x * _fattr(n, "alpha", 0.01), x)),
    ("Elu", _F, lambda x, n: select(x < 0, unary("expm1", x) * _fattr(n, "alpha", 1.0), x),
     lambda x, n: np.where(x < 0, np.expm1(x) * _fattr(n, "alpha", 1.0), x)),
    ("Selu", _F, _selu, _ref_selu),
    ("Celu", _F, _celu, _ref_celu),
    ("Gelu", _F, _gelu, _ref_gelu),
    ("Sigmoid", _F, _un("sigmoid"), lambda x, n: _np_sigmoid(x)),
    ("HardSigmoid", _F, lambda x, n: _hardsigmoid(x, _fattr(n, "alpha", 0.2), _fattr(n, "beta", 0.5)),
     lambda x, n: np.clip(x * _fattr(n, "alpha", 0.2) + _fattr(n, "beta", 0.5), 0, 1)),
    ("HardSwish", _F, lambda x, n: x * _hardsigmoid(x, _SIXTH, 0.5),
     lambda x, n: x * np.clip(x * _SIXTH + 0.5, 0, 1)),
    ("Softplus", _F, _un("softplus"), lambda x, n: _np_softplus(x)),
    ("Softsign", _F, lambda x, n: x / (unary("abs", x) + 1), lambda x, n: x / (1 + np.abs(x))),
    ("Mish", _F, lambda x, n: x * unary("tanh", unary("softplus", x)),
     lambda x, n: x * np.tanh(_np_softplus(x))),
    ("Swish", _F, lambda x, n: x * unary("sigmoid", x * _fattr(n, "alpha", 1.0)),
     lambda x, n: x * _np_sigmoid(x * _fattr(n, "alpha", 1.0))),
    ("ThresholdedRelu", _F, lambda x, n: select(x > _fattr(n, "alpha", 1.0), x, 0),
     lambda x, n: np.where(x > _fattr(n, "alpha", 1.0), x, 0)),
    ("Shrink", NUMERIC, _shrink, _ref_shrink),
])


# ------------------------------------------------------------------------------------------------
# Binary arithmetic, comparisons, logic, bitwise

def _trunc_div(a, b):
    if a.dtype.kind in "iu":
        q = np.floor_divide(a, b)
        fix = (np.remainder(a, b) != 0) & ((a < 0) != (b < 0))
        return (q + fix).astype(q.dtype)
    return a / b


def _mod(ctx, a, b):
    return binary("fmod" if ctx.attr("fmod", 0) else "pymod", a, b)


def _ref_mod(node, opset, a, b):
    return np.fmod(a, b) if node.attr("fmod", 0) else np.mod(a, b)


def _bin(fn: str):
    return lambda ctx, a, b: binary(fn, a, b)


_BINARY = [
    ("Add", NUMERIC, _bin("add"), lambda n, o, a, b: a + b),
    ("Sub", NUMERIC, _bin("sub"), lambda n, o, a, b: a - b),
    ("Mul", NUMERIC, _bin("mul"), lambda n, o, a, b: a * b),
    ("Div", NUMERIC, _bin("div"), lambda n, o, a, b: _trunc_div(a, b)),  # integers truncate (C)
    ("Mod", NUMERIC, _mod, _ref_mod),
    ("Equal", ANY, _bin("eq"), lambda n, o, a, b: a == b),
    ("Greater", NUMERIC, _bin("gt"), lambda n, o, a, b: a > b),
    ("GreaterOrEqual", NUMERIC, _bin("ge"), lambda n, o, a, b: a >= b),
    ("Less", NUMERIC, _bin("lt"), lambda n, o, a, b: a < b),
    ("LessOrEqual", NUMERIC, _bin("le"), lambda n, o, a, b: a <= b),
    ("And", BOOL, _bin("and"), lambda n, o, a, b: a & b),
    ("Or", BOOL, _bin("or"), lambda n, o, a, b: a | b),
    ("Xor", BOOL, _bin("xor"), lambda n, o, a, b: a ^ b),
    ("BitwiseAnd", INTS, _bin("bitand"), lambda n, o, a, b: a & b),
    ("BitwiseOr", INTS, _bin("bitor"), lambda n, o, a, b: a | b),
    ("BitwiseXor", INTS, _bin("bitxor"), lambda n, o, a, b: a ^ b),
]
for _op, _dts, _body, _ref in _BINARY:
    register_elementwise(_op, _dts, _body, _ref, which=[0, 1])


def _pow(ctx, a, b):
    """Pow: the result has the base's type; the exponent may be of any numeric type."""
    ta = a.dtype
    if ta.is_float:
        if isinstance(b, Const) and b.value == 2:  # x^2 exactly, as NumPy does
            return a * a
        return binary("pow", a, cast(b, ta))
    if b.dtype.is_float:  # integer base, float exponent: computed in double, truncated on store
        return binary("pow", cast(a, DType.float64), cast(b, DType.float64))
    if ta is b.dtype:
        return binary("pow", a, b)
    return binary("pow", cast(a, DType.int64), cast(b, DType.int64))


def _ref_pow(node, opset, a, b):
    if a.dtype.kind in "iu" and b.dtype.kind in "iu":
        # integer power by squaring wraps like the kernel; a negative exponent gives 1/a^n truncated
        aa, bb = a.astype(np.int64), b.astype(np.int64)
        neg = bb < 0
        r = np.power(aa, np.where(neg, 0, bb))
        inv = np.where(aa == 1, 1, np.where(aa == -1, np.where(bb & 1, -1, 1), 0))
        return np.where(neg, inv, r)
    if a.dtype.kind in "iu":
        return np.power(a.astype(np.float64), b.astype(np.float64))
    return np.power(a, b.astype(a.dtype))


register_elementwise("Pow", NUMERIC, _pow, _ref_pow, which=[0, 1])


def _bitshift(ctx, a, b):
    t = a.dtype
    bits = 8 * t.itemsize
    in_range = binary("lt", b, bits)
    if t.is_signed:
        in_range = binary("and", binary("ge", b, 0), in_range)
    if _sattr(ctx.node, "direction", "") == "LEFT":
        if t.is_signed:  # shift the two's complement bits (a signed left shift is undefined in C)
            u = DType[f"uint{bits}"]
            shifted = cast(binary("shl", cast(a, u), cast(b, u)), t)
        else:
            shifted = binary("shl", a, b)
        fill = const(0, t)
    elif _sattr(ctx.node, "direction", "") == "RIGHT":
        shifted = binary("shr", a, b)
        fill = select(a < 0, -1, const(0, t)) if t.is_signed else const(0, t)
    else:
        raise ctx.unsupported(f"direction {ctx.attr('direction')!r}")
    return select(in_range, shifted, fill)


def _ref_bitshift(node, opset, a, b):
    a, b = np.broadcast_arrays(a, b)
    bits = 8 * a.dtype.itemsize
    ok = (b >= 0) & (b < bits)
    s = np.where(ok, b, 0).astype(np.uint64)
    u = a.view(np.dtype(f"u{a.dtype.itemsize}")) if a.dtype.kind == "i" else a
    if _sattr(node, "direction", "") == "LEFT":
        r = np.left_shift(u.astype(np.uint64), s).astype(u.dtype).view(a.dtype)
        return np.where(ok, r, 0).astype(a.dtype)
    r = np.right_shift(a, s.astype(a.dtype))
    fill = np.where(a < 0, -1, 0) if a.dtype.kind == "i" else 0
    return np.where(ok, r, fill).astype(a.dtype)


register_elementwise("BitShift", INTS, _bitshift, _ref_bitshift, which=[0, 1])

register_elementwise("Where", BOOL, lambda ctx, c, x, y: select(c, x, y),
                     lambda n, o, c, x, y: np.where(c, x, y), which=[0, 1, 2], like=1)

register_elementwise("PRelu", NUMERIC, lambda ctx, x, s: select(x < 0, x * s, x),
                     lambda n, o, x, s: np.where(x < 0, x * s, x), which=[0, 1])


# ------------------------------------------------------------------------------------------------
# Variadic (broadcast) Sum, Mean, Max, Min; Clip

def _variadic(op: str, combine, finish=None):
    def body(ctx, *xs):
        r = functools.reduce(combine, xs)
        return finish(r, len(xs)) if finish else r

    def ref(node, opset, *xs):
        r = functools.reduce(lambda a, b: np.asarray(combine_np(a, b)), xs)
        return r / len(xs) if finish else r

    combine_np = {"Sum": np.add, "Mean": np.add, "Max": np.maximum, "Min": np.minimum}[op]
    register_elementwise(op, NUMERIC, body, ref)


_variadic("Sum", lambda a, b: a + b)
_variadic("Mean", lambda a, b: a + b, lambda s, n: binary("div", s, n))
_variadic("Max", maximum)
_variadic("Min", minimum)


def _clip_bounds(node, opset, dtype):
    """Opset < 11 bounds are attributes (float32 limits by default)."""
    return (_fattr(node, "min", -_FLT_MAX), _fattr(node, "max", _FLT_MAX)) if opset < 11 else None


@register("Clip", reference=lambda node, inputs, opset: _ref_clip(node, inputs, opset))
def lower_clip(ctx: LowerCtx) -> None:
    """min(max(x, lo), hi): with lo > hi every element becomes hi, as the spec says."""
    x = ctx.input(0)
    if x.dtype not in NUMERIC:
        raise ctx.unsupported(f"input type {x.dtype.name}")
    attrs = _clip_bounds(ctx.node, ctx.opset, x.dtype)

    def body(v, lo=None, hi=None):
        if attrs is not None:
            lo, hi = const(attrs[0], x.dtype), const(attrs[1], x.dtype)
        if lo is not None:
            v = maximum(v, lo)
        if hi is not None:
            v = minimum(v, hi)
        return v

    emit_elementwise(ctx, body, which=[0] if attrs is not None else [0, 1, 2])


def _ref_clip(node, inputs, opset):
    x = inputs[0]
    attrs = _clip_bounds(node, opset, x.dtype)
    lo, hi = attrs if attrs is not None else ((list(inputs[1:]) + [None, None])[:2])
    r = _compute(x)
    with np.errstate(all="ignore"):
        if lo is not None:
            r = np.maximum(r, np.asarray(_compute(lo), r.dtype))
        if hi is not None:
            r = np.minimum(r, np.asarray(_compute(hi), r.dtype))
    return [np.asarray(r).astype(x.dtype)]


# ------------------------------------------------------------------------------------------------
# Cast, CastLike, Dropout

def _ref_cast_to(x, to: DType):
    # the kernels convert to a half type from float32 (half, bfloat16 and float are exact in float32)
    src = np.asarray(x)
    with np.errstate(all="ignore"):
        if to.np in _HALF_NP:
            return src.astype(np.float32).astype(to.np)
        return _compute(src).astype(to.np)


def _lower_cast_to(ctx: LowerCtx, to: DType) -> None:
    if ctx.input(0).dtype not in ANY:
        raise ctx.unsupported(f"input type {ctx.input(0).dtype.name}")
    emit_elementwise(ctx, lambda x: cast(x, to), which=[0])


@register("Cast", reference=lambda node, inputs, opset: [
    _ref_cast_to(inputs[0], dtype_of_code(node.attr("to"), node))])
def lower_cast(ctx: LowerCtx) -> None:
    """Cast: float -> int truncates, -> bool is != 0; half types go through float32."""
    _lower_cast_to(ctx, dtype_of_code(ctx.attr("to"), ctx.node))


@register("CastLike", reference=lambda node, inputs, opset: [
    _ref_cast_to(inputs[0], DType.from_numpy(np.asarray(inputs[1]).dtype))])
def lower_castlike(ctx: LowerCtx) -> None:
    """CastLike: Cast to the element type of input 1 (only its type is read)."""
    _lower_cast_to(ctx, ctx.input(1).dtype)


def _dropout_check(node, opset, ratio, training, unsupported) -> None:
    """Inference only: training_mode must be a constant false (or the ratio a constant 0)."""
    if opset < 12 or not node.has_input(2):
        return
    if training is None:
        raise NeedsConstant(node.op, node=node.name, detail="training_mode must be a constant")
    if bool(np.asarray(training).reshape(-1)[0]):
        r = 0.5 if not node.has_input(1) else ratio
        if r is None or float(np.asarray(r).reshape(-1)[0]) != 0.0:
            raise unsupported("training_mode=true drops at random; only inference is supported")


def _mask_wanted(node) -> bool:
    return node.has_output(1)


def _ref_dropout(node, inputs, opset):
    x = np.asarray(inputs[0])
    _dropout_check(node, opset, inputs[1] if len(inputs) > 1 else None,
                   inputs[2] if len(inputs) > 2 else None,
                   lambda why: UnsupportedOp("Dropout", node=node.name, detail=why))
    out = [x.copy()]
    if _mask_wanted(node):
        out.append(np.ones(x.shape, np.bool_ if opset >= 10 else x.dtype))
    return out


@register("Dropout", reference=_ref_dropout)
def lower_dropout(ctx: LowerCtx) -> None:
    """Dropout at inference: a copy, and a mask of all true."""
    _dropout_check(ctx.node, ctx.opset, ctx.const(1), ctx.const(2), ctx.unsupported)
    emit_elementwise(ctx, lambda x: x, which=[0])
    if _mask_wanted(ctx.node) and len(ctx.out_types) > 1:
        emit_elementwise(ctx, lambda: const(1, ctx.out_types[1].dtype), which=[], out=1)
