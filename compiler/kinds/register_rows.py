"""Kind `register_rows`: a row chain of statistics (and maps over the row) as one kernel in which
a row's lanes (a warp, or several) keep it in registers (AStitch's local scheme for reductions
with broadcasts).

The chains it takes are those `resident_rows.analyse` reads with no resident contraction:
statistics (a row max and a sum of exponentials, a mean and a variance, a mean of squares) and a
final map over the row that reads them (softmax, LayerNorm, RMSNorm, GroupNorm as rows, with the
residual adds, scales, casts and masks composed into them), or a final statistic written out;
and resident *maps* over the same row that later phases read at their own column (an unrolled
scan's states, h_t = a_t * h_t-1 + b_t, each reduced into a y_t): a lane keeps its columns of
each in registers from the phase that computes it to its last reader. Statistics and maps that a
later kernel reads too are written as well (the scan's y_t, its last state). In
`resident_rows` every phase reads the row again from global memory, once per statistic and once
for the final, with a barrier between phases. Here each lane loads its columns of the row once,
into registers, and every phase reads them from there:

- the values read along the row by at least two phases at the same index (the input of softmax,
  x and the residual of an add + LayerNorm) are *cached*, and so are contiguous values one
  phase reads (LayerNorm's scale) while registers last: a lane owns runs of `width` consecutive
  columns (one 16- or 8-byte load each where the operand's rows are contiguous and its pointer
  aligned, element loads otherwise), `chunks` runs a row's lanes apart;
- a statistic reduces the lane's cached columns, then the warp's lanes by xor shuffles, so every
  lane holds it in a register for the phases after it: no shared memory, no barrier (a row of
  several warps: each warp's value through shared memory, combined in warp order, a barrier);
- the final writes the lane's columns, as vectors where the output's rows are contiguous.

Thread mapping (AStitch's adaptive one): a row gets the fewest warps (`warps_per_row`, a power
of two, at most MAX_ROW_WARPS) whose lanes hold its cached values in MAX_CACHED registers each,
more while the rows are too few to fill the GPU and each lane keeps MIN_LANE_VALUES; short rows
a warp each, up to MAX_WARPS rows a block once there are enough blocks
(resident_rows.BLOCKS_WANTED). A row longer than MAX_ROW_WARPS warps hold declines
(resident_rows takes it)."""
from __future__ import annotations

import math
from dataclasses import dataclass

from ..analysis.dependence import loads_of
from ..analysis.views import vars_of
from ..codegen.block_function import BLOCK_X, finish_kernel
from ..codegen.cuda import MAX_GRID_X, ExprRenderer, combine, contiguous_strides, decompose_index
from ..ir.dtypes import DType
from ..ir.kernel import Kernel, KernelParam
from ..ir.spec import KernelSpec
from ..ir.texpr import ACC, Expr, Load, TensorExpr, Var, binary, const, index_interval, reduce_identity, \
    replace_loads, substitute_vars
from . import resident_rows
from .resident_rows import Reader, RowChain

NAME = "register_rows"
TIER = None                 # not tiled by Roller: its threads follow the rows
MAX_CACHED = 64             # row values a lane keeps in registers, over every cached operand
MAX_WARPS = 8               # rows of a warp each in one block
MAX_ROW_WARPS = 32          # warps of one row (a block of 1024 threads)
MIN_LANE_VALUES = 8         # a row spread over more warps to fill the GPU keeps this many a lane
VECTOR_BYTES = (16, 8)      # the loads and stores a lane's run of columns may take, widest first
_J = Var("by_j", DType.int64)       # the column a phase reads (a statistic's reduction variable, the final's column)
_SLOT = Var("by_s", DType.int64)    # a lane's slot: run by_s / width, column by_s % width of it


def _row(p: int) -> Var:
    return Var(f"by_r{p}", DType.int64)


def _vector(nbytes: int) -> tuple[str, str, str]:
    """(carrier type, load, store) of a lane's run of `nbytes` (16 or 8): `load` and `store` are
    formats over {p} (an element pointer) and {v} (the carrier)."""
    if nbytes == 16:
        return "uint4", "by_ld_global_b128({p})", "by_st_global_b128({p}, {v})"
    return ("float2", "by_ld_global_v2(reinterpret_cast<const float*>({p}))",
            "by_st_global_v2(reinterpret_cast<float*>({p}), {v})")


@dataclass(frozen=True)
class Cached:
    """A value read along the row at one index by several phases (or, contiguous, by one):
    loaded once into the lane's registers `name`."""

    value: str                   # the external input it reads
    index: tuple[Expr, ...]      # over the row variables by_r<p> and the column by_j
    dtype: DType
    name: str
    contiguous: bool             # the index is (row part..., by_j): a lane's run is one vector


@dataclass(frozen=True)
class RegisterRows:
    """What `analyse` read: the chain, its phases over canonical variables (row by_r<p>, column
    by_j), the cached values and the lane mapping."""

    chain: RowChain
    phases: tuple[TensorExpr, ...]   # chain.phases' expressions over the canonical variables
    final: TensorExpr
    cached: tuple[Cached, ...]
    width: int                       # consecutive columns a lane owns
    chunks: int                      # runs of them a lane owns, lanes * width columns apart
    warps: int                       # per block: a row each, or (warps_per_row > 1) one row's
    warps_per_row: int

    @property
    def lanes(self) -> int:
        """Threads that share a row."""
        return 32 * self.warps_per_row

    @property
    def rows_per_block(self) -> int:
        return self.warps // self.warps_per_row

    @property
    def slots(self) -> int:
        return self.chunks * self.width

    @property
    def vector_store(self) -> bool:
        """The final writes its columns at row * length + column: a lane's run is one vector."""
        f = self.chain.final
        cols = [a for a in range(f.expr.output.rank) if a not in f.row_axes]
        return f.expr.reduce is None and cols == [f.expr.output.rank - 1] and \
            f.row_axes == tuple(range(f.expr.output.rank - 1))


def applies(spec) -> str | None:
    """None when this kind renders `spec`, else why not."""
    if not isinstance(spec, KernelSpec):
        return "not a kernel spec"
    r = analyse(spec)
    return r if isinstance(r, str) else None


def analyse(spec: KernelSpec, chain: RowChain | str | None = None) -> RegisterRows | str:
    """The spec as a chain of statistics a warp computes from registers, or why it is not one
    (`chain`: resident_rows.analyse(spec), where the caller has it)."""
    chain = resident_rows.analyse(spec) if chain is None else chain
    if isinstance(chain, str):
        return chain
    n = chain.length
    if any(r.expr.reduce is not None for r in chain.residents()):
        return "resident rows of a contraction: a block computes them into shared memory (resident_rows)"
    if any(r.length != n for r in chain.residents()) or any(s.expr.reduce.extent != n for s in chain.stats):
        return f"resident rows or statistics over rows of other lengths than {n}"
    rows = {_row(p).name: (0, d - 1) for p, d in enumerate(chain.rows)}
    env = dict(rows, by_j=(0, n - 1))
    readers = tuple(_canonical(r, chain) for r in chain.phases + (chain.final,))
    why = next((r for r in readers if isinstance(r, str)), None)
    if why is not None:
        return why
    maps = {r.output for r in chain.residents()}
    own = tuple(_row(p) for p in range(len(chain.rows))) + (_J,)
    for te, r in zip(readers, chain.phases + (chain.final,)):
        for a, v in enumerate(r.values):
            if v in maps and any(ld.index != own for ld in loads_of(te, a)):
                return f"{te.name} reads the map {v} at another column than its own (lanes own columns)"
    live = _most_live(chain)
    final = readers[-1]
    # the values several phases read along the row at one in-bounds index
    seen: dict[tuple[str, tuple[Expr, ...]], set[int]] = {}
    dtypes: dict[tuple[str, tuple[Expr, ...]], DType] = {}
    for k, (te, r) in enumerate(zip(readers, chain.phases + (chain.final,))):
        for a, v in enumerate(r.values):
            if v in chain.shared_values():
                continue
            for ld in loads_of(te, a):
                used = set().union(*(vars_of(i) for i in ld.index)) if ld.index else set()
                if _J.name not in used or not used <= set(env):
                    continue
                bounds = [index_interval(i, env) for i in ld.index]
                if any(b is None or b[0] < 0 or b[1] >= d for b, d in zip(bounds, te.inputs[a].shape)):
                    continue     # read only under a guard: loaded where the phase reads it
                key = (v, ld.index)
                seen.setdefault(key, set()).add(k)
                dtypes[key] = ld.dtype
    shared = [key for key in seen if len(seen[key]) > 1]
    contiguous = {key: _contiguous(key[1]) for key in seen}
    # a value one phase reads (LayerNorm's scale and bias) is cached too where it loads as vectors
    single = [key for key in seen if len(seen[key]) == 1 and contiguous[key]]
    sizes = [dtypes[k].itemsize for k in shared + single if contiguous[k]] + [final.output.dtype.itemsize]
    wpr = 1       # the fewest warps whose lanes hold the shared values and the maps alive at once
    while (len(shared) + live) * _slots(n, 32 * wpr, sizes) > MAX_CACHED:
        if wpr == MAX_ROW_WARPS:
            return f"a row of {n} in {len(shared)} cached value(s) and {live} map(s) takes more than " \
                   f"{MAX_CACHED} registers a lane of {MAX_ROW_WARPS} warps"
        wpr *= 2
    # more warps a row while the rows leave the GPU idle (a few long rows: batch 1)
    while wpr < MAX_WARPS and chain.row_count * wpr < 4 * resident_rows.BLOCKS_WANTED \
            and n >= 2 * 32 * wpr * MIN_LANE_VALUES:
        wpr *= 2
    lanes = 32 * wpr
    width = _width(n, lanes, sizes)
    chunks = -(-n // (lanes * width))
    slots = chunks * width
    keys = shared + single[:max(0, MAX_CACHED // slots - len(shared) - live)]
    cached = tuple(Cached(v, idx, dtypes[(v, idx)], f"by_c{k}", contiguous[(v, idx)])
                   for k, (v, idx) in enumerate(keys))
    warps = wpr
    while wpr == 1 and warps < MAX_WARPS and -(-chain.row_count // (2 * warps)) >= resident_rows.BLOCKS_WANTED:
        warps *= 2
    if -(-chain.row_count // (warps // wpr)) > MAX_GRID_X:
        return f"{chain.row_count} rows exceed one grid"
    return RegisterRows(chain, readers[:-1], final, cached, width, chunks, warps, wpr)


def _most_live(chain: RowChain) -> int:
    """The most resident maps alive at once (defined, and read by a later phase or the final): each
    is a lane's slots in registers from the phase that computes it to its last reader (one state
    of an unrolled scan at a time)."""
    order = chain.phases + (chain.final,)
    last = {r.output: max(k for k, q in enumerate(order) if r.output in q.values)
            for r in chain.residents() if any(r.output in q.values for q in order)}
    first = {r.output: k for k, r in enumerate(order) if r.output in last}
    return max((sum(1 for v in last if first[v] <= k < last[v]) for k in range(len(order))), default=0)


def _canonical(r: Reader, chain: RowChain) -> TensorExpr | str:
    """r's expression over by_r<p> (the row, in R's order) and by_j (the column it walks)."""
    te = r.expr
    row_axes = tuple(range(len(chain.rows))) if r.length is not None else r.row_axes   # resident: leading
    mapping: dict[str, Expr] = {f"i{a}": _row(p) for p, a in enumerate(row_axes)}
    cols = [a for a in range(te.output.rank) if a not in row_axes]
    if te.reduce is not None:     # a statistic written out (its kept size-1 axes index 0)
        if any(te.output.shape[a] != 1 for a in cols) or len(te.reduce.axes) != 1 \
                or te.reduce.extent != chain.length:
            return f"{te.name}: reduces other than along the row"
        mapping.update({f"i{a}": const(0, DType.int64) for a in cols})
        mapping[te.reduce.axes[0][0]] = _J
    else:
        shape = [te.output.shape[a] for a in cols]
        if math.prod(shape) != chain.length:
            return f"{te.name}: the final's columns ({shape}) are not the row of {chain.length}"
        inner = 1
        for a, d in reversed(list(zip(cols, shape))):   # row-major over the final's column axes
            mapping[f"i{a}"] = binary("imod", binary("idiv", _J, inner), d) if len(cols) > 1 else _J
            inner *= d
    body = substitute_vars(te.body, mapping)
    epilogue = None if te.epilogue is None else substitute_vars(te.epilogue, mapping)
    return te.replace(body=body, epilogue=epilogue)


def _contiguous(index: tuple[Expr, ...]) -> bool:
    """Whether the column walks the operand's contiguous last axis alone: a lane's run of columns
    is then consecutive elements, at an offset that is a multiple of the run's length."""
    return bool(index) and index[-1] == _J and \
        not any(_J.name in vars_of(i) for i in index[:-1])


def _width(n: int, lanes: int, itemsizes: list[int]) -> int:
    """Consecutive columns a lane owns: a whole vector of every operand, every lane busy."""
    for vb in VECTOR_BYTES:
        w = vb // max(itemsizes)
        if w > 1 and n % w == 0 and n >= lanes * w:
            return w
    return 1


def _slots(n: int, lanes: int, itemsizes: list[int]) -> int:
    """Values of one cached operand a lane keeps."""
    width = _width(n, lanes, itemsizes)
    return -(-n // (lanes * width)) * width


def render(spec: KernelSpec, target=None) -> list[Kernel]:
    plan = analyse(spec)
    if isinstance(plan, str):
        raise ValueError(f"spec {spec.name}: {NAME} does not apply: {plan}")
    chain = plan.chain
    it = resident_rows.chain_index_ctype(spec, chain)
    n, W, S, V, R = chain.length, plan.warps, plan.slots, plan.width, plan.rows_per_block
    types = {}
    for st in spec.stages:
        for v, t in zip(st.inputs, st.expr.inputs):
            types.setdefault(v, t)
    in_args = {v: f"in{j}" for j, v in enumerate(spec.inputs)}
    out_args = {v: f"out{j}" for j, v in enumerate(spec.written[:-1])}   # statistics, maps written too
    stored = {st.output: st.expr.output.dtype for st in spec.stages}
    out_t = plan.final.output
    rows = [_row(p).name for p in range(len(chain.rows))]
    if plan.warps_per_row == 1:
        L = [f"  const {it} by_row = ({it}){BLOCK_X} * {R} + (threadIdx.x >> 5);",
             f"  if (by_row >= {chain.row_count}) return;  // the whole warp leaves together",
             "  const int by_lane = threadIdx.x & 31;"]
    else:       # the block's warps share its row (no early return: they meet at barriers)
        L = ["  BY_SHARED_BUFFER(by_smem_raw);",
             f"  const {it} by_row = ({it}){BLOCK_X};",
             "  const int by_lane = threadIdx.x;"]
    L += decompose_index("  ", "by_row", chain.rows, rows, "by_rrem", it)
    vectors = [c for c in plan.cached if c.contiguous and V * c.dtype.itemsize in VECTOR_BYTES
               and types[c.value].shape[-1] % V == 0]
    store_vec = plan.vector_store and V * out_t.dtype.itemsize in VECTOR_BYTES
    ptrs = [in_args[c.value] for c in vectors] + (["out"] if store_vec else [])
    if ptrs:   # graph inputs are the caller's buffers: vectors only where every one is aligned
        align = max([V * c.dtype.itemsize for c in vectors] + ([V * out_t.dtype.itemsize] if store_vec else []))
        L.append("  const bool by_aligned = ((" + " | ".join(
            f"(unsigned long long)({p})" for p in dict.fromkeys(ptrs)) + f") & {align - 1}ull) == 0ull;")
    L += _fill(plan, in_args, types, vectors, it)
    regs = _Registers({}, {})
    for k, (te, r) in enumerate(zip(plan.phases, chain.phases)):     # in order: each reads those before
        if r.length is None:
            L += _statistic(plan, te, r, f"by_st{k}", regs, in_args, stored, it)
            regs.stats[r.output] = f"by_st{k}"
            if r.output in out_args:     # its row's element, by one lane
                L.append(f"  if (by_lane == 0) {out_args[r.output]}[by_row] = "
                         f"({stored[r.output].ctype})(by_st{k});")
        else:
            L += _map(plan, te, r, f"by_m{k}", regs, in_args, stored, it, out_args.get(r.output))
            regs.maps[r.output] = f"by_m{k}"
    L += _final(plan, regs, in_args, it, store_vec)
    params = [f"const {types[v].dtype.ctype}* __restrict__ {in_args[v]}" for v in spec.inputs]
    params += [f"{stored[v].ctype}* __restrict__ {out_args[v]}" for v in out_args]
    params.append(f"{out_t.dtype.ctype}* __restrict__ out")
    entry, source = finish_kernel(spec.name + "_regrows", params, L, launch_bounds=(32 * W,))
    kparams = tuple(KernelParam(types[v].dtype.ctype, v, False) for v in spec.inputs)
    kparams += tuple(KernelParam(stored[v].ctype, v, True) for v in out_args)
    kparams += (KernelParam(out_t.dtype.ctype, spec.stages[-1].output, True),)
    shared = 8 * plan.warps_per_row if plan.warps_per_row > 1 else 0     # the warps' partials
    # the spec carries its statistics and resident maps in shared memory (resident_rows' form);
    # here every lane holds them in registers, and its other maps are composed as there
    carried = tuple((v, "register" if v in regs.stats or v in regs.maps else lvl.value) for v, lvl in spec.carried)
    return [Kernel(entry=entry, source=source, params=kparams, grid=(-(-chain.row_count // R), 1, 1),
                   block=(32 * W, 1, 1), shared_bytes=shared, ops=spec.ops, carried=carried,
                   config=(("schedule", NAME), ("rows_per_block", R), ("warps_per_row", plan.warps_per_row),
                           ("row_length", n),
                           ("rows", chain.row_count), ("statistics", len(chain.stats)),
                           ("maps", len(chain.residents())),
                           ("cached", len(plan.cached)), ("lane_columns", S), ("width", V),
                           ("flops", resident_rows.chain_flops(chain))))]


def _column(lanes: int, V: int, slot: str) -> str:
    """The row column of a lane's slot (a C expression)."""
    if V == 1:
        return f"({slot}) * {lanes} + by_lane"
    return f"(({slot}) / {V}) * {lanes * V} + by_lane * {V} + ({slot}) % {V}"


def _fill(plan: RegisterRows, in_args, types, vectors, it) -> list[str]:
    """Each cached value's slots loaded, in its compute type: a lane's run as one vector where its
    operand allows, else element by element."""
    n, V, C = plan.chain.length, plan.width, plan.chunks
    L = [f"  {c.dtype.compute_ctype} {c.name}[{plan.slots}];" for c in plan.cached]
    if not plan.cached:
        return L
    L += ["  #pragma unroll", f"  for (int by_k = 0; by_k < {C}; ++by_k) {{",
          f"    const int by_j0 = by_k * {plan.lanes * V} + by_lane * {V};",
          f"    if (by_j0 < {n}) {{"]
    for c in plan.cached:
        arg, ct = in_args[c.value], c.dtype.ctype
        rend = ExprRenderer([arg], [contiguous_strides(types[c.value].shape)], it)
        ind = "      "
        if c in vectors:
            lines, base = _offset(rend, c.index, Var("by_j0", DType.int64), "        ")
            carrier, load, _ = _vector(V * c.dtype.itemsize)
            L += ["      if (by_aligned) {"] + lines + [
                  f"        const {it} by_base = {base};",
                  f"        const {carrier} by_v = {load.format(p=f'{arg} + by_base')};",
                  f"        const {ct}* const by_e = reinterpret_cast<const {ct}*>(&by_v);",
                  "        #pragma unroll",
                  f"        for (int by_u = 0; by_u < {V}; ++by_u) "
                  f"{c.name}[by_k * {V} + by_u] = ({c.dtype.compute_ctype})by_e[by_u];",
                  "      } else {"]
            ind = "        "
        rend.memo, rend.lines = {}, []
        value = rend.render(Load(0, c.index, c.dtype), f"{ind}  ")
        L += [f"{ind}#pragma unroll", f"{ind}for (int by_u = 0; by_u < {V}; ++by_u) {{",
              f"{ind}  const int by_j = by_j0 + by_u;"] + rend.lines + [
              f"{ind}  {c.name}[by_k * {V} + by_u] = {value};", f"{ind}}}"]
        if c in vectors:
            L.append("      }")
    return L + ["    }", "  }"]


def _offset(rend: ExprRenderer, index: tuple[Expr, ...], column: Var, ind: str) -> tuple[list[str], str]:
    """(statements, C expression) of the element offset of `index` with the column at `column`."""
    rend.memo, rend.lines = {}, []
    terms = []
    for i, s in zip(index, rend.strides[0]):
        text = rend.render(substitute_vars(i, {_J.name: column}), ind)
        terms.append(f"({text})" if s == 1 else f"({text}) * {s}")
    return list(rend.lines), " + ".join(terms) or "0"


@dataclass(frozen=True)
class _Registers:
    """What the phases so far left in registers: statistic -> its variable, resident map -> the
    array of the lane's slots (both by value name)."""

    stats: dict
    maps: dict


def _renderer(plan: RegisterRows, te: TensorExpr, r: Reader, regs: _Registers, in_args, it):
    """A renderer of a canonical phase and its expression with cached loads read from their slot,
    statistics from their registers and resident maps from the lane's slot of them."""
    names = [in_args.get(v, v) for v in r.values]
    strides = [contiguous_strides(t.shape) for t in te.inputs]
    slot_of = {(c.value, c.index): len(names) + k for k, c in enumerate(plan.cached)}
    names += [c.name for c in plan.cached]
    strides += [(1,)] * len(plan.cached)
    map_of = {v: len(names) + k for k, v in enumerate(regs.maps)}
    names += list(regs.maps.values())
    strides += [(1,)] * len(regs.maps)

    def local(ld: Load) -> Expr:
        v = r.values[ld.arg]
        if v in regs.stats:
            return Var(regs.stats[v], DType.float64 if ld.dtype is DType.float64 else DType.float32)
        if v in map_of:      # at the lane's own column (analyse checked)
            return Load(map_of[v], (_SLOT,), ld.dtype)
        k = slot_of.get((v, ld.index))
        return ld if k is None else Load(k, (_SLOT,), ld.dtype)

    body = replace_loads(te.body, local)
    epilogue = None if te.epilogue is None else replace_loads(te.epilogue, local)
    return ExprRenderer(names, strides, it), body, epilogue


def _slot_loop(plan: RegisterRows, ind: str) -> tuple[list[str], list[str], str]:
    """(opening lines, closing lines, the body's indent) of a loop over a lane's slots, by_j the
    slot's column; the body is guarded to the row unless the lanes' runs tile it exactly."""
    n, V = plan.chain.length, plan.width
    head = [f"{ind}#pragma unroll", f"{ind}for (int by_s = 0; by_s < {plan.slots}; ++by_s) {{",
            f"{ind}  const int by_j = {_column(plan.lanes, V, 'by_s')};", f"{ind}  (void)by_j;"]
    if n % (plan.lanes * V) == 0:
        return head, [f"{ind}}}"], ind + "  "
    return head + [f"{ind}  if (by_j < {n}) {{"], [f"{ind}  }}", f"{ind}}}"], ind + "    "


def _map(plan, te, r, name, regs, in_args, stored, it, out_arg: str | None) -> list[str]:
    """A resident map: the lane's slots of it computed into the register array `name`, rounded as
    a store would (and stored at the row's columns where a later kernel reads it too)."""
    rend, body, _ = _renderer(plan, te, r, regs, in_args, it)
    buf = DType.float64 if stored[r.output] is DType.float64 else DType.float32
    L = [f"  {buf.ctype} {name}[{plan.slots}];"]
    head, tail, ind = _slot_loop(plan, "  ")
    rend.memo, rend.lines = {}, []
    v = rend.render(body, ind)
    L += head + rend.lines + [f"{ind}{name}[by_s] = {resident_rows.rounded(v, stored[r.output], buf)};"]
    if out_arg:
        L.append(f"{ind}{out_arg}[by_row * {plan.chain.length} + by_j] = ({stored[r.output].ctype})({name}[by_s]);")
    return L + tail


def _statistic(plan, te, r, name, regs, in_args, stored, it) -> list[str]:
    """The lane's slots reduced, the warp's lanes combined by xor shuffles (every lane gets the
    row's value), the epilogue applied and rounded as a store would: a register `name`."""
    rend, body, epilogue = _renderer(plan, te, r, regs, in_args, it)
    vt = te.body.dtype
    vct = vt.compute_ctype
    buf = DType.float64 if stored[r.output] is DType.float64 else DType.float32
    red = te.reduce
    L = [f"  {buf.ctype} {name};", "  {",
         f"    {vct} acc = {rend.render(reduce_identity(red.op, vt), '    ')};"]
    head, tail, ind = _slot_loop(plan, "    ")
    rend.memo, rend.lines = {}, []
    v = rend.render(body, ind)
    L += head + rend.lines + [f"{ind}acc = {combine(red.op, 'acc', f'({v})')};"] + tail + [
                       "    for (int by_d = 16; by_d > 0; by_d >>= 1) {",
                       f"      const {vct} o = __shfl_xor_sync(0xffffffffu, acc, by_d);",
                       f"      acc = {combine(red.op, 'acc', 'o')};", "    }"]
    wpr = plan.warps_per_row
    if wpr > 1:
        # every thread combines the warps' values in warp order (all agree bit for bit); the
        # second barrier keeps the next statistic from overwriting values still being read
        L += [f"    {vct}* const by_part = reinterpret_cast<{vct}*>(by_smem_raw);",
              "    if ((threadIdx.x & 31) == 0) by_part[threadIdx.x >> 5] = acc;",
              "    __syncthreads();",
              "    acc = by_part[0];",
              f"    for (int by_w = 1; by_w < {wpr}; ++by_w) acc = {combine(red.op, 'acc', 'by_part[by_w]')};",
              "    __syncthreads();"]
    result = ACC
    if epilogue is not None:
        rend.memo, rend.lines = {}, []
        result = rend.render(epilogue, "    ")
        L += rend.lines
    return L + [f"    {name} = {resident_rows.rounded(result, stored[r.output], buf)};", "  }"]


def _final(plan, regs, in_args, it, store_vec: bool) -> list[str]:
    """The final stage: a map written a lane's columns at a time (a run as one vector where the
    output allows), or a statistic written once by lane 0."""
    chain = plan.chain
    f, te = chain.final, plan.final
    out_t = te.output
    oct_ = out_t.dtype.ctype
    strides = contiguous_strides(out_t.shape)
    if te.reduce is not None:       # a statistic written out: its row is the output's index
        stored = {f.output: out_t.dtype}
        L = _statistic(plan, te, f, "by_out", regs, in_args, stored, it)
        off = " + ".join(f"{_row(p).name} * {strides[a]}" for p, a in enumerate(f.row_axes)) or "0"
        return L + [f"  if (by_lane == 0) out[{off}] = ({oct_})(by_out);"]
    index = {a: _row(p).name for p, a in enumerate(f.row_axes)}
    cols = [a for a in range(out_t.rank) if a not in f.row_axes]
    rend, body, _ = _renderer(plan, te, f, regs, in_args, it)      # a map: no epilogue
    L = [f"  {oct_} by_o[{plan.slots}];"]
    head, tail, ind = _slot_loop(plan, "  ")
    v = rend.render(body, ind)
    L += head + rend.lines + [f"{ind}by_o[by_s] = ({oct_})({v});"] + tail
    V, n = plan.width, chain.length
    L += ["  #pragma unroll", f"  for (int by_k = 0; by_k < {plan.chunks}; ++by_k) {{",
          f"    const int by_j0 = by_k * {plan.lanes * V} + by_lane * {V};",
          f"    if (by_j0 < {n}) {{"]
    ind = "      "
    if store_vec:
        row_off = " + ".join(f"{_row(p).name} * {strides[a]}" for p, a in enumerate(f.row_axes)) or "0"
        carrier, _, store = _vector(V * out_t.dtype.itemsize)
        L += [f"{ind}const {it} by_off = {row_off} + by_j0;",
              f"{ind}if (by_aligned) {{",
              f"{ind}  {carrier} by_v;",
              f"{ind}  {oct_}* const by_e = reinterpret_cast<{oct_}*>(&by_v);",
              f"{ind}  #pragma unroll",
              f"{ind}  for (int by_u = 0; by_u < {V}; ++by_u) by_e[by_u] = by_o[by_k * {V} + by_u];",
              f"{ind}  {store.format(p='out + by_off', v='by_v')};",
              f"{ind}}} else {{"]
        L += [f"{ind}  for (int by_u = 0; by_u < {V}; ++by_u) out[by_off + by_u] = by_o[by_k * {V} + by_u];",
              f"{ind}}}"]
    else:
        L += [f"{ind}#pragma unroll", f"{ind}for (int by_u = 0; by_u < {V}; ++by_u) {{",
              f"{ind}  const {it} by_j = by_j0 + by_u;"]
        L += decompose_index(f"{ind}  ", "by_j", [out_t.shape[a] for a in cols], [f"by_i{a}" for a in cols],
                             "by_crem", it)
        index.update({a: f"by_i{a}" for a in cols})
        off = " + ".join(f"{index[a]} * {s}" for a, s in enumerate(strides))
        L += [f"{ind}  out[{off}] = by_o[by_k * {V} + by_u];", f"{ind}}}"]
    return L + ["    }", "  }"]
