"""A sample of ONNX's conformance suite through BrickyardBackend on the CPU: one case per op and
two of ONNX's real-model graphs (`make conformance` runs all of them). A supported op's case must
pass; cases outside the compiler's scope are excluded with a reason (compiler/conformance_excludes.py)
or report the op as unsupported."""
from __future__ import annotations

import collections

import pytest

from compiler import conformance


@pytest.fixture(scope="module")
def sample():
    cases = conformance.load_cases()
    per_op: dict[str, int] = collections.Counter()
    kept = []
    for c in cases:
        op = conformance.primary_op(c)
        if op != "expanded" and per_op[op] < 1:
            per_op[op] += 1
            kept.append(c)
    kept += conformance.load_light_cases(r"test_(squeezenet|shufflenet)$")
    return kept


def test_sample_passes(sample):
    results = conformance.run_all(sample, jobs=2, timeout=600)
    summary = conformance.summarize(sample, results)
    counts = summary["counts"]
    bad = {n: r for n, r in results.items() if r[0] in ("fail", "error")}
    print(f"\nconformance sample: {len(sample)} cases: {counts}")
    assert counts.get("pass", 0) >= 150, counts
    assert not bad, "\n".join(f"{n}: {s}: {d}" for n, (s, d, _) in sorted(bad.items()))
    for light in ("test_squeezenet", "test_shufflenet"):
        assert results[light][0] == "pass", results[light]
