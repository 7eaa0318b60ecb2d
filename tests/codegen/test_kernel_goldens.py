"""Kernel source goldens: the full CUDA of every kernel emitted for the shared models (h100, fp32 and
fp16), two MatMuls that take the wgmma kind, and a sample of ONNX's conformance cases (one per op),
with each launch's shape. The safety net of refactors that must not change a kernel (issue 12).

Normalised: a kernel's entry is `<prefix>_<sha256[:16]>` of its own source, so any change renames
it; the golden names kernels `<prefix>_k<N>` in order of first launch so that a diff shows the
lines that changed, not every name. A case the compiler refuses records its error category.

On a difference the test prints a unified diff. When a change is intended, regenerate with
BRICKYARD_UPDATE_GOLDENS=1 and review `git diff tests/goldens/kernels/`."""
from __future__ import annotations

import collections
import difflib
import functools
import os
import re
from pathlib import Path

import pytest

from tests.conftest import MODELS_DIR, shared_models

GOLDEN_DIR = Path(__file__).resolve().parents[1] / "goldens" / "kernels"
UPDATE = os.environ.get("BRICKYARD_UPDATE_GOLDENS") == "1"
ENTRY = re.compile(r"\b([A-Za-z0-9_]+?)_([0-9a-f]{16})\b")


def render_golden(title: str, kernels) -> str:
    """One text holding every distinct kernel's source once, after the launch list."""
    names: dict[str, str] = {}       # entry -> normalised name
    per_prefix: collections.Counter = collections.Counter()
    sources: list[tuple[str, str]] = []
    for k in kernels:
        if k.entry not in names:
            prefix = ENTRY.fullmatch(k.entry).group(1) if ENTRY.fullmatch(k.entry) else k.entry
            names[k.entry] = f"{prefix}_k{per_prefix[prefix]}"
            per_prefix[prefix] += 1
            sources.append((k.entry, k.source))

    def norm(text: str) -> str:
        for entry, name in names.items():
            text = text.replace(entry, name)
        return text

    lines = [f"// golden: {title}", f"// {len(kernels)} launches, {len(sources)} distinct kernels"]
    for i, k in enumerate(kernels):
        params = " ".join(("out:" if p.output else "") + f"{p.ctype}" for p in k.params)
        lines.append(f"// launch {i}: {names[k.entry]} grid={list(k.grid)} block={list(k.block)} "
                     f"shared={k.shared_bytes}{' cooperative' if k.cooperative else ''}"
                     f"{' tensor_maps=%d' % len(k.tensor_maps) if k.tensor_maps else ''} params=[{params}]")
    for entry, src in sources:
        lines += ["", f"// ===== {names[entry]} =====", norm(src).rstrip("\n")]
    return "\n".join(lines) + "\n"


def _compile_kernels(model, precision: str = "fp32"):
    from compiler import compile
    from compiler.pipeline import CompileOptions
    return compile(model, "h100", CompileOptions(build=False, precision=precision)).plan.kernels()


def _conformance_sample():
    from compiler import conformance
    seen: set[str] = set()
    for case in conformance.load_cases():
        op = conformance.primary_op(case)
        if op != "expanded" and op not in seen:
            seen.add(op)
            yield case


@functools.lru_cache(maxsize=1)
def golden_cases() -> tuple[tuple[str, str, tuple | str], ...]:
    """(golden file name, title, the launches' kernels or the refusal's error category) of every
    case, compiled once per session (tests/codegen/test_block_functions.py checks the same kernels)."""
    from compiler.errors import CompilerError
    from tests.codegen.test_sass import _matmul_models
    out = []
    for name in shared_models():
        for precision in ("fp32", "fp16"):
            out.append((f"{name}.{precision}.cu", f"{name}.onnx h100 {precision}",
                        tuple(_compile_kernels(str(MODELS_DIR / f"{name}.onnx"), precision))))
    for name, model, precision in _matmul_models():
        out.append((f"{name}.{precision}.cu", f"{name} h100 {precision}", tuple(_compile_kernels(model, precision))))
    for case in _conformance_sample():
        try:
            got = tuple(_compile_kernels(case.model))
        except CompilerError as e:
            got = e.category
        out.append(("conformance_sample.cu", f"{case.name} h100 fp32", got))
    return tuple(out)


def golden_texts() -> dict[str, str]:
    """file name -> golden text, for every case."""
    parts: dict[str, list[str]] = {}
    for file, title, got in golden_cases():
        text = f"// golden: {title}\n// refused: {got}\n" if isinstance(got, str) else render_golden(title, got)
        parts.setdefault(file, []).append(text)
    return {file: "\n".join(texts) for file, texts in parts.items()}


@pytest.fixture(scope="module")
def texts() -> dict[str, str]:
    return golden_texts()


def test_kernel_sources_match_goldens(texts):
    if UPDATE:
        GOLDEN_DIR.mkdir(parents=True, exist_ok=True)
        for old in GOLDEN_DIR.glob("*.cu"):
            if old.name not in texts:
                old.unlink()
        for name, text in texts.items():
            (GOLDEN_DIR / name).write_text(text)
        pytest.skip("goldens rewritten, nothing compared: review `git diff tests/goldens/kernels/`")
    stored = {p.name for p in GOLDEN_DIR.glob("*.cu")}
    assert stored == set(texts), f"golden files differ from the cases: missing {sorted(set(texts) - stored)}, " \
                                 f"extra {sorted(stored - set(texts))}"
    diffs = []
    for name in sorted(texts):
        want = (GOLDEN_DIR / name).read_text()
        if want != texts[name]:
            diff = difflib.unified_diff(want.splitlines(), texts[name].splitlines(),
                                        f"golden/{name}", f"emitted/{name}", lineterm="", n=2)
            diffs.append("\n".join(list(diff)[:120]))
    assert not diffs, "emitted kernels differ from the goldens (BRICKYARD_UPDATE_GOLDENS=1 if intended):\n" + \
        "\n\n".join(diffs)[:20000]


def test_golden_normalisation_keeps_distinct_kernels_apart():
    """Two kernels with one prefix get two names, and a kernel launched twice is written once."""
    from compiler.ir.kernel import Kernel, KernelParam
    p = (KernelParam("float", "x", False), KernelParam("float", "y", True))
    a = Kernel("add_" + "0" * 16, 'extern "C" __global__ void add_' + "0" * 16 + "() {}\n", p, (1, 1, 1), (32, 1, 1))
    b = Kernel("add_" + "1" * 16, 'extern "C" __global__ void add_' + "1" * 16 + "() { }\n", p, (2, 1, 1), (32, 1, 1))
    text = render_golden("t", [a, b, a])
    assert "// launch 2: add_k0 grid=[1, 1, 1]" in text and "// launch 1: add_k1 grid=[2, 1, 1]" in text
    assert text.count("// ===== add_k0") == 1 and "void add_k1() { }" in text
    assert "0000000000000000" not in text
