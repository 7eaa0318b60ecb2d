# Brickyard: `make install`, `make test`, `make run`, `make conformance`, `make gpu-check`.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
SHARED ?= ../shared

.PHONY: install test test-fast conformance gpu-check gpu-bench run clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e ".[nvrtc,reference,test,service]"
	touch $(STAMP)

install: $(STAMP)

# The whole CPU suite: first the import-layering contracts (import-linter; pyproject.toml's
# [tool.importlinter]: a broken contract fails the build before any test runs), then ops, harness,
# frontend, every shared model on the host harness, a conformance sample. Needs no GPU.
test: $(STAMP)
	$(BIN)/lint-imports --no-logo
	BRICKYARD_SHARED=$(SHARED) $(BIN)/python -m pytest -q tests --ignore=tests/gpu -p no:cacheprovider

# Every ONNX node conformance case through the ONNX backend on the CPU; prints the pass count.
conformance: $(STAMP)
	$(BIN)/python -m compiler.conformance --jobs 2 --failures --json var/conformance.json

# On a machine with a GPU (plain python3 with torch, cupy, onnx, cuda-bindings; no venv needed), with
# ../shared's models and tools/zoo.py copied into gpu/shared (git-ignored; only the checkout travels to
# a GPU machine: bench/README.md has the device commands and their carry list). In order, each step's
# output appended to $(RESULTS)/gpu-check-<date>.log as it runs, so that a cut-off run still leaves
# results: (a) the smoke test (device, driver, one NVRTC-built kernel loads and runs; nothing else runs
# if it fails), (b) tests/gpu (every shared model first, then the kernel tests), (c) the quick kernel benchmark (bench/kernels.py --quick), (d) part 1 of
# the end-to-end benchmark (bench/e2e.py: the Loop and If models), each under its own deadline, all
# within GPU_CHECK_S seconds. The benchmarks' JSON goes to $(RESULTS) (e2e's is rewritten after every
# row); the tables are printed last. Fails if any step fails. On the device: make gpu-check RESULTS=$OUT
GPU_CHECK_S ?= 540
GPU_TESTS_UNTIL ?= 250
GPU_KERNELS_UNTIL ?= 390
RESULTS ?= bench/results
GPU_SHARED ?= $(if $(wildcard gpu/shared/models),gpu/shared,$(SHARED))
gpu-check gpu-bench: SHELL := /bin/bash
gpu-check:
	@mkdir -p $(RESULTS)
	@start=$$(date +%s); log=$(RESULTS)/gpu-check-$$(date -u +%Y%m%dT%H%M%SZ).log; \
	export BRICKYARD_SHARED=$(GPU_SHARED) PYTHONUNBUFFERED=1; \
	left() { local s=$$(( start + $$1 - $$(date +%s) )); echo $$(( s < 5 ? 5 : s )); }; \
	step() { echo "== $$1 at $$(( $$(date +%s) - start )) s" | tee -a $$log; }; \
	step "(a) smoke test"; \
	timeout -k 5 120 python3 bench/e2e.py --smoke 2>&1 | tee -a $$log; \
	if [ $${PIPESTATUS[0]} -ne 0 ]; then echo "gpu-check: the smoke test failed; nothing else was run" | tee -a $$log; exit 2; fi; \
	step "(b) tests/gpu"; \
	timeout -k 10 $$(left $(GPU_TESTS_UNTIL)) python3 -m pytest -q -rA tests/gpu/test_models_gpu.py tests/gpu -p no:cacheprovider 2>&1 | tee -a $$log; \
	rt=$${PIPESTATUS[0]}; \
	step "(c) quick kernel benchmark"; \
	timeout -k 10 $$(left $$(( $(GPU_KERNELS_UNTIL) + 60 ))) python3 bench/kernels.py --quick --out $(RESULTS) \
	  --deadline $$(( start + $(GPU_KERNELS_UNTIL) )) 2>&1 | tee -a $$log; \
	rk=$${PIPESTATUS[0]}; \
	step "(d) end-to-end benchmark, part 1"; \
	timeout -k 10 $$(left $$(( $(GPU_CHECK_S) - 15 ))) python3 bench/e2e.py --part 1 --out $(RESULTS) \
	  --deadline $$(( start + $(GPU_CHECK_S) - 25 )) 2>&1 | tee -a $$log; \
	re=$${PIPESTATUS[0]}; \
	echo "gpu-check: tests/gpu exit $$rt, kernels exit $$rk, e2e exit $$re; $$(( $$(date +%s) - start )) s; log $$log" | tee -a $$log; \
	test $$rt -eq 0 -a $$rk -eq 0 -a $$re -eq 0

# One part of the end-to-end benchmark (bench/e2e.py --part $(PART); its PARTS table), within
# GPU_BENCH_S seconds, the log saved as it goes and the JSON rewritten after every row. Extra options
# through E2E_ARGS (e.g. E2E_ARGS="--batches 16"). On the device: make gpu-bench PART=2 RESULTS=$OUT
PART ?= 2
GPU_BENCH_S ?= 540
E2E_ARGS ?=
gpu-bench:
	@mkdir -p $(RESULTS)
	@start=$$(date +%s); log=$(RESULTS)/gpu-bench-part$(PART)-$$(date -u +%Y%m%dT%H%M%SZ).log; \
	export BRICKYARD_SHARED=$(GPU_SHARED) PYTHONUNBUFFERED=1; \
	timeout -k 10 $$(( $(GPU_BENCH_S) - 15 )) python3 bench/e2e.py --part $(PART) --out $(RESULTS) \
	  --deadline $$(( start + $(GPU_BENCH_S) - 25 )) $(E2E_ARGS) 2>&1 | tee -a $$log; \
	exit $${PIPESTATUS[0]}

# The service on its embedded default: API on 127.0.0.1:$${BRICKYARD_PORT:-8000}, one worker,
# SQLite + a local queue + the kernel store under $${BRICKYARD_HOME:-./var}.
run: $(STAMP)
	$(BIN)/python -m api.serve

clean:
	rm -rf $(VENV) var build *.egg-info
