"""If, Loop and Scan: their meaning (NumPy, by evaluating the body graphs with the op references).

Their lowering is not here: compiler.passes.lower turns them into plan regions whose bodies are
compiled like any graph."""
from __future__ import annotations

import numpy as np

from ..errors import RuntimeFault
from ..ir.graph import Graph
from .registry import LowerCtx, lookup, register


def evaluate_graph(g: Graph, inputs: dict[str, np.ndarray], opset: int,
                   outer: dict[str, np.ndarray] | None = None) -> list[np.ndarray]:
    """Runs a graph with the op references (the NumPy oracle for whole graphs and region bodies)."""
    env: dict[str, np.ndarray] = dict(outer or {})
    env.update({n: c.array() for n, c in g.constants})
    env.update(inputs)
    for node in g.nodes:
        args = [env[n] if n else None for n in node.inputs]
        if node.op in ("If", "Loop", "Scan"):
            outs = _CONTROL[node.op](node, args, opset, env)
        else:
            outs = lookup(node.op, node.domain, node=node.name).reference(node, args, opset)
        for n, v in zip(node.outputs, outs):
            if n:
                env[n] = v
    return [env[n] for n in g.outputs]


def _if(node, inputs, opset, env=None):
    branch = node.attr("then_branch") if bool(np.asarray(inputs[0]).reshape(-1)[0]) else node.attr("else_branch")
    return evaluate_graph(branch, {}, opset, env)


def _loop(node, inputs, opset, env=None):
    body: Graph = node.attr("body")
    trip = int(np.asarray(inputs[0]).reshape(-1)[0]) if len(inputs) > 0 and inputs[0] is not None else None
    cond = bool(np.asarray(inputs[1]).reshape(-1)[0]) if len(inputs) > 1 and inputs[1] is not None else True
    carried = list(inputs[2:])
    scans: list[list[np.ndarray]] = []
    bound = node.attr("max_trip_count")     # a bounded Loop (graph_import._trip_bound)
    it = 0
    while (trip is None or it < trip) and cond:
        if bound is not None and it == bound:
            raise RuntimeFault(f"Loop {node.name} runs more than {bound} iterations, its max_trip_count",
                               hint="compile with a larger --max-trip-count")
        feed = dict(zip(body.inputs, [np.array(it, dtype=np.int64), np.array(cond)] + carried))
        outs = evaluate_graph(body, feed, opset, env)
        cond = bool(np.asarray(outs[0]).reshape(-1)[0])
        carried = outs[1:1 + len(carried)]
        for k, v in enumerate(outs[1 + len(carried):]):
            if len(scans) <= k:
                scans.append([])
            scans[k].append(v)
        it += 1
    n_scan = len(body.outputs) - 1 - len(carried)
    stacked = []
    for k in range(n_scan):
        if k < len(scans) and scans[k]:
            stacked.append(np.stack(scans[k]))
        else:
            t = body.type_of(body.outputs[1 + len(carried) + k])
            stacked.append(np.zeros((0,) + t.shape, dtype=t.dtype.np))
    if bound is not None:   # sized to the bound, the iteration count last (trimmed on return)
        stacked = [np.concatenate([s, np.zeros((bound - it,) + s.shape[1:], s.dtype)]) for s in stacked]
        return carried + stacked + [np.array(it, dtype=np.int64)]
    return carried + stacked


def _scan(node, inputs, opset, env=None):
    body: Graph = node.attr("body")
    n_in = node.attr("num_scan_inputs")
    n_state = len(inputs) - n_in
    in_axes = node.attr("scan_input_axes") or (0,) * n_in
    in_dirs = node.attr("scan_input_directions") or (0,) * n_in
    n_out = len(body.outputs) - n_state
    out_axes = node.attr("scan_output_axes") or (0,) * n_out
    out_dirs = node.attr("scan_output_directions") or (0,) * n_out
    state = list(inputs[:n_state])
    scan_in = inputs[n_state:]
    length = scan_in[0].shape[in_axes[0] % scan_in[0].ndim]
    per_iter: list[list[np.ndarray]] = [[] for _ in range(n_out)]
    for t in range(length):
        slices = [np.take(a, length - 1 - t if d else t, axis=ax % a.ndim)
                  for a, ax, d in zip(scan_in, in_axes, in_dirs)]
        outs = evaluate_graph(body, dict(zip(body.inputs, state + slices)), opset, env)
        state = outs[:n_state]
        for k, v in enumerate(outs[n_state:]):
            per_iter[k].append(v)
    results = list(state)
    for k in range(n_out):
        parts = per_iter[k][::-1] if out_dirs[k] else per_iter[k]
        s = np.stack(parts)
        results.append(np.moveaxis(s, 0, out_axes[k] % s.ndim))
    return results


_CONTROL = {"If": _if, "Loop": _loop, "Scan": _scan}


def _lowered_by_pass(ctx: LowerCtx) -> None:
    raise ctx.unsupported("control flow is lowered by compiler.passes.lower, not per node")


for _op, _fn in _CONTROL.items():
    register(_op, reference=lambda node, inputs, opset, _f=_fn: _f(node, inputs, opset), foldable=False)(_lowered_by_pass)
