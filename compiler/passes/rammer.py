"""The rammer stage (Plan -> Plan): independent kernels of a wave run by one launch (Rammer,
OSDI'20; issue 14 item 2; ../shared/reference/compilers.md section 1).

At batch 1 many kernels have fewer blocks than the GPU has SMs, and each launch costs
microseconds. Every rendered kernel is an rOperator whose blocks are its rTasks; the SMs are the
vEUs. The plan's steps are put in wavefront order (analysis/waves.py: every wave after the waves
it reads from, plan order within a wave), and in each wave the kernels that leave the GPU partly
empty are packed, per block shape (one-dimensional blocks of any width together), into
co-launches (codegen/co_launch.py) while their blocks stay resident together: at most
`sms x blocks per SM` of the most demanding member at the launch's width (the micro-model's
occupancy: Roller's register estimate where Roller tiled the kernel), so no member waits for
another's blocks. A pack is kept only where the cost model
predicts it faster than its members launched one after another:

    apart     = sum(member time + launch)
    co-launch = max(slowest member, all members' bytes over DRAM bandwidth) + one launch

(members running side by side share the DRAM bandwidth). Member times are the micro-model's
(config predicted_us) or the fallback estimate (roller/cost_model.py). A kernel that fills the GPU
alone, a cooperative kernel and a kernel with tensor maps stay alone; a split kernel (split-K)
fills it alone, so a wave is also packed with the split kernels' unsplit forms (the render
stage's) and takes them where its launches are predicted faster so. The stage runs after render
and before build and the memory plan, so co-launches are built like any kernel and the arena is
laid out for the new order. Control-flow bodies are scheduled the same way, inside."""
from __future__ import annotations

import dataclasses
import itertools

from ..analysis.waves import waves
from ..codegen.block_function import can_run_narrowed
from ..codegen.co_launch import can_co_launch, co_launch, launch_block
from ..ir.dataflow import map_bodies
from ..ir.kernel import MAX_POINTER_PARAMS, Kernel
from ..ir.plan import LaunchStep, Plan
from ..roller.cost_model import LAUNCH_US, kernel_bytes, kernel_us, members_totals, resident_blocks, resident_per_sm
from ..targets import Target


# what a block's wait on a step counter costs where it joins two launches: a device-wide atomic
# and the poll that sees it (an estimate until measured on a GPU; a launch is LAUNCH_US)
BARRIER_US = 1.0


def rammer_plan(plan: Plan, target: Target, *, barriers: bool = False,
                unsplit: dict | None = None) -> tuple[Plan, dict]:
    """The plan in wavefront order with co-launches (and, with `barriers`, consecutive launches
    joined by step counters); the record lists them with both predictions. `unsplit`: by launch,
    the unsplit form of each kernel that divides its reduction among blocks (the render stage's):
    a wave takes those forms where packing them is predicted faster than the split kernels apart
    (the record's `unsplit`)."""
    record: dict = {"kernels": 0, "launches": 0, "co_launches": [], "barriers": barriers, "barrier_launches": [],
                    "unsplit": []}
    return _plan(plan, target, record, unsplit or {}), record


def _plan(plan: Plan, target: Target, record: dict, unsplit: dict) -> Plan:
    plan = dataclasses.replace(plan, steps=tuple(map_bodies(s, lambda b: _plan(b, target, record, unsplit))
                                                 for s in plan.steps))
    steps = list(plan.steps)
    types = dict(plan.types)
    level = waves(plan)
    order = sorted(range(len(steps)), key=lambda k: (level[k], k))
    out = []
    for wave, members in itertools.groupby(order, key=lambda k: level[k]):
        members = list(members)
        packs = _wave_packs(members, steps, types, target, unsplit, record)
        first = {pack[0]: (pack, times) for pack, times in packs}
        inside = {k for pack, _ in packs for k in pack}
        for k in members:
            if k in first:
                pack, times = first[k]
                parts = [steps[j].kernel for j in pack]
                out.append((LaunchStep(_co_kernel(parts, times, types, target, wave, record)), parts, times[0]))
            elif k not in inside:
                out.append((steps[k], None, None))
    if record["barriers"]:
        out = _join(out, types, target, record)
    out = [s for s, _, _ in out]
    record["kernels"] += sum(isinstance(s, LaunchStep) for s in steps)
    record["launches"] += sum(isinstance(s, LaunchStep) for s in out)
    return dataclasses.replace(plan, steps=tuple(out))


def _wave_packs(members: list[int], steps: list, types, target: Target, unsplit: dict, record: dict):
    """The wave's packs; where members have unsplit forms, the wave with them swapped in (and
    `steps` updated) when its launches are predicted faster than with the split kernels."""
    packs = _packs([k for k in members if _candidate(steps[k], target)], steps, types, target)
    swaps = {k: unsplit[steps[k].kernel] for k in members
             if isinstance(steps[k], LaunchStep) and steps[k].kernel in unsplit}
    if not swaps:
        return packs
    other = [LaunchStep(swaps[k]) if k in swaps else s for k, s in enumerate(steps)]
    other_packs = _packs([k for k in members if _candidate(other[k], target)], other, types, target)
    split_us, unsplit_us = (_wave_us(members, ps, st, types, target)
                            for ps, st in ((packs, steps), (other_packs, other)))
    if unsplit_us >= split_us:
        return packs
    # only the swaps a pack took: a swapped kernel left alone is slower than its split form
    taken = {k for pack, _ in other_packs for k in pack if k in swaps}
    if not taken:
        return packs
    chosen = [LaunchStep(swaps[k]) if k in taken else s for k, s in enumerate(steps)]
    chosen_packs = _packs([k for k in members if _candidate(chosen[k], target)], chosen, types, target)
    chosen_us = _wave_us(members, chosen_packs, chosen, types, target)
    if chosen_us >= split_us:
        return packs
    for k in sorted(taken):
        record["unsplit"].append({"ops": list(steps[k].kernel.ops), "split": steps[k].kernel.entry,
                                  "unsplit": swaps[k].entry, "wave_us": {"split": round(split_us, 3),
                                                                          "unsplit": round(chosen_us, 3)}})
        steps[k] = chosen[k]
    return chosen_packs


def _wave_us(members: list[int], packs, steps, types, target: Target) -> float:
    """A wave's predicted time: each pack's co-launch, each other launch alone (a launch each)."""
    packed = {k for pack, _ in packs for k in pack}
    return sum(times[0] for _, times in packs) + sum(
        kernel_us(steps[k].kernel, types, target) + LAUNCH_US for k in members
        if k not in packed and isinstance(steps[k], LaunchStep))


def alike_us(us: float, blocks: int, per_sm: int, nbytes: float, copies: int, target: Target) -> float:
    """One of `copies` alike independent kernels (each `us` alone, `blocks` blocks, `per_sm` of them
    resident on an SM, `nbytes` of DRAM traffic), as this stage runs them: packed into co-launches
    of as many as stay resident together, each predicted as `predictions` prices a pack; a kernel
    that fills the GPU alone runs alone. What the lowering prices a way by when a node has alike
    siblings in its wave (passes/lower.py: a detector's TopK per class), since a way of small
    kernels costs the wave little more than one of them."""
    fit = target.sms * per_sm // max(1, blocks) if blocks < target.sms * per_sm else 1
    if copies < 2 or fit < 2:
        return us + LAUNCH_US
    per_pack = min(copies, fit)
    packs = -(-copies // per_pack)
    pack_us = max(us, per_pack * nbytes / (target.dram_gbps * 1e3)) + LAUNCH_US
    return min(us + LAUNCH_US, packs * pack_us / copies)


def _candidate(step, target: Target) -> bool:
    """A launch that may share a launch: co-launchable and leaving SMs empty on its own."""
    if not isinstance(step, LaunchStep) or can_co_launch(step.kernel) is not None:
        return False
    return step.kernel.blocks < target.sms * resident_per_sm(step.kernel, target)


def predictions(kernels: list[Kernel], types, target: Target) -> tuple[float, float]:
    """(co-launch, apart) predicted microseconds of `kernels`, launches included."""
    times = [kernel_us(k, types, target) for k in kernels]
    nbytes = sum(kernel_bytes(k, types) for k in kernels)
    co = max(max(times), nbytes / (target.dram_gbps * 1e3)) + LAUNCH_US
    return co, sum(times) + LAUNCH_US * len(kernels)


def _packs(cands: list[int], steps, types, target: Target) -> list[tuple[list[int], tuple[float, float]]]:
    """The packing of the wave's candidates predicted fastest of three greedy ones: in plan order,
    longest first and most blocks first. A co-launch costs its slowest member, so kernels of like
    times packed together can save what plan order loses by putting a long kernel in each pack, and
    the largest first leave the small ones to fill what room is left (a detector's heads of five
    levels beside their box decoding); plan order wins ties."""
    times = {k: kernel_us(steps[k].kernel, types, target) for k in cands}
    best: tuple[float, list] | None = None
    by_time = sorted(cands, key=lambda k: (-times[k], k))
    by_blocks = sorted(cands, key=lambda k: (-steps[k].kernel.blocks, k))
    for order in (cands, by_time, by_blocks):
        packs = _greedy_packs(order, steps, types, target)
        packed = {k for pack, _ in packs for k in pack}
        cost = sum(co for _, (co, _) in packs) + sum(times[k] + LAUNCH_US for k in cands if k not in packed)
        if best is None or cost < best[0] - 1e-9:
            best = (cost, packs)
    return best[1] if best else []


def _greedy_packs(cands: list[int], steps, types, target: Target) -> list[tuple[list[int], tuple[float, float]]]:
    """Greedy packing in the order given, per block shape, while all blocks stay resident together;
    each pack (in plan order) with its predictions (co-launch, apart); packs the cost model does not
    favour are dropped."""
    packs: list[tuple[list[int], tuple[float, float]]] = []
    by_shape: dict[tuple, list[list[int]]] = {}
    for k in cands:
        kern = steps[k].kernel
        # one-dimensional blocks of any width pack together (the narrower on the first threads)
        shape = ("1-d",) if can_run_narrowed(kern) else kern.block
        open_ = by_shape.setdefault(shape, [])
        cur = open_[-1] if open_ else None
        if cur is not None:
            ks = [steps[j].kernel for j in cur] + [kern]
            if launch_block(ks) is not None and sum(x.blocks for x in ks) <= target.sms * resident_together(ks, target) \
                    and sum(len(x.params) for x in ks) <= MAX_POINTER_PARAMS:
                cur.append(k)
                continue
        open_.append([k])
    for shape_packs in by_shape.values():
        for pack in shape_packs:
            if len(pack) < 2:
                continue
            pack = sorted(pack)
            times = predictions([steps[j].kernel for j in pack], types, target)
            if times[0] < times[1]:
                packs.append((pack, times))
    return sorted(packs)


def resident_together(kernels: list[Kernel], target: Target) -> int:
    """Blocks per SM a launch of `kernels` holds: the fewest any member allows, each at the
    launch's block width (a narrower member's blocks take the widest's threads) and shared memory."""
    block = launch_block(kernels)
    threads = block[0] * block[1] * block[2] if block else max(k.threads for k in kernels)
    shared = max(k.shared_bytes for k in kernels)
    return max(1, min([resident_per_sm(k, target) for k in kernels] + [resident_blocks(threads, shared, 0, target)]))


def _member_kind(k: Kernel) -> dict:
    """A member's kind, and its sparse format and density where SparTA gave it one (the launch's
    own row in report.json sums the members' FLOPs; this says which member is sparse)."""
    cfg = dict(k.config)
    out = {"schedule": str(cfg.get("schedule", ""))}
    if "format" in cfg:
        out.update(format=cfg["format"], density=cfg.get("density"))
    return out


def _co_kernel(kernels: list[Kernel], times: tuple[float, float], types, target: Target, wave: int,
               record: dict) -> Kernel:
    co, apart = times
    k = co_launch(kernels)
    members = [{"entry": m.entry, "ops": list(m.ops), "blocks": m.blocks, **_member_kind(m),
                "predicted_us": round(kernel_us(m, types, target), 3)} for m in kernels]
    record["co_launches"].append({"entry": k.entry, "wave": wave, "block": list(k.block), "members": members,
                                  "predicted_us": {"co_launch": round(co, 3), "apart": round(apart, 3)}})
    config = (("schedule", "rammer_co_launch"), ("members", tuple(m.entry for m in kernels)),
              ("predicted_us", round(co - LAUNCH_US, 3)), *members_totals(kernels, k.params, types))
    return dataclasses.replace(k, config=config)


# ---- the barrier variant: consecutive launches joined by step counters ---------------------------

def _join(out: list, types, target: Target, record: dict) -> list:
    """Runs of consecutive launches of one block shape whose blocks are all resident at once become
    one cooperative launch in which each member waits for the members it reads (step counters).
    Each joined launch saves LAUNCH_US and costs BARRIER_US, so the cost model favours a run
    whenever it fits; `out` items are (step, co-launch parts or None, co-launch time or None)."""
    joined: list = []
    run: list = []

    def close():
        if len(run) >= 2 and _pays(run, types, target):
            joined.append((LaunchStep(_barrier_kernel(run, types, target, record)), None, None))
        else:
            joined.extend(run)
        run.clear()

    for item in out:
        if _joinable(item, target) and _fits(run + [item], target):
            run.append(item)
            continue
        close()
        if _joinable(item, target):
            run.append(item)
        else:
            joined.append(item)
    close()
    return joined


def _joinable(item, target: Target) -> bool:
    """A co-launch of this stage, or a launch that could have been one's member."""
    step, parts, _ = item
    return parts is not None or _candidate(step, target)


def _parts(item) -> list[Kernel]:
    step, parts, _ = item
    return parts if parts is not None else [step.kernel]


def _fits(items: list, target: Target) -> bool:
    kernels = [k for item in items for k in _parts(item)]
    if launch_block(kernels) is None or sum(len(k.params) for k in kernels) > MAX_POINTER_PARAMS:
        return False
    return sum(k.blocks for k in kernels) <= target.sms * resident_together(kernels, target)


def _unit_us(item, types, target: Target) -> float:
    step, parts, co = item
    return co - LAUNCH_US if parts is not None else kernel_us(step.kernel, types, target)


def _join_times(run: list, types, target: Target) -> tuple[float, float]:
    """(joined, apart) predicted microseconds: the launches' own times run one after another
    either way; joined pays BARRIER_US per join instead of LAUNCH_US per launch."""
    units = [_unit_us(item, types, target) for item in run]
    return sum(units) + BARRIER_US * (len(run) - 1) + LAUNCH_US, sum(units) + LAUNCH_US * len(run)


def _pays(run: list, types, target: Target) -> bool:
    joined, apart = _join_times(run, types, target)
    return joined < apart


def _barrier_kernel(run: list, types, target: Target, record: dict) -> Kernel:
    kernels = [k for item in run for k in _parts(item)]
    written: dict[str, int] = {}
    waits: list[list[int]] = []
    for j, k in enumerate(kernels):
        # what it reads, and what it writes again (a scatter's updates after its copy)
        waits.append(sorted({written[p.value] for p in k.params if p.value in written}))
        for p in k.params:
            if p.output:
                written[p.value] = j
    joined_us, apart_us = _join_times(run, types, target)
    per_sm = -(-sum(k.blocks for k in kernels) // target.sms)
    k = co_launch(kernels, waits=waits, blocks_per_sm=per_sm)
    absorbed = {step.kernel.entry for step, parts, _ in run if parts is not None}
    for c in record["co_launches"]:      # the co-launches it takes in are no launches of their own now
        if c["entry"] in absorbed:
            c["joined_into"] = k.entry
    members = [{"entry": m.entry, "ops": list(m.ops), "blocks": m.blocks, "waits_for": w, **_member_kind(m),
                "predicted_us": round(kernel_us(m, types, target), 3)} for m, w in zip(kernels, waits)]
    record["barrier_launches"].append({"entry": k.entry, "block": list(k.block), "launches_joined": len(run),
                                       "members": members, "predicted_us": {"joined": round(joined_us, 3),
                                                                            "apart": round(apart_us, 3)}})
    config = (("schedule", "rammer_barrier"), ("members", tuple(m.entry for m in kernels)),
              ("predicted_us", round(joined_us - LAUNCH_US, 3)), *members_totals(kernels, k.params, types))
    return dataclasses.replace(k, config=config)
