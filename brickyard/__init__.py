"""The `brickyard` command line, above the compiler and the service: brickyard/cli.py."""
