"""tests/gpu runs under a deadline in `make gpu-check`: a run cut off by `timeout` prints no summary,
so each failure's short report is written the moment the test fails."""
from __future__ import annotations

_CONFIG = []


def pytest_configure(config):
    _CONFIG.append(config)


def pytest_runtest_logreport(report):
    # the terminal reporter registers after this conftest's pytest_configure: looked up here
    terminal = _CONFIG[0].pluginmanager.get_plugin("terminalreporter") if _CONFIG else None
    if not report.failed or terminal is None:
        return
    text = report.longreprtext.strip().splitlines()
    tail = "\n    ".join(line for line in text[-25:] if line.strip())
    terminal.write_line(f"\nFAILED {report.nodeid} ({report.when}):\n    {tail}", flush=True)
