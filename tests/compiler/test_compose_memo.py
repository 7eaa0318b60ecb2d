"""ir/compose.py remembers a map stage's value across compositions (`_VALUES`, keyed by the stages up
to it): the welder stage composes a group again at every admission, one stage longer each time.
Every composition a real compilation asks for must come out as it does with nothing remembered:
the same expression and inputs, or the same refusal."""
from __future__ import annotations

import numpy as np
import pytest
from onnx import helper

import compiler.ir.compose as compose_mod

from .test_fold import inverted_residual
from .test_welder import RNG, check, model, weight


def epilogue_chain() -> bytes:
    """A MatMul (the anchor) read by a chain of maps (its epilogue, each reading the one before
    and the anchor's value again), then a reduction over the chain (a second anchor, the first
    folded or cut), and maps after it."""
    nodes = [helper.make_node("MatMul", ["x", "w"], ["m"]), helper.make_node("Add", ["m", "b"], ["a0"])]
    for k in range(1, 6):
        nodes += [helper.make_node("Relu", [f"a{k - 1}"], [f"r{k}"]),
                  helper.make_node("Mul", [f"r{k}", "m"], [f"p{k}"]),
                  helper.make_node("Add", [f"p{k}", f"a{k - 1}"], [f"a{k}"])]
    nodes += [helper.make_node("ReduceSum", ["a5", "axes"], ["s"], keepdims=1),
              helper.make_node("Sub", ["a5", "s"], ["d"]), helper.make_node("Tanh", ["d"], ["y"])]
    return model(nodes, [("x", [8, 16])], [("y", [8, 32])],
                 [("w", weight(16, 32)), ("b", weight(32)), ("axes", np.array([1], np.int64))])


def recurrence() -> bytes:
    """An unrolled recurrence h_t = tanh(h_{t-1} * a + x_t), each step's row sum added back: the
    form exporters give a scan, whose group grows one step at a time."""
    nodes, h = [], "h0"
    for t in range(8):
        nodes += [helper.make_node("Mul", [h, "a"], [f"m{t}"]), helper.make_node("Add", [f"m{t}", "x"], [f"z{t}"]),
                  helper.make_node("Tanh", [f"z{t}"], [f"h{t + 1}"])]
        h = f"h{t + 1}"
    nodes += [helper.make_node("ReduceSum", [h, "axes"], ["s"], keepdims=1), helper.make_node("Add", [h, "s"], ["y"])]
    return model(nodes, [("h0", [4, 24]), ("x", [4, 24])], [("y", [4, 24])],
                 [("a", weight(24)), ("axes", np.array([1], np.int64))])


CASES = {     # the model, its inputs' shapes, whether values are found remembered (none past a fold)
    "epilogue_chain": (epilogue_chain, {"x": (8, 16)}, True),
    "recurrence": (recurrence, {"h0": (4, 24), "x": (4, 24)}, True),
    "folded_depthwise": (lambda: inverted_residual(8, 4, 32, 10), {"x": (1, 8, 10, 10)}, False),
}


class _Counting(dict):
    """_VALUES counting the values found in it."""

    found = 0

    def __getitem__(self, key):
        self.found += 1
        return super().__getitem__(key)


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_remembered_value_composes_as_a_fresh_one(case, monkeypatch):
    make, shapes, found = CASES[case]
    asked = []
    real = compose_mod._compose

    def recorded(stages, registers):
        try:
            out = real(stages, registers)
        except compose_mod.NotComposable as e:
            out = e
        asked.append((stages, registers, out))
        if isinstance(out, Exception):
            raise out
        return out
    monkeypatch.setattr(compose_mod, "_compose", recorded)
    compose_mod._composed.cache_clear()
    monkeypatch.setattr(compose_mod, "_VALUES", _Counting())
    check(make(), {n: RNG.standard_normal(s).astype(np.float32) for n, s in shapes.items()})
    assert (compose_mod._VALUES.found > 0) is found, compose_mod._VALUES.found
    for stages, registers, out in asked:
        compose_mod._VALUES.clear()
        try:
            fresh = real(stages, registers)
        except compose_mod.NotComposable as e:
            fresh = e
        if isinstance(out, Exception) or isinstance(fresh, Exception):
            assert (type(out), str(out)) == (type(fresh), str(fresh)), stages
        else:
            assert out == fresh, [st.expr.name for st in stages]
