"""tests/gpu runs under a deadline in `make gpu-check`: a run cut off by `timeout` prints no summary,
so each failure's short report is written the moment the test fails."""
from __future__ import annotations

_TERMINAL = []


def pytest_configure(config):
    _TERMINAL.append(config.pluginmanager.get_plugin("terminalreporter"))


def pytest_runtest_logreport(report):
    if not report.failed or not _TERMINAL or _TERMINAL[0] is None:
        return
    text = report.longreprtext.strip().splitlines()
    tail = "\n    ".join(line for line in text[-25:] if line.strip())
    _TERMINAL[0].write_line(f"\nFAILED {report.nodeid} ({report.when}):\n    {tail}", flush=True)
