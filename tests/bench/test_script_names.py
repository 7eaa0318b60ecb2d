"""A bench script's folder is sys.path[0] when it runs, so a script named like a module shadows that
module for everything the script imports: bench/packaging.py once hid `packaging` from transformers
and stopped the first GPU run's end-to-end benchmark (bench/results/gpu-check-20261124T120200Z.log)."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

from tests.conftest import REPO


def test_no_bench_script_is_named_like_a_module():
    shadowing = []
    for script in sorted((REPO / "bench").glob("*.py")):
        name = script.stem
        spec = importlib.util.find_spec(name) if name not in sys.modules else sys.modules[name].__spec__
        origin = Path(spec.origin).resolve().parent if spec is not None and spec.origin else None
        if name in sys.stdlib_module_names or (spec is not None and origin != script.parent.resolve()):
            shadowing.append(f"{script.name} hides {name} ({spec.origin if spec else 'the standard library'})")
    assert not shadowing, shadowing
