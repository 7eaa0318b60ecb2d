"""onnxruntime's com.microsoft CausalConvWithState (compiler/ops/contrib_causal_conv.py), the short
convolution of LFM2's conv layers, against onnxruntime's own CPU kernel on the host harness in both
thread orders: with and without a past state and a bias, SiLU, dilation, a decode step shorter than
the state, fp16; both outputs in one kernel; the CUDA-only layouts refused by name."""
from __future__ import annotations

import numpy as np
import pytest
from onnx import helper

from compiler import compile
from compiler.errors import CompilerError
from compiler.pipeline import CompileOptions
from compiler.runtime.executor import Executor, make_backend

from .test_contrib_attention import ort_run

RNG = np.random.default_rng(47)


def conv_case(B, C, S, k, *, dilation=1, past=False, bias=False, dtype=np.float32, **attrs):
    """(model bytes, feeds): one node, its weight (and bias) constants, its input and past as inputs."""
    T = helper.np_dtype_to_tensor_dtype(np.dtype(dtype))
    L = (k - 1) * dilation
    feeds = {"x": RNG.standard_normal((B, C, S)).astype(dtype)}
    inits = [helper.make_tensor("w", T, (C, 1, k), RNG.standard_normal((C, 1, k)).astype(dtype).tobytes(), raw=True)]
    names = ["x", "w", "", ""]
    inputs = [helper.make_tensor_value_info("x", T, (B, C, S))]
    if bias:
        inits.append(helper.make_tensor("b", T, (C,), RNG.standard_normal(C).astype(dtype).tobytes(), raw=True))
        names[2] = "b"
    if past:
        feeds["past"] = RNG.standard_normal((B, C, L)).astype(dtype)
        inputs.append(helper.make_tensor_value_info("past", T, (B, C, L)))
        names[3] = "past"
    while not names[-1]:
        names.pop()
    node = helper.make_node("CausalConvWithState", names, ["y", "state"], domain="com.microsoft",
                            dilation=dilation, **attrs)
    outs = [helper.make_tensor_value_info("y", T, (B, C, S)), helper.make_tensor_value_info("state", T, (B, C, L))]
    m = helper.make_model(helper.make_graph([node], "causal_conv", inputs, outs, inits),
                          opset_imports=[helper.make_opsetid("", 21), helper.make_opsetid("com.microsoft", 1)])
    m.ir_version = 10
    return m.SerializeToString(), feeds


CASES = {
    "prompt_no_state": dict(B=2, C=8, S=7, k=3),
    "prompt_state_bias_silu": dict(B=2, C=8, S=7, k=4, past=True, bias=True, activation="silu"),
    "dilated": dict(B=1, C=16, S=5, k=3, dilation=2, past=True),
    "decode_shorter_than_state": dict(B=3, C=8, S=1, k=4, dilation=2, past=True, bias=True, activation="swish"),
    "lfm2_decode": dict(B=2, C=128, S=1, k=3, past=True),
    "fp16": dict(B=2, C=8, S=6, k=3, past=True, bias=True, activation="silu", dtype=np.float16),
}


@pytest.mark.parametrize("name", list(CASES))
def test_against_onnxruntime(name):
    case = CASES[name]
    data, feeds = conv_case(**case)
    want = ort_run(data, feeds)
    art = compile(data, "h100", CompileOptions(build=False))
    assert len(art.plan.kernels()) == 1        # the output and the present state: one kernel
    tol = 2e-3 if case.get("dtype") is np.float16 else 2e-6
    for mode in ("default", "shuffle"):
        got = Executor(art.plan, make_backend("host", mode=mode)).run(feeds)
        for n, w in want.items():
            np.testing.assert_allclose(got[n].astype(np.float32), w.astype(np.float32), rtol=0,
                                       atol=tol * max(1.0, float(np.abs(w).max())), err_msg=f"{n} ({mode})")


@pytest.mark.parametrize("name", ["prompt_state_bias_silu", "decode_shorter_than_state"])
def test_reference_matches_onnxruntime(name):
    from compiler.ir.graph import Node
    from compiler.ops.registry import lookup
    case = CASES[name]
    data, feeds = conv_case(**case)
    want = ort_run(data, feeds)
    import onnx
    m = onnx.load_from_string(data)
    consts = {t.name: onnx.numpy_helper.to_array(t) for t in m.graph.initializer}
    pn = m.graph.node[0]
    node = Node("CausalConvWithState", pn.name, tuple(pn.input), tuple(pn.output),
                tuple((a.name, helper.get_attribute_value(a)) for a in pn.attribute), domain="com.microsoft")
    args = [feeds.get(n, consts.get(n)) if n else None for n in pn.input]
    got = lookup("CausalConvWithState", "com.microsoft").reference(node, args, 21)
    for g, n in zip(got, ("y", "state")):
        np.testing.assert_allclose(g, want[n], rtol=0, atol=2e-6 * max(1.0, float(np.abs(want[n]).max())))


@pytest.mark.parametrize("attrs,match", [
    ({"channels_last": 1}, "channels_last=1 is not supported"),
    ({"state_window": 2}, "state_window=2 is not supported"),
    ({"ndim": 2}, "ndim=2 is not supported"),
    ({"activation": "relu"}, "activation 'relu' is not one of none, silu, swish"),
])
def test_refusals_name_the_attribute(attrs, match):
    data, _ = conv_case(1, 4, 3, 3, past=True, **attrs)
    with pytest.raises(CompilerError, match=match):
        compile(data, "h100", CompileOptions(build=False))
