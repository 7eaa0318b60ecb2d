"""Debian's Chromium for the browser tests (dashboard, API docs, report page), driven by Playwright:
where it is, how it is launched, and what happens without it.

Without Chromium or Playwright a browser test skips, saying what to install; under CI (.ci/run
installs both and sets CI) it fails instead, so that a browser check can never silently not run."""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

CHROMIUM = os.environ.get("BRICKYARD_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
LAUNCH_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"]


def _missing(why: str):
    if os.environ.get("CI"):
        pytest.fail(f"{why} (CI installs it: .ci/run)", pytrace=False)
    pytest.skip(why, allow_module_level=True)


def playwright_sync_api():
    """playwright.sync_api, or a skip (a failure under CI) where the test extra is not installed."""
    try:
        from playwright import sync_api
    except ImportError:
        _missing("pip install playwright (the test extra)")
    return sync_api


def require_chromium() -> str:
    """The Chromium executable, or a skip (a failure under CI) where there is none."""
    if not Path(CHROMIUM).exists():
        _missing(f"no Chromium at {CHROMIUM}: apt-get install chromium")
    return CHROMIUM


def launch(pw):
    """A headless Chromium from a sync_playwright() context."""
    return pw.chromium.launch(executable_path=require_chromium(), headless=True, args=LAUNCH_ARGS)
