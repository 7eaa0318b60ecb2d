"""The recurrence kernel of LSTM, GRU and RNN (ops/recurrent.py lowers the node to the input
projection, then this): one launch that loops over the time steps on the device, in one of two
forms, which `recurrence_form` chooses by the size of R.

- block: one block per (batch element, direction); its warps compute R·h a gate row at a time
  (lanes split the hidden axis, shuffles reduce), h and c live in shared memory, __syncthreads
  separates the steps.
- grid: one cooperative launch whose blocks own slices of hidden units with all their gate rows
  (a unit's cell update needs no other block's gates), h in a ping-pong pair and c in a plan
  temporary, a grid barrier ending each step.

Both emit the same per-unit cell math (`_Cell`); they differ in where the gates, h and c live.
`RnnSpec` (parsed by ops/recurrent.py's rnn_spec) is what both are built from."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

from ..codegen.block_function import BLOCK_X, BLOCK_Y, GRID_X, finish_kernel
from ..codegen.cuda import c_const
from ..ir.dtypes import DType
from ..ir.graph import TensorType
from ..ir.kernel import Kernel, KernelParam

if TYPE_CHECKING:
    from .registry import LowerCtx

_SEQ_LENS, _INIT_H, _INIT_C, _PEEP = 4, 5, 6, 7     # the node's optional inputs
_GATES = {"LSTM": 4, "GRU": 3, "RNN": 1}

Activation = tuple[str, float, float]   # (lower-case name, alpha, beta)


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


# The block form streams all of R through one SM every step: the first GPU run
# (bench/results/e2e-20261124T122237Z.json, H100) measured it at 40.9 ms for a 2-layer LSTM of hidden
# 768, 128 steps each, where PyTorch took 6.1 ms: 160 us a step for R's 4.7 MB, 29.5 GB/s through one
# SM. It still wins where one SM streams R faster than a grid barrier costs (GRID_SYNC_US).
ONE_SM_ROWS_GBPS = 29.5
# The grid form: at most RECURRENCE_BLOCKS blocks of RECURRENCE_THREADS, so that every preset holds
# the grid at once, as a cooperative launch needs (a few KB of shared memory a block: 4 blocks per SM
# on a 40-SM T4); each block owns slices of at least MIN_SLICE hidden units.
RECURRENCE_THREADS = 256
RECURRENCE_BLOCKS = 128
MIN_SLICE = 4


def recurrence_form(sp: RnnSpec, dt: DType) -> str:
    """'block' where one SM reads R in less time than a grid barrier takes, else 'grid'."""
    from ..roller.cost_model import GRID_SYNC_US
    rows_us = sp.gates * sp.hidden * sp.hidden * dt.itemsize / (ONE_SM_ROWS_GBPS * 1e3)
    return "block" if rows_us < GRID_SYNC_US else "grid"


def recurrence_grid(hidden: int, dirs: int) -> tuple[int, int, int]:
    """(slice width, slices per direction, blocks per direction) of the grid form's launch."""
    slice_w = max(MIN_SLICE, -(-hidden * dirs // RECURRENCE_BLOCKS))
    slices = -(-hidden // slice_w)
    return slice_w, slices, min(slices, max(1, RECURRENCE_BLOCKS // dirs))


def recurrence_kernel(ctx: LowerCtx, sp: RnnSpec, dt: DType, acc_dt: DType, xw: str,
                      seq: int, batch: int) -> Kernel:
    """The kernel of every time step of `sp`, reading the input projection `xw` [dirs, seq, batch, G*H]."""
    build = _block_kernel if recurrence_form(sp, dt) == "block" else _grid_kernel
    return build(ctx, sp, dt, acc_dt, xw, seq, batch)


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


class _Cell:
    """The node's kernel parameters (in order, with their C declarations and which optional ones it
    has) and its per-unit math as C, for unit j of batch element b and direction d, with x this
    step's input projection (x[k * HID + j] is gate k's)."""

    def __init__(self, ctx: LowerCtx, sp: RnnSpec, dt: DType, acc_dt: DType, xw: str):
        self.sp, self.acc_dt = sp, acc_dt
        self.T, self.CT = dt.ctype, acc_dt.ctype
        self.lstm, self.gru = sp.kind == "LSTM", sp.kind == "GRU"
        self.gru_split = self.gru and not sp.linear_before_reset   # reset gate on h before its mat-vec
        self.params: list[KernelParam] = [KernelParam(self.CT, xw, False), KernelParam(self.T, ctx.in_name(2), False)]
        self.decl = [f"const {self.CT}* __restrict__ xw", f"const {self.T}* __restrict__ R"]

        def add_in(i: int, cname: str) -> bool:
            if not ctx.has_input(i):
                return False
            ty = ctx.input(i).dtype.ctype
            self.params.append(KernelParam(ty, ctx.in_name(i), False))
            self.decl.append(f"const {ty}* __restrict__ {cname}")
            return True

        def add_out(i: int, cname: str) -> bool:
            if not ctx.node.has_output(i):
                return False
            self.params.append(KernelParam(self.T, ctx.out_name(i), True))
            self.decl.append(f"{self.T}* __restrict__ {cname}")
            return True

        self.has_b = add_in(3, "B") if self.gru and sp.linear_before_reset else False
        self.has_lens = add_in(_SEQ_LENS, "seq_lens")
        self.has_h0 = add_in(_INIT_H, "init_h")
        self.has_c0 = add_in(_INIT_C, "init_c") if self.lstm else False
        self.has_p = add_in(_PEEP, "P") if self.lstm else False
        self.has_y = add_out(0, "y")
        self.has_yh = add_out(1, "y_h")
        self.has_yc = add_out(2, "y_c") if self.lstm else False
        # state (d, b, j) of init_h/c and y_h/c: [dirs, batch, H] for layout 0, [batch, dirs, H] for 1
        self.io = ("((long long)d * BATCH + b) * HID + j" if sp.layout == 0
                   else "((long long)b * DIRS + d) * HID + j")
        self.yi = ("(((long long)t * DIRS + d) * BATCH + b) * HID + j" if sp.layout == 0
                   else "(((long long)b * SEQ + t) * DIRS + d) * HID + j")

    def lit(self, v: float) -> str:
        return c_const(v, self.acc_dt)

    def act(self, k: int, x: str) -> str:
        """Activation k (f, g, h in ONNX's order) of x, per direction where they differ."""
        exprs = [_c_act(self.sp.acts[d][k], x, self.acc_dt) for d in range(self.sp.dirs)]
        return exprs[0] if self.sp.dirs == 1 or exprs[0] == exprs[1] else f"(d == 0 ? {exprs[0]} : {exprs[1]})"

    def clip(self, x: str) -> str:
        sp = self.sp
        return x if sp.clip is None else f"by_min(by_max({x}, {self.lit(-sp.clip)}), {self.lit(sp.clip)})"

    def reset_h(self, gate: Callable[[int], str], h_old: str) -> str:
        """GRU's split form: the reset gate applied to the old h (what the third mat-vec reads)."""
        return f"{self.act(0, self.clip(f'(x[HID + j] + {gate(1)})'))} * {h_old}"

    def update(self, gate: Callable[[int], str], h_old: str, c_old: str = "", z: str = "") -> list[str]:
        """C lines that define `hn` (and `cn`, LSTM) from the gates' R·h rows (`gate(k)`), the old
        h and c, and, in GRU's split form, the update gate where it was computed before (`z`)."""
        CT, act, clip = self.CT, self.act, self.clip
        if self.lstm:
            def pre(k: int, peep: int, cv: str) -> str:
                p = f" + ({CT})P[(long long)d * 3 * HID + {peep} * HID + j] * {cv}" if self.has_p else ""
                return clip(f"(x[{k} * HID + j] + {gate(k)}{p})")
            lines = [f"const {CT} cp = {c_old};",
                     f"const {CT} ip = {pre(0, 0, 'cp')};",
                     f"const {CT} ig = {act(0, 'ip')};"]
            if self.sp.input_forget:
                lines.append(f"const {CT} fg = {self.lit(1.0)} - ig;")
            else:
                lines += [f"const {CT} fp = {pre(2, 2, 'cp')};", f"const {CT} fg = {act(0, 'fp')};"]
            return lines + [f"const {CT} gp = {clip(f'(x[3 * HID + j] + {gate(3)})')};",
                            f"const {CT} cn = fg * cp + ig * {act(1, 'gp')};",
                            f"const {CT} op = {pre(1, 1, 'cn')};",
                            f"const {CT} og = {act(0, 'op')};",
                            f"const {CT} hn = og * {act(2, 'cn')};"]
        if self.gru:
            lines = [f"const {CT} zg = {z};"] if z else [f"const {CT} zp = {clip(f'(x[j] + {gate(0)})')};",
                                                          f"const {CT} zg = {act(0, 'zp')};"]
            if self.sp.linear_before_reset:
                rbh = f"({CT})B[(long long)d * 2 * GH + GH + 2 * HID + j]" if self.has_b else self.lit(0.0)
                lines += [f"const {CT} rp = {clip(f'(x[HID + j] + {gate(1)})')};",
                          f"const {CT} rg = {act(0, 'rp')};",
                          f"const {CT} hp = {clip(f'(x[2 * HID + j] + rg * ({gate(2)} + {rbh}))')};"]
            else:   # the third gate's rows already read the reset h
                lines.append(f"const {CT} hp = {clip(f'(x[2 * HID + j] + {gate(2)})')};")
            return lines + [f"const {CT} hn = ({self.lit(1.0)} - zg) * {act(1, 'hp')} + zg * {h_old};"]
        return [f"const {CT} hp = {clip(f'(x[j] + {gate(0)})')};", f"const {CT} hn = {act(0, 'hp')};"]

    def direction(self) -> str:
        sp = self.sp
        if sp.direction == "bidirectional":
            return "  const bool rev = d == 1;"
        return f"  const bool rev = {'true' if sp.direction == 'reverse' else 'false'};"


def _block_kernel(ctx: LowerCtx, sp: RnnSpec, dt: DType, acc_dt: DType, xw: str, seq: int, batch: int) -> Kernel:
    c = _Cell(ctx, sp, dt, acc_dt, xw)
    H, G, D = sp.hidden, sp.gates, sp.dirs
    GH = G * H
    T, CT = c.T, c.CT
    nt = min(512, max(64, -(-GH // 32) * 32))
    nwarps = nt // 32

    def gate(k: int) -> str:
        return f"gates[{k} * HID + j]"

    def matvec(lo: int, hi: int, src: str) -> list[str]:
        return [
            f"    for (int row = {lo} + warp; row < {hi}; row += {nwarps}) {{",
            f"      const {T}* rr = Rd + (long long)row * HID;",
            f"      {CT} acc = {c.lit(0.0)};",
            f"      for (int k = lane; k < HID; k += 32) acc += ({CT})rr[k] * {src}[k];",
            "      for (int off = 16; off > 0; off >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, off);",
            "      if (lane == 0) gates[row] = acc;",
            "    }",
            "    __syncthreads();",
        ]

    def each_unit(body: list[str], depth: int) -> list[str]:
        pad = "  " * depth
        return [f"{pad}for (int j = tid; j < HID; j += {nt}) {{"] + [pad + "  " + line for line in body] + [f"{pad}}}"]

    L = [f"  constexpr int SEQ = {seq}, BATCH = {batch}, DIRS = {D}, HID = {H}, GH = {GH};",
         "  BY_SHARED_BUFFER(smem);",
         f"  {CT}* h = ({CT}*)smem;",
         f"  {CT}* gates = h + HID;"]
    n_smem = H + GH
    if c.lstm:
        L.append(f"  {CT}* cst = gates + GH;")
        n_smem += H
    if c.gru_split:
        L.append(f"  {CT}* rh = gates + GH;")
        n_smem += H
    L += [f"  const int b = {BLOCK_X};", f"  const int d = {BLOCK_Y};",
          "  const int tid = threadIdx.x;", "  const int lane = tid & 31;", "  const int warp = tid >> 5;",
          f"  const {T}* Rd = R + (long long)d * GH * HID;",
          "  const int len = by_max(0, by_min(SEQ, (int)seq_lens[b]));" if c.has_lens else "  const int len = SEQ;",
          c.direction()]
    init = [f"h[j] = {f'({CT})init_h[{c.io}]' if c.has_h0 else c.lit(0.0)};"]
    if c.lstm:
        init.append(f"cst[j] = {f'({CT})init_c[{c.io}]' if c.has_c0 else c.lit(0.0)};")
    L += each_unit(init, 1) + ["  __syncthreads();",
                               "  for (int s = 0; s < len; ++s) {",
                               "    const int t = rev ? len - 1 - s : s;",
                               f"    const {CT}* x = xw + (((long long)d * SEQ + t) * BATCH + b) * GH;"]
    if c.gru_split:
        L += matvec(0, 2 * H, "h")
        L += each_unit([f"rh[j] = {c.reset_h(gate, 'h[j]')};"], 2) + ["    __syncthreads();"]
        L += matvec(2 * H, 3 * H, "rh")
    else:
        L += matvec(0, GH, "h")
    step = c.update(gate, "h[j]", "cst[j]") + (["cst[j] = cn;"] if c.lstm else []) + ["h[j] = hn;"]
    step += [f"y[{c.yi}] = ({T})(hn);"] if c.has_y else []
    L += each_unit(step, 2) + ["    __syncthreads();", "  }"]
    if c.has_y and c.has_lens:   # steps past a sequence's end are zero
        L += ["  for (int t = len; t < SEQ; ++t)",
              f"    for (int j = tid; j < HID; j += {nt}) y[{c.yi}] = ({T})({c.lit(0.0)});"]
    final = ([f"y_h[{c.io}] = ({T})(h[j]);"] if c.has_yh else []) + ([f"y_c[{c.io}] = ({T})(cst[j]);"] if c.has_yc else [])
    if final:
        L += each_unit(final, 1)
    entry, source = finish_kernel(f"{sp.kind.lower()}_recurrence", c.decl, L, launch_bounds=(nt,))
    return Kernel(entry=entry, source=source, params=tuple(c.params), grid=(batch, D, 1), block=(nt, 1, 1),
                  shared_bytes=n_smem * acc_dt.itemsize,
                  config=(("block_threads", nt), ("schedule", "device_loop_recurrence"), ("form", "block"),
                          ("flops", 2 * D * batch * seq * GH * H), ("sequential_steps", seq),
                          ("grid_syncs_per_step", 0), ("rows_bytes_per_step", GH * H * dt.itemsize),
                          ("rows_gbps", ONE_SM_ROWS_GBPS)))


def _grid_kernel(ctx: LowerCtx, sp: RnnSpec, dt: DType, acc_dt: DType, xw: str, seq: int, batch: int) -> Kernel:
    c = _Cell(ctx, sp, dt, acc_dt, xw)
    H, G, D = sp.hidden, sp.gates, sp.dirs
    GH = G * H
    T, CT = c.T, c.CT
    nt = RECURRENCE_THREADS
    slice_w, slices, gx = recurrence_grid(H, D)
    # state slots, each [dirs, batch, H] in the accumulator type: h ping-pong, then c (LSTM) or the
    # reset h and the update gate (GRU's split form)
    slot = {"c": 2} if c.lstm else {"rh": 2, "z": 3} if c.gru_split else {}
    state = ctx.temp(TensorType(acc_dt, (2 + len(slot), D, batch, H)), f"{sp.kind.lower()}_state")
    params = c.params + [KernelParam(CT, state, True)]
    decl = c.decl + [f"{CT}* __restrict__ st"]

    def at(name, b: str = "b", j: str = "j") -> str:
        """A state slot's element (slot: a number, a name of `slot`, or an expression: cur, nxt)."""
        k = slot.get(name, name)
        return f"st[((({k}) * DIRS + d) * BATCH + {b}) * (long long)HID + {j}]"

    def gate(k: int) -> str:
        return f"gates[{k} * SLICE + jj]"

    def each_unit(body: list[str], depth: int) -> list[str]:
        """`body` for each hidden unit j of the current slice (jj its place in the slice)."""
        pad = "  " * depth
        return [f"{pad}for (int jj = tid; jj < SLICE; jj += NT) {{",
                f"{pad}  const int j = j0 + jj;",
                f"{pad}  if (j >= HID) continue;"] + [pad + "  " + line for line in body] + [f"{pad}}}"]

    def each_slice(body: list[str], depth: int) -> list[str]:
        """`body` for each slice the block owns (grid-stride), j0 its first unit."""
        pad = "  " * depth
        return [f"{pad}for (int sl = BLOCK_X_; sl < SLICES; sl += GRID_X_) {{",
                f"{pad}  const int j0 = sl * SLICE;"] + body + [f"{pad}}}"]

    def matvec(g0: int, g1: int) -> list[str]:
        """gates[g * SLICE + jj] = R[d, g * H + j, :] . hs for the slice's units and gates g0..g1-1:
        a warp per row, lanes over the hidden axis, shuffles reduce."""
        return [
            f"          for (int r = warp; r < {g1 - g0} * SLICE; r += NWARPS) {{",
            f"            const int g = {g0} + r / SLICE, jj = r % SLICE, j = j0 + jj;",
            "            if (j >= HID) continue;",
            f"            const {T}* rr = Rd + ((long long)g * HID + j) * HID;",
            f"            {CT} acc = {c.lit(0.0)};",
            f"            for (int k = lane; k < HID; k += 32) acc += ({CT})rr[k] * hs[k];",
            "            for (int off = 16; off > 0; off >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, off);",
            "            if (lane == 0) gates[g * SLICE + jj] = acc;",
            "          }",
            "          __syncthreads();",
        ]

    def phase(gates: tuple[int, int], src, update: list[str], copy_dead: bool) -> list[str]:
        """One barrier-ended phase of a step: for each batch element alive at this step, the
        vector `src` into shared memory (written by other blocks before the last barrier: read
        through L2, never a stale L1 line), then per slice the gate rows and `update` per unit. A
        finished sequence's h is carried to the next slot (`copy_dead`)."""
        out = ["    for (int b = 0; b < BATCH; ++b) {",
               "      const int len = len_of(b);",
               "      const int t = rev ? len - 1 - s : s;",
               "      if (s < len) {",
               f"        for (int k = tid; k < HID; k += NT) hs[k] = __ldcg(&{at(src, 'b', 'k')});",
               "        __syncthreads();",
               f"        const {CT}* x = xw + (((long long)d * SEQ + t) * BATCH + b) * GH;"]
        out += each_slice(matvec(*gates) + each_unit(update, 5) + ["          __syncthreads();"], 4)
        if copy_dead:
            out += ["      } else {"] + each_slice(each_unit([f"{at('nxt')} = {at('cur')};"], 5), 4)
        return out + ["      }", "      __syncthreads();", "    }", "    by_grid_sync();"]

    def store_h() -> list[str]:
        return [f"{at('nxt')} = hn;"] + ([f"y[{c.yi}] = ({T})(hn);"] if c.has_y else [])

    if c.gru_split:
        first = [f"{at('z')} = {c.act(0, c.clip(f'(x[j] + {gate(0)})'))};",
                 f"{at('rh')} = {c.reset_h(gate, 'hs[j]')};"]
        second = c.update(gate, at("cur"), z=at("z")) + store_h()
        steps = phase((0, 2), "cur", first, False) + phase((2, 3), "rh", second, True)
    else:
        upd = c.update(gate, "hs[j]", at("c") if c.lstm else "") + ([f"{at('c')} = cn;"] if c.lstm else []) + store_h()
        steps = phase((0, G), "cur", upd, True)

    L = [f"  constexpr int SEQ = {seq}, BATCH = {batch}, DIRS = {D}, HID = {H}, GH = {GH};",
         f"  constexpr int SLICE = {slice_w}, SLICES = {slices}, NT = {nt}, NWARPS = {nt // 32};",
         "  BY_SHARED_BUFFER(smem);",
         f"  {CT}* hs = ({CT}*)smem;",
         f"  {CT}* gates = hs + HID;",
         f"  const int BLOCK_X_ = {BLOCK_X}, GRID_X_ = {GRID_X};",
         f"  const int d = {BLOCK_Y};",
         "  const int tid = threadIdx.x;", "  const int lane = tid & 31;", "  const int warp = tid >> 5;",
         f"  const {T}* Rd = R + (long long)d * GH * HID;",
         "  auto len_of = [&](int b) { return by_max(0, by_min(SEQ, (int)seq_lens[b])); };" if c.has_lens
         else "  auto len_of = [&](int b) { return SEQ; };",
         "  int steps = 0;",
         "  for (int b = 0; b < BATCH; ++b) steps = by_max(steps, len_of(b));",
         c.direction()]
    # the block's own units start; the barrier publishes h before the first step reads it
    init = [f"{at(0)} = {f'({CT})init_h[{c.io}]' if c.has_h0 else c.lit(0.0)};"]
    if c.lstm:
        init.append(f"{at('c')} = {f'({CT})init_c[{c.io}]' if c.has_c0 else c.lit(0.0)};")
    L += each_slice(["    for (int b = 0; b < BATCH; ++b) {"] + each_unit(init, 3) + ["    }"], 1)
    L += ["  by_grid_sync();",
          "  for (int s = 0; s < steps; ++s) {",
          "    const int cur = s & 1, nxt = cur ^ 1;"] + steps + ["  }"]
    tail: list[str] = []
    if c.has_y:   # steps past a sequence's end are zero
        tail += ["for (int t = len_of(b); t < SEQ; ++t)", f"  y[{c.yi}] = ({T})({c.lit(0.0)});"]
    if c.has_yh:
        tail.append(f"y_h[{c.io}] = ({T})({at('steps & 1')});")
    if c.has_yc:
        tail.append(f"y_c[{c.io}] = ({T})({at('c')});")
    if tail:
        L += each_slice(["    for (int b = 0; b < BATCH; ++b) {"] + each_unit(tail, 3) + ["    }"], 1)
    entry, source = finish_kernel(f"{sp.kind.lower()}_recurrence", decl, L, launch_bounds=(nt,))
    return Kernel(entry=entry, source=source, params=tuple(params), grid=(gx, D, 1), block=(nt, 1, 1),
                  shared_bytes=(H + G * slice_w) * acc_dt.itemsize, cooperative=True,
                  config=(("block_threads", nt), ("schedule", "device_loop_recurrence"), ("form", "grid"),
                          ("slice", slice_w), ("flops", 2 * D * batch * seq * GH * H), ("sequential_steps", seq),
                          ("grid_syncs_per_step", 2 if c.gru_split else 1),
                          ("rows_bytes_per_step", batch * D * GH * H * dt.itemsize)))
