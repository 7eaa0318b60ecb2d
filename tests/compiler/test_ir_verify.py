"""The IR verifiers catch broken invariants (they run after every stage when BRICKYARD_CHECK_IR=1)."""
from __future__ import annotations

import pytest

from compiler.ir.kernel import Kernel, KernelParam
from compiler.ir.dtypes import DType
from compiler.ir.graph import Graph, Node, TensorType
from compiler.ir.verify import VerifyError, verify_graph, verify_plan
from compiler.ir.plan import LaunchStep, Plan

F = TensorType(DType.float32, (4,))


def test_graph_reading_a_value_before_it_is_defined():
    g = Graph("g", ("x",), ("z",), (Node("Relu", "a", ("y",), ("z",)), Node("Relu", "b", ("x",), ("y",))),
              (("x", F), ("y", F), ("z", F)))
    with pytest.raises(VerifyError, match="reads y before"):
        verify_graph(g)
    ok = g.replace(nodes=tuple(reversed(g.nodes)))
    verify_graph(ok)


def test_plan_with_a_mistyped_kernel_parameter():
    k = Kernel(entry="k", source="", params=(KernelParam("double", "x", False), KernelParam("float", "y", True)),
               grid=(1, 1, 1), block=(32, 1, 1))
    plan = Plan(("x",), ("y",), (LaunchStep(k),), (("x", F), ("y", F)), ())
    with pytest.raises(VerifyError, match="param is double"):
        verify_plan(plan)
