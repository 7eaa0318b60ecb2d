"""Recurrent ops: LSTM, GRU, RNN.

Lowering: the input projection X·W^T (+ biases) for every time step is one parallel reduction
(a TensorExpr into a temporary); the recurrence is one hand-written kernel that loops over the time
steps on the device (recurrence_kernels.py: its two forms, and what the first GPU run measured)."""
from __future__ import annotations

import numpy as np

from ..errors import ShapeError
from ..ir.dtypes import DType
from ..ir.graph import TensorType
from ..ir.texpr import Reduce, TensorExpr, Var, load, out_vars, reduce_vars, select
from .recurrence_kernels import Activation, RnnSpec, recurrence_kernel
from .registry import LowerCtx, register

_DEFAULT_ACTS = {"LSTM": ("Sigmoid", "Tanh", "Tanh"), "GRU": ("Sigmoid", "Tanh"), "RNN": ("Tanh",)}
# lower-case name -> (takes alpha, takes beta, default alpha, default beta)
_ACTS = {
    "sigmoid": (False, False, 0.0, 0.0), "tanh": (False, False, 0.0, 0.0),
    "relu": (False, False, 0.0, 0.0), "softsign": (False, False, 0.0, 0.0),
    "softplus": (False, False, 0.0, 0.0), "hardsigmoid": (True, True, 0.2, 0.5),
    "leakyrelu": (True, False, 0.01, 0.0), "thresholdedrelu": (True, False, 1.0, 0.0),
    "scaledtanh": (True, True, 1.0, 1.0), "affine": (True, True, 1.0, 0.0),
    "elu": (True, False, 1.0, 0.0),
}

def _text(v) -> str:
    return v.decode() if isinstance(v, bytes) else str(v)


def rnn_spec(node, kind: str, w_shape, r_shape) -> RnnSpec:
    """Parses and checks a recurrent node's attributes (activations consumed in ONNX order)."""
    direction = _text(node.attr("direction", "forward"))
    if direction not in ("forward", "reverse", "bidirectional"):
        raise ValueError(f"{kind}: unknown direction {direction!r}")
    dirs = 2 if direction == "bidirectional" else 1
    if w_shape[0] != dirs:
        raise ValueError(f"{kind}: direction={direction} needs {dirs} weight directions, got {w_shape[0]}")
    hidden = int(node.attr("hidden_size", r_shape[-1]))
    per_dir = len(_DEFAULT_ACTS[kind])
    names = [_text(a) for a in (node.attr("activations") or ())] or list(_DEFAULT_ACTS[kind]) * dirs
    if len(names) == per_dir and dirs == 2:
        names = names * 2
    if len(names) != per_dir * dirs:
        raise ValueError(f"{kind}: {len(names)} activations given, {per_dir * dirs} expected")
    alphas = list(node.attr("activation_alpha") or ())
    betas = list(node.attr("activation_beta") or ())
    acts = []
    for name in names:
        key = name.lower()
        if key not in _ACTS:
            raise ValueError(f"{kind}: unknown activation {name}")
        takes_a, takes_b, da, db = _ACTS[key]
        a = float(alphas.pop(0)) if takes_a and alphas else da
        b = float(betas.pop(0)) if takes_b and betas else db
        acts.append((key, a, b))
    per = tuple(tuple(acts[d * per_dir:(d + 1) * per_dir]) for d in range(dirs))
    clip = node.attr("clip")
    return RnnSpec(kind=kind, hidden=hidden, dirs=dirs, direction=direction,
                   layout=int(node.attr("layout", 0)), acts=per,
                   clip=None if clip is None else float(clip),
                   input_forget=bool(node.attr("input_forget", 0)),
                   linear_before_reset=bool(node.attr("linear_before_reset", 0)))


# --- reference ------------------------------------------------------------------------------

def _np_act(act: Activation):
    name, a, b = act
    return {
        "sigmoid": lambda x: 1 / (1 + np.exp(-x)),
        "tanh": np.tanh,
        "relu": lambda x: np.maximum(x, 0),
        "softsign": lambda x: x / (1 + np.abs(x)),
        "softplus": lambda x: np.log1p(np.exp(x)),
        "hardsigmoid": lambda x: np.clip(a * x + b, 0, 1),
        "leakyrelu": lambda x: np.where(x >= 0, x, a * x),
        "thresholdedrelu": lambda x: np.where(x > a, x, 0),
        "scaledtanh": lambda x: a * np.tanh(b * x),
        "affine": lambda x: a * x + b,
        "elu": lambda x: np.where(x >= 0, x, a * (np.exp(np.minimum(x, 0)) - 1)),
    }[name]


def _reference(kind: str):
    def ref(node, inputs, opset):
        inputs = list(inputs) + [None] * (8 - len(inputs))
        X, W, R, B, lens, h0, c0, P = inputs[:8]
        sp = rnn_spec(node, kind, W.shape, R.shape)
        ct = np.float64 if X.dtype == np.float64 else np.float32
        if sp.layout:
            X = X.swapaxes(0, 1)
            h0 = None if h0 is None else h0.swapaxes(0, 1)
            c0 = None if c0 is None else c0.swapaxes(0, 1)
        X = X.astype(ct)
        seq, batch = X.shape[:2]
        H, G = sp.hidden, sp.gates
        lens = np.full(batch, seq, np.int64) if lens is None else np.clip(lens.astype(np.int64), 0, seq)
        Y = np.zeros((seq, sp.dirs, batch, H), ct)
        Yh = np.zeros((sp.dirs, batch, H), ct)
        Yc = np.zeros((sp.dirs, batch, H), ct)
        rows = np.arange(batch)
        for d in range(sp.dirs):
            acts = [_np_act(a) for a in sp.acts[d]]
            clip = (lambda v: np.clip(v, -sp.clip, sp.clip)) if sp.clip is not None else (lambda v: v)
            Wd, Rd = W[d].astype(ct), R[d].astype(ct)
            bias = np.zeros(2 * G * H, ct) if B is None else B[d].astype(ct)
            wb, rb = bias[:G * H], bias[G * H:]
            h = np.zeros((batch, H), ct) if h0 is None else h0[d].astype(ct)
            c = np.zeros((batch, H), ct) if c0 is None else c0[d].astype(ct)
            peep = np.zeros(3 * H, ct) if P is None else P[d].astype(ct)
            for s in range(seq):
                active = s < lens
                if not active.any():
                    break
                t = np.where(active, (lens - 1 - s) if sp.reverse(d) else s, 0)
                x = X[t, rows]
                if kind == "LSTM":
                    f, g, hf = acts
                    z = x @ Wd.T + h @ Rd.T + wb + rb
                    pi, po, pf = peep[:H], peep[H:2 * H], peep[2 * H:]
                    i = f(clip(z[:, :H] + pi * c))
                    fg = 1 - i if sp.input_forget else f(clip(z[:, 2 * H:3 * H] + pf * c))
                    cn = fg * c + i * g(clip(z[:, 3 * H:]))
                    o = f(clip(z[:, H:2 * H] + po * cn))
                    hn = o * hf(cn)
                elif kind == "GRU":
                    f, g = acts
                    xw = x @ Wd.T + wb
                    rw = Rd[2 * H:]
                    zr = xw[:, :2 * H] + h @ Rd[:2 * H].T + rb[:2 * H]
                    zg, rg = f(clip(zr[:, :H])), f(clip(zr[:, H:]))
                    if sp.linear_before_reset:
                        hh = g(clip(xw[:, 2 * H:] + rg * (h @ rw.T + rb[2 * H:])))
                    else:
                        hh = g(clip(xw[:, 2 * H:] + (rg * h) @ rw.T + rb[2 * H:]))
                    hn, cn = (1 - zg) * hh + zg * h, c
                else:
                    hn, cn = acts[0](clip(x @ Wd.T + h @ Rd.T + wb + rb)), c
                m = active[:, None]
                h, c = np.where(m, hn, h), np.where(m, cn, c)
                Y[t[active], d, rows[active]] = hn[active]
            Yh[d], Yc[d] = h, c
        if sp.layout:
            Y, Yh, Yc = Y.transpose(2, 0, 1, 3), Yh.transpose(1, 0, 2), Yc.transpose(1, 0, 2)
        dt = inputs[0].dtype
        return [a.astype(dt) for a in (Y, Yh, Yc)[:len(node.outputs)]]
    return ref


# --- lowering -------------------------------------------------------------------------------

def _check_shapes(ctx: LowerCtx, kind: str, sp: RnnSpec, seq: int, batch: int, n_in: int) -> None:
    """Every input and output of the node against what its hidden size, directions and layout make
    them (ONNX's shape inference takes the outputs from hidden_size and checks no weight): a
    ShapeError naming the first that differs."""
    H, G, dirs = sp.hidden, sp.gates, sp.dirs
    state = (dirs, batch, H) if sp.layout == 0 else (batch, dirs, H)
    want = {1: ("W", (dirs, G * H, n_in)), 2: ("R", (dirs, G * H, H)), 3: ("B", (dirs, 2 * G * H)),
            4: ("sequence_lens", (batch,)), 5: ("initial_h", state), 6: ("initial_c", state),
            7: ("P", (dirs, 3 * H))}
    for i, (name, shape) in want.items():
        if i < len(ctx.node.inputs) and ctx.has_input(i) and tuple(ctx.input(i).shape) != shape:
            raise ShapeError(f"{kind} with hidden_size {H}, {dirs} direction(s), batch {batch}, input size "
                             f"{n_in}: {name} must be {list(shape)}, got {list(ctx.input(i).shape)}",
                             node=ctx.node.name)
    outs = {0: ("Y", (seq, dirs, batch, H) if sp.layout == 0 else (batch, seq, dirs, H)), 1: ("Y_h", state),
            2: ("Y_c", state)}
    for i, (name, shape) in outs.items():
        if ctx.node.has_output(i) and tuple(ctx.out_types[i].shape) != shape:
            raise ShapeError(f"{kind}: output {name} is declared {list(ctx.out_types[i].shape)}, "
                             f"its inputs make it {list(shape)}", node=ctx.node.name)


def _lower(ctx: LowerCtx, kind: str) -> None:
    X, W, R = ctx.input(0), ctx.input(1), ctx.input(2)
    if not X.dtype.is_float:
        raise ctx.unsupported(f"{kind} on {X.dtype.name}")
    try:
        sp = rnn_spec(ctx.node, kind, W.shape, R.shape)
    except ValueError as e:
        raise ctx.unsupported(str(e)) from None
    seq, batch = (X.shape[0], X.shape[1]) if sp.layout == 0 else (X.shape[1], X.shape[0])
    n_in, H, G = X.shape[2], sp.hidden, sp.gates
    _check_shapes(ctx, kind, sp, seq, batch, n_in)
    acc_dt = DType.float64 if X.dtype is DType.float64 else DType.float32

    # 1) xw[d, t, b, g] = X[t, b, :] . W[d, g, :] + Wb[d, g] (+ Rb[d, g] where it is additive)
    xw_t = TensorType(acc_dt, (sp.dirs, seq, batch, G * H))
    xw = ctx.temp(xw_t, "xw")
    d, t, b, g = out_vars(4)
    (k,) = reduce_vars(1)
    body = load(0, X, (t, b, k) if sp.layout == 0 else (b, t, k)) * load(1, W, (d, g, k))
    ins, names = [X, W], [ctx.in_name(0), ctx.in_name(1)]
    epi = Var("acc", acc_dt)
    if ctx.has_input(3):
        Bt = ctx.input(3)
        rb = load(2, Bt, (d, g + G * H))
        if kind == "GRU" and sp.linear_before_reset:   # Rbh is scaled by the reset gate
            rb = select(g < 2 * H, rb, 0.0)
        epi = epi + load(2, Bt, (d, g)) + rb
        ins.append(Bt)
        names.append(ctx.in_name(3))
    ctx.emit(TensorExpr(f"{kind.lower()}_xw", tuple(ins), xw_t, body,
                        Reduce("sum", (("r0", n_in),)), epi), names, xw)

    # 2) the recurrence, all time steps in one launch
    ctx.emit_kernel(recurrence_kernel(ctx, sp, X.dtype, acc_dt, xw, seq, batch))


@register("LSTM", reference=_reference("LSTM"))
def lower_lstm(ctx: LowerCtx) -> None:
    """LSTM: input projection kernel, then one recurrence kernel over all steps."""
    _lower(ctx, "LSTM")


@register("GRU", reference=_reference("GRU"))
def lower_gru(ctx: LowerCtx) -> None:
    """GRU: input projection kernel, then one recurrence kernel over all steps."""
    _lower(ctx, "GRU")


@register("RNN", reference=_reference("RNN"))
def lower_rnn(ctx: LowerCtx) -> None:
    """RNN: input projection kernel, then one recurrence kernel over all steps."""
    _lower(ctx, "RNN")
