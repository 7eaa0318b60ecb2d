"""The grinder stage (Plan -> Plan): If, Loop and Scan regions run on the device (Cocktailer,
OSDI'23, "Grinder" in the brief; issue 15; ../shared/reference/compilers.md section 4).

On the host a region costs a device-to-host read per decision (the branch predicate, the trip
count, every iteration's condition) and a launch per body kernel per iteration. A region whose
bodies can run inside one cooperative kernel (codegen/device_region.py) becomes one launch with no
host round trip: Cocktailer's cf_level 1. Per region the stage decides between that and the host
(cf_level 2) with the micro-model, per iteration:

    host   = sum over body kernels (time + launch) + one round trip (the condition read back)
    device = sum over body kernels (time x waves on the persistent grid / waves alone)
             + grid barriers x GRID_SYNC_US

Loop-invariant steps of Loop and Scan bodies are hoisted in front of the region first
(`hoist_invariants`), wherever the region then runs.

A region that cannot run on the device stays on the host with the reason (a body kernel that
could not be co-launched either: no block function, a grid barrier or tensor maps of its own; a
2-D block; a narrower body reducing over the block's barrier); its bodies are then tried region
by region. The persistent grid is what stays resident: SMs x the blocks per SM the most demanding
body allows (at most what the largest body needs, and at most MAX_PERSISTENT_THREADS threads). A
narrower body runs several of its blocks side by side in each persistent block
(codegen/device_region.py sub_blocks). Bodies too large for one kernel would run as a CUDA graph
with a conditional node (CUDA 12.4+): not built yet, so they stay on the host.

The stage runs after rammer (bodies are rendered and their independent kernels co-launched, so
an iteration has fewer grid barriers) and before build and the memory plan (the persistent kernel
is built like any other and the bodies' values get arena offsets). `--disable grinder` keeps every
region on the host."""
from __future__ import annotations

import dataclasses
import math

from ..codegen.co_launch import can_co_launch
from ..codegen.block_function import can_run_narrowed
from ..codegen.device_region import (body_kernels, region_shared, region_threads, render_region,
                                     sub_blocks)
from ..ir.dataflow import all_plans, all_types, map_bodies, reads, writes
from ..ir.graph import TensorType
from ..ir.plan import REGIONS, IfStep, LaunchStep, LoopStep, Plan, ScanStep
from ..roller.cost_model import GRID_SYNC_US, LAUNCH_US, kernel_us, resident_per_sm
from ..roller.micro_model import resident_blocks
from ..targets import Target

# what a device-to-host read of a scalar costs the host loop: the copy and the stream
# synchronisation before it (an estimate until a GPU run measures it)
HOST_ROUND_TRIP_US = 10.0
# a persistent grid larger than this gains nothing at the batch sizes loops see, and the host
# harness keeps at most this many threads of one cooperative launch alive
MAX_PERSISTENT_THREADS = 1 << 18


def grinder_plan(plan: Plan, target: Target) -> tuple[Plan, dict]:
    """The plan with every region the model favours as one persistent kernel; the record lists
    each region, how it runs and why, and the host round trips left per inference."""
    record: dict = {"regions": []}
    taken = set(all_types(plan)) | {n for p in all_plans(plan) for n, _ in p.constants}
    plan = _plan(plan, target, record, taken, "")
    record["host_round_trips_per_inference"] = host_round_trips(plan)
    return plan, record


def host_regions(plan: Plan, why: str) -> dict:
    """The record of a plan whose regions all stay on the host (the stage switched off)."""
    regions = [{"node": s.node, "op": _op(s), "runs": "host", "why": why, **_bound(s)}
               for s in plan.steps_within() if isinstance(s, REGIONS)]
    return {"regions": regions, "host_round_trips_per_inference": host_round_trips(plan)}


def _op(region) -> str:
    return type(region).__name__[:-len("Step")]


def _bound(region) -> dict:
    """A bounded Loop's bound (its scan outputs are sized to it and trimmed on return)."""
    return {"max_trip_count": region.max_trips} if isinstance(region, LoopStep) and region.max_trips else {}


def _plan(plan: Plan, target: Target, record: dict, taken: set[str], inside: str) -> Plan:
    steps, types, constants = [], dict(plan.types), dict(plan.constants)
    for s in plan.steps:
        if not isinstance(s, REGIONS):
            steps.append(s)
            continue
        entry = {"node": s.node, "op": _op(s), "inside": inside, **_bound(s)}
        if isinstance(s, (LoopStep, ScanStep)):
            hoisted, s, moved_types, moved_constants = hoist_invariants(s, types, constants)
            if hoisted:
                steps += hoisted
                types.update(moved_types)
                constants.update(moved_constants)
                entry["hoisted"] = [h.kernel.entry for h in hoisted if isinstance(h, LaunchStep)]
        why, shape = obstacle(s, target)
        if why is None:
            device, host = predict_us(s, shape, all_types(plan), target)
            entry["predicted_us_per_iteration"] = {"device": round(device, 3), "host": round(host, 3)}
            if device >= host:
                why = "the model predicts the host faster"
        if why is None:
            rk = render_region(s, types, grid=shape["grid"], blocks_per_sm=shape["blocks_per_sm"],
                               shared_limit=shape["shared_limit"], taken=taken)
            types.update(rk.types)
            constants.update(rk.constants)
            # the kernel's time is its bodies' (the device figure times the iterations known at
            # compile time), as plan_us counts a region left on the host
            iterations = _static_iterations(s, plan)
            steps.append(LaunchStep(dataclasses.replace(rk.kernel, config=rk.kernel.config + (
                ("predicted_us", round(device * iterations, 3)), ("iterations", iterations)))))
            entry.update(runs="device", how="persistent kernel", kernel=rk.kernel.entry, grid=shape["grid"],
                         block=shape["threads"], grid_barriers_per_iteration=_barriers(s))
            record["regions"].append(entry)
            continue
        entry.update(runs="host", why=why)
        record["regions"].append(entry)
        steps.append(map_bodies(s, lambda b: _plan(b, target, record, taken, s.node or entry["op"])))
    return dataclasses.replace(plan, steps=tuple(steps), types=tuple(types.items()),
                               constants=tuple(constants.items()))


def hoist_invariants(region: LoopStep | ScanStep, types: dict, constants: dict):
    """Loop-invariant work out of a Loop or Scan body: a body step is invariant when it reads only
    values from outside the body, the body's constants and what invariant steps wrote; those
    steps run once, before the region, in the enclosing plan (their values become the body's outer
    reads). A nested region stays in the body; a name the enclosing plan already uses blocks the
    move. Returns (hoisted steps, the region, the values and constants they bring out)."""
    body = region.body
    btypes, bconsts = dict(body.types), dict(body.constants)
    local = (set(btypes) | set(body.inputs) | set(bconsts)) - set(body.outer)
    invariant: set[str] = set()
    hoisted, kept = [], []
    moved_types, moved_constants = {}, {}
    for s in body.steps:
        r, w = reads(s), writes(s)
        inside = (r & local) - set(bconsts) - invariant
        clash = {n for n in w | (r & set(bconsts)) if n in types and bconsts.get(n) != constants.get(n)}
        if isinstance(s, REGIONS) or inside or clash or not w:
            kept.append(s)
            continue
        hoisted.append(s)
        invariant |= w
        moved_types.update({n: btypes[n] for n in w})
        for n in r & set(bconsts):
            moved_constants[n] = bconsts[n]
            moved_types.setdefault(n, btypes.get(n) or TensorType(bconsts[n].dtype, bconsts[n].shape))
    if not hoisted:
        return [], region, {}, {}
    body = dataclasses.replace(body, steps=tuple(kept), outer=tuple(body.outer) + tuple(sorted(invariant)))
    return hoisted, region.with_bodies(body), moved_types, moved_constants


def obstacle(region, target: Target) -> tuple[str | None, dict]:
    """Why `region` cannot be one persistent kernel (None when it can), and the kernel's shape:
    threads per block (the widest body's), blocks per SM and grid."""
    kernels = body_kernels(region)
    for k in kernels:
        why = can_co_launch(k) or (f"a {k.block} block (persistent kernels run 1-D blocks)"
                                   if k.block[1] != 1 or k.block[2] != 1 else None)
        if why:
            return f"body kernel {k.entry}: {why}", {}
    threads = region_threads(kernels)
    for k in kernels:
        if k.threads < threads and not can_run_narrowed(k):
            return (f"body kernel {k.entry} runs {k.threads} threads (not a multiple of 32, or reducing over "
                    f"the block's barrier); the widest body runs {threads}"), {}
    # packing narrower bodies never asks for more shared memory than a launch gets without the
    # opt-in, or than the largest body asks for alone
    limit = max([target.shared_per_block_default] + [k.shared_bytes for k in kernels])
    subs = {k.entry: sub_blocks(k, threads, limit) for k in kernels}
    shared = region_shared(kernels, threads, limit)
    per_sm = resident_blocks(threads, shared, 0, target)
    for k in kernels:
        if k.threads == threads:   # where Roller tiled the widest bodies, its estimate includes registers
            per_sm = min(per_sm, resident_per_sm(k, target))
    if per_sm < 1:
        return f"a block of {threads} threads and {shared} bytes of shared memory does not fit an SM", {}
    most = max([math.ceil(k.blocks / subs[k.entry]) for k in kernels] + [1])
    grid = max(1, min(most, target.sms * per_sm, MAX_PERSISTENT_THREADS // threads))
    # launch bounds ask for the residency the grid needs, no more (more would cap registers)
    return None, {"threads": threads, "blocks_per_sm": math.ceil(grid / target.sms), "grid": grid,
                  "shared_limit": limit, "sub_blocks": subs}


def _barriers(region) -> int:
    """Grid barriers one iteration (or the branch taken) passes: one per body step, one between
    iterations."""
    return max(sum(isinstance(s, LaunchStep) for s in b.steps_within()) for b in region.bodies) + 1


def predict_us(region, shape: dict, types: dict, target: Target) -> tuple[float, float]:
    """(device, host) predicted microseconds of one iteration (one branch for an If)."""
    grid = shape["grid"]
    device = host = 0.0
    for body in region.bodies:
        dev = hst = 0.0
        for k in (s.kernel for s in body.steps_within() if isinstance(s, LaunchStep)):
            t = kernel_us(k, types, target)
            alone = target.sms * resident_per_sm(k, target)
            dev += t * math.ceil(k.blocks / (grid * shape["sub_blocks"][k.entry])) / math.ceil(k.blocks / alone)
            hst += t + LAUNCH_US
        device, host = max(device, dev), max(host, hst)
    return device + _barriers(region) * GRID_SYNC_US, host + HOST_ROUND_TRIP_US


def host_round_trips(plan: Plan) -> int | None:
    """Device-to-host reads the runtime makes per inference for the regions left on the host
    (what Executor.host_round_trips counts); None where it depends on the data (a loop whose
    iteration count, or a branch whose choice, decides how many more)."""
    total = 0
    for s in plan.steps:
        if isinstance(s, IfStep):
            inner = {host_round_trips(b) for b in s.bodies}
            if len(inner) != 1 or None in inner:
                return None
            total += 1 + inner.pop()
        elif isinstance(s, LoopStep):
            inner = host_round_trips(s.body)
            trips = _static_trips(s, plan)
            if inner is None or trips is None:
                return None
            total += bool(s.trip_count) + bool(s.cond) + trips * (1 + inner)
        elif isinstance(s, ScanStep):
            inner = host_round_trips(s.body)
            if inner is None:
                return None
            t = dict(plan.types)[s.scan_in[0]]
            length = t.shape[s.scan_input_axes[0] % t.rank]
            total += len(s.scan_in) + length * (len(s.body.outputs) - s.n_state + inner)
    return total


def plan_us(plan: Plan, types: dict, target: Target) -> float:
    """A plan's predicted microseconds: each launch's kernel and launch, and each region left on the
    host as `predict_us` prices its iterations there (a launch per body kernel and a round trip an
    iteration): an If's longer branch, a Loop's body times the iterations known at compile time (1
    where the data decides), a Scan's body times its length. A region on the device is a launch
    whose kernel carries its bodies' time."""
    total = 0.0
    for s in plan.steps:
        if isinstance(s, LaunchStep):
            total += kernel_us(s.kernel, types, target) + LAUNCH_US
        elif isinstance(s, REGIONS):
            body = max(plan_us(b, types, target) for b in s.bodies)
            total += (1 if isinstance(s, IfStep) else _static_iterations(s, plan)) * (body + HOST_ROUND_TRIP_US)
    return total


def _static_iterations(region, plan: Plan) -> int:
    """Iterations of a region known at compile time: a Loop's static trip count, a Scan's length,
    1 for an If (its branch) and for a loop whose count is known only at run time."""
    if isinstance(region, LoopStep):
        trips = _static_trips(region, plan)
        constant = dict(plan.constants).get(region.trip_count) if region.trip_count and not region.cond else None
        if trips is None and constant is not None:
            trips = int(constant.array().reshape(-1)[0])
        return max(trips or 1, 1)
    if isinstance(region, ScanStep):
        t = dict(plan.types)[region.scan_in[0]]
        return t.shape[region.scan_input_axes[0] % t.rank]
    return 1


def _static_trips(s: LoopStep, plan: Plan) -> int | None:
    """Iterations of a Loop known at compile time: a Loop with scan outputs runs its constant trip
    count, unless it is bounded (its count is known only at run time)."""
    if s.max_trips:
        return None
    named = [o for o in s.outputs[len(s.carried_in):] if o]
    return dict(plan.types)[named[0]].shape[0] if named else None
