"""The `brickyard` console script (`python -m brickyard`, `python -m brickyard.cli`): one parser over the
compiler's commands (compiler/cli.py: compile, run, targets, inspect) and the service's (api/cli.py: token,
submit, jobs, ci). It sits above both packages, so that the compiler never imports the service;
compiler/cli.py's `run` does the parsing, the error handling and the exit statuses for every command.
`python -m compiler` runs the compiler's commands alone."""
from __future__ import annotations

import sys

from api import cli as service_cli
from compiler import cli as compiler_cli


def build_parser():
    p, sub = compiler_cli.new_parser()
    compiler_cli.add_commands(sub)
    service_cli.add_commands(sub)
    return p


def main(argv=None) -> int:
    return compiler_cli.run(build_parser(), argv)


if __name__ == "__main__":
    sys.exit(main())
