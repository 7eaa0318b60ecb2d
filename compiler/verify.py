"""Verification: run a compiled plan and compare with onnxruntime on the same inputs."""
from __future__ import annotations

import numpy as np

from .runtime.executor import Executor, make_backend


def sample_inputs(plan, seed: int = 0) -> dict[str, np.ndarray]:
    """Seeded random inputs of the plan's signature (small non-negative ints for index-like inputs)."""
    rng = np.random.default_rng(seed)
    types = dict(plan.types)
    out = {}
    for n in plan.inputs:
        t = types[n]
        if t.dtype.is_float:
            out[n] = rng.standard_normal(t.shape).astype(t.dtype.np)
        elif t.dtype.name == "bool":
            out[n] = rng.random(t.shape) < 0.5
        else:
            out[n] = rng.integers(0, 8, size=t.shape).astype(t.dtype.np)
    return out


def max_rel_error(got: dict, ref: dict) -> float:
    """max over outputs of max|got - ref| / max|ref| (the models' acceptance measure); inf on a shape
    mismatch, NaN where one side has a NaN the other does not, inf for an unmatched infinity;
    NaNs and infinities both sides hold are equal."""
    worst = 0.0
    for n, r in ref.items():
        g = np.asarray(got[n], dtype=np.float64)
        r = np.asarray(r, dtype=np.float64)
        if g.shape != r.shape:
            return float("inf")
        if not r.size:
            continue
        with np.errstate(invalid="ignore"):
            diff = np.where((g == r) | (np.isnan(g) & np.isnan(r)), 0.0, np.abs(g - r))
        if np.isnan(diff).any():
            return float("nan")
        finite = r[np.isfinite(r)]
        denom = max(float(np.max(np.abs(finite))) if finite.size else 0.0, 1e-30)
        worst = max(worst, float(np.max(diff)) / denom)
    return worst


def measure_error(plan, model, device: str = "host", seed: int = 0) -> float:
    """Max relative error of the plan against onnxruntime on seeded random inputs."""
    import onnxruntime as ort
    inputs = sample_inputs(plan, seed)
    got = Executor(plan, make_backend(device)).run(inputs)
    import onnx
    src = model.SerializeToString() if isinstance(model, onnx.ModelProto) else (model if isinstance(model, bytes) else str(model))
    sess = ort.InferenceSession(src, providers=["CPUExecutionProvider"])
    ref = dict(zip([o.name for o in sess.get_outputs()], sess.run(None, inputs)))
    return max_rel_error(got, {n: ref[n] for n in plan.outputs})
