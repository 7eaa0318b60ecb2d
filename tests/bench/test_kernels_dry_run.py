"""bench/kernels.py --dry-run on the CPU: a case compiles, its kernels build with NVRTC, and each
line carries the kernels' static SASS size (where the test extra's disassembler is installed)."""
from __future__ import annotations

import re
import subprocess
import sys

from compiler.codegen.sass import find_cuobjdump
from tests.conftest import REPO


def test_dry_run_builds_a_case_and_counts_its_sass():
    out = subprocess.run([sys.executable, str(REPO / "bench" / "kernels.py"), "--dry-run", "--only",
                          "softmax-32x12x128x128"], capture_output=True, text=True, timeout=600, cwd=REPO)
    assert out.returncode == 0, out.stdout + out.stderr
    lines = [line for line in out.stdout.splitlines() if line.startswith("ok ")]
    assert len(lines) == 2 and "dry run: 2 of 2 cases built" in out.stdout, out.stdout
    if find_cuobjdump() is not None:
        assert all(int(re.search(r"SASS (\d+)", line).group(1)) > 0 for line in lines), lines


def test_dry_run_builds_the_attention_cases_as_one_fused_kernel():
    """The suite's ONNX Attention cases (opset 23) compile to one kernel each: flash attention in fp16."""
    out = subprocess.run([sys.executable, str(REPO / "bench" / "kernels.py"), "--dry-run", "--only",
                          "attention-1x12x128x64"], capture_output=True, text=True, timeout=600, cwd=REPO)
    assert out.returncode == 0, out.stdout + out.stderr
    (line,) = [line for line in out.stdout.splitlines() if line.startswith("ok ")]
    assert "fp16: 1 kernel(s) [flash_attention]" in line, line


def test_dry_run_builds_a_decoder_step_as_flash_decoding():
    """The decoder group's attention case (one token against 4096 cached keys, opset 23's
    Attention with K and V longer than Q) compiles to one flash_decoding kernel in both types."""
    out = subprocess.run([sys.executable, str(REPO / "bench" / "kernels.py"), "--dry-run", "--only",
                          "decode-1x32x1x4096x128"], capture_output=True, text=True, timeout=600, cwd=REPO)
    assert out.returncode == 0, out.stdout + out.stderr
    lines = [line for line in out.stdout.splitlines() if line.startswith("ok ")]
    assert len(lines) == 2 and all("1 kernel(s) [flash_decoding]" in line for line in lines), out.stdout
