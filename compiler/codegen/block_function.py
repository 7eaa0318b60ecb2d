"""Block functions (DESIGN section 6): every rendered kernel is a `__device__` body over a virtual
block index plus a thin `__global__` wrapper that passes the hardware one:

    BY_DEVICE void <NAME>_body(<params>, const by_block_index by_block) { <body> }
    BY_KERNEL void __launch_bounds__(...) <NAME>(<params>) { <NAME>_body(<args>, by_this_block()); }

A body reads its block's position only through `by_block` (BLOCK_X, GRID_X, ...), never through
blockIdx/gridDim, so a later stage can call it with indices of its own: a wrapper that dispatches
ranges of blocks to several bodies (Rammer's co-launch), or a persistent kernel that calls bodies
between grid barriers (Grinder). threadIdx/blockDim stay the hardware's: a wrapper calling a body
must launch the body's block shape (Kernel.block), or run it narrowed (`narrowed_source`) on the
first threads of a wider one-dimensional block.

A body whose blocks combine their parts of a result (split-K: `by_arrive`) counts arrivals on
counters of its launch's own, `by_block.arrivals`: a wrapper keeps them (`BY_DEVICE_STATE`, zero
when the module loads, reset by the last block) and passes them in the block index, one array per
call site, so that two calls of one body in one launch (co-launched members, a persistent
kernel's steps) never share them (Kernel.arrivals says how many).

The body is force-inlined into its wrapper, so the compiled kernel is the one the body alone would
have been. A `__grid_constant__` parameter (a TMA tensor map) reaches the body by const reference:
its address stays the kernel parameter's, which is what the copy engine reads."""
from __future__ import annotations

import functools
import re
from collections.abc import Sequence

from ..ir.kernel import BODY_SUFFIX
from .naming import NAME_PLACEHOLDER, finish_source

# what a body run on fewer threads than its block cannot use: block-wide votes over barrier 0, and
# the block's size other than by component (blockDim.x, .y, .z become the body's own)
NARROW_OBSTACLES = re.compile(r"\b__syncthreads_(count|and|or)\b|\bblockDim\b(?!\.[xyz]\b)")
_SYNCTHREADS = re.compile(r"\b__syncthreads\(\)")
_BLOCK_DIM = re.compile(r"\bblockDim\.([xyz])\b")

BLOCK = "by_block"             # the body's virtual block index parameter (a by_block_index)
BLOCK_X = f"{BLOCK}.idx.x"     # this block's index in the virtual grid, as blockIdx.x was
BLOCK_Y = f"{BLOCK}.idx.y"
BLOCK_Z = f"{BLOCK}.idx.z"
GRID_X = f"{BLOCK}.grid.x"     # the virtual grid's extent, as gridDim.x was
GRID_Y = f"{BLOCK}.grid.y"
GRID_Z = f"{BLOCK}.grid.z"

_HARDWARE = re.compile(r"\b(blockIdx|gridDim)\b")
_DECL = re.compile(r"^(.*?)\s*\b([A-Za-z_]\w*)$", re.S)


def _split_params(params: str | Sequence[str]) -> tuple[str, list[str]]:
    """The parameter list as written (a string is kept verbatim, line breaks included) and each
    declaration. Parameter types never hold a comma (pointers and named structs only)."""
    text = params if isinstance(params, str) else ", ".join(params)
    decls = [d.strip() for d in text.split(",")] if text.strip() else []
    return text, decls


def _body_param(decl: str) -> tuple[str, str]:
    """(the body's declaration, the name the wrapper passes) of one wrapper parameter."""
    m = _DECL.match(decl)
    if not m:
        raise ValueError(f"kernel parameter {decl!r} has no name")
    head, name = m.groups()
    if "__grid_constant__" in head.split():
        # by const reference: &name in the body is the kernel parameter's own address
        head = " ".join(w for w in head.split() if w != "__grid_constant__")
        return f"{head}& {name}", name
    return decl, name


def arrivals_array(owner: str, arrivals: int) -> tuple[str, str]:
    """(declaration, name) of the `arrivals` counters a wrapper named `owner` keeps for one call."""
    name = f"{owner}_arrivals"
    return f"BY_DEVICE_STATE unsigned int {name}[{arrivals}];", name


def block_function(params: str | Sequence[str], body: str | Sequence[str], *,
                   launch_bounds: Sequence[int] = (), helpers: str | Sequence[str] = (), arrivals: int = 0) -> str:
    """The source (named NAME_PLACEHOLDER, for finish_source) of a kernel whose block does `body`.

    params: the kernel's parameter declarations (a list, or the list's text kept as written);
    body: the statements of the block (lines, or one text), reading BLOCK_X/GRID_X/... for the
    block's position; launch_bounds: the wrapper's __launch_bounds__ arguments (none: no bounds);
    helpers: device functions the body calls, written before it; arrivals: how many counters the
    body's blocks arrive on (by_block.arrivals), which the wrapper keeps."""
    body_text = body if isinstance(body, str) else "\n".join(body)
    body_text = body_text.rstrip("\n")
    helper_text = helpers if isinstance(helpers, str) else "\n".join(helpers)
    if _HARDWARE.search(body_text) or _HARDWARE.search(helper_text):
        raise ValueError("a block function reads its block index from by_block, not blockIdx/gridDim")
    text, decls = _split_params(params)
    pairs = [_body_param(d) for d in decls]
    if any(n == BLOCK for _, n in pairs):
        raise ValueError(f"a kernel parameter is named {BLOCK}")
    if any("__grid_constant__" in d for d in decls):
        body_params = ", ".join(p for p, _ in pairs)
    else:
        body_params = text      # as written: the body's signature reads as the wrapper's
    body_name = NAME_PLACEHOLDER + BODY_SUFFIX
    sep = ", " if body_params.strip() else ""
    bounds = f"__launch_bounds__({', '.join(map(str, launch_bounds))}) " if launch_bounds else ""
    state, state_name = arrivals_array(NAME_PLACEHOLDER, arrivals) if arrivals else ("", "")
    args = ", ".join([n for _, n in pairs] + [f"by_this_block({state_name})"])
    lines = [helper_text] if helper_text else []
    lines += [f"BY_DEVICE void {body_name}({body_params}{sep}const by_block_index {BLOCK}) {{",
              body_text,
              "}",
              *([state] if state else []),
              f"BY_KERNEL void {bounds}{NAME_PLACEHOLDER}({text}) {{",
              f"  {body_name}({args});",
              "}"]
    return "\n".join(lines) + "\n"


def finish_kernel(prefix: str, params: str | Sequence[str], body: str | Sequence[str], *,
                  launch_bounds: Sequence[int] = (), helpers: str | Sequence[str] = (),
                  arrivals: int = 0) -> tuple[str, str]:
    """(entry, source) of a block-function kernel named after its content (naming.finish_source)."""
    return finish_source(prefix, block_function(params, body, launch_bounds=launch_bounds, helpers=helpers,
                                                arrivals=arrivals))


_WRAPPER = re.compile(r"^BY_KERNEL void (?:__launch_bounds__\([^)]*\) )?(?P<name>\w+)\((?P<params>[^)]*)\) \{$", re.M)


def split_wrapper(source: str, entry: str) -> tuple[str, list[str]]:
    """A finished kernel's source without its `__global__` wrapper (its helpers and body, which
    another wrapper may call, keeping arrival counters of its own), and the wrapper's parameter
    declarations as written."""
    m = next((m for m in _WRAPPER.finditer(source) if m["name"] == entry), None)
    if m is None:
        raise ValueError(f"{entry}: no wrapper in the source")
    before = source[:m.start()]
    state = re.escape(f"BY_DEVICE_STATE unsigned int {entry}_arrivals[") + r"\d+\];\n\Z"
    return re.sub(state, "", before), [d.strip() for d in m["params"].split(",") if d.strip()]


def definitions(source: str) -> list[str]:
    """A body source's top-level definitions: a one-line table (`BY_DEVICE_CONST ...;`, named
    after its content: two kernels walking one sparsity pattern both define it), or the lines up
    to one holding only '}'. A kernel that holds several bodies (a co-launch, a device region)
    keeps each once: a body included by two steps, a table two of its bodies read."""
    chunks, cur = [], []
    for line in source.splitlines(keepends=True):
        if line.startswith("BY_DEVICE_CONST ") and line.rstrip().endswith(";") and not "".join(cur).strip():
            chunks.append(line)
            continue
        cur.append(line)
        if line.rstrip("\n") == "}":
            chunks.append("".join(cur))
            cur = []
    if "".join(cur).strip():
        chunks.append("".join(cur))
    return chunks


def can_run_narrowed(k) -> bool:
    """Whether kernel k's body can run on the first k.threads threads of a wider block: a
    one-dimensional block of whole warps, no block-wide vote, blockDim only by component."""
    return k.block[1:] == (1, 1) and k.threads % 32 == 0 and not _has_narrow_obstacle(k.source)


@functools.lru_cache(maxsize=4096)
def _has_narrow_obstacle(source: str) -> bool:
    """NARROW_OBSTACLES in a kernel's source, searched once per source: the scheduling passes ask
    of each kernel for every wave they try it in."""
    return NARROW_OBSTACLES.search(source) is not None


def narrowed_source(source: str, threads: int, barrier: str) -> str:
    """A body's source as run by `threads` threads of a wider block: its blockDim its own, its
    __syncthreads the hardware barrier `barrier` (a C expression, 1..15) over those threads."""
    source = _BLOCK_DIM.sub(lambda m: f"{threads}u" if m[1] == "x" else "1u", source)
    return _SYNCTHREADS.sub(f"by_part_sync({barrier}, {threads}u)", source)
