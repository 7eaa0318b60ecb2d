"""Recurrent ops: LSTM, GRU, RNN.

Lowering: the input projection X·W^T (+ biases) for every time step is one parallel reduction
(a TensorExpr into a temporary); the recurrence is one hand-written kernel that loops over the time
steps on the device, in one of two forms (recurrence_form chooses): for a small R, one block per
(batch element, direction) with __syncthreads between steps; else one cooperative launch whose
blocks split the hidden units, a grid barrier ending each step. The comments above each say why,
and what the first GPU run measured."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..codegen.cuda import c_const
from ..codegen.block_function import BLOCK_X, BLOCK_Y, GRID_X, finish_kernel
from ..ir.kernel import Kernel, KernelParam
from ..ir.dtypes import DType
from ..ir.graph import TensorType
from ..ir.texpr import Reduce, TensorExpr, Var, load, out_vars, reduce_vars, select
from .registry import LowerCtx, register

_GATES = {"LSTM": 4, "GRU": 3, "RNN": 1}
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
_SEQ_LENS, _INIT_H, _INIT_C, _PEEP = 4, 5, 6, 7

Activation = tuple[str, float, float]   # (lower-case name, alpha, beta)


def _text(v) -> str:
    return v.decode() if isinstance(v, bytes) else str(v)


@dataclass(frozen=True)
class RnnSpec:
    """The static description of one LSTM/GRU/RNN node: sizes, directions and per-step math."""

    kind: str
    hidden: int
    dirs: int
    direction: str
    layout: int
    acts: tuple[tuple[Activation, ...], ...]   # per direction: (f,) RNN, (f, g) GRU, (f, g, h) LSTM
    clip: float | None
    input_forget: bool
    linear_before_reset: bool

    @property
    def gates(self) -> int:
        return _GATES[self.kind]

    def reverse(self, d: int) -> bool:
        """Whether direction d walks the sequence backwards."""
        return self.direction == "reverse" or (self.direction == "bidirectional" and d == 1)


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

def _c_act(act: Activation, x: str, ct: DType) -> str:
    name, a, b = act
    z, one, al, be = c_const(0.0, ct), c_const(1.0, ct), c_const(a, ct), c_const(b, ct)
    return {
        "sigmoid": f"by_sigmoid({x})",
        "tanh": f"by_tanh({x})",
        "relu": f"({x} > {z} ? {x} : {z})",
        "softsign": f"({x} / ({one} + by_abs({x})))",
        "softplus": f"by_log1p(by_exp({x}))",
        "hardsigmoid": f"by_max({z}, by_min({one}, {al} * {x} + {be}))",
        "leakyrelu": f"({x} >= {z} ? {x} : {al} * {x})",
        "thresholdedrelu": f"({x} > {al} ? {x} : {z})",
        "scaledtanh": f"({al} * by_tanh({be} * {x}))",
        "affine": f"({al} * {x} + {be})",
        "elu": f"({x} >= {z} ? {x} : {al} * (by_exp({x}) - {one}))",
    }[name]


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
    ctx.emit_kernel(_recurrence_kernel(ctx, sp, X.dtype, acc_dt, xw, seq, batch))


# One block per (batch element, direction) streams all of R every step: the first GPU run
# (bench/results/e2e-20261124T122237Z.json, H100) measured this form at 40.9 ms for a 2-layer LSTM of
# hidden 768, 128 steps each: 160 us a step for R's 4.7 MB, 29.5 GB/s through one SM. It still wins
# where R is small enough that one SM streams it faster than a grid barrier costs (GRID_SYNC_US).
ONE_SM_ROWS_GBPS = 29.5


def recurrence_form(sp: RnnSpec, dt: DType) -> str:
    """'block' where one SM reads R in less time than a grid barrier takes, else 'grid'."""
    from ..roller.cost_model import GRID_SYNC_US
    rows_us = sp.gates * sp.hidden * sp.hidden * dt.itemsize / (ONE_SM_ROWS_GBPS * 1e3)
    return "block" if rows_us < GRID_SYNC_US else "grid"


def _recurrence_kernel(ctx: LowerCtx, sp: RnnSpec, dt: DType, acc_dt: DType, xw: str,
                       seq: int, batch: int) -> Kernel:
    form = recurrence_form(sp, dt)
    build = _block_recurrence_kernel if form == "block" else _grid_recurrence_kernel
    return build(ctx, sp, dt, acc_dt, xw, seq, batch)


def _block_recurrence_kernel(ctx: LowerCtx, sp: RnnSpec, dt: DType, acc_dt: DType, xw: str,
                       seq: int, batch: int) -> Kernel:
    H, G, D = sp.hidden, sp.gates, sp.dirs
    GH = G * H
    T, CT = dt.ctype, acc_dt.ctype
    lit = lambda v: c_const(v, acc_dt)  # noqa: E731
    nt = min(512, max(64, -(-GH // 32) * 32))
    nwarps = nt // 32
    lstm, gru = sp.kind == "LSTM", sp.kind == "GRU"
    gru_split = gru and not sp.linear_before_reset
    params: list[KernelParam] = [KernelParam(CT, xw, False), KernelParam(T, ctx.in_name(2), False)]
    decl = [f"const {CT}* __restrict__ xw", f"const {T}* __restrict__ R"]

    def add_in(i: int, cname: str) -> bool:
        if not ctx.has_input(i):
            return False
        ty = ctx.input(i).dtype.ctype
        params.append(KernelParam(ty, ctx.in_name(i), False))
        decl.append(f"const {ty}* __restrict__ {cname}")
        return True

    def add_out(i: int, cname: str) -> bool:
        if not ctx.node.has_output(i):
            return False
        params.append(KernelParam(T, ctx.out_name(i), True))
        decl.append(f"{T}* __restrict__ {cname}")
        return True

    has_b = add_in(3, "B") if gru and sp.linear_before_reset else False
    has_lens = add_in(_SEQ_LENS, "seq_lens")
    has_h0 = add_in(_INIT_H, "init_h")
    has_c0 = add_in(_INIT_C, "init_c") if lstm else False
    has_p = add_in(_PEEP, "P") if lstm else False
    has_y = add_out(0, "y")
    has_yh = add_out(1, "y_h")
    has_yc = add_out(2, "y_c") if lstm else False

    def act(k: int, x: str) -> str:
        exprs = [_c_act(sp.acts[d][k], x, acc_dt) for d in range(D)]
        return exprs[0] if D == 1 or exprs[0] == exprs[1] else f"(d == 0 ? {exprs[0]} : {exprs[1]})"

    def clip(x: str) -> str:
        return x if sp.clip is None else f"by_min(by_max({x}, {lit(-sp.clip)}), {lit(sp.clip)})"

    # state index of (d, b, j): [dirs, batch, H] for layout 0, [batch, dirs, H] for layout 1
    st = "((long long)d * BATCH + b) * HID + j" if sp.layout == 0 else "((long long)b * DIRS + d) * HID + j"
    yi = ("(((long long)t * DIRS + d) * BATCH + b) * HID + j" if sp.layout == 0
          else "(((long long)b * SEQ + t) * DIRS + d) * HID + j")

    def matvec(lo: int, hi: int, src: str) -> list[str]:
        return [
            f"    for (int row = {lo} + warp; row < {hi}; row += {nwarps}) {{",
            f"      const {T}* rr = Rd + (long long)row * HID;",
            f"      {CT} acc = {lit(0.0)};",
            f"      for (int k = lane; k < HID; k += 32) acc += ({CT})rr[k] * {src}[k];",
            "      for (int off = 16; off > 0; off >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, off);",
            "      if (lane == 0) gates[row] = acc;",
            "    }",
            "    __syncthreads();",
        ]

    L = [f"  constexpr int SEQ = {seq}, BATCH = {batch}, DIRS = {D}, HID = {H}, GH = {GH};",
         "  BY_SHARED_BUFFER(smem);",
         f"  {CT}* h = ({CT}*)smem;",
         f"  {CT}* gates = h + HID;"]
    n_smem = H + GH
    if lstm:
        L.append(f"  {CT}* c = gates + GH;")
        n_smem += H
    if gru_split:
        L.append(f"  {CT}* rh = gates + GH;")
        n_smem += H
    L += [f"  const int b = {BLOCK_X};", f"  const int d = {BLOCK_Y};",
          "  const int tid = threadIdx.x;", "  const int lane = tid & 31;", "  const int warp = tid >> 5;",
          f"  const {T}* Rd = R + (long long)d * GH * HID;"]
    L.append("  const int len = by_max(0, by_min(SEQ, (int)seq_lens[b]));" if has_lens else "  const int len = SEQ;")
    if sp.direction == "bidirectional":
        L.append("  const bool rev = d == 1;")
    else:
        L.append(f"  const bool rev = {'true' if sp.direction == 'reverse' else 'false'};")
    L.append(f"  for (int j = tid; j < HID; j += {nt}) {{")
    L.append(f"    h[j] = {f'({CT})init_h[{st}]' if has_h0 else lit(0.0)};")
    if lstm:
        L.append(f"    c[j] = {f'({CT})init_c[{st}]' if has_c0 else lit(0.0)};")
    L.append("  }")
    L.append("  __syncthreads();")
    L.append("  for (int s = 0; s < len; ++s) {")
    L.append("    const int t = rev ? len - 1 - s : s;")
    L.append(f"    const {CT}* x = xw + (((long long)d * SEQ + t) * BATCH + b) * GH;")
    if gru_split:
        L += matvec(0, 2 * H, "h")
        L += [f"    for (int j = tid; j < HID; j += {nt}) {{",
              f"      const {CT} rp = {clip('(x[HID + j] + gates[HID + j])')};",
              f"      rh[j] = {act(0, 'rp')} * h[j];",
              "    }",
              "    __syncthreads();"]
        L += matvec(2 * H, 3 * H, "rh")
    else:
        L += matvec(0, GH, "h")
    L.append(f"    for (int j = tid; j < HID; j += {nt}) {{")
    if lstm:
        def pre(k: int, peep: int, cv: str) -> str:
            p = f" + ({CT})P[(long long)d * 3 * HID + {peep} * HID + j] * {cv}" if has_p else ""
            off = f"{k} * HID + " if k else ""
            return clip(f"(x[{off}j] + gates[{off}j]{p})")
        L += [f"      const {CT} cp = c[j];",
              f"      const {CT} ip = {pre(0, 0, 'cp')};",
              f"      const {CT} ig = {act(0, 'ip')};"]
        if sp.input_forget:
            L.append(f"      const {CT} fg = {lit(1.0)} - ig;")
        else:
            L += [f"      const {CT} fp = {pre(2, 2, 'cp')};",
                  f"      const {CT} fg = {act(0, 'fp')};"]
        gp = clip("(x[3 * HID + j] + gates[3 * HID + j])")
        L += [f"      const {CT} gp = {gp};",
              f"      const {CT} cn = fg * cp + ig * {act(1, 'gp')};",
              f"      const {CT} op = {pre(1, 1, 'cn')};",
              f"      const {CT} og = {act(0, 'op')};",
              f"      const {CT} hn = og * {act(2, 'cn')};",
              "      c[j] = cn;"]
    elif gru:
        L += [f"      const {CT} zp = {clip('(x[j] + gates[j])')};",
              f"      const {CT} zg = {act(0, 'zp')};"]
        if sp.linear_before_reset:
            rbh = f"({CT})B[(long long)d * 2 * GH + GH + 2 * HID + j]" if has_b else lit(0.0)
            rp = clip("(x[HID + j] + gates[HID + j])")
            hp = clip(f"(x[2 * HID + j] + rg * (gates[2 * HID + j] + {rbh}))")
            L += [f"      const {CT} rp = {rp};",
                  f"      const {CT} rg = {act(0, 'rp')};",
                  f"      const {CT} hp = {hp};"]
        else:
            L.append(f"      const {CT} hp = {clip('(x[2 * HID + j] + gates[2 * HID + j])')};")
        L.append(f"      const {CT} hn = ({lit(1.0)} - zg) * {act(1, 'hp')} + zg * h[j];")
    else:
        L += [f"      const {CT} hp = {clip('(x[j] + gates[j])')};",
              f"      const {CT} hn = {act(0, 'hp')};"]
    L.append("      h[j] = hn;")
    if has_y:
        L.append(f"      y[{yi}] = ({T})(hn);")
    L += ["    }", "    __syncthreads();", "  }"]
    if has_y and has_lens:   # steps past a sequence's end are zero
        L += ["  for (int t = len; t < SEQ; ++t)",
              f"    for (int j = tid; j < HID; j += {nt}) y[{yi}] = ({T})({lit(0.0)});"]
    if has_yh or has_yc:
        L.append(f"  for (int j = tid; j < HID; j += {nt}) {{")
        if has_yh:
            L.append(f"    y_h[{st}] = ({T})(h[j]);")
        if has_yc:
            L.append(f"    y_c[{st}] = ({T})(c[j]);")
        L.append("  }")
    entry, source = finish_kernel(f"{sp.kind.lower()}_recurrence", decl, L, launch_bounds=(nt,))
    return Kernel(entry=entry, source=source, params=tuple(params), grid=(batch, D, 1), block=(nt, 1, 1),
                  shared_bytes=n_smem * acc_dt.itemsize,
                  config=(("block_threads", nt), ("schedule", "device_loop_recurrence"), ("form", "block"),
                          ("flops", 2 * D * batch * seq * GH * H), ("sequential_steps", seq),
                          ("grid_syncs_per_step", 0), ("rows_bytes_per_step", GH * H * dt.itemsize),
                          ("rows_gbps", ONE_SM_ROWS_GBPS)))



# The recurrence is one cooperative launch spread over the GPU: blocks (x) by directions (y). Each
# block owns slices of SLICE hidden units with all G gate rows of them, so a unit's cell update needs
# no other block's gates; the blocks take the slices grid-stride. Every step, a block reads the whole
# previous h from a ping-pong pair in a plan temporary, computes its rows of R·h, updates its units'
# c and h there, and a grid barrier ends the step (GRU's default form, the reset gate applied to h
# before its mat-vec, takes a second barrier). The first GPU run (2026-11-24) measured the old form,
# one block per (batch element, direction), at 40.9 ms for a 2-layer LSTM (hidden 768, 128 steps)
# where PyTorch took 6.1 ms: one SM walked all of R every step. RECURRENCE_BLOCKS is small enough
# that every preset holds the grid at once (256 threads and a few KB of shared memory per block: 4
# blocks per SM on a 40-SM T4), which a cooperative launch needs.
RECURRENCE_THREADS = 256
RECURRENCE_BLOCKS = 128
MIN_SLICE = 4


def recurrence_grid(hidden: int, dirs: int) -> tuple[int, int, int]:
    """(slice width, slices per direction, blocks per direction) of the recurrence launch."""
    slice_w = max(MIN_SLICE, -(-hidden * dirs // RECURRENCE_BLOCKS))
    slices = -(-hidden // slice_w)
    return slice_w, slices, min(slices, max(1, RECURRENCE_BLOCKS // dirs))


def _grid_recurrence_kernel(ctx: LowerCtx, sp: RnnSpec, dt: DType, acc_dt: DType, xw: str,
                       seq: int, batch: int) -> Kernel:
    H, G, D = sp.hidden, sp.gates, sp.dirs
    GH = G * H
    T, CT = dt.ctype, acc_dt.ctype
    lit = lambda v: c_const(v, acc_dt)  # noqa: E731
    nt = RECURRENCE_THREADS
    nwarps = nt // 32
    slice_w, slices, gx = recurrence_grid(H, D)
    lstm, gru = sp.kind == "LSTM", sp.kind == "GRU"
    gru_split = gru and not sp.linear_before_reset
    # state slots, each [dirs, batch, H] in the accumulator type: h ping-pong, then c (LSTM) or the
    # reset h and the update gate (GRU's split form)
    slot = {"c": 2} if lstm else {"rh": 2, "z": 3} if gru_split else {}
    state_t = TensorType(acc_dt, (2 + len(slot), D, batch, H))
    state = ctx.temp(state_t, f"{sp.kind.lower()}_state")
    params: list[KernelParam] = [KernelParam(CT, xw, False), KernelParam(T, ctx.in_name(2), False)]
    decl = [f"const {CT}* __restrict__ xw", f"const {T}* __restrict__ R"]

    def add_in(i: int, cname: str) -> bool:
        if not ctx.has_input(i):
            return False
        ty = ctx.input(i).dtype.ctype
        params.append(KernelParam(ty, ctx.in_name(i), False))
        decl.append(f"const {ty}* __restrict__ {cname}")
        return True

    def add_out(i: int, cname: str) -> bool:
        if not ctx.node.has_output(i):
            return False
        params.append(KernelParam(T, ctx.out_name(i), True))
        decl.append(f"{T}* __restrict__ {cname}")
        return True

    has_b = add_in(3, "B") if gru and sp.linear_before_reset else False
    has_lens = add_in(_SEQ_LENS, "seq_lens")
    has_h0 = add_in(_INIT_H, "init_h")
    has_c0 = add_in(_INIT_C, "init_c") if lstm else False
    has_p = add_in(_PEEP, "P") if lstm else False
    has_y = add_out(0, "y")
    has_yh = add_out(1, "y_h")
    has_yc = add_out(2, "y_c") if lstm else False
    params.append(KernelParam(CT, state, True))
    decl.append(f"{CT}* __restrict__ st")

    def act(k: int, x: str) -> str:
        exprs = [_c_act(sp.acts[d][k], x, acc_dt) for d in range(D)]
        return exprs[0] if D == 1 or exprs[0] == exprs[1] else f"(d == 0 ? {exprs[0]} : {exprs[1]})"

    def clip(x: str) -> str:
        return x if sp.clip is None else f"by_min(by_max({x}, {lit(-sp.clip)}), {lit(sp.clip)})"

    # state index of (d, b, j): [dirs, batch, H] for layout 0, [batch, dirs, H] for layout 1
    io = "((long long)d * BATCH + b) * HID + j" if sp.layout == 0 else "((long long)b * DIRS + d) * HID + j"
    yi = ("(((long long)t * DIRS + d) * BATCH + b) * HID + j" if sp.layout == 0
          else "(((long long)b * SEQ + t) * DIRS + d) * HID + j")

    def at(name, b: str = "b", j: str = "j") -> str:
        """A state slot's element (slot: a number or a name of `slot`; an expression for h)."""
        k = slot.get(name, name)
        return f"st[((({k}) * DIRS + d) * BATCH + {b}) * (long long)HID + {j}]"

    def each_unit(body: list[str], depth: int = 3) -> list[str]:
        """`body` for each hidden unit j of the current slice (jj its place in the slice)."""
        pad = "  " * depth
        return [f"{pad}for (int jj = tid; jj < SLICE; jj += NT) {{",
                f"{pad}  const int j = j0 + jj;",
                f"{pad}  if (j >= HID) continue;"] + [pad + "  " + line for line in body] + [f"{pad}}}"]

    def matvec(g0: int, g1: int) -> list[str]:
        """gates[g * SLICE + jj] = R[d, g * H + j, :] . hs for the slice's units and gates g0..g1-1:
        a warp per row, lanes over the hidden axis, shuffles reduce."""
        return [
            f"      for (int r = warp; r < {g1 - g0} * SLICE; r += NWARPS) {{",
            f"        const int g = {g0} + r / SLICE, jj = r % SLICE, j = j0 + jj;",
            "        if (j >= HID) continue;",
            f"        const {T}* rr = Rd + ((long long)g * HID + j) * HID;",
            f"        {CT} acc = {lit(0.0)};",
            f"        for (int k = lane; k < HID; k += 32) acc += ({CT})rr[k] * hs[k];",
            "        for (int off = 16; off > 0; off >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, off);",
            "        if (lane == 0) gates[g * SLICE + jj] = acc;",
            "      }",
            "      __syncthreads();",
        ]

    def load_hs(src) -> list[str]:
        # other blocks wrote it before the last grid barrier: read through L2, never a stale L1 line
        return [f"      for (int k = tid; k < HID; k += NT) hs[k] = __ldcg(&{at(src, 'b', 'k')});",
                "      __syncthreads();"]

    def phase(gates: tuple[int, int], src, update: list[str], copy_dead: bool) -> list[str]:
        """One barrier-ended phase of a step: for each batch element alive at this step, the
        vector `src` into shared memory, then for each slice the gate rows and `update` per unit.
        A finished sequence's h is carried to the next slot (`copy_dead`)."""
        out = ["    for (int b = 0; b < BATCH; ++b) {",
               "      const int len = len_of(b);",
               "      const int t = rev ? len - 1 - s : s;",
               "      if (s < len) {"]
        out += ["  " + line for line in load_hs(src)]
        out += ["        const " + CT + "* x = xw + (((long long)d * SEQ + t) * BATCH + b) * GH;",
                "        for (int sl = BLOCK_X_; sl < SLICES; sl += GRID_X_) {",
                "          const int j0 = sl * SLICE;"]
        out += ["    " + line for line in matvec(*gates)]
        out += each_unit(update, 5)
        out += ["          __syncthreads();", "        }"]
        if copy_dead:
            out += ["      } else {",
                    "        for (int sl = BLOCK_X_; sl < SLICES; sl += GRID_X_) {",
                    "          const int j0 = sl * SLICE;"]
            out += each_unit([f"{at('nxt')} = {at('cur')};"], 5)
            out += ["        }"]
        out += ["      }", "      __syncthreads();", "    }", "    by_grid_sync();"]
        return out

    def emit_h(hn: str) -> list[str]:
        return [f"const {CT} hn = {hn};", f"{at('nxt')} = hn;"] + ([f"y[{yi}] = ({T})(hn);"] if has_y else [])

    if lstm:
        def pre(k: int, peep: int, cv: str) -> str:
            p = f" + ({CT})P[(long long)d * 3 * HID + {peep} * HID + j] * {cv}" if has_p else ""
            return clip(f"(x[{k} * HID + j] + gates[{k} * SLICE + jj]{p})")
        upd = [f"const {CT} cp = {at('c')};",
               f"const {CT} ip = {pre(0, 0, 'cp')};",
               f"const {CT} ig = {act(0, 'ip')};"]
        if sp.input_forget:
            upd.append(f"const {CT} fg = {lit(1.0)} - ig;")
        else:
            upd += [f"const {CT} fp = {pre(2, 2, 'cp')};",
                    f"const {CT} fg = {act(0, 'fp')};"]
        upd += [f"const {CT} gp = {clip('(x[3 * HID + j] + gates[3 * SLICE + jj])')};",
                f"const {CT} cn = fg * cp + ig * {act(1, 'gp')};",
                f"const {CT} op = {pre(1, 1, 'cn')};",
                f"const {CT} og = {act(0, 'op')};",
                f"{at('c')} = cn;"] + emit_h(f"og * {act(2, 'cn')}")
        steps = phase((0, G), "cur", upd, True)
    elif gru_split:
        first = [f"const {CT} zp = {clip('(x[j] + gates[jj])')};",
                 f"const {CT} rp = {clip('(x[HID + j] + gates[SLICE + jj])')};",
                 f"{at('z')} = {act(0, 'zp')};",
                 f"{at('rh')} = {act(0, 'rp')} * hs[j];"]
        second = [f"const {CT} zg = {at('z')};",
                  f"const {CT} hp = {clip('(x[2 * HID + j] + gates[2 * SLICE + jj])')};"] + \
            emit_h(f"({lit(1.0)} - zg) * {act(1, 'hp')} + zg * {at('cur')}")
        steps = phase((0, 2), "cur", first, False) + phase((2, 3), "rh", second, True)
    elif gru:
        rbh = f"({CT})B[(long long)d * 2 * GH + GH + 2 * HID + j]" if has_b else lit(0.0)
        upd = [f"const {CT} zp = {clip('(x[j] + gates[jj])')};",
               f"const {CT} zg = {act(0, 'zp')};",
               f"const {CT} rp = {clip('(x[HID + j] + gates[SLICE + jj])')};",
               f"const {CT} rg = {act(0, 'rp')};",
               f"const {CT} hp = {clip(f'(x[2 * HID + j] + rg * (gates[2 * SLICE + jj] + {rbh}))')};"] + \
            emit_h(f"({lit(1.0)} - zg) * {act(1, 'hp')} + zg * hs[j]")
        steps = phase((0, G), "cur", upd, True)
    else:
        upd = [f"const {CT} hp = {clip('(x[j] + gates[jj])')};"] + emit_h(act(0, "hp"))
        steps = phase((0, G), "cur", upd, True)

    L = [f"  constexpr int SEQ = {seq}, BATCH = {batch}, DIRS = {D}, HID = {H}, GH = {GH};",
         f"  constexpr int SLICE = {slice_w}, SLICES = {slices}, NT = {nt}, NWARPS = {nwarps};",
         "  BY_SHARED_BUFFER(smem);",
         f"  {CT}* hs = ({CT}*)smem;",
         f"  {CT}* gates = hs + HID;",
         f"  const int BLOCK_X_ = {BLOCK_X}, GRID_X_ = {GRID_X};",
         f"  const int d = {BLOCK_Y};",
         "  const int tid = threadIdx.x;", "  const int lane = tid & 31;", "  const int warp = tid >> 5;",
         f"  const {T}* Rd = R + (long long)d * GH * HID;"]
    if has_lens:
        L.append("  auto len_of = [&](int b) { return by_max(0, by_min(SEQ, (int)seq_lens[b])); };")
    else:
        L.append("  auto len_of = [&](int b) { return SEQ; };")
    L.append("  int steps = 0;")
    L.append("  for (int b = 0; b < BATCH; ++b) steps = by_max(steps, len_of(b));")
    if sp.direction == "bidirectional":
        L.append("  const bool rev = d == 1;")
    else:
        L.append(f"  const bool rev = {'true' if sp.direction == 'reverse' else 'false'};")
    # initial state of the block's own units; the barrier publishes h before the first step reads it
    init = [f"{at(0)} = {f'({CT})init_h[{io}]' if has_h0 else lit(0.0)};"]
    if lstm:
        init.append(f"{at('c')} = {f'({CT})init_c[{io}]' if has_c0 else lit(0.0)};")
    L += ["  for (int sl = BLOCK_X_; sl < SLICES; sl += GRID_X_) {",
          "    const int j0 = sl * SLICE;",
          "    for (int b = 0; b < BATCH; ++b) {"]
    L += each_unit(init, 3)
    L += ["    }", "  }", "  by_grid_sync();",
          "  for (int s = 0; s < steps; ++s) {",
          "    const int cur = s & 1, nxt = cur ^ 1;"]
    L += steps
    L.append("  }")
    tail: list[str] = []
    if has_y:   # steps past a sequence's end are zero
        tail += ["for (int t = len_of(b); t < SEQ; ++t)", f"  y[{yi}] = ({T})({lit(0.0)});"]
    if has_yh:
        tail.append(f"y_h[{io}] = ({T})({at('steps & 1')});")
    if has_yc:
        tail.append(f"y_c[{io}] = ({T})({at('c')});")
    if tail:
        L += ["  for (int sl = BLOCK_X_; sl < SLICES; sl += GRID_X_) {",
              "    const int j0 = sl * SLICE;",
              "    for (int b = 0; b < BATCH; ++b) {"]
        L += each_unit(tail, 3)
        L += ["    }", "  }"]
    entry, source = finish_kernel(f"{sp.kind.lower()}_recurrence", decl, L, launch_bounds=(nt,))
    barriers = 2 if gru_split else 1
    flops = 2 * D * batch * seq * GH * H
    return Kernel(entry=entry, source=source, params=tuple(params), grid=(gx, D, 1), block=(nt, 1, 1),
                  shared_bytes=(H + G * slice_w) * acc_dt.itemsize, cooperative=True,
                  config=(("block_threads", nt), ("schedule", "device_loop_recurrence"), ("form", "grid"),
                          ("slice", slice_w), ("flops", flops), ("sequential_steps", seq),
                          ("grid_syncs_per_step", barriers), ("rows_bytes_per_step", batch * D * GH * H * dt.itemsize)))


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
