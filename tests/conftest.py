"""Shared test fixtures: where the shared models are, and a compile-time line per model."""
from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("BRICKYARD_SHARED", REPO.parent / "shared")).resolve()
MODELS_DIR = SHARED / "models"

COMPILE_LINES: list[str] = []

# Every compile in the tests (in this process and the CLI/service processes it starts) runs the IR
# verifiers after each stage.
os.environ.setdefault("BRICKYARD_CHECK_IR", "1")
# ... and every report.json it makes is validated against compiler/report.schema.json (make_report
# raises on a violation, so the compile, and the test, fails).
# (jsonschema is a test dependency the GPU machine's python3 lacks: tests/gpu run there unvalidated)
if importlib.util.find_spec("jsonschema") is not None:
    os.environ.setdefault("BRICKYARD_CHECK_REPORT", "1")
REPORTS_VALIDATED = [0]


def shared_models() -> list[str]:
    return sorted(p.stem for p in MODELS_DIR.glob("*.onnx"))


@pytest.fixture(scope="session")
def models_dir() -> Path:
    if not MODELS_DIR.is_dir():
        pytest.fail(f"shared models not found at {MODELS_DIR}: set BRICKYARD_SHARED")
    return MODELS_DIR


@pytest.fixture(autouse=True, scope="session")
def _isolated_cache(tmp_path_factory):
    """A test session's kernel store is its own, so cache hits/misses are the session's."""
    if "BRICKYARD_STORE" not in os.environ:
        os.environ["BRICKYARD_STORE"] = str(tmp_path_factory.mktemp("store"))
    yield


@pytest.fixture(autouse=True, scope="session")
def _validated_reports():
    """Counts the reports make_report validates in this process (the summary prints the count)."""
    if os.environ.get("BRICKYARD_CHECK_REPORT") != "1":
        yield
        return
    from compiler import report
    validate = report.validate_report

    def counted(r: dict) -> None:
        validate(r)
        REPORTS_VALIDATED[0] += 1
    report.validate_report = counted
    yield
    report.validate_report = validate


def pytest_terminal_summary(terminalreporter):
    if REPORTS_VALIDATED[0]:
        terminalreporter.write_line(f"report.json schema: {REPORTS_VALIDATED[0]} reports validated in this process")
    if COMPILE_LINES:
        terminalreporter.section("compile times")
        for line in COMPILE_LINES:
            terminalreporter.write_line(line)
