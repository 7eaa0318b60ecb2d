"""bench/switch.py on a shared model: the row's effect is the switched technique's, taken from the
default compile, and the disabled side carries none of it."""
from __future__ import annotations

import json
import subprocess
import sys

from tests.conftest import REPO


def test_split_k_row_compares_the_plan_with_its_switch(tmp_path, models_dir):
    out = subprocess.run([sys.executable, str(REPO / "bench" / "switch.py"), "split_k", "--models", "resnet",
                          "--shared", str(models_dir.parent), "--out", str(tmp_path)],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    (path,) = tmp_path.glob("switch-*.json")
    result = json.loads(path.read_text())
    assert result["suite"] == "switch" and result["settings"]["technique"] == "split_k"
    (row,) = result["rows"]
    assert list(row["effect"]) == ["split-K"]
    split = row["effect"]["split-K"]
    assert split["split_kernels"] > 0 and split["workspace_bytes"] == row["default"]["workspace_bytes"] > 0
    assert row["disabled"]["workspace_bytes"] == 0
    assert row["latency_ratio"] == round(row["default"]["predicted_us"] / row["disabled"]["predicted_us"], 4) < 1
