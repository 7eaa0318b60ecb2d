"""A Llama-family decoder (bench/decoder_models.py: RMSNorm, rotary embeddings made from position
ids, grouped-query attention, a causal mask, SwiGLU), a model outside the shared set written as
exporters write it: right on the host harness against onnxruntime, its attention one kernel that
computes the rotary embedding and reads the shared K/V heads in place, and far fewer launches than
unfused."""
from __future__ import annotations

import os
import sys

import numpy as np
import onnxruntime as ort
import pytest

from compiler import compile
from compiler.pipeline import CompileOptions
from compiler.runtime.executor import Executor, make_backend

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "bench"))
import decoder_models  # noqa: E402

ROTARY_OPS = ("Slice", "Neg", "Concat")


def run(model, precision: str, disable=(), modes=("default",)):
    """The compiled artifact's report and its worst relative error against onnxruntime over `modes`."""
    data, feeds = model.SerializeToString(), decoder_models.inputs(model)
    (want,) = ort.InferenceSession(data, providers=["CPUExecutionProvider"]).run(None, feeds)
    art = compile(data, "h100", CompileOptions(build=False, precision=precision, disable=disable))
    err = 0.0
    for mode in modes:
        got = Executor(art.plan, make_backend("host", mode=mode, seed=3)).run(feeds)["out"]
        err = max(err, float(np.max(np.abs(got - want)) / np.max(np.abs(want))))
    return art.report, err


def kinds(op_names) -> set[str]:
    return {op.rsplit("_", 1)[0] for op in op_names}


@pytest.mark.parametrize("attention", ["eager", "sdpa"])
def test_llama_is_right_and_its_attention_computes_the_rotary_embedding(attention):
    """Every kernel that rotates (Slice, Neg, Concat) also runs the softmax, and no other negates:
    the rotary embedding of Q and K is computed in the attention kernel's loads, never written;
    the whole decoder runs in at most 15% of the unfused launches."""
    model = decoder_models.llama(**decoder_models.SMALL, attention=attention)
    fused, err = run(model, "fp32", modes=("default", "shuffle"))
    assert err < 1e-4
    unfused, err_unfused = run(model, "fp32", disable=("welder",))
    assert err_unfused < 1e-4
    rotating = [k for k in fused["kernels"] if set(ROTARY_OPS) <= kinds(k["ops"])]
    assert len(rotating) == decoder_models.SMALL["layers"]
    assert all("Softmax" in kinds(k["ops"]) for k in rotating)
    assert not any("Neg" in kinds(k["ops"]) for k in fused["kernels"] if k not in rotating)
    assert fused["launches_per_inference"] <= 0.15 * unfused["launches_per_inference"]


@pytest.mark.parametrize("attention", ["eager", "sdpa"])
def test_llama_attention_over_256_positions_is_one_flash_kernel_per_layer(attention):
    """At 256 positions in fp16 each layer's attention is one flash_attention kernel that takes in
    the rotary embedding of Q and K and the repeat of the shared K/V heads (Expand): no S x S
    matrix and no repeated K or V in DRAM; right against onnxruntime."""
    model = decoder_models.llama(**decoder_models.SMALL, seq=256, attention=attention)
    rep, err = run(model, "fp16")
    assert err < 5e-3
    flash = [k for k in rep["kernels"] if k["config"]["schedule"] == "flash_attention"]
    assert len(flash) == decoder_models.SMALL["layers"]
    for k in flash:
        assert {"Softmax", "Expand", *ROTARY_OPS} <= kinds(k["ops"]), k["ops"]
    assert not any("Expand" in kinds(k["ops"]) for k in rep["kernels"] if k not in flash)


def test_the_builder_refuses_heads_that_do_not_divide():
    with pytest.raises(ValueError, match="kv_heads"):
        decoder_models.llama(dim=64, heads=4, kv_heads=3)
