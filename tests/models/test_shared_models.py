"""Every shared model: compile for h100 through the CLI, run on the host harness, match its .npz."""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from tests.conftest import COMPILE_LINES, shared_models

TOL = 1e-3


def rel_err(got: np.ndarray, ref: np.ndarray) -> float:
    return float(np.max(np.abs(got.astype(np.float64) - ref)) / max(np.max(np.abs(ref)), 1e-30))


def brickyard(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "compiler", *args], capture_output=True, text=True)


@pytest.mark.parametrize("name", shared_models())
def test_model_compiles_and_matches_on_host(name, tmp_path, models_dir):
    art = tmp_path / f"{name}.tar.gz"
    r = brickyard("compile", str(models_dir / f"{name}.onnx"), "--target", "h100", "-o", str(art), "-q")
    assert r.returncode == 0, r.stderr
    from compiler.artifact import load_artifact
    report = load_artifact(art).report
    secs, nk = report["compile"]["seconds"], len(report["kernels"])
    COMPILE_LINES.append(f"{name:<18} compiled for h100 in {secs:6.2f} s, {nk:4d} kernels, "
                         f"{report['compile']['cache']['misses']} built")
    # every kernel was built by NVRTC for sm_90: registers come from ptxas
    assert nk > 0 and all(k["registers"] > 0 for k in report["kernels"])
    ref = np.load(models_dir / f"{name}.npz")
    inputs = tmp_path / "in.npz"
    np.savez(inputs, **{k[3:]: ref[k] for k in ref.files if k.startswith("in:")})
    out = tmp_path / "out.npz"
    r = brickyard("run", str(art), "--inputs", str(inputs), "--outputs", str(out), "--device", "host")
    assert r.returncode == 0, r.stderr
    got = np.load(out)
    for k in ref.files:
        if k.startswith("out:"):
            err = rel_err(got[k[4:]], ref[k])
            assert err < TOL, f"{name} {k}: max rel error {err:.2e}"


def test_branchy_takes_both_branches(tmp_path, models_dir):
    """branchy's If depends on the sign of the input's mean: run both signs against onnxruntime."""
    import onnxruntime as ort
    from compiler import compile
    from compiler.pipeline import CompileOptions
    from compiler.runtime.executor import Executor, make_backend
    model = models_dir / "branchy.onnx"
    art = compile(str(model), "h100", CompileOptions(build=False))
    ex = Executor(art.plan, make_backend("host"))
    sess = ort.InferenceSession(str(model), providers=["CPUExecutionProvider"])
    x = np.load(models_dir / "branchy.npz")["in:input_0"]
    means = []
    for sign in (1.0, -1.0):
        xi = (np.abs(x) + 0.1) * sign
        means.append(float(xi.mean()))
        got = ex.run({"input_0": xi.astype(np.float32)})["output_0"]
        want = sess.run(None, {"input_0": xi.astype(np.float32)})[0]
        assert rel_err(got, want) < TOL
    assert means[0] > 0 > means[1]


@pytest.mark.parametrize("name", shared_models())
def test_kernels_build_for_sm80(name, models_dir):
    """The same kernels build for Ampere (sm_80) too."""
    from compiler import compile
    art = compile(str(models_dir / f"{name}.onnx"), "a100")
    assert art.report["target"]["arch"] == "sm_80"
    assert len(art.cubins) == len({k.digest for k in art.plan.kernels()})
