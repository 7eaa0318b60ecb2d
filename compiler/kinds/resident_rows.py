"""Kind `resident_rows`: a row chain as one kernel whose blocks own whole rows (Welder's
shared-memory level; AStitch's regional scheme for reductions with broadcasts).

A *row chain* is a multi-stage spec of these roles (ir/spec.py levels say which is which):

- an optional **resident** stage (carried SHARED, stage 0): a contraction or map whose output is
  rows x J (rows = any shape R, J the row length). A block computes its rows of it once into
  shared memory: QK^T for attention, the MatMul of MatMul -> Softmax. No R x J matrix in DRAM;
- **row statistics** (carried SHARED): reductions over one axis of extent J whose output is R (a
  row max, a sum of exponentials, a mean, a variance). A warp per row reduces with shuffles;
  the value stays in shared memory for the stages after it;
- **maps** (carried REGISTER): composed into the stages that read them (ir/compose.py), so an
  element is computed where it is used (exp(s - max) / sum, masks, NaN guards);
- the **final** stage, written to global memory: a map over the rows (softmax's output), a row
  statistic, or a contraction over the row axis (P.V for attention), indexed freely otherwise
  (a transposed output, a reshaped V).

Every stage reads a resident value at (row..., j) and a statistic at (row...), where `row...` are
plain index variables of the reader (which of its output axes are the row's is read off those
loads) and `j` its reduction variable or one of its own output variables: what a block owns is
then exactly what it reads. Anything else declines, with the reason. Rows longer than shared
memory holds decline too (kinds/flash_attention.py takes attention of any row length).

The kernel: a block of THREADS threads owns up to MAX_ROWS_PER_BLOCK consecutive rows. Phase 1
computes the resident tile (thread per element, the contraction's loop inline); phase 2 each row
statistic in order (a warp per row, lanes striding the row, shuffles combining; when the block has
fewer rows than warps, `warps_per_row` warps share a row and one thread combines their partials);
phase 3 the final
stage, threads over (row, column) so that consecutive threads write consecutive columns. Values
are kept in the compute type (float for half types) after rounding to their element type, as a
store and a load would."""
from __future__ import annotations

import math
from dataclasses import dataclass

from ..codegen.block_function import BLOCK_X
from ..codegen.cuda import ExprRenderer, combine, contiguous_strides, decompose_index
from ..codegen.block_function import finish_kernel
from ..ir.compose import NotComposable, compose
from ..ir.dtypes import DType
from ..ir.graph import TensorType
from ..ir.kernel import Kernel, KernelParam
from ..ir.spec import KernelSpec, Level
from ..analysis.dependence import extents_of, loads_of
from ..analysis.views import vars_of
from ..ir.texpr import ACC, FOLD_OPS, Const, Expr, Load, TensorExpr, Var, reduce_identity, replace_loads

NAME = "resident_rows"
TIER = None                 # not tiled by Roller: its block shape follows the rows
THREADS = 256
WARPS = THREADS // 32
MAX_ROWS_PER_BLOCK = 16
SHARED_LIMIT = 48 * 1024    # bytes of shared memory a block may take (no opt-in needed)
BLOCKS_WANTED = 128         # about one block per SM of a large GPU before rows share a block
INDEX = "long long"
_ROW = Var("by_rl")         # a block's local row, the index of shared buffers


@dataclass(frozen=True)
class Reader:
    """A stage as the kernel evaluates it: composed with the maps it reads, and where its rows are."""

    expr: TensorExpr              # inputs: external values and shared values, in `values` order
    values: tuple[str, ...]
    output: str
    row_axes: tuple[int, ...]     # the output axes that index the row (in R's order)


@dataclass(frozen=True)
class RowChain:
    """What `analyse` read from a spec: the rows, the resident stage, the statistics, the final."""

    rows: tuple[int, ...]         # R
    length: int                   # J
    resident: Reader | None
    stats: tuple[Reader, ...]
    final: Reader
    rows_per_block: int

    @property
    def row_count(self) -> int:
        return math.prod(self.rows)

    def shared_values(self) -> tuple[str, ...]:
        res = (self.resident.output,) if self.resident else ()
        return res + tuple(s.output for s in self.stats)


def applies(spec) -> str | None:
    """None when this kind renders `spec`, else why not."""
    if not isinstance(spec, KernelSpec):
        return "not a kernel spec"
    chain = analyse(spec)
    return chain if isinstance(chain, str) else None


def analyse(spec: KernelSpec, fit: bool = True) -> RowChain | str:
    """The spec's row chain, or why it is not one. `fit` False: a chain whose rows do not fit in
    shared memory is still one (kinds/flash_attention.py walks its rows in tiles)."""
    if len(spec.stages) < 2:
        return "one stage"
    if set(spec.written) != {spec.stages[-1].output}:
        return "writes a value other than its last stage's"
    stages = list(spec.stages)
    for st in stages[:-1]:
        lvl = spec.level(st.output)
        if lvl is Level.GLOBAL:
            return f"{st.output} is carried in global memory"
        if lvl is Level.REGISTER and st.expr.reduce is not None:
            return f"{st.output} reduces but is carried in registers"
    maps = {st.output for st in stages[:-1] if spec.level(st.output) is Level.REGISTER}
    shared = [k for k, st in enumerate(stages[:-1]) if spec.level(st.output) is Level.SHARED]
    composed: dict[int, Reader] = {}
    for k in shared + [len(stages) - 1]:
        r = _composed(stages, k, maps)
        if isinstance(r, str):
            return r
        composed[k] = r
    # stage 0 is resident when a later stage reads it along that stage's reduction (S in sum_j S.V)
    first = stages[0].output
    resident = 0 if shared and shared[0] == 0 and any(
        _read_along_reduction(r, first) for k, r in composed.items() if k) else None
    stat_ks = [k for k in shared if k != resident]
    for k in stat_ks:
        te = stages[k].expr
        if te.reduce is None or len(te.reduce.axes) != 1:
            return f"{te.name} is carried in shared memory but is neither the resident rows nor a row statistic"
        if te.reduce.op not in FOLD_OPS or not te.body.dtype.is_float:
            return f"{te.name}: reduction {te.reduce.op} over {te.body.dtype.name}"
    if resident is not None:
        shape = stages[0].expr.output.shape
        rows, length = shape[:-1], shape[-1]
    elif stat_ks:
        e = stages[stat_ks[0]].expr
        rows, length = e.output.shape, e.reduce.extent
    else:
        return "no row values in shared memory"
    for k in stat_ks:
        e = stages[k].expr
        if e.output.shape != rows or e.reduce.extent != length:
            return f"{e.name}: a statistic of shape {e.output.shape} over {e.reduce.extent}, not {rows} over {length}"
    res_value = first if resident is not None else None
    stat_values = {stages[k].output for k in stat_ks}
    checked = {}
    for k, r in composed.items():
        r = _rows_of(r, res_value, stat_values, rows, length)
        if isinstance(r, str):
            return r
        checked[k] = r
    res = checked.get(resident) if resident is not None else None
    if res is not None and set(res.values) & stat_values:
        return "the resident stage reads a row statistic"
    final = checked[len(stages) - 1]
    last = stages[-1].expr
    if last.reduce is not None and last.reduce.op not in FOLD_OPS:   # arg max/min keep an index too
        return f"{last.name}: final reduction {last.reduce.op}"
    if not set(final.values) & (stat_values | ({res_value} if res_value else set())):
        return "the final stage reads no row value"
    acc = 8 if any(stages[k].expr.output.dtype is DType.float64 for k in shared) else 4
    per_row = acc * ((length if resident is not None else 0) + len(stat_ks))
    # rows per block: enough blocks (BLOCKS_WANTED) to spread over the SMs first, then as many rows
    # as allowed, so that what every row reads (K, V) is read by fewer blocks
    want = 1 << max(0, (math.prod(rows) // BLOCKS_WANTED).bit_length() - 1)
    bm = min(want, MAX_ROWS_PER_BLOCK, SHARED_LIMIT // per_row)
    if bm < 1:
        if fit:
            return f"a row of {length} does not fit in shared memory (an online softmax over tiles takes attention)"
        bm = 1
    return RowChain(rows, length, res, tuple(checked[k] for k in stat_ks), final, bm)


def _composed(stages, k: int, maps: set[str]) -> Reader | str:
    """Stage k composed with the register maps it reads (transitively)."""
    producer = {st.output: j for j, st in enumerate(stages)}
    need, todo = {k}, [k]
    while todo:
        j = todo.pop()
        for v in stages[j].inputs:
            if v in maps and producer[v] not in need:
                need.add(producer[v])
                todo.append(producer[v])
    part = [stages[j] for j in sorted(need)]
    try:
        te, values = compose(part, {st.output for st in part[:-1]})
    except NotComposable as e:
        return f"{stages[k].expr.name}: {e}"
    return Reader(te, values, stages[k].output, ())


def _read_along_reduction(r: Reader, value: str) -> bool:
    if r.expr.reduce is None or value not in r.values:
        return False
    red = {a for a, _ in r.expr.reduce.axes}
    return any(e.index and isinstance(e.index[-1], Var) and e.index[-1].name in red
               for a, v in enumerate(r.values) if v == value for e in loads_of(r.expr, a))


def _rows_of(r: Reader, res_value: str | None, stat_values: set[str], rows, length) -> Reader | str:
    """`r` with its row axes found from its loads of shared values, or why they do not say."""
    te = r.expr
    out_names = [f"i{d}" for d in range(te.output.rank)]
    found: set[tuple[int, ...]] = set()
    for e in (e for a, v in enumerate(r.values) if v in stat_values or v == res_value for e in loads_of(te, a)):
        value = r.values[e.arg]
        row_index = e.index if value in stat_values else e.index[:-1]
        if not all(isinstance(i, Var) and i.name in out_names for i in row_index) or \
                len({i.name for i in row_index}) != len(row_index):
            return f"{te.name} reads {value} at an index that is not its own output's"
        axes = tuple(out_names.index(i.name) for i in row_index)
        if tuple(te.output.shape[a] for a in axes) != rows:
            return f"{te.name} reads {value} over rows of another shape"
        if value == res_value and not _along_row(e.index[-1], te, axes, length):
            return f"{te.name} reads {value} along its row at {e.index[-1]}"
        found.add(axes)
    if r.output in stat_values:     # its rows are its output, in order (phase 2 decomposes them so)
        own = tuple(range(te.output.rank))
        if found - {own}:
            return f"{te.name} reads a row value at rows permuted"
        return Reader(te, r.values, r.output, own)
    if r.output == res_value:
        return Reader(te, r.values, r.output, ())
    if len(found) != 1:
        return f"{te.name} reads its rows at {len(found)} different indices"
    return Reader(te, r.values, r.output, found.pop())


def _along_row(j: Expr, te: TensorExpr, row_axes: tuple[int, ...], length: int) -> bool:
    """Whether a resident load's last index walks the row: the reader's reduction variable over
    the row's length, one of its own non-row output variables of that extent, or 0 when J is 1."""
    if isinstance(j, Const):
        return j.value == 0 and length == 1
    if not isinstance(j, Var):
        return False
    if te.reduce is not None and j.name in dict(te.reduce.axes):
        return dict(te.reduce.axes)[j.name] == length
    axis = int(j.name[1:]) if j.name.startswith("i") and j.name[1:].isdigit() else -1
    return 0 <= axis < te.output.rank and axis not in row_axes and te.output.shape[axis] == length


def render(spec: KernelSpec, target=None) -> list[Kernel]:
    chain = analyse(spec)
    if isinstance(chain, str):
        raise ValueError(f"spec {spec.name}: {NAME} does not apply: {chain}")
    ext = spec.inputs
    types: dict[str, TensorType] = {}
    for st in spec.stages:
        for v, t in zip(st.inputs, st.expr.inputs):
            types.setdefault(v, t)
    in_args = {v: f"in{j}" for j, v in enumerate(ext)}
    bm, J, nrows = chain.rows_per_block, chain.length, chain.row_count
    stored = {st.output: st.expr.output.dtype for st in spec.stages}
    buf_type = {v: (DType.float64 if stored[v] is DType.float64 else DType.float32) for v in chain.shared_values()}
    names = {}
    L = ["  BY_SHARED_BUFFER(by_smem_raw);"]
    offset = 0
    for v in chain.shared_values():
        name = "by_res" if chain.resident and v == chain.resident.output else f"by_st{len(names)}"
        names[v] = name
        count = bm * J if name == "by_res" else bm
        ct = buf_type[v].ctype
        L.append(f"  {ct}* const {name} = reinterpret_cast<{ct}*>(by_smem_raw + {offset});")
        offset += count * buf_type[v].itemsize
        offset = -(-offset // 16) * 16
    L += [f"  const {INDEX} by_row0 = ({INDEX}){BLOCK_X} * {bm};",
          "  const int by_lane = threadIdx.x & 31, by_warp = threadIdx.x >> 5;",
          "  (void)by_lane; (void)by_warp;"]

    if chain.resident is not None:
        r = chain.resident
        rend = _renderer(r, names, in_args, buf_type, J, bm)
        L += [f"  for ({INDEX} by_lin = threadIdx.x; by_lin < {bm * J}; by_lin += {THREADS}) {{",
              f"    const {INDEX} by_rl = by_lin / {J};",
              f"    const {INDEX} by_row = by_row0 + by_rl;",
              f"    if (by_row >= {nrows}) break;"]
        L += decompose_index("    ", "by_row", chain.rows, [f"i{a}" for a in range(len(chain.rows))], "by_rrem", INDEX)
        L.append(f"    const {INDEX} i{len(chain.rows)} = by_lin % {J};")
        body, result = _value(rend, "    ")
        L += body + [f"    by_res[by_lin] = {_rounded(result, stored[r.output], buf_type[r.output])};", "  }",
                     "  __syncthreads();"]

    wpr = warps_per_row(chain)
    row_vars = [f"i{a}" for a in range(len(chain.rows))]
    for s in chain.stats:
        rend = _renderer(s, names, in_args, buf_type, J, bm)
        L += [f"  for ({INDEX} by_rl = by_warp / {wpr}; by_rl < {bm}; by_rl += {WARPS // wpr}) {{",
              f"    const {INDEX} by_row = by_row0 + by_rl;",
              f"    if (by_row >= {nrows}) break;"]
        L += decompose_index("    ", "by_row", chain.rows, row_vars, "by_rrem", INDEX)
        if wpr == 1:
            body, result = _value(rend, "    ", lanes=("by_lane", 32))
            L += body + [f"    if (by_lane == 0) {names[s.output]}[by_rl] = "
                         f"{_rounded(result, stored[s.output], buf_type[s.output])};",
                         "  }", "  __syncthreads();"]
            continue
        # several warps share a row: each leaves its partial in shared memory, then one thread per
        # row combines them in warp order (the same order every run) and applies the epilogue
        vct = s.expr.body.dtype.compute_ctype
        body, _ = _value(rend, "    ", lanes=(f"by_lane + 32 * (by_warp % {wpr})", 32 * wpr), epilogue=False)
        L += [f"    {vct}* const by_part = reinterpret_cast<{vct}*>(by_smem_raw + {offset});"]
        L += body + [f"    if (by_lane == 0) by_part[by_rl * {wpr} + by_warp % {wpr}] = acc;", "  }",
                     "  __syncthreads();",
                     f"  for ({INDEX} by_rl = threadIdx.x; by_rl < {bm}; by_rl += {THREADS}) {{",
                     f"    const {INDEX} by_row = by_row0 + by_rl;",
                     f"    if (by_row >= {nrows}) break;",
                     f"    const {vct}* const by_part = reinterpret_cast<const {vct}*>(by_smem_raw + {offset});"]
        L += decompose_index("    ", "by_row", chain.rows, row_vars, "by_rrem", INDEX)
        L += [f"    {vct} acc = by_part[by_rl * {wpr}];",
              f"    for (int by_w = 1; by_w < {wpr}; ++by_w) acc = {combine(s.expr.reduce.op, 'acc', f'by_part[by_rl * {wpr} + by_w]')};"]
        body, result = _epilogue(rend, "    ")
        L += body + [f"    {names[s.output]}[by_rl] = {_rounded(result, stored[s.output], buf_type[s.output])};",
                     "  }", "  __syncthreads();"]
    if wpr > 1:   # the partials' scratch, after the buffers
        offset += bm * wpr * 8

    f = chain.final
    te = f.expr
    cols = [a for a in range(te.output.rank) if a not in f.row_axes]
    ncols = math.prod(te.output.shape[a] for a in cols)
    rend = _renderer(f, names, in_args, buf_type, J, bm)
    L += [f"  for ({INDEX} by_lin = threadIdx.x; by_lin < {bm * ncols}; by_lin += {THREADS}) {{",
          f"    const {INDEX} by_rl = by_lin / {ncols};",
          f"    const {INDEX} by_row = by_row0 + by_rl;",
          f"    if (by_row >= {nrows}) break;"]
    L += decompose_index("    ", "by_row", chain.rows, [f"i{a}" for a in f.row_axes], "by_rrem", INDEX)
    L += decompose_index("    ", f"(by_lin % {ncols})", tuple(te.output.shape[a] for a in cols),
                         [f"i{a}" for a in cols], "by_crem", INDEX)
    body, result = _value(rend, "    ")
    out_t = te.output
    strides = contiguous_strides(out_t.shape)
    off = " + ".join(f"i{a} * {s}" for a, s in enumerate(strides)) or "0"
    L += body + [f"    out[{off}] = ({out_t.dtype.ctype})({result});", "  }"]

    params = [f"const {types[v].dtype.ctype}* __restrict__ {in_args[v]}" for v in ext]
    params.append(f"{out_t.dtype.ctype}* __restrict__ out")
    entry, source = finish_kernel(spec.name + "_rows", params, L, launch_bounds=(THREADS,))
    kparams = tuple(KernelParam(types[v].dtype.ctype, v, False) for v in ext)
    kparams += (KernelParam(out_t.dtype.ctype, spec.stages[-1].output, True),)
    grid = math.ceil(nrows / bm)
    return [Kernel(entry=entry, source=source, params=kparams, grid=(grid, 1, 1), block=(THREADS, 1, 1),
                   shared_bytes=offset, ops=spec.ops,
                   config=(("schedule", NAME), ("rows_per_block", bm), ("row_length", J), ("rows", nrows),
                           ("resident", chain.resident is not None), ("statistics", len(chain.stats)),
                           ("warps_per_row", wpr),
                           ("flops", chain_flops(chain))))]


def chain_flops(chain: RowChain) -> int:
    """Two per multiply-add (or element) of every stage as the kernel computes it, each once."""
    def of(r: Reader, count: int) -> int:
        return 2 * count * (r.expr.reduce.extent if r.expr.reduce else 1)
    n = chain.row_count
    total = of(chain.resident, n * chain.length) if chain.resident else 0
    total += sum(of(s, n) for s in chain.stats)
    return total + of(chain.final, chain.final.expr.output.size)


def block_reads(chain: RowChain) -> int:
    """Bytes one block reads of the values outside the kernel: the part of a row-indexed input its
    rows own, and all of what every row reads (a weight, a head's K and V). The grid reads blocks
    times this through L2: the price of computing a product without Roller's tiles, which is what
    makes a wide GEMM -> GEMM chain decline."""
    readers = [(chain.resident, tuple(range(len(chain.rows))))] if chain.resident else []
    readers += [(s, s.row_axes) for s in chain.stats] + [(chain.final, chain.final.row_axes)]
    shared = set(chain.shared_values())
    footprint: dict[str, int] = {}
    for r, row_axes in readers:
        te = r.expr
        ext = extents_of(te)
        row_var = {f"i{a}": p for p, a in enumerate(row_axes)}
        for a, v in enumerate(r.values):
            if v in shared:
                continue
            t = te.inputs[a]
            for ld in loads_of(te, a):
                used = set().union(*(vars_of(i) for i in ld.index)) if ld.index else set()
                rows = sorted(row_var[u] for u in used if u in row_var)
                elems = math.prod(ext[u] for u in used if u not in row_var)
                if rows:     # distinct row positions a block's consecutive rows span, on the axes read
                    inner = math.prod(chain.rows[rows[-1] + 1:])
                    elems *= min(math.prod(chain.rows[p] for p in rows), -(-chain.rows_per_block // inner))
                footprint[v] = max(footprint.get(v, 0), min(t.nbytes, elems * t.dtype.itemsize))
    return sum(footprint.values())


def _renderer(r: Reader, names: dict, in_args: dict, buf_type: dict, J: int, bm: int) -> "_Renderer":
    """A renderer of r's expression whose shared values read the block's buffers at its local row."""
    te = r.expr
    arg_names, strides, inputs = [], [], list(te.inputs)
    for a, v in enumerate(r.values):
        if v in names:
            arg_names.append(names[v])
            resident = names[v] == "by_res"
            strides.append((J, 1) if resident else (1,))
            inputs[a] = TensorType(buf_type[v], (bm, J) if resident else (bm,))
        else:
            arg_names.append(in_args[v])
            strides.append(contiguous_strides(te.inputs[a].shape))

    def local(ld: Load) -> Expr:
        if r.values[ld.arg] not in names:
            return ld
        idx = (_ROW, ld.index[-1]) if names[r.values[ld.arg]] == "by_res" else (_ROW,)
        return Load(ld.arg, idx, ld.dtype)

    body = replace_loads(te.body, local)
    epilogue = None if te.epilogue is None else replace_loads(te.epilogue, local)
    return _Renderer(te.replace(inputs=tuple(inputs), body=body, epilogue=epilogue), arg_names, strides)


class _Renderer(ExprRenderer):
    """An expression renderer that keeps the expression it renders (shared values read locally)."""

    def __init__(self, expr: TensorExpr, arg_names: list[str], strides: list):
        super().__init__(arg_names, strides, INDEX)
        self.expr = expr


def warps_per_row(chain: RowChain) -> int:
    """Warps that reduce one row's statistics together: the block's warps left idle by its rows
    (a power of two), as long as each lane still gets at least two elements (AStitch's adaptive
    mapping: many short rows a warp each, few long rows a block's worth of warps each)."""
    if not chain.stats:
        return 1
    spare = WARPS // chain.rows_per_block
    useful = -(-chain.length // 64)
    return 1 << (max(1, min(spare, useful)).bit_length() - 1)


def _epilogue(rend: "_Renderer", ind: str) -> tuple[list[str], str]:
    """Statements computing the renderer's reduction epilogue from `acc` in scope, and its C result."""
    te = rend.expr
    if te.epilogue is None:
        return [], ACC
    rend.memo, rend.lines = {}, []
    v = rend.render(te.epilogue, ind)
    return list(rend.lines), v


def _value(rend: "_Renderer", ind: str, *, lanes: tuple[str, int] | None = None,
           epilogue: bool = True) -> tuple[list[str], str]:
    """Statements computing the renderer's expression at the index in scope, and its C result.
    A reduction loops serially, or (lanes: the first index and the stride of this lane) over
    lanes and combines the warp's by shuffles; `epilogue` False leaves `acc` the warp's value."""
    te = rend.expr
    rend.memo, rend.lines = {}, []
    if te.reduce is None:
        v = rend.render(te.body, ind)
        return list(rend.lines), v
    red = te.reduce
    vt = te.body.dtype
    vct = vt.compute_ctype
    # lanes past the row's end hold the identity, so the shuffles may combine every lane
    L = [f"{ind}{vct} acc = {rend.render(reduce_identity(red.op, vt), ind)};"]
    inner = ind
    for k, (name, extent) in enumerate(red.axes):
        start, step = lanes if (lanes is not None and k == 0) else ("0", "1")
        L.append(f"{inner}for ({INDEX} {name} = {start}; {name} < {extent}; {name} += {step}) {{")
        inner += "  "
    rend.memo, rend.lines = {}, []
    v = rend.render(te.body, inner)
    L += rend.lines + [f"{inner}const {vct} v = {v};", f"{inner}acc = {combine(red.op, 'acc', 'v')};"]
    for _ in red.axes:
        inner = inner[:-2]
        L.append(f"{inner}}}")
    if lanes is not None:
        L += [f"{ind}for (int by_d = 16; by_d > 0; by_d >>= 1) {{",
              f"{ind}  const {vct} o = __shfl_xor_sync(0xffffffffu, acc, by_d);",
              f"{ind}  acc = {combine(red.op, 'acc', 'o')};",
              f"{ind}}}"]
    if not epilogue:
        return L, ACC
    more, v = _epilogue(rend, ind)
    return L + more, v


def _rounded(value: str, stored: DType, buf: DType) -> str:
    """`value` rounded to the stored element type, kept in the buffer's type."""
    if stored.ctype == buf.ctype:
        return f"({buf.ctype})({value})"
    return f"({buf.ctype})(({stored.ctype})({value}))"
