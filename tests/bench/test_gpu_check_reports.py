"""`make gpu-check` runs tests/gpu under `timeout`, which kills pytest before its summary: each
failure must be printed when it happens (tests/gpu/conftest.py). The first GPU run's log had no
such line: the hook looked the terminal reporter up before it existed."""
from __future__ import annotations

import subprocess
import sys

from tests.conftest import REPO


def test_a_gpu_test_failure_is_reported_before_the_summary(tmp_path):
    test = tmp_path / "test_fails.py"
    test.write_text("def test_fails():\n    assert 2 + 2 == 5, 'the arithmetic the test expects'\n")
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "tests.gpu.conftest", "-p", "no:cacheprovider",
                           "--rootdir", str(tmp_path), str(test)], capture_output=True, text=True, timeout=120, cwd=REPO)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    out = proc.stdout
    early = out.find("FAILED test_fails.py::test_fails (call):")
    assert 0 <= early < out.find("= FAILURES ="), out
    assert "the arithmetic the test expects" in out[early:out.find("= FAILURES =")]
