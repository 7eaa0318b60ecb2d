"""The whole plan captured once and replayed per inference (issue 14 item 3; runtime/executor.py).
On the host the backend records each launch with its buffers and replays them, as a CUDA graph
replays its kernel nodes, so the executor's graph path (fixed input buffers, the arena allocated
before the capture, outputs read from the captured scope) runs here for real; on a GPU the same
path captures a CUDA graph through CuPy (bench/gpu_check.py exercises it)."""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from compiler import compile
from compiler.context import CompileOptions
from compiler.runtime.executor import Executor, HostBackend, make_backend


def _inputs(models_dir, name):
    ref = np.load(models_dir / f"{name}.npz")
    return ref, {k[3:]: ref[k] for k in ref.files if k.startswith("in:")}


class CountingHost(HostBackend):
    """The real host backend, counting the launches that reach the harness."""

    launched = 0

    def launch(self, kernel, args):
        if self._recording is None:
            self.launched += 1
        super().launch(kernel, args)

    def replay(self, graph):
        self.launched += len(graph.launches)
        super().replay(graph)


@pytest.mark.parametrize("name", ["bert", "resnet"])
def test_a_replayed_plan_gives_the_plain_results_for_every_new_input(models_dir, name):
    art = compile(str(models_dir / f"{name}.onnx"), "h100", CompileOptions(build=False))
    ref, inputs = _inputs(models_dir, name)
    plain = Executor(art.plan, make_backend("host"))
    backend = CountingHost()
    graph = Executor(art.plan, backend, graph=True)
    assert graph.graph_status == "graph"
    rng = np.random.default_rng(7)
    launches = sum(1 for s in art.plan.steps if hasattr(s, "kernel"))
    for run in range(3):
        feeds = inputs if run == 0 else {
            k: (rng.standard_normal(v.shape).astype(v.dtype) if v.dtype.kind == "f" else v) for k, v in inputs.items()}
        want = plain.run(feeds)
        got = graph.run(feeds)
        for k in want:
            np.testing.assert_array_equal(got[k], want[k])
        if run == 0:
            for k in ref.files:
                if k.startswith("out:"):
                    assert np.max(np.abs(got[k[4:]] - ref[k])) / np.max(np.abs(ref[k])) < 1e-4
    # captured once, replayed three times: every kernel ran once per inference, none in the capture
    assert backend.launched == 3 * launches


def test_a_plan_with_a_host_loop_region_runs_with_plain_launches_and_says_why(models_dir):
    art = compile(str(models_dir / "rnn_loop.onnx"), "h100", CompileOptions(build=False, disable=("grinder",)))
    graph = art.report["schedule"]["cuda_graph"]
    assert not graph["replayed"] and "LoopStep" in graph["why_not"]
    ref, inputs = _inputs(models_dir, "rnn_loop")
    ex = Executor(art.plan, make_backend("host"), graph=True)
    assert ex.graph_status.startswith("plain launches: control-flow regions")
    out = ex.run(inputs)
    for k in ref.files:
        if k.startswith("out:"):
            np.testing.assert_allclose(out[k[4:]], ref[k], rtol=1e-4, atol=1e-5)


def test_a_loop_on_the_device_is_replayed_as_one_graph(models_dir):
    """With grinder (the default) the Loop is one persistent kernel, so the plan is one graph."""
    art = compile(str(models_dir / "rnn_loop.onnx"), "h100", CompileOptions(build=False))
    assert art.report["schedule"]["cuda_graph"]["replayed"] is True
    ref, inputs = _inputs(models_dir, "rnn_loop")
    ex = Executor(art.plan, make_backend("host"), graph=True)
    assert ex.graph_status == "graph"
    for _ in range(2):   # the capture, then a replay
        out = ex.run(inputs)
        assert ex.host_round_trips == 0
        for k in ref.files:
            if k.startswith("out:"):
                np.testing.assert_allclose(out[k[4:]], ref[k], rtol=1e-4, atol=1e-5)


def test_the_report_says_the_plan_is_replayed(models_dir):
    art = compile(str(models_dir / "bert.onnx"), "h100", CompileOptions(build=False))
    assert art.report["schedule"]["cuda_graph"]["replayed"] is True


def test_cli_run_with_graph_launches_on_the_host(models_dir, tmp_path):
    art_path, out = tmp_path / "bert.tar.gz", tmp_path / "out.npz"
    brick = [sys.executable, "-m", "compiler"]
    subprocess.run(brick + ["compile", str(models_dir / "bert.onnx"), "-o", str(art_path), "-q"], check=True)
    p = subprocess.run(brick + ["run", str(art_path), "--inputs", str(models_dir / "bert.npz"), "--outputs", str(out),
                                "--launches", "graph"], capture_output=True, text=True, check=True)
    assert "(graph)" in p.stdout, p.stdout
    ref = np.load(models_dir / "bert.npz")
    got = np.load(out)
    for k in ref.files:
        if k.startswith("out:"):
            assert np.max(np.abs(got[k[4:]] - ref[k])) / np.max(np.abs(ref[k])) < 1e-4
