"""The lower stage keeps no kernel whose every value nothing reads (`lower.drop_unread`): an output
of a node no reader asks for is not computed, one a reader asks for is, and the plan's result is
the same either way. Checked on a training-mode BatchNormalization (its running statistics) and
a Split with a part nobody reads."""
from __future__ import annotations

import numpy as np
import onnxruntime as ort
from onnx import TensorProto as TP, helper, numpy_helper

from compiler import compile
from compiler.ir.dataflow import all_steps, writes
from compiler.ir.plan import ComputeStep
from compiler.pipeline import CompileOptions, plan_before
from compiler.runtime.executor import Executor, make_backend

RNG = np.random.default_rng(7)


def _batchnorm(outputs: list[str]) -> bytes:
    c = 6
    inits = [numpy_helper.from_array(RNG.standard_normal(c).astype(np.float32), n) for n in ("scale", "bias", "mean")]
    inits.append(numpy_helper.from_array(RNG.uniform(0.5, 2.0, c).astype(np.float32), "var"))
    bn = helper.make_node("BatchNormalization", ["x", "scale", "bias", "mean", "var"], ["y", "run_mean", "run_var"],
                          training_mode=1, momentum=0.8)
    relu = helper.make_node("Relu", ["y"], ["z"])
    g = helper.make_graph([bn, relu], "bn", [helper.make_tensor_value_info("x", TP.FLOAT, [2, c, 5, 5])],
                          [helper.make_tensor_value_info(o, TP.FLOAT, [2, c, 5, 5] if o == "z" else [c])
                           for o in outputs], inits)
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 15)]).SerializeToString()


def _split(outputs: list[str]) -> bytes:
    """x split in three along its rows, each part doubled; the model's outputs are `outputs`."""
    split = helper.make_node("Split", ["x"], ["a", "b", "c"], axis=0, num_outputs=3)
    twice = [helper.make_node("Add", [p, p], [f"{p}2"]) for p in ("a", "b", "c")]
    g = helper.make_graph([split, *twice], "split", [helper.make_tensor_value_info("x", TP.FLOAT, [6, 8])],
                          [helper.make_tensor_value_info(o, TP.FLOAT, [2, 8]) for o in outputs])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)]).SerializeToString()


def _written(model: bytes) -> set[str]:
    plan = plan_before("welder", model, "h100", CompileOptions(build=False))
    return set().union(*(writes(s) for s in all_steps(plan) if isinstance(s, ComputeStep)))


def _check_against_onnxruntime(model: bytes, feeds: dict) -> None:
    art = compile(model, "h100", CompileOptions(build=False))
    got = Executor(art.plan, make_backend("host")).run(feeds)
    sess = ort.InferenceSession(model, providers=["CPUExecutionProvider"])
    want = dict(zip([o.name for o in sess.get_outputs()], sess.run(None, feeds)))
    assert set(got) == set(want)
    for name, w in want.items():
        np.testing.assert_allclose(got[name], w, rtol=1e-4, atol=1e-5, err_msg=name)


def test_running_statistics_nobody_reads_are_not_computed():
    feeds = {"x": RNG.standard_normal((2, 6, 5, 5)).astype(np.float32)}
    only_z, every = _batchnorm(["z"]), _batchnorm(["z", "run_mean", "run_var"])
    assert not {"run_mean", "run_var"} & _written(only_z)
    assert {"run_mean", "run_var"} <= _written(every)
    for model in (only_z, every):
        _check_against_onnxruntime(model, feeds)


def test_a_split_part_nobody_reads_is_not_computed():
    feeds = {"x": RNG.standard_normal((6, 8)).astype(np.float32)}
    two, three = _split(["a2", "c2"]), _split(["a2", "b2", "c2"])
    assert not {"b", "b2"} & _written(two)
    assert {"b2"} <= _written(three)
    for model in (two, three):
        _check_against_onnxruntime(model, feeds)
