"""The `brickyard` command: compile, run, targets, token (service API tokens); and, as a client of
the service, submit, jobs and ci (server from --server or BRICKYARD_SERVER, token from --token,
BRICKYARD_TOKEN or $BRICKYARD_HOME/admin-token)."""
from __future__ import annotations

import argparse
import json
import sys
import time

from .passes.fit import human_bytes


def _parse_shapes(items: list[str]) -> tuple:
    shapes = []
    for it in items or []:
        if "=" not in it:
            raise SystemExit(_fail(f"--input-shape '{it}' must look like NAME=D,D,..."))
        name, dims = it.split("=", 1)
        try:
            shapes.append((name, tuple(int(d) for d in dims.split(",") if d.strip())))
        except ValueError:
            raise SystemExit(_fail(f"--input-shape '{it}': dimensions must be integers")) from None
    return tuple(shapes)


def _fail(msg: str) -> int:
    print(f"brickyard: error: {msg}", file=sys.stderr)
    return 2


def cmd_compile(a) -> int:
    from . import compile
    from .pipeline import CompileOptions
    opts = CompileOptions(input_shapes=_parse_shapes(a.input_shape), verify=a.verify, precision=a.precision)
    t0 = time.perf_counter()
    def progress(stage, frac):
        if not a.quiet:
            print(f"  [{frac * 100:5.1f}%] {stage} done ({time.perf_counter() - t0:.2f} s)", file=sys.stderr)
    art = compile(a.model, a.target, opts, progress=progress)
    art.save(a.output)
    r = art.report
    print(f"compiled {r['model']['name']} for {r['target']['name']} ({r['target']['arch']}) in "
          f"{r['compile']['seconds']:.2f} s: {len(r['kernels'])} kernels "
          f"(cache {r['compile']['cache']['hits']} hits, {r['compile']['cache']['misses']} misses), "
          f"predicted {r['latency']['predicted_us']:.1f} us -> {a.output}")
    return 0


def cmd_run(a) -> int:
    import numpy as np
    from .artifact import load_artifact
    from .runtime.executor import Executor, make_backend
    from .errors import RuntimeFault
    art = load_artifact(a.artifact)
    try:
        data = np.load(a.inputs)
    except (OSError, ValueError) as e:
        raise RuntimeFault(f"cannot read inputs {a.inputs}: {e}") from None
    inputs = {}
    for k in data.files:
        name = k[3:] if k.startswith("in:") else k
        if name in art.plan.inputs:
            inputs[name] = data[k]
    kw = {"cubins": art.cubins, "arch": art.header["target"]["arch"]} if a.device == "gpu" else {}
    if a.device == "host" and a.mode:
        kw = {"mode": a.mode}
    ex = Executor(art.plan, make_backend(a.device, **kw))
    t0 = time.perf_counter()
    out = ex.run(inputs)
    dt = time.perf_counter() - t0
    np.savez(a.outputs, **out)
    print(f"ran {art.header['model']['name']} on {a.device} in {dt:.3f} s -> {a.outputs} "
          f"({', '.join(f'{k}{list(v.shape)}' for k, v in out.items())})")
    return 0


def cmd_targets(a) -> int:
    from .targets import PRESETS
    if a.json:
        print(json.dumps({n: t.describe() for n, t in PRESETS.items()}, indent=1))
        return 0
    rows = [("name", "arch", "memory", "SMs", "smem/blk KiB", "L2 MiB", "DRAM GB/s", "FP32 TF", "FP16 TC TF",
             "threads/blk", "max grid")]
    for t in PRESETS.values():
        rows.append((t.name, t.arch, f"{t.memory_bytes / 2**30:.0f} GiB", t.sms, t.shared_per_block // 1024,
                     t.l2_bytes // 2**20, f"{t.dram_gbps:.0f}", f"{t.fp32_tflops:.1f}", f"{t.fp16_tc_tflops:.0f}",
                     t.max_threads_per_block, "x".join(str(g) for g in t.max_grid)))
    _print_table(rows)
    return 0


def cmd_inspect(a) -> int:
    """What the model is, before any size is fixed: inputs and outputs with their dynamic dimensions,
    opset, op histogram, parameters."""
    from .frontend.summary import summarize
    s = summarize(a.model)
    d = s.as_dict()
    if a.json:
        print(json.dumps(d, indent=1))
        return 0
    show = lambda shape: "?" if shape is None else "[" + ", ".join(map(str, shape)) + "]"
    print(f"{s.name}: opset {s.opset}, IR version {s.ir_version}" + (f", from {s.producer}" if s.producer else ""))
    print(f"parameters: {s.parameters:,} ({human_bytes(s.parameter_bytes)}), {s.nodes} nodes")
    for title, items in (("inputs", s.inputs), ("outputs", s.outputs)):
        print(f"{title}:")
        for t in items:
            print(f"  {t.name}  {t.dtype}{show(t.shape)}")
    if s.dynamic_dims:
        print("dynamic dimensions (fix them with --input-shape NAME=D,D,..; a name shared by several "
              "dimensions is one size):")
        for dd in s.dynamic_dims:
            print(f"  {dd.describe()}")
        ex = d["example_input_shapes"]
        print("  e.g. " + " ".join(f"--input-shape {n}={','.join(map(str, v))}" for n, v in ex.items()))
    print("ops: " + ", ".join(f"{op} {n}" for op, n in s.op_histogram))
    for w in s.warnings:
        print(f"warning: {w}")
    return 0


def cmd_token(a) -> int:
    try:
        from api.tokens import main as tokens_main
    except ImportError:
        raise SystemExit(_fail("the service is not installed: make install")) from None
    return tokens_main([a.action, *a.args])


def _print_table(rows: list[tuple]) -> None:
    """rows (the first one the header) as left-aligned columns two spaces apart."""
    widths = [max(len(str(r[i])) for r in rows) for i in range(len(rows[0]))]
    for r in rows:
        print("  ".join(str(v).ljust(w) for v, w in zip(r, widths)).rstrip())


def cmd_submit(a) -> int:
    """Upload MODEL, compile it, follow the job's events, download the artifact (-o)."""
    from api.client import Client, ClientError
    shapes = {name: list(dims) for name, dims in _parse_shapes(a.input_shape)}
    wait = a.wait or bool(a.output)
    try:
        with Client(a.server, a.token) as c:
            model = c.upload_model(a.model, name=a.name)
            print(f"model {model['id']}: {model['name']} ({human_bytes(model['size'])}, sha256 "
                  f"{model['sha256'][:12]})", file=sys.stderr)
            job = c.create_compilation(model["id"], a.target, input_shapes=shapes, precision=a.precision)
            print(f"compilation {job['id']}: {job['state']} (target {job['target']}, {job['arch']}, "
                  f"queue {job['queue']})", file=sys.stderr)
            if not wait:
                print(job["id"])
                return 0
            t0 = time.monotonic()
            for ev in c.events(job["id"], timeout=a.timeout):
                if not a.quiet:
                    stage = f" {ev['stage']}" if ev.get("stage") else ""
                    note = f" - {ev['message']}" if ev.get("message") else ""
                    print(f"  [{ev['progress'] * 100:5.1f}%] {ev['state']}{stage} "
                          f"({time.monotonic() - t0:.1f} s){note}", file=sys.stderr)
            job = c.get_compilation(job["id"])
            if job["state"] != "succeeded":
                err = job.get("error") or {}
                why = f" ({err.get('category')}): {err.get('message')}" if err else ""
                return _fail(f"compilation {job['id']} {job['state']}{why}")
            cache = job.get("cache") or {}
            from_store = f", answered from the store (same as {job['deduplicated_from']})" \
                if job.get("deduplicated_from") else ""
            secs = f" in {job['compile_seconds']:.2f} s" if job.get("compile_seconds") is not None else ""
            print(f"compilation {job['id']}: succeeded{secs}; kernel cache {cache.get('hits', 0)} hits, "
                  f"{cache.get('misses', 0)} misses{from_store}", file=sys.stderr)
            if a.output:
                size = c.download_artifact(job["id"], a.output)
                print(f"artifact -> {a.output} ({human_bytes(size)}, sha256 {job['artifact_sha256'][:12]})",
                      file=sys.stderr)
            print(job["id"])
            return 0
    except ClientError as e:
        return _fail(str(e))


def cmd_jobs(a) -> int:
    """The caller's compilations as a table, newest first."""
    from api.client import Client, ClientError
    try:
        with Client(a.server, a.token) as c:
            page = c.list_compilations(state=a.state, limit=a.limit)
    except ClientError as e:
        return _fail(str(e))
    if a.json:
        print(json.dumps(page, indent=2))
        return 0
    rows = [("ID", "STATE", "TARGET", "ARCH", "PROGRESS", "CACHE H/M", "SECONDS", "CREATED", "ERROR")]
    for j in page["items"]:
        err = j.get("error") or {}
        secs = j.get("compile_seconds")
        rows.append((j["id"], j["state"] + (" (stored)" if j.get("deduplicated_from") else ""), j["target"],
                     j["arch"], f"{j['progress'] * 100:.0f}%" + (f" {j['stage']}" if j.get("stage") and
                                                                 j["state"] == "running" else ""),
                     f"{j['cache']['hits']}/{j['cache']['misses']}", "" if secs is None else f"{secs:.2f}",
                     j["created_at"][:19].replace("T", " "), err.get("category", "")))
    _print_table(rows)
    shown = len(page["items"])
    print(f"{shown} of {page['total']} compilations", file=sys.stderr)
    return 0


def cmd_ci(a) -> int:
    """Triggers (or waits on) a project's commit, prints its builds; 1 on a failure or a regression."""
    from api.client import Client, ClientError
    models = {}
    for item in a.model or []:
        name, sep, source = item.partition("=")
        if not sep or not name or not source:
            return _fail(f"--model '{item}' must look like NAME=MODEL_ID_OR_URL")
        models[name] = source
    try:
        with Client(a.server, a.token) as c:
            if not a.no_trigger:
                started = c.trigger_commit(a.project, a.commit, a.ref or "", models or None)
                print(f"commit {a.commit}: {len(started['compilations'])} builds "
                      f"{'started' if started['started'] else 'already known'}", file=sys.stderr)
            status = c.wait_commit(a.project, a.commit, threshold=a.threshold, timeout=a.timeout) if a.wait \
                else c.commit_status(a.project, a.commit, a.threshold)
    except ClientError as e:
        return _fail(str(e))
    if a.json:
        print(json.dumps(status, indent=2))
    else:
        rows = [("MODEL", "TARGET", "STATE", "COMPILE S", "LATENCY US", "PREVIOUS US", "CHANGE", "")]
        for b in status["builds"]:
            lat = b["latency_us"]
            rows.append((b["model"], b["target"], b["state"],
                         "" if b["compile_seconds"] is None else f"{b['compile_seconds']:.2f}",
                         "" if lat is None else f"{lat:.2f}" + (" (measured)" if b["latency_kind"] == "measured"
                                                                else ""),
                         "" if b["previous_latency_us"] is None else f"{b['previous_latency_us']:.2f}",
                         "" if b["change"] is None else f"{b['change'] * 100:+.1f}%",
                         "REGRESSION" if b["regression"] else (b["error"] or "")[:80]))
        _print_table(rows)
        prev = f" against {status['previous_commit'][:12]}" if status["previous_commit"] else ""
        print(f"{status['project']} {status['commit'][:12]} ({status['ref'] or 'no ref'}){prev}: "
              f"{status['verdict'].upper()} (threshold {status['threshold'] * 100:.0f}%)")
    if status["verdict"] == "fail":
        return 1
    return 0 if status["verdict"] == "pass" else 3


def _client_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--server", help="the service's URL (default $BRICKYARD_SERVER or http://127.0.0.1:8000)")
    p.add_argument("--token", help="API token (default $BRICKYARD_TOKEN or $BRICKYARD_HOME/admin-token)")


def build_parser() -> argparse.ArgumentParser:
    from .passes.precision import PRECISIONS
    p = argparse.ArgumentParser(prog="brickyard", description="Compile ONNX models to CUDA kernels.")
    p.add_argument("--debug", action="store_true", help="show tracebacks")
    sub = p.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("compile", help="compile MODEL.onnx to an artifact")
    c.add_argument("model")
    c.add_argument("--target", default="h100")
    c.add_argument("-o", "--output", required=True)
    c.add_argument("--input-shape", action="append", default=[], metavar="NAME=D,D,..",
                   help="fix an input's dynamic dimensions (its whole shape; `brickyard inspect` lists them)")
    c.add_argument("--verify", choices=["host", "gpu"], default=None,
                   help="run the result against onnxruntime before packaging")
    c.add_argument("--precision", choices=PRECISIONS, default="fp32",
                   help="inputs of contractions (MatMul, Gemm, Conv); accumulation and outputs stay fp32")
    c.add_argument("-q", "--quiet", action="store_true")
    c.set_defaults(fn=cmd_compile)
    r = sub.add_parser("run", help="run an artifact on inputs from an .npz")
    r.add_argument("artifact")
    r.add_argument("--inputs", required=True, help=".npz with one array per model input, by input name")
    r.add_argument("--outputs", required=True, help=".npz to write, one array per model output")
    r.add_argument("--device", choices=["host", "gpu"], default="host",
                   help="host: the generated CUDA on the CPU (verification); gpu: the cubins through CuPy")
    r.add_argument("--mode", choices=["default", "shuffle", "asan"], default=None,
                   help="host harness mode (shuffle thread order; AddressSanitizer)")
    r.set_defaults(fn=cmd_run)
    t = sub.add_parser("targets", help="list the target presets")
    t.add_argument("--json", action="store_true")
    t.set_defaults(fn=cmd_targets)
    ins = sub.add_parser("inspect", help="describe MODEL.onnx: inputs, outputs, dynamic dimensions, ops, parameters")
    ins.add_argument("model")
    ins.add_argument("--json", action="store_true")
    ins.set_defaults(fn=cmd_inspect)
    tk = sub.add_parser("token", help="service API tokens: token create NAME")
    tk.add_argument("action", choices=["create", "list"])
    tk.add_argument("args", nargs="*")
    tk.set_defaults(fn=cmd_token)
    sb = sub.add_parser("submit", help="compile MODEL.onnx on a Brickyard service (upload, compile, download)")
    sb.add_argument("model")
    sb.add_argument("--target", default="h100", help="a preset name (brickyard targets)")
    _client_args(sb)
    sb.add_argument("--input-shape", action="append", default=[], metavar="NAME=D,D,..")
    sb.add_argument("--precision", choices=PRECISIONS, default="fp32",
                    help="inputs of contractions (MatMul, Gemm, Conv); accumulation and outputs stay fp32")
    sb.add_argument("--name", help="the model's name on the service (default: the file name)")
    sb.add_argument("--wait", action="store_true", help="follow the job until it ends (implied by -o)")
    sb.add_argument("-o", "--output", help="download the artifact here once the job succeeds")
    sb.add_argument("--timeout", type=float, default=3600.0, help="seconds to wait for the job (default 3600)")
    sb.add_argument("-q", "--quiet", action="store_true", help="no progress lines")
    sb.set_defaults(fn=cmd_submit)
    jb = sub.add_parser("jobs", help="list your compilations on a Brickyard service")
    _client_args(jb)
    jb.add_argument("--state", choices=["queued", "running", "succeeded", "failed", "cancelled"])
    jb.add_argument("--limit", type=int, default=20)
    jb.add_argument("--json", action="store_true")
    jb.set_defaults(fn=cmd_jobs)
    ci = sub.add_parser("ci", help="build a commit of a CI project and check it (exit 1 on a failure or regression)")
    ci.add_argument("project", help="the project's name or id")
    ci.add_argument("commit", help="the commit sha")
    ci.add_argument("--ref", help="the branch, e.g. refs/heads/main (regressions compare with its previous commit)")
    ci.add_argument("--model", action="append", metavar="NAME=SOURCE",
                    help="this commit's model: an uploaded model id or an https URL (repeatable)")
    ci.add_argument("--no-trigger", action="store_true", help="only wait on a commit the webhook started")
    ci.add_argument("--no-wait", dest="wait", action="store_false", help="print the status now, do not wait")
    ci.add_argument("--threshold", type=float, help="regression threshold (fraction; default: the project's)")
    ci.add_argument("--timeout", type=float, default=3600.0)
    ci.add_argument("--json", action="store_true")
    _client_args(ci)
    ci.set_defaults(fn=cmd_ci)
    return p


def main(argv=None) -> int:
    from .errors import CompilerError
    parser = build_parser()
    a = parser.parse_args(argv)
    try:
        return a.fn(a)
    except CompilerError as e:
        if a.debug:
            raise
        return _fail(e.one_line())
    except FileNotFoundError as e:
        if a.debug:
            raise
        return _fail(f"file not found: {e.filename}")
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # stdout piped into head and the like, which stopped reading
        # Python flushes stdout once more at exit; with stdout on /dev/null that flush cannot fail
        # (and print "Exception ignored ... BrokenPipeError" on stderr).
        import os
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            os.close(devnull)
        except (OSError, ValueError):  # stdout is not a file descriptor (captured in-process)
            pass
        return 0


if __name__ == "__main__":
    sys.exit(main())
