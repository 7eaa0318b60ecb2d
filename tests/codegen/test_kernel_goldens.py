"""Generated-kernel goldens: the kernels emitted for the shared models, named by content.

A change that alters emitted CUDA shows up here as a diff of tests/goldens/kernels.json. If the
change is intended, regenerate with BRICKYARD_UPDATE_GOLDENS=1 and commit the new file."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.conftest import MODELS_DIR, shared_models

GOLDEN = Path(__file__).resolve().parents[1] / "goldens" / "kernels.json"


def emitted_kernels() -> dict[str, list[str]]:
    from compiler import compile
    from compiler.pipeline import CompileOptions
    out = {}
    for name in shared_models():
        art = compile(str(MODELS_DIR / f"{name}.onnx"), "h100", CompileOptions(build=False))
        out[name] = [k.entry for k in art.plan.kernels()]
    return out


def test_emitted_kernels_match_goldens():
    got = emitted_kernels()
    if os.environ.get("BRICKYARD_UPDATE_GOLDENS") == "1":
        GOLDEN.write_text(json.dumps(got, indent=1, sort_keys=True) + "\n")
        pytest.skip("goldens rewritten, nothing compared: review `git diff tests/goldens/kernels.json`")
    want = json.loads(GOLDEN.read_text())
    for name in sorted(set(got) | set(want)):
        assert got.get(name) == want.get(name), (
            f"{name}: emitted kernels changed; if intended, run with BRICKYARD_UPDATE_GOLDENS=1")
