"""`brickyard compile --verify host --verify-inputs FILE.npz`: the verify stage runs the plan and
onnxruntime on the caller's inputs (a generation step's token ids, attention mask and cache, where
seeded random integers are no valid mask), report.json says so; inputs that do not fit the
compiled model are a clear error."""
from __future__ import annotations

import json
import tarfile

import numpy as np

from tests.cli.test_cli_errors import assert_clean_error, brickyard
from tests.ops.test_contrib_gqa import genai_decoder

B, M, NK, HD = 2, 12, 2, 16


def _step_inputs(rng) -> dict:
    """A generation step over a cache of M positions, the second entry's 4 shorter."""
    mask = np.ones((B, M), np.int64)
    mask[1, M - 4:] = 0
    feeds = {"input_ids": rng.integers(0, 100, (B, 1)).astype(np.int64), "attention_mask": mask}
    for i in range(2):
        for kv in ("key", "value"):
            feeds[f"past.{i}.{kv}"] = rng.standard_normal((B, NK, M, HD)).astype(np.float32)
    return feeds


def _compile(tmp_path, *extra):
    model = tmp_path / "decoder.onnx"
    model.write_bytes(genai_decoder())
    shapes = ["--input-shape", f"input_ids={B},1", "--input-shape", f"attention_mask={B},{M}",
              "--input-shape", f"past.0.key={B},{NK},{M},{HD}"]
    return brickyard("compile", str(model), "-o", str(tmp_path / "out.brickyard"), *shapes, *extra)


def _report(path) -> dict:
    with tarfile.open(path) as t:
        return json.load(t.extractfile("report.json"))


def test_verify_on_given_inputs(tmp_path):
    inputs = tmp_path / "step.npz"
    np.savez(inputs, **_step_inputs(np.random.default_rng(1)))
    r = _compile(tmp_path, "--verify", "host", "--verify-inputs", str(inputs))
    assert r.returncode == 0, r.stderr
    assert "Verification passed on the host (the generated CUDA run on the CPU), on the given inputs" in r.stdout
    v = _report(tmp_path / "out.brickyard")["verification"]
    assert v["inputs"] == "given" and v["outcome"] == "passed" and v["max_rel_error"] < 1e-4


def test_verify_inputs_must_fit_the_compiled_model(tmp_path):
    feeds = _step_inputs(np.random.default_rng(2))
    feeds["attention_mask"] = feeds["attention_mask"][:, :-1]          # a mask one position short
    inputs = tmp_path / "short.npz"
    np.savez(inputs, **feeds)
    assert_clean_error(_compile(tmp_path, "--verify", "host", "--verify-inputs", str(inputs)),
                       "verification input 'attention_mask' is int64[2, 11]", "int64[2, 12]")
    del feeds["attention_mask"]
    np.savez(inputs, **feeds)
    assert_clean_error(_compile(tmp_path, "--verify", "host", "--verify-inputs", str(inputs)),
                       "the verification inputs have no 'attention_mask'")


def test_verify_inputs_need_verify(tmp_path):
    inputs = tmp_path / "step.npz"
    np.savez(inputs, **_step_inputs(np.random.default_rng(3)))
    assert_clean_error(_compile(tmp_path, "--verify-inputs", str(inputs)), "--verify-inputs needs --verify")


def test_kv_cache_in_place_verified_on_the_loops_inputs(tmp_path):
    """`--kv-cache in-place`: every layer's present is its past's buffer (report.json kv_cache), and
    on a loop's step (each past zero after its entry's tokens, docs/llm.md) verification passes."""
    feeds = _step_inputs(np.random.default_rng(4))
    for i in range(2):
        for kv in ("key", "value"):
            feeds[f"past.{i}.{kv}"][1, :, M - 4 - 1:] = 0      # entry 1 holds M - 5 tokens before the new one
            feeds[f"past.{i}.{kv}"][0, :, M - 1:] = 0
    inputs = tmp_path / "step.npz"
    np.savez(inputs, **feeds)
    r = _compile(tmp_path, "--kv-cache", "in-place", "--verify", "host", "--verify-inputs", str(inputs))
    assert r.returncode == 0, r.stderr
    rep = _report(tmp_path / "out.brickyard")
    assert rep["kv_cache"]["mode"] == "in-place"
    assert rep["kv_cache"]["donated"] == {f"present.{i}.{kv}": f"past.{i}.{kv}" for i in range(2) for kv in ("key", "value")}
    assert rep["verification"]["outcome"] == "passed" and rep["verification"]["max_rel_error"] < 1e-4
