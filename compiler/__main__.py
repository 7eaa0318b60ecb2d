"""`python -m compiler COMMAND`: the compiler's commands alone (compiler/cli.py). The `brickyard` console
script, with the service's commands too, is `python -m brickyard` (brickyard/cli.py)."""
import sys

from .cli import main

sys.exit(main())
