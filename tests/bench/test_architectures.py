"""bench/architectures.py's compile half on a folder of one model (its export half needs PyTorch):
a row per precision with launches, predicted time and the host check, in the results JSON."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_compile_half_checks_each_model_in_both_precisions(tmp_path, models_dir):
    models = tmp_path / "models"
    models.mkdir()
    shutil.copy(models_dir / "branchy.onnx", models / "branchy.onnx")
    shutil.copy(models_dir / "branchy.npz", models / "branchy.npz")      # PyTorch's inputs and outputs
    (models / "exports.json").write_text(json.dumps({"branchy": {"name": "branchy"}, "mamba": {"error": "Boom"}}))
    out = tmp_path / "results"
    r = subprocess.run([sys.executable, str(REPO / "bench" / "architectures.py"), "compile", "--models-dir", str(models),
                        "--out", str(out)], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    (path,) = out.glob("architectures-*.json")
    doc = json.loads(path.read_text())
    assert doc["settings"]["failed_exports"] == {"mamba": "Boom"}
    assert [(row["name"], row["precision"]) for row in doc["rows"]] == [("branchy", "fp32"), ("branchy", "fp16")]
    for row in doc["rows"]:
        assert row["verification"] == "passed" and row["launches"] >= 1 and row["max_rel_error"] < 1e-2
        assert 0 <= row["torch_rel_error"] < (1e-3 if row["precision"] == "fp32" else 1e-2)


def test_an_empty_folder_is_refused(tmp_path):
    r = subprocess.run([sys.executable, str(REPO / "bench" / "architectures.py"), "compile", "--models-dir", str(tmp_path)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "export" in r.stderr
