"""Does the compiled model fit the target? A compilation that cannot run is refused, never "succeeded".

Checked twice: right after import, every tensor of the graph on its own (element count within a
64-bit index, bytes within the device's memory) so an impossible shape fails before anything is
built; after the memory plan, the whole footprint (weights + inputs + the arena of intermediates
and workspaces) against the device's memory, and every launch against the grid and block limits.
Each failure is a TooLarge error naming the tensor or kernel, its size and the limit."""
from __future__ import annotations

from ..errors import TooLarge
from ..ir.graph import Graph
from ..ir.plan import Plan
from ..targets import Target

INDEX_LIMIT = 2**63 - 1     # elements a 64-bit signed index can address


def human_bytes(n: int) -> str:
    for unit, scale in (("EiB", 2**60), ("PiB", 2**50), ("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n} B"


def _memory(target: Target) -> str:
    return f"the {human_bytes(target.memory_bytes)} of device memory of target {target.name}"


def check_graph(graph: Graph, target: Target) -> dict:
    """Every value of the graph and its subgraphs: addressable with a 64-bit index, and no larger than
    the device. Returns the largest tensor (for the stage record)."""
    largest = ("", 0)
    for name, t in _all_types(graph):
        if t.size > INDEX_LIMIT:
            raise TooLarge(f"tensor '{name}' ({t}) has {t.size} elements, beyond the 2^63-1 a 64-bit index "
                           "can address", hint="compile with smaller input shapes")
        if t.nbytes > target.memory_bytes:
            raise TooLarge(f"tensor '{name}' ({t}) needs {human_bytes(t.nbytes)}, more than {_memory(target)}",
                           hint="compile with smaller input shapes or for a target with more memory")
        if t.nbytes > largest[1]:
            largest = (name, t.nbytes)
    return {"largest_tensor": largest[0], "largest_tensor_bytes": largest[1]}


def _all_types(graph: Graph):
    """(name, type) of every value: the model's inputs first, so a refusal names what the user chose."""
    yield from ((n, graph.type_of(n)) for n in graph.inputs)
    stack = [graph]
    while stack:
        g = stack.pop()
        yield from ((n, t) for n, t in g.types if g is not graph or n not in graph.inputs)
        for n in g.nodes:
            stack.extend(n.subgraphs())


def footprint(plan: Plan) -> dict:
    """Device memory the plan needs: weights, inputs, and the arena (intermediates, outputs, workspaces)."""
    types = dict(plan.types)
    weights = sum(c.type.nbytes for _, c in plan.constants)
    inputs = sum(types[n].nbytes for n in plan.inputs)
    return {"weights_bytes": weights, "inputs_bytes": inputs, "arena_bytes": plan.arena_bytes,
            "total_bytes": weights + inputs + plan.arena_bytes}


def check_plan(plan: Plan, target: Target) -> dict:
    """The plan's footprint within device memory, and every launch within the launch limits."""
    fp = footprint(plan)
    if fp["total_bytes"] > target.memory_bytes:
        raise TooLarge(f"the compiled model needs {human_bytes(fp['total_bytes'])} of device memory (weights "
                       f"{human_bytes(fp['weights_bytes'])}, inputs {human_bytes(fp['inputs_bytes'])}, "
                       f"intermediates {human_bytes(fp['arena_bytes'])}), more than {_memory(target)}",
                       hint="compile with smaller input shapes or for a target with more memory")
    for k in plan.kernels():
        what = f"kernel {k.entry} (nodes {', '.join(k.ops) or '-'})"
        for axis, (n, limit) in enumerate(zip(k.grid, target.max_grid)):
            if not 1 <= n <= limit:
                raise TooLarge(f"{what} launches {n} blocks along grid axis {'xyz'[axis]}, outside the "
                               f"launch limit 1..{limit} of target {target.name}",
                               hint="compile with smaller input shapes")
        threads = k.threads
        if not 1 <= threads <= target.max_threads_per_block:
            raise TooLarge(f"{what} has {threads} threads per block, outside 1..{target.max_threads_per_block}")
    return fp
