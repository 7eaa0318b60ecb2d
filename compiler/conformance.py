"""ONNX's node conformance cases through BrickyardBackend on the CPU (the host harness).

    python -m compiler.conformance [--ops Add,Conv] [--sample N] [--jobs 2] [--failures]

Each case runs in a forked child with a time limit, so a crash or a hang is a result, not the end."""
from __future__ import annotations

import argparse
import collections
import json
import multiprocessing as mp
import re
import sys
import time
import traceback

import numpy as np

from .conformance_excludes import exclusion_reason

_CASES: list = []

# The bound on Loops whose iteration count is only known at run time, as a user would give it
# (--max-trip-count): the cases' loops run a handful of iterations.
CONFORMANCE_MAX_TRIP_COUNT = 1024


def load_cases(ops: set[str] | None = None, names: str | None = None):
    """The node test cases (optionally only those using one of `ops`, or names matching a regex)."""
    import warnings
    from onnx.backend.test.case.node import collect_testcases
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cases = [c for c in collect_testcases() if c.kind == "node"]
    if ops:
        cases = [c for c in cases if ops & {n.op_type for n in c.model.graph.node}]
    if names:
        rx = re.compile(names)
        cases = [c for c in cases if rx.search(c.name)]
    return sorted(cases, key=lambda c: c.name)


LIGHT_DIR = "backend/test/data/light"


class LightCase:
    """One of ONNX's real-model graphs (ResNet-50, DenseNet-121, ...), with ONNX's own dummy input
    (arange / n, as its backend test runner makes it) and the stored expected output."""

    kind = "light"
    rtol, atol = 1e-3, 1e-7

    def __init__(self, path: str):
        import os
        import onnx
        from onnx import numpy_helper
        from onnx.backend.test.runner import Runner
        self.name = "test_" + os.path.basename(path)[len("light_"):-len(".onnx")]
        self.model = onnx.load(path)
        inits = {t.name for t in self.model.graph.initializer}
        inputs = [Runner.generate_dummy_data(x, seed=0, name=self.name, random=False)
                  for x in self.model.graph.input if x.name not in inits]
        out = numpy_helper.to_array(onnx.load_tensor(path[:-len(".onnx")] + "_output_0.pb"))
        self.data_sets = [(inputs, [out])]


def load_light_cases(names: str | None = None) -> list:
    import glob
    import os
    import onnx
    paths = sorted(glob.glob(os.path.join(os.path.dirname(onnx.__file__), LIGHT_DIR, "light_*.onnx")))
    cases = [LightCase(p) for p in paths]
    if names:
        rx = re.compile(names)
        cases = [c for c in cases if rx.search(c.name)]
    return cases


def primary_op(case) -> str:
    if getattr(case, "kind", "") == "light":
        return "light-model"
    ops = [n.op_type for n in case.model.graph.node]
    return ops[0] if len(ops) == 1 else (ops[-1] if not case.name.endswith("_expanded") else "expanded")


def run_case(case) -> tuple[str, str]:
    """(status, detail): status is pass, fail, unsupported, error or excluded."""
    from .errors import CompilerError, ShapeError, UnsupportedOp
    from .onnx_backend import BrickyardBackend
    reason = exclusion_reason(case.name)
    if reason:
        return "excluded", reason
    try:
        rep = BrickyardBackend.prepare(case.model, "CPU", max_trip_count=CONFORMANCE_MAX_TRIP_COUNT)
        for inputs, expected in case.data_sets:
            inputs = [_as_array(x) for x in inputs]
            expected = [_as_array(x) for x in expected]
            got = rep.run(inputs)
            if len(got) != len(expected):
                return "fail", f"{len(got)} outputs, expected {len(expected)}"
            for k, (g, e) in enumerate(zip(got, expected)):
                e = np.asarray(e)
                if g.dtype != e.dtype:
                    return "fail", f"output {k}: dtype {g.dtype}, expected {e.dtype}"
                if g.shape != e.shape:
                    return "fail", f"output {k}: shape {g.shape}, expected {e.shape}"
                if e.dtype.kind in "fc" or e.dtype.name == "bfloat16":
                    np.testing.assert_allclose(g.astype(np.float64), e.astype(np.float64),
                                               rtol=case.rtol, atol=case.atol, equal_nan=True)
                else:
                    if not np.array_equal(g, e):
                        bad = int(np.sum(g != e))
                        return "fail", f"output {k}: {bad} of {e.size} elements differ"
        return "pass", ""
    except UnsupportedOp as e:
        return "unsupported", e.one_line()
    except ShapeError as e:  # data-dependent shapes: a documented limit of a static-shape compiler
        return "unsupported", e.one_line()[:300]
    except CompilerError as e:
        return "error", e.one_line()[:300]
    except AssertionError as e:
        return "fail", " ".join(str(e).split())[:300]
    except Exception as e:  # a crash in our code: report it with its origin
        tb = traceback.extract_tb(e.__traceback__)[-1]
        return "error", f"{type(e).__name__}: {str(e)[:200]} at {tb.filename.split('/')[-1]}:{tb.lineno}"


def _as_array(x):
    """Some cases store their data as TensorProto rather than NumPy."""
    import onnx
    from onnx import numpy_helper
    return numpy_helper.to_array(x) if isinstance(x, onnx.TensorProto) else x


def _child(index: int, conn) -> None:
    try:
        conn.send(run_case(_CASES[index]))
    except BaseException as e:  # noqa: BLE001 - reported to the parent
        conn.send(("error", f"{type(e).__name__}: {e}"))
    finally:
        conn.close()


def run_all(cases, jobs: int = 1, timeout: float = 300.0, progress=None) -> dict[str, tuple[str, str, float]]:
    """Runs cases in forked children, `jobs` at a time; returns name -> (status, detail, seconds)."""
    global _CASES
    _CASES = cases
    # Imported once here, so every forked child starts with the registry loaded.
    from . import onnx_backend  # noqa: F401
    from .ops.registry import supported_ops
    supported_ops()
    ctx = mp.get_context("fork")
    results: dict[str, tuple[str, str, float]] = {}
    pending = list(range(len(cases)))
    running: list = []
    while pending or running:
        while pending and len(running) < jobs:
            i = pending.pop(0)
            parent, child = ctx.Pipe(duplex=False)
            p = ctx.Process(target=_child, args=(i, child))
            p.start()
            child.close()
            running.append((i, p, parent, time.time()))
        time.sleep(0.005)
        for item in list(running):
            i, p, conn, t0 = item
            done = conn.poll()
            if done or not p.is_alive() or time.time() - t0 > timeout:
                if done:
                    try:
                        status, detail = conn.recv()
                    except EOFError:
                        status, detail = "error", "child died"
                elif time.time() - t0 > timeout:
                    p.kill()
                    status, detail = "error", f"timeout after {timeout:.0f} s"
                else:
                    status, detail = "error", f"crashed (exit code {p.exitcode})"
                p.join()
                conn.close()
                running.remove(item)
                results[cases[i].name] = (status, detail, time.time() - t0)
                if progress:
                    progress(cases[i].name, status, detail)
    return results


def summarize(cases, results) -> dict:
    counts = collections.Counter(s for s, _, _ in results.values())
    by_op: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for c in cases:
        by_op[primary_op(c)][results[c.name][0]] += 1
    return {"counts": dict(counts), "by_op": {k: dict(v) for k, v in sorted(by_op.items())}}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m compiler.conformance")
    ap.add_argument("--ops", default="", help="comma-separated op types")
    ap.add_argument("--names", default=None, help="regex over case names")
    ap.add_argument("--sample", type=int, default=0, help="at most N cases per op")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=300.0)
    ap.add_argument("--failures", action="store_true", help="print every non-passing case")
    ap.add_argument("--json", default=None, help="write all results to this file")
    ap.add_argument("--strict", action="store_true", help="exit 1 if a case of a supported op fails")
    ap.add_argument("--light", choices=["with", "only", "without"], default="with",
                    help="ONNX's real-model graphs (data/light) too, only them, or not")
    a = ap.parse_args(argv)
    ops = {o for o in a.ops.split(",") if o} or None
    cases = [] if a.light == "only" else load_cases(ops, a.names)
    if a.light != "without" and not ops:
        cases += load_light_cases(a.names)
    if a.sample:
        per: dict[str, int] = collections.Counter()
        kept = []
        for c in cases:
            op = primary_op(c)
            if per[op] < a.sample:
                per[op] += 1
                kept.append(c)
        cases = kept
    t0 = time.time()
    verbose = a.failures

    def progress(name, status, detail):
        if verbose and status not in ("pass", "excluded"):
            print(f"{status:12s} {name}: {detail}", flush=True)

    results = run_all(cases, jobs=a.jobs, timeout=a.timeout, progress=progress)
    summ = summarize(cases, results)
    c = summ["counts"]
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"summary": summ, "results": {k: list(v) for k, v in sorted(results.items())}}, f, indent=1)
    failing = c.get("fail", 0) + c.get("error", 0)
    print(f"conformance: {len(cases)} cases in {time.time() - t0:.0f} s: {c.get('pass', 0)} passed, "
          f"{failing} failed, {c.get('unsupported', 0)} unsupported, {c.get('excluded', 0)} excluded")
    return 1 if a.strict and failing else 0


if __name__ == "__main__":
    sys.exit(main())
