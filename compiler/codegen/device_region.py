"""Grinder's persistent kernel (issue 15; Cocktailer, OSDI'23): a whole If, Loop or Scan region,
nested regions included, as one cooperative kernel whose block functions run between grid
barriers. The trip count, the loop condition and the branch predicate are read on the device, so
a region costs one launch and no host round trip, however many iterations it runs.

    one step of a body     every block runs the step's block function over the step's virtual
                           blocks (block b takes b, b + grid, ...), then by_grid_sync()
    an alias               no code: the alias names its source's buffer
    Loop                   carried values copied into the body's inputs; while (it < trip && cond):
                           the body, then the carried outputs copied back into the inputs, the scan
                           outputs into row `it` of their buffers, the iteration number and the
                           condition into the body's first two inputs
    Scan                   the same, with slice `it` of every scan input gathered into the body's
                           input and the scan outputs scattered at `it` along their axes
    If                     every thread reads the predicate; the chosen branch runs and its
                           outputs are copied into the If's

Control flow stays uniform: every decision reads memory the last grid barrier made visible to
all blocks, so every thread meets every barrier. Where a body writes an input of the next
iteration that another copy still reads (a carried value passed through to another slot, a scan
output that is a body input) the copy goes through staging buffers with a barrier between.

Every value of the region's bodies becomes a value of the enclosing plan (its name prefixed, so
the arena holds it) and a parameter of the kernel; constants of the bodies are lifted with them.
Bodies keep their block shapes: the kernel's block is the widest body's, and a narrower body runs
as sub-blocks side by side (sub_blocks: a 64-thread body runs 8 of its blocks in a 512-thread
block), each sub-block with its own thread index and blockDim, its __syncthreads() a barrier of
its own threads (by_part_sync on hardware barrier 1 + j) and its own slice of shared memory."""
from __future__ import annotations

import math
import re
from collections import ChainMap
from dataclasses import dataclass

from ..ir.graph import Constant, TensorType
from ..ir.kernel import Kernel, KernelParam
from ..ir.plan import AliasStep, IfStep, LaunchStep, LoopStep, Plan, ScanStep
from .block_function import BLOCK_X, GRID_X, arrivals_array, definitions, finish_kernel, narrowed_source, split_wrapper
from .cuda import c_const
from .naming import NAME_PLACEHOLDER

_PLACEHOLDER = re.compile(r"@(\d+):([^@]+)@")
_THREAD_X = re.compile(r"\bthreadIdx\.x\b")
_SHARED_DECL = re.compile(r"\bBY_SHARED_BUFFER\((\w+)\);")
_MEMBER_SYNC = re.compile(r"\bby_part_sync\(1u, ")
MAX_SUB_BLOCKS = 15          # hardware barriers 1..15, one per sub-block (0 is __syncthreads')
SHARED_ALIGN = 128


def _slice_bytes(k: Kernel) -> int:
    """A sub-block's slice of shared memory: k's own, aligned."""
    return -(-k.shared_bytes // SHARED_ALIGN) * SHARED_ALIGN


def sub_blocks(k: Kernel, threads: int, shared_limit: int) -> int:
    """How many of k's blocks one persistent block of `threads` threads runs side by side: as many
    as its threads hold, one per hardware barrier, within `shared_limit` bytes of shared memory."""
    if k.threads >= threads:
        return 1
    per = _slice_bytes(k)
    # a co-launch whose narrower members meet on a barrier of their own (co_launch.narrowed: 1)
    # needs a second one per sub-block
    most = MAX_SUB_BLOCKS // 2 if _MEMBER_SYNC.search(k.source) else MAX_SUB_BLOCKS
    return max(1, min(threads // k.threads, most, shared_limit // per if per else most))


def region_threads(kernels: list[Kernel]) -> int:
    """The persistent block: the widest body's threads."""
    return max([k.threads for k in kernels] + [32])


def region_shared(kernels: list[Kernel], threads: int, shared_limit: int) -> int:
    """The persistent block's shared memory: the most any body takes, a narrower one's slices
    for all its sub-blocks."""
    return max([k.shared_bytes if k.threads >= threads else sub_blocks(k, threads, shared_limit) * _slice_bytes(k)
                for k in kernels] + [0])


@dataclass(frozen=True)
class RegionKernel:
    """A region as one launch: the kernel, and the values it adds to the enclosing plan."""

    kernel: Kernel
    types: tuple[tuple[str, TensorType], ...]       # the bodies' values under their new names
    constants: tuple[tuple[str, Constant], ...]     # the bodies' constants, lifted


def body_kernels(region) -> list[Kernel]:
    """Every kernel a region's bodies launch, nested regions included."""
    return [k for body in region.bodies for k in body.kernels()]


def render_region(region: IfStep | LoopStep | ScanStep, types: dict[str, TensorType], *, grid: int,
                  blocks_per_sm: int, shared_limit: int, taken: set[str]) -> RegionKernel:
    """The persistent kernel of `region` (a step of a plan whose value types are `types`), on
    `grid` blocks of the widest body's threads, narrower bodies packed within `shared_limit` bytes
    (sub_blocks); new value names avoid `taken` (and join it)."""
    return _Emitter(types, taken, shared_limit).kernel(region, grid, blocks_per_sm)


class _Emitter:
    def __init__(self, types: dict[str, TensorType], taken: set[str], shared_limit: int):
        self.shared_limit = shared_limit
        self.outer_types = types
        self.types: dict[str, TensorType] = {}       # the new values
        self.constants: dict[str, Constant] = {}
        self.taken = taken
        self.alias: dict[str, str] = {}
        self.slots: dict[str, int] = {}               # buffer (root value) -> parameter index
        self.written: set[str] = set()
        self.helpers: dict[str, None] = {}
        self.states: list[str] = []      # arrival counters, one array per step that counts them
        self.lines: list[str] = []
        self.regions = 0
        self.threads = 0
        self.grid = 0            # the persistent kernel's blocks (kernel() sets both)

    # --- names and buffers -------------------------------------------------------------------
    def fresh(self, name: str) -> str:
        new, k = name, 1
        while new in self.taken:
            new, k = f"{name}~{k}", k + 1
        self.taken.add(new)
        return new

    def type_of(self, v: str) -> TensorType:
        return self.types[v] if v in self.types else self.outer_types[v]

    def root(self, v: str) -> str:
        while v in self.alias:
            v = self.alias[v]
        return v

    def ptr(self, v: str, *, write: bool = False) -> str:
        """A pointer expression to value v's elements, of v's own element type."""
        r = self.root(v)
        if r not in self.slots:
            self.slots[r] = len(self.slots)
        if write:
            self.written.add(r)
        # a placeholder until the code is done: only then is it known whether the buffer is
        # written anywhere (a const parameter otherwise, as the runtimes bind it)
        return f"@{self.slots[r]}:{self.type_of(v).dtype.ctype}@"

    def resolve(self, text: str, order: list[str]) -> str:
        def one(m: re.Match) -> str:
            v = order[int(m[1])]
            const = "" if v in self.written else "const "
            return f"p{m[1]}" if m[2] == self.type_of(v).dtype.ctype else f"reinterpret_cast<{const}{m[2]}*>(p{m[1]})"
        return _PLACEHOLDER.sub(one, text)

    def enter(self, body: Plan, label: str, scope: ChainMap) -> ChainMap:
        """The scope of a body: its own values under fresh names (types and constants recorded)."""
        own = {n for n, _ in body.types} | set(body.inputs) | {n for n, _ in body.constants}
        own -= set(body.outer)
        local = {n: self.fresh(f"{label}::{n}") for n in sorted(own)}
        btypes = dict(body.types)
        for n, c in body.constants:
            self.constants[local[n]] = c
            btypes.setdefault(n, TensorType(c.dtype, c.shape))
        for n, new in local.items():
            self.types[new] = btypes[n]
        return scope.new_child(local)

    # --- code ----------------------------------------------------------------------------------
    def emit(self, line: str, depth: int) -> None:
        self.lines.append("  " * depth + line)

    def copy(self, dst: str, src: str, depth: int, *, dst_at: str = "by_i", src_at: str = "by_i") -> None:
        # a gather (slice of src) or a scatter (src into a slice) moves the smaller one's elements
        n = min(self.type_of(dst).size, self.type_of(src).size)
        d, s = self.ptr(dst, write=True), self.ptr(src)
        self.emit(f"for (unsigned long long by_i = by_tid; by_i < {n}ull; by_i += by_nthreads) "
                  f"{d}[{dst_at}] = {s}[{src_at}];", depth)

    def steps(self, plan: Plan, scope: ChainMap, depth: int) -> None:
        for s in plan.steps:
            if isinstance(s, LaunchStep):
                self.launch(s.kernel, scope, depth)
            elif isinstance(s, AliasStep):
                self.alias[scope.get(s.dst, s.dst)] = scope.get(s.src, s.src)
            elif isinstance(s, IfStep):
                self.if_region(s, scope, depth)
            elif isinstance(s, LoopStep):
                self.loop_region(s, scope, depth)
            elif isinstance(s, ScanStep):
                self.scan_region(s, scope, depth)
            else:
                raise ValueError(f"a device region cannot hold a {type(s).__name__}")

    def launch(self, k: Kernel, scope: ChainMap, depth: int) -> None:
        source, _ = split_wrapper(k.source, k.entry)
        source = source.replace("__restrict__", "")   # one body's output is the next one's input
        n = k.threads
        subs = sub_blocks(k, self.threads, self.shared_limit)
        body = k.body
        if n < self.threads:
            # sub-block j of the block (threads j*n ...) runs the body as a block of its own: its
            # thread index, its size, its barrier (1 + j) and its slice of shared memory
            per = _slice_bytes(k)
            sliced = _SHARED_DECL.search(source) is not None
            source = _THREAD_X.sub(f"(threadIdx.x % {n}u)", source)
            # a narrower co-launch member's barrier (1) becomes sub-block j's second one, 1 + subs + j:
            # on 1 + j the member's threads would meet the sub-block's others, which left it for
            # the barrier between virtual blocks, and on 1 the other sub-blocks' members
            source = _MEMBER_SYNC.sub(f"by_part_sync({1 + subs}u + threadIdx.x / {n}u, ", source)
            source = narrowed_source(source, n, f"1u + threadIdx.x / {n}u")
            source = _SHARED_DECL.sub(lambda m: f"BY_SHARED_BUFFER({m[1]}_all); unsigned char* const {m[1]} = "
                                      f"{m[1]}_all + (threadIdx.x / {n}u) * {per}u;", source)
        # called, not inlined: a body a loop calls at several steps (every layer of a stacked
        # recurrence) is compiled once, and NVRTC's time stays that of the bodies apart
        # (a co-launch's member bodies too: the same body may be a co-launch member at one step
        # and launched on its own at another, and must be defined once, the same way)
        source = _BODY_DEF.sub(r"BY_DEVICE_CALLED void \1(", source)
        if n < self.threads:
            # the rewritten functions are this width's (and slice's) own: the same body may run at
            # another width elsewhere in the region (a member of co-launches of two widths)
            suffix = f"_s{n}" + (f"x{per}" if sliced else "")
            source, body = _renamed_functions(source, suffix), body + suffix
        for chunk in definitions(source):
            self.helpers[chunk] = None
        args = [self.ptr(scope.get(p.value, p.value), write=p.output) for p in k.params]
        gx, gy, gz = k.grid
        at = f"by_v, dim3({gx}, {gy}, {gz})"
        if k.arrivals:     # this step's own counters (a body may run at several steps)
            decl, state = arrivals_array(f"{NAME_PLACEHOLDER}_s{len(self.states)}", k.arrivals)
            self.states.append(decl)
            at += f", {state}"
        first = "by_b" if subs == 1 else f"by_b * {subs}u + by_t / {n}u"
        step = "by_g" if subs == 1 else f"by_g * {subs}u"
        run = f"{body}({', '.join(args)}, by_block_at({at}));"
        if _uses_shared(k) and k.blocks > self.grid * subs:
            # a block running several virtual blocks one after another reuses their shared memory:
            # its threads meet before the next one writes it (a thread may leave a body early, or
            # still read the tile another is about to overwrite)
            sync = "__syncthreads();" if n == self.threads else f"by_part_sync(1u + threadIdx.x / {n}u, {n}u);"
            run = f"{{ {run} {sync} }}"
        call = f"for (unsigned int by_v = {first}; by_v < {k.blocks}u; by_v += {step}) {run}"
        self.emit(call if n == self.threads else f"if (by_t < {subs * n}u) {{ {call} }}", depth)
        self.emit("by_grid_sync();", depth)

    def if_region(self, s: IfStep, scope: ChainMap, depth: int) -> None:
        r = self.regions = self.regions + 1
        cond = self.ptr(scope.get(s.cond, s.cond))
        self.emit(f"if ({cond}[0]) {{  // If {s.node}: then", depth)
        for k, (branch, label) in enumerate(((s.then_plan, "then"), (s.else_plan, "else"))):
            inner = self.enter(branch, f"{s.node or 'if'}#{r}/{label}", scope)
            self.steps(branch, inner, depth + 1)
            pairs = [(scope.get(o, o), inner.get(b, b)) for o, b in zip(s.outputs, branch.outputs) if o]
            for dst, src in pairs:
                self.copy(dst, src, depth + 1)
            if pairs:
                self.emit("by_grid_sync();", depth + 1)
            if k == 0:
                self.emit("} else {", depth)
        self.emit("}", depth)

    def loop_region(self, s: LoopStep, scope: ChainMap, depth: int) -> None:
        r = self.regions = self.regions + 1
        body = s.body
        inner = self.enter(body, f"{s.node or 'loop'}#{r}", scope)
        ins = [inner[n] for n in body.inputs]               # iteration, condition, carried...
        outs = [inner.get(n, scope.get(n, n)) for n in body.outputs]   # condition, carried..., scans...
        n_car = len(s.carried_in)
        it, go = f"by_it{r}", f"by_go{r}"
        trip = f"{self.ptr(scope.get(s.trip_count, s.trip_count))}[0]" if s.trip_count else "9223372036854775807ll"
        cond = f"({self.ptr(scope.get(s.cond, s.cond))}[0] != 0)" if s.cond else "true"
        self.emit(f"{{  // Loop {s.node}", depth)
        d = depth + 1
        self.emit(f"const long long by_trip{r} = {trip};", d)
        self.emit(f"bool {go} = {cond};", d)
        for k, v in enumerate(s.carried_in):
            self.copy(ins[2 + k], scope.get(v, v), d)
        self.emit(f"if (by_b == 0u && by_t == 0u) {{ {self.ptr(ins[0], write=True)}[0] = 0; "
                  f"{self.ptr(ins[1], write=True)}[0] = {go}; }}", d)
        self.emit("by_grid_sync();", d)
        # a bounded Loop (scan outputs sized to max_trips) stops there; the count it ran, or -1 when
        # it would have run on, goes to its iterations value and trims the outputs on return
        if s.max_trips:   # the count outlives the loop
            self.emit(f"long long {it} = 0;", d)
            self.emit(f"for (; {it} < by_trip{r} && {go} && {it} < {s.max_trips}ll; ++{it}) {{", d)
        else:
            self.emit(f"for (long long {it} = 0; {it} < by_trip{r} && {go}; ++{it}) {{", d)
        self.steps(body, inner, d + 1)
        self.emit(f"{go} = ({self.ptr(outs[0])}[0] != 0);", d + 1)
        carried = [(ins[2 + k], outs[1 + k]) for k in range(n_car) if self.root(ins[2 + k]) != self.root(outs[1 + k])]
        scans = []
        for k, o in enumerate(s.outputs[n_car:]):
            if o:
                src = outs[1 + n_car + k]
                n = self.type_of(src).size
                scans.append((scope.get(o, o), src, f"{it} * {n}ll + by_i", "by_i"))
        writes_cond = self.root(outs[0]) != self.root(ins[1])
        self.next_iteration(carried, scans, [],
                            reads=[outs[0]], written=[ins[0]] + ([ins[1]] if writes_cond else []), label=f"loop#{r}",
                            depth=d + 1, scalars=f"if (by_b == 0u && by_t == 0u) {{ {self.ptr(ins[0])}[0] = {it} + 1; "
                            + (f"{self.ptr(ins[1])}[0] = {go}; " if writes_cond else "") + "}")
        self.emit("}", d)
        if s.max_trips:   # the rows past the iterations that ran are zeros, as on the host (valid indices)
            for k, o in enumerate(s.outputs[n_car:]):
                if o:
                    dst = scope.get(o, o)
                    n = self.type_of(outs[1 + n_car + k]).size
                    zero = c_const(0, self.type_of(dst).dtype)
                    self.emit(f"for (unsigned long long by_i = by_tid + (unsigned long long)({it}) * {n}ull; "
                              f"by_i < {s.max_trips * n}ull; by_i += by_nthreads) {self.ptr(dst, write=True)}[by_i] = {zero};", d)
            self.emit("by_grid_sync();", d)
        if s.iterations:
            count = self.ptr(scope.get(s.iterations, s.iterations), write=True)
            self.emit(f"if (by_b == 0u && by_t == 0u) {count}[0] = ({go} && {it} < by_trip{r}) ? -1ll : {it};", d)
        finals = [(scope.get(o, o), ins[2 + k]) for k, o in enumerate(s.outputs[:n_car]) if o]
        for dst, src in finals:
            self.copy(dst, src, d)
        if finals:
            self.emit("by_grid_sync();", d)
        self.emit("}", depth)

    def scan_region(self, s: ScanStep, scope: ChainMap, depth: int) -> None:
        r = self.regions = self.regions + 1
        body = s.body
        inner = self.enter(body, f"{s.node or 'scan'}#{r}", scope)
        ins = [inner[n] for n in body.inputs]               # states..., slices...
        outs = [inner.get(n, scope.get(n, n)) for n in body.outputs]   # states..., scan outputs...
        ns = s.n_state
        it = f"by_it{r}"
        sources = [scope.get(v, v) for v in s.scan_in]
        length = _axis_extent(self.type_of(sources[0]), s.scan_input_axes[0])

        def gathers(at: str) -> list[tuple[str, str, str, str]]:
            out = []
            for k, src in enumerate(sources):
                t = self.type_of(src)
                ax = s.scan_input_axes[k] % t.rank
                inner_n = math.prod(t.shape[ax + 1:])
                row = f"({length - 1}ll - ({at}))" if s.scan_input_reverse[k] else f"({at})"
                out.append((ins[ns + k], src, "by_i",
                            f"(by_i / {inner_n}ull) * {length * inner_n}ull + {row} * {inner_n}ll + by_i % {inner_n}ull"))
            return out

        self.emit(f"{{  // Scan {s.node}", depth)
        d = depth + 1
        for k, v in enumerate(s.state_in):
            self.copy(ins[k], scope.get(v, v), d)
        for dst, src, dst_at, src_at in gathers("0"):
            self.copy(dst, src, d, dst_at=dst_at, src_at=src_at)
        self.emit("by_grid_sync();", d)
        self.emit(f"for (long long {it} = 0; {it} < {length}ll; ++{it}) {{", d)
        self.steps(body, inner, d + 1)
        states = [(ins[k], outs[k]) for k in range(ns) if self.root(ins[k]) != self.root(outs[k])]
        scans = []
        for k, o in enumerate(s.outputs[ns:]):
            if not o:
                continue
            dst = scope.get(o, o)
            t = self.type_of(dst)
            ax = s.scan_output_axes[k] % t.rank
            inner_n = math.prod(t.shape[ax + 1:])
            row = f"({length - 1}ll - {it})" if s.scan_output_reverse[k] else it
            scans.append((dst, outs[ns + k],
                          f"(by_i / {inner_n}ull) * {length * inner_n}ull + {row} * {inner_n}ll + by_i % {inner_n}ull",
                          "by_i"))
        nxt = [(dst, src, a, f"{it} + 1 < {length}ll ? {b} : 0") for dst, src, a, b in gathers(f"{it} + 1")]
        # the next slices are gathered only while there is a next iteration (the guard keeps the
        # index in range; the copy itself is harmless, its input is never read again)
        self.next_iteration(states, scans, nxt, reads=[], written=[], label=f"scan#{r}", depth=d + 1, scalars="")
        self.emit("}", d)
        finals = [(scope.get(o, o), ins[k]) for k, o in enumerate(s.outputs[:ns]) if o]
        for dst, src in finals:
            self.copy(dst, src, d)
        if finals:
            self.emit("by_grid_sync();", d)
        self.emit("}", depth)

    def next_iteration(self, carried, scans, gathers, *, reads, written, label, depth, scalars) -> None:
        """The copies between two iterations: carried outputs into inputs, scan outputs out, next
        slices in; through staging buffers when a copy's source is another copy's destination."""
        dests = {self.root(dst) for dst, _ in carried} | {self.root(dst) for dst, *_ in gathers} | \
            {self.root(v) for v in written}
        sources = [src for _, src in carried] + [src for _, src, *_ in scans] + list(reads)
        if any(self.root(v) in dests for v in sources):
            staged = []
            for k, (dst, src) in enumerate(carried):
                tmp = self.fresh(f"{label}::stage{k}")
                self.types[tmp] = self.type_of(src)
                self.copy(tmp, src, depth)
                staged.append((dst, tmp))
            for dst, src, dst_at, src_at in scans:
                self.copy(dst, src, depth, dst_at=dst_at, src_at=src_at)
            self.emit("by_grid_sync();", depth)
            carried, scans = staged, []
        for dst, src in carried:
            self.copy(dst, src, depth)
        for dst, src, dst_at, src_at in list(scans) + list(gathers):
            self.copy(dst, src, depth, dst_at=dst_at, src_at=src_at)
        if scalars:
            self.emit(scalars, depth)
        self.emit("by_grid_sync();", depth)

    # --- the kernel ----------------------------------------------------------------------------
    def kernel(self, region, grid: int, blocks_per_sm: int) -> RegionKernel:
        kernels = body_kernels(region)
        self.threads = region_threads(kernels)
        self.grid = grid
        self.lines = []
        self.steps(Plan(inputs=(), outputs=(), steps=(region,), types=(), constants=()), ChainMap({}), 1)
        head = [f"  const unsigned int by_b = {BLOCK_X};", f"  const unsigned int by_g = {GRID_X};",
                "  const unsigned int by_t = threadIdx.x;",
                "  const unsigned long long by_tid = (unsigned long long)by_b * blockDim.x + threadIdx.x;",
                "  const unsigned long long by_nthreads = (unsigned long long)by_g * blockDim.x;",
                "  (void)by_t; (void)by_tid; (void)by_nthreads;"]
        order = sorted(self.slots, key=self.slots.get)
        decls = [f"{'' if v in self.written else 'const '}{self.type_of(v).dtype.ctype}* p{self.slots[v]}" for v in order]
        self.lines = [self.resolve(line, order) for line in self.lines]
        prefix = {IfStep: "device_if", LoopStep: "device_loop", ScanStep: "device_scan"}[type(region)]
        entry, source = finish_kernel(prefix, decls, head + self.lines, launch_bounds=(self.threads, blocks_per_sm),
                                      helpers="\n".join(t for t in ("".join(self.helpers).rstrip("\n"), *self.states)
                                                         if t))
        params = tuple(KernelParam(self.type_of(v).dtype.ctype, v, v in self.written) for v in order)
        k = Kernel(entry=entry, source=source, params=params, grid=(grid, 1, 1), block=(self.threads, 1, 1),
                   shared_bytes=region_shared(kernels, self.threads, self.shared_limit), cooperative=True,
                   ops=tuple(op for k in kernels for op in k.ops), carried=tuple(c for k in kernels for c in k.carried),
                   config=(("region", region.node or prefix),))
        return RegionKernel(k, tuple(self.types.items()), tuple(self.constants.items()))


_BODY_DEF = re.compile(r"BY_DEVICE void (\w+_body)\(")
_FUNCTION_DEF = re.compile(r"^BY_DEVICE(?:_CALLED)? [\w ]*?\b(\w+)\(", re.M)


def _renamed_functions(source: str, suffix: str) -> str:
    """`source` with every function it defines renamed name + suffix, at its definition and calls."""
    names = _FUNCTION_DEF.findall(source)
    if not names:
        return source
    return re.sub(r"\b(" + "|".join(map(re.escape, names)) + r")\b", lambda m: m[1] + suffix, source)


def _uses_shared(k: Kernel) -> bool:
    """Whether k's body keeps anything in shared memory (dynamic or declared)."""
    return k.shared_bytes > 0 or "__shared__" in k.source or "BY_SHARED_BUFFER" in k.source


def _axis_extent(t: TensorType, axis: int) -> int:
    return t.shape[axis % t.rank]
