"""The memory plan: values alive at the same time never share arena bytes; aliases share their root's."""
from __future__ import annotations

from hypothesis import given, settings, strategies as st

from compiler.ir.kernel import Kernel, KernelParam
from compiler.ir.dtypes import DType
from compiler.ir.graph import TensorType
from compiler.ir.verify import verify_plan
from compiler.ir.dataflow import reads as step_reads, writes as step_writes
from compiler.passes.memory_plan import plan_memory
from compiler.ir.plan import AliasStep, LaunchStep, Plan


def _kernel(reads, write):
    params = tuple(KernelParam("float", r, False) for r in reads) + (KernelParam("float", write, True),)
    return Kernel(entry=f"k_{write}", source="", params=params, grid=(1, 1, 1), block=(32, 1, 1))


@st.composite
def chains(draw):
    """A random DAG of kernels over float buffers of random sizes, with some aliases."""
    n = draw(st.integers(2, 14))
    types = {"x": TensorType(DType.float32, (draw(st.integers(1, 300)),))}
    names = ["x"]
    steps = []
    for i in range(n):
        v = f"v{i}"
        if draw(st.booleans()) and len(names) > 1 and i > 0:
            src = draw(st.sampled_from(names[1:]))
            types[v] = types[src]
            steps.append(AliasStep(v, src))
        else:
            reads = draw(st.lists(st.sampled_from(names), min_size=1, max_size=3, unique=True))
            types[v] = TensorType(DType.float32, (draw(st.integers(1, 300)),))
            steps.append(LaunchStep(_kernel(reads, v)))
        names.append(v)
    outs = tuple(draw(st.lists(st.sampled_from(names[1:]), min_size=1, max_size=2, unique=True)))
    return Plan(inputs=("x",), outputs=outs, steps=tuple(steps), types=tuple(types.items()), constants=())


@settings(max_examples=200, deadline=None)
@given(chains())
def test_live_values_never_overlap(plan):
    planned = plan_memory(plan)
    verify_plan(planned)
    types = dict(planned.types)
    offsets = dict(planned.arena)
    root = {s.dst: s.src for s in planned.steps if isinstance(s, AliasStep)}
    def find(n):
        while n in root:
            n = root[n]
        return n
    # live interval of each root buffer, over step indices (outputs live to the end)
    first, last = {}, {}
    for i, s in enumerate(planned.steps):
        for n in step_writes(s):
            first.setdefault(find(n), i); last[find(n)] = max(last.get(find(n), i), i)
        for n in step_reads(s):
            last[find(n)] = max(last.get(find(n), i), i)
    for o in planned.outputs:
        last[find(o)] = len(planned.steps)
    slots = [(n, offsets[n], offsets[n] + types[n].nbytes) for n in offsets]
    assert all(find(n) == n for n, *_ in slots), "aliases must not get their own slot"
    for a, a0, a1 in slots:
        for b, b0, b1 in slots:
            if a < b and not (last[a] < first[b] or last[b] < first[a]):
                assert a1 <= b0 or b1 <= a0, f"{a} and {b} are alive together and overlap"


def test_reuse_happens():
    """A chain x -> a -> b -> c: a's bytes are reused once a is dead."""
    t = TensorType(DType.float32, (1024,))
    steps = (LaunchStep(_kernel(["x"], "a")), LaunchStep(_kernel(["a"], "b")), LaunchStep(_kernel(["b"], "c")))
    plan = plan_memory(Plan(("x",), ("c",), steps, (("x", t), ("a", t), ("b", t), ("c", t)), ()))
    assert plan.arena_bytes == 2 * 4096
