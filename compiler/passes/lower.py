"""Lowering: graph nodes -> plan steps (kernel specs, aliases, control-flow regions), via the op registry."""
from __future__ import annotations

import dataclasses
import functools
import re
from typing import Callable

import numpy as np

from ..errors import CompilerError, NeedsConstant, ShapeError, UnsupportedOp
from ..ir.graph import Constant, Graph
from ..ops.registry import LowerCtx, lookup, zero_size_error
from ..ir.dataflow import reads, writes
from ..ir.plan import AliasStep, ComputeStep, IfStep, LaunchStep, LoopStep, Plan, ScanStep
from .bounded_rows import Extents, follow

CONTROL_FLOW = ("If", "Loop", "Scan")


def lower_graph(graph: Graph, opset: int, *, donate_inputs: bool = False,
                disabled: frozenset[str] = frozenset(), price: Callable[[Plan], float | None] | None = None,
                choices: list | None = None, outer_extents: Extents | None = None,
                outer_types: dict | None = None) -> Plan:
    """Every node lowered in order; control flow becomes regions whose bodies are plans. `disabled`:
    the switched-off techniques a lowering chooses by (LowerCtx.enabled); `price`: a plan's
    predicted time, by which a lowering with several ways takes the cheapest (LowerCtx.cheapest;
    None: the first way); `choices` collects each priced choice (node, ways' predictions, the one taken).

    With `donate_inputs` (a top-level graph compiled with --kv-cache in-place) a lowering may write
    an output into the buffer of an input only its node reads (LowerCtx.donate, Plan.donated).

    A region's body is given `outer_extents`: the values it reads from outside that have a run-time
    extent, with their extent values' `outer_types` (read from outside too, where it uses them)."""
    steps: list = []
    types = {**(outer_types or {}), **dict(graph.types)}
    used_names = set(types)
    donatable = _read_once_inputs(graph) if donate_inputs else set()
    donated: list[tuple[str, str]] = []

    def donate(pairs) -> bool:
        """All of (input, output) pairs donated, or none: each input a graph input read by this
        node alone and taken once, each output a graph output of the input's type."""
        taken = {src for _, src in donated}
        ok = all(src in donatable and src not in taken and out in graph.outputs and types.get(src) == types.get(out)
                 for src, out in pairs) and len({src for src, _ in pairs}) == len(pairs)
        if ok:
            donated.extend((out, src) for src, out in pairs)
        return ok

    def new_name(hint: str) -> str:
        base = re.sub(r"[^A-Za-z0-9_/.:-]", "_", hint)
        name, k = base, 0
        while name in used_names:
            k += 1
            name = f"{base}.{k}"
        used_names.add(name)
        return name

    def price_steps(trial: list, temps: dict, copies: int = 1) -> float | None:
        """One way of lowering a node, priced as a plan of its own steps (one of `copies` alike)."""
        plan = Plan(inputs=(), outputs=(), steps=tuple(trial), types=tuple({**types, **temps}.items()),
                    constants=tuple(graph.constants))
        return price(plan, copies) if copies > 1 else price(plan)

    # alike siblings priced as the rammer stage co-launches them; with it off, each alone
    alike = alike_siblings(graph) if price is not None and "rammer" not in disabled else {}

    # values with a run-time extent (OpDef.bounded and what is computed from them)
    extents: Extents = dict(outer_extents or {})
    shared: dict[str, str] = {}      # values computed once for the plan (LowerCtx.shared_temp)
    for node in graph.nodes:
        if node.op in CONTROL_FLOW and node.domain in ("", "ai.onnx"):
            step, lengths = lower_control_flow(node, graph, opset, disabled, price, choices, extents, types)
            follow(node, [step], types, extents)    # a region reading such a value is refused
            extents.update(lengths)
            steps.append(step)
            continue
        opdef = lookup(node.op, node.domain, node=node.name)
        in_types = [graph.type_of(n) if n else None for n in node.inputs]
        out_types = [graph.type_of(n) if n else None for n in node.outputs]
        consts = []
        for n in node.inputs:
            c = graph.constant(n) if n else None
            consts.append(c.array() if c is not None else None)
        present = [t for t in out_types if t is not None]
        if present and all(t.size == 0 for t in present) and not any(n in extents for n in node.inputs if n):
            continue   # ONNX: every output is empty, so nothing computes it (its buffer holds no bytes)
        # (one that reads a value of run-time length is lowered on: its outputs' other axes may have
        # that length, which the return trims to, as for non-empty ones, or it is refused alike)
        node_steps: list = []
        ctx = LowerCtx(node, in_types, out_types, consts, opset, node_steps.append, new_name,
                       donate=donate if donatable else None, disabled=disabled,
                       price=(functools.partial(price_steps, copies=alike.get(node.name, 1))
                              if price is not None else None), choices=choices, extents=extents,
                       shared=shared)
        zero_size = any(t is not None and t.size == 0 for t in in_types + out_types)
        priced = len(choices) if choices is not None else 0
        try:
            opdef.lower(ctx)
        except NeedsConstant:
            raise
        except UnsupportedOp as e:
            if zero_size and not e.feature:   # a zero-size tensor is a shape the lowering refuses, not a missing op
                raise zero_size_error(node, in_types, out_types, e.message.split(": ", 1)[-1]) from e
            raise
        except CompilerError:
            raise
        except Exception as e:  # a lowering bug: say which node, keep the cause
            if zero_size:
                raise zero_size_error(node, in_types, out_types, f"lowering failed: {type(e).__name__}: {e}") from e
            raise UnsupportedOp(node.op, node=node.name, detail=f"lowering failed: {type(e).__name__}: {e}") from e
        if alike.get(node.name, 1) > 1 and choices is not None:
            for c in choices[priced:]:     # each way priced as one of this many co-launched
                c["alike"] = alike[node.name]
        types.update(ctx.temps)
        node_steps = follow(node, node_steps, types, extents, handled=frozenset(ctx.run_time_outputs))
        # a kernel that writes only zero-size values (an empty output or temporary) computes nothing
        # (dropped once followed: an empty output's other axes may still have a run-time length)
        node_steps = [s for s in node_steps if not (isinstance(s, ComputeStep) and _writes_nothing(s, types))]
        extents.update(ctx.run_time_outputs)
        if node.attr("max_extent") is not None:     # graph_import gave it its extent's output, last
            extents.update({node.outputs[k]: (node.outputs[-1], axis)
                            for k, axis in opdef.bounded_axes(node, in_types) if node.outputs[k]})
        steps += node_steps

    trimmed = tuple((o, *extents[o]) for o in graph.outputs if o in extents)
    steps = drop_unread(steps, set(graph.outputs) | {c for c, _ in extents.values()})
    used = _values_used(steps) | set(graph.outputs)
    constants = tuple((n, c) for n, c in graph.constants if n in used)
    # the outer extents' values a body reads (its masks, its outputs' lengths), read from outside too
    outer = graph.outer + tuple(sorted({c for c, _ in (outer_extents or {}).values()
                                        if c in used | {c for _, c, _ in trimmed}} - set(graph.outer)))
    return Plan(inputs=graph.inputs, outputs=graph.outputs, steps=tuple(steps),
                types=tuple(types.items()), constants=constants, outer=outer,
                output_lengths=trimmed, donated=tuple(donated))


def output_runtime_axes(graph: Graph, opset: int) -> dict[str, int]:
    """Output -> its axis whose length is known only at run time (Plan.output_lengths), for a
    description of the model before it compiles; lowered only where a node may give such a value
    (an op's bounded output, an If whose branches differ, a bounded Loop's scan outputs)."""
    def may(g: Graph) -> bool:
        return any(n.attr("max_extent") is not None or n.attr("run_time_outputs") or n.attr("max_trip_count") is not None
                   or any(may(sub) for sub in n.subgraphs()) for n in g.nodes)
    if not may(graph):
        return {}
    return {o: axis for o, _, axis in lower_graph(graph, opset).output_lengths}


def alike_siblings(graph: Graph) -> dict[str, int]:
    """Node name -> how many nodes of its wave are alike (itself included; only counts above one):
    the same op, attributes and operand types, at the same depth from the graph's inputs, so none
    reads another. They lower alike, and the rammer stage co-launches their small kernels, so a
    lowering with several ways prices each as one of that many (pipeline._lowering_price): a
    detector's TopK per class is many rows at once, not one."""
    depth: dict[str, int] = {}
    groups: dict[tuple, list[str]] = {}
    for node in graph.nodes:
        d = 1 + max((depth.get(v, 0) for v in node.inputs if v), default=0)
        for v in node.outputs:
            depth[v] = d
        if node.op in CONTROL_FLOW:
            continue
        try:
            attrs = tuple(node.attrs)
            hash(attrs)
        except TypeError:         # an attribute value that cannot be compared so: alike to none
            continue
        sig = (d, node.op, node.domain, attrs,
               tuple((graph.type_of(v), graph.constant(v) is not None) if v else None for v in node.inputs),
               tuple(graph.type_of(v) if v else None for v in node.outputs))
        groups.setdefault(sig, []).append(node.name)
    return {name: len(names) for names in groups.values() if len(names) > 1 for name in names}


def _read_once_inputs(graph: Graph) -> set[str]:
    """Graph inputs exactly one node reads (a control-flow node's bodies count as reading what they
    take from outside), once, that are not also graph outputs."""
    count: dict[str, int] = {}
    for node in graph.nodes:
        names = [n for n in node.inputs if n]
        for sub in node.subgraphs():
            names += list(sub.outer)
        for n in names:
            count[n] = count.get(n, 0) + 1
    return {n for n in graph.inputs if count.get(n) == 1 and n not in graph.outputs}


def _writes_nothing(step: ComputeStep, types: dict) -> bool:
    outs = [types.get(v) for v in writes(step)]
    return bool(outs) and all(t is not None and t.size == 0 for t in outs)


def lower_control_flow(node, graph: Graph, opset: int, disabled: frozenset[str] = frozenset(),
                       price: Callable[[Plan], float | None] | None = None, choices: list | None = None,
                       extents: Extents | None = None, types: dict | None = None):
    """If / Loop / Scan as a region step, and {output: (its extent value, axis)} for the outputs of
    run-time length it gives (an If's: see branch_extents)."""
    def lower_body(g: Graph, returned: frozenset[str] = frozenset()) -> Plan:
        # what it reads from outside with a run-time extent, followed inside as outside
        outer_extents = {v: e for v, e in (extents or {}).items() if v in g.outer}
        body = lower_graph(g, opset, disabled=disabled, price=price, choices=choices, outer_extents=outer_extents,
                           outer_types={c: types[c] for c, _ in outer_extents.values()})
        for out, length, axis in body.output_lengths:
            if out not in returned:
                raise ShapeError(f"'{out}', an output of {node.op} {node.name}'s body, has a length only known at "
                                 f"run time on axis {axis} (its real one in '{length}')", node=node.name,
                                 hint="Brickyard returns values of run-time length from the model's graph and "
                                 "from If branches only")
        return body

    if node.op == "If":
        run_time = node.attr("run_time_outputs") or ()
        then_g, else_g = node.attr("then_branch"), node.attr("else_branch")
        then_plan = lower_body(then_g, frozenset(then_g.outputs[k] for k, *_ in run_time))
        else_plan = lower_body(else_g, frozenset(else_g.outputs[k] for k, *_ in run_time))
        then_plan, else_plan, lengths = branch_extents(node, run_time, then_plan, else_plan)
        return IfStep(cond=node.inputs[0], then_plan=then_plan, else_plan=else_plan,
                      outputs=node.outputs, node=node.name), lengths
    if node.op == "Loop":
        body = lower_body(node.attr("body"))
        n_carried = len(node.inputs) - 2
        bound = node.attr("max_trip_count")    # bounded: the last output counts the iterations
        n_scan = len(body.outputs) - 1 - n_carried
        outputs = node.outputs[:-1] if bound is not None else node.outputs
        # a bounded Loop's scan outputs have as many rows as iterations ran (zeros past them)
        rows = {v: (node.outputs[-1], 0) for v in outputs[n_carried:] if v} if bound is not None else {}
        return (LoopStep(trip_count=node.inputs[0] if len(node.inputs) > 0 else "",
                         cond=node.inputs[1] if len(node.inputs) > 1 else "",
                         carried_in=tuple(node.inputs[2:]), body=body, outputs=outputs,
                         n_scan=n_scan, node=node.name, max_trips=bound or 0,
                         iterations=node.outputs[-1] if bound is not None else ""), rows)
    body = lower_body(node.attr("body"))
    n_scan_in = node.attr("num_scan_inputs")
    n_state = len(node.inputs) - n_scan_in
    n_scan_out = len(node.outputs) - n_state
    def ints(name, n, default):
        v = node.attr(name)
        return tuple(int(x) for x in v) if v is not None else tuple([default] * n)
    return (ScanStep(state_in=tuple(node.inputs[:n_state]), scan_in=tuple(node.inputs[n_state:]), body=body,
                    outputs=node.outputs, n_state=n_state,
                    scan_input_axes=ints("scan_input_axes", n_scan_in, 0),
                    scan_input_reverse=ints("scan_input_directions", n_scan_in, 0),
                    scan_output_axes=ints("scan_output_axes", n_scan_out, 0),
                    scan_output_reverse=ints("scan_output_directions", n_scan_out, 0), node=node.name), {})


def branch_extents(node, run_time, then_plan: Plan, else_plan: Plan) -> tuple[Plan, Plan, Extents]:
    """An If's outputs of run-time length (`run_time_outputs`: the import found the branches' types
    one axis apart, the shorter padded with zeros, or a branch's value possibly of run-time length):
    each branch returns the output's real extent as one more output, bound to the If's count
    output: its run-time extent, else its static one (before padding) as a constant. Returns the
    branches so extended and {output: (count output, axis)} for those found of run-time length."""
    if not run_time:
        return then_plan, else_plan, {}
    first_count = len(node.outputs) - len(run_time)
    plans = [then_plan, else_plan]
    counts: list[list[str]] = [[], []]
    constants: list[list] = [[], []]
    lengths: Extents = {}
    for j, (k, axis, *statics) in enumerate(run_time):
        found = [{o: (c, a) for o, c, a in plan.output_lengths}.get(plan.outputs[k]) for plan in plans]
        axes = {f[1] for f in found if f is not None} | ({axis} if axis >= 0 else set())
        if len(axes) > 1:
            raise ShapeError(f"the If branches give output {k} lengths only known at run time on different axes "
                             f"({sorted(axes)})", node=node.name)
        run_time_here = bool(axes)
        at = axes.pop() if axes else 0
        for b, plan in enumerate(plans):
            if found[b] is not None:
                counts[b].append(found[b][0])
                continue
            t = dict(plan.types).get(plan.outputs[k]) or dict(plan.constants)[plan.outputs[k]].type
            static = statics[b] if axis >= 0 else (t.shape[at] if t.rank else 1)
            name = f"{plan.outputs[k]}#extent"
            counts[b].append(name)
            constants[b].append((name, Constant.from_array(np.array(static, np.int64))))
        if run_time_here:
            lengths[node.outputs[k]] = (node.outputs[first_count + j], at)
    extended = [dataclasses.replace(plan, outputs=plan.outputs + tuple(counts[b]),
                                    constants=plan.constants + tuple(constants[b]), output_lengths=())
                for b, plan in enumerate(plans)]
    return extended[0], extended[1], lengths


def drop_unread(steps: list, needed: set[str]) -> list:
    """The steps without the kernels and views whose every value nothing reads: an output of a node
    no reader asks for (BatchNormalization's running statistics, TopK's indices beside its
    values) that its lowering computes all the same. `needed`: the plan's outputs and run-time
    extents. A value once needed stays needed, so every earlier writer of a value updated in place
    is kept; regions are kept whole."""
    live = set(needed)
    kept = []
    for s in reversed(steps):
        if isinstance(s, (ComputeStep, LaunchStep, AliasStep)) and not (writes(s) & live):
            continue
        live |= reads(s) | writes(s)
        kept.append(s)
    kept.reverse()
    return kept


def _values_used(steps) -> set[str]:
    used: set[str] = set()
    for s in steps:
        used |= reads(s)
    return used
