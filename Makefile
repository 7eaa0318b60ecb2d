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

# On a machine with a GPU (plain python3 with torch, cupy, onnx, cuda-bindings; no venv needed):
# tests/gpu (every shared model, tuned, through CuPy; log saved), then the quick kernel benchmark
# (bench/kernels.py --quick -> bench/results/kernels-<date>.json), all within GPU_CHECK_S seconds;
# the benchmark's table is printed last. Fails if either part fails.
GPU_CHECK_S ?= 540
gpu-check:
	@mkdir -p bench/results
	@start=$$(date +%s); stamp=$$(date -u +%Y%m%dT%H%M%SZ); \
	BRICKYARD_SHARED=$(SHARED) PYTHONUNBUFFERED=1 python3 -m pytest -q tests/gpu -p no:cacheprovider \
	  > bench/results/gpu-check-$$stamp.txt 2>&1; rc=$$?; \
	tail -n 60 bench/results/gpu-check-$$stamp.txt; echo "tests/gpu: exit $$rc, $$(( $$(date +%s) - start )) s"; \
	PYTHONUNBUFFERED=1 python3 bench/kernels.py --quick --deadline $$(( start + $(GPU_CHECK_S) )); rb=$$?; \
	test $$rc -eq 0 -a $$rb -eq 0

# The service on its embedded default: API on 127.0.0.1:$${BRICKYARD_PORT:-8000}, one worker,
# SQLite + a local queue + the kernel store under $${BRICKYARD_HOME:-./var}.
run: $(STAMP)
	$(BIN)/python -m api.serve

clean:
	rm -rf $(VENV) var build *.egg-info
