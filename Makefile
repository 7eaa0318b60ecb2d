# Brickyard: `make install`, `make test`, `make run`, `make conformance`, `make gpu-check`.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
SHARED ?= ../shared

.PHONY: install test test-fast conformance gpu-check run clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e ".[nvrtc,reference,test,service]"
	touch $(STAMP)

install: $(STAMP)

# The whole CPU suite: ops, harness, frontend, every shared model on the host harness, a
# conformance sample. Needs no GPU.
test: $(STAMP)
	BRICKYARD_SHARED=$(SHARED) $(BIN)/python -m pytest -q tests --ignore=tests/gpu -p no:cacheprovider

# Every ONNX node conformance case through the ONNX backend on the CPU; prints the pass count.
conformance: $(STAMP)
	$(BIN)/python -m compiler.conformance --jobs 2 --failures --json var/conformance.json

# On a machine with a GPU: tests/gpu (every shared model through CuPy) with its raw output saved.
gpu-check:
	mkdir -p bench/results
	python3 -m pytest -q tests/gpu -p no:cacheprovider 2>&1 | tee bench/results/gpu-check-$$(date -u +%Y%m%dT%H%M%SZ).txt

# The service on its embedded default: API on 127.0.0.1:$${BRICKYARD_PORT:-8000}, one worker,
# SQLite + a local queue + the kernel store under $${BRICKYARD_HOME:-./var}.
run: $(STAMP)
	$(BIN)/python -m api.serve

clean:
	rm -rf $(VENV) var build *.egg-info
