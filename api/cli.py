"""The service's commands of the `brickyard` CLI: token (API tokens, through api/tokens.py, on the
service's own database) and, as clients of a running service (api/client.py), submit, jobs and ci (server
from --server, BRICKYARD_SERVER, or BRICKYARD_HOST/BRICKYARD_PORT as the service reads them; token from
--token, BRICKYARD_TOKEN or $BRICKYARD_HOME/admin-token).

`add_commands` adds them to a parser's subcommands; the `brickyard` console script (brickyard/cli.py) puts
them beside the compiler's (compiler/cli.py: compile, run, targets, inspect), whose `run` handles errors and
exit statuses for both. api.tokens and api.client load only when their command runs."""
from __future__ import annotations

import argparse
import json
import sys
import time

from compiler.cli import fail, parse_disable, parse_shapes, print_table
from compiler.passes.fit import human_bytes


def cmd_token(a) -> int:
    try:
        from api.tokens import main as tokens_main
    except ImportError:
        raise SystemExit(fail("the service is not installed: make install")) from None
    return tokens_main([a.action, *a.args])


def cmd_submit(a) -> int:
    """Upload MODEL, compile it, follow the job's events, download the artifact (-o)."""
    from api.client import Client, ClientError
    shapes = {name: list(dims) for name, dims in parse_shapes(a.input_shape)}
    wait = a.wait or bool(a.output)
    try:
        with Client(a.server, a.token) as c:
            model = c.upload_model(a.model, name=a.name)
            print(f"model {model['id']}: {model['name']} ({human_bytes(model['size'])}, sha256 "
                  f"{model['sha256'][:12]})", file=sys.stderr)
            job = c.create_compilation(model["id"], a.target, input_shapes=shapes, precision=a.precision,
                                       verify=a.verify, disable=parse_disable(a.disable), kv_cache=a.kv_cache)
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
                return fail(f"compilation {job['id']} {job['state']}{why}")
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
        return fail(str(e))


def format_shapes(shapes: dict | None) -> str:
    """{"x": [1, 128]} as `x=1,128` (the --input-shape spelling); none given: the model's own."""
    if not shapes:
        return "as in model"
    return " ".join(f"{name}={','.join(str(d) for d in dims)}" for name, dims in sorted(shapes.items()))


def cmd_jobs(a) -> int:
    """The caller's compilations as a table, newest first."""
    from api.client import Client, ClientError
    try:
        with Client(a.server, a.token) as c:
            page = c.list_compilations(state=a.state, model_id=a.model, limit=a.limit)
            names = c.model_names({j["model_id"] for j in page["items"] if j.get("model_id")})
    except ClientError as e:
        return fail(str(e))
    if a.json:
        print(json.dumps(page, indent=2))
        return 0
    # model, target, shapes and precision first: two compilations of one model differ there
    rows = [("ID", "MODEL", "TARGET", "SHAPES", "PRECISION", "STATE", "PROGRESS", "CACHE H/M", "SECONDS",
             "CREATED", "ERROR")]
    for j in page["items"]:
        err = j.get("error") or {}
        secs = j.get("compile_seconds")
        opts = j.get("options") or {}
        model = names.get(j.get("model_id") or "") or f"(deleted) {j['model_sha256'][:12]}"
        rows.append((j["id"], model, f"{j['target']} ({j['arch']})", format_shapes(opts.get("input_shapes")),
                     opts.get("precision") or "fp32",
                     j["state"] + (" (stored)" if j.get("deduplicated_from") else ""),
                     f"{j['progress'] * 100:.0f}%" + (f" {j['stage']}" if j.get("stage") and
                                                     j["state"] == "running" else ""),
                     f"{j['cache']['hits']}/{j['cache']['misses']}", "" if secs is None else f"{secs:.2f}",
                     j["created_at"][:19].replace("T", " "), err.get("category", "")))
    print_table(rows)
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
            return fail(f"--model '{item}' must look like NAME=MODEL_ID_OR_URL")
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
        return fail(str(e))
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
        print_table(rows)
        prev = f" against {status['previous_commit'][:12]}" if status["previous_commit"] else ""
        print(f"{status['project']} {status['commit'][:12]} ({status['ref'] or 'no ref'}){prev}: "
              f"{status['verdict'].upper()} (threshold {status['threshold'] * 100:.0f}%)")
    if status["verdict"] == "fail":
        return 1
    return 0 if status["verdict"] == "pass" else 3


def _client_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--server", help="the service's URL (default $BRICKYARD_SERVER, else "
                                    "http://$BRICKYARD_HOST:$BRICKYARD_PORT, else http://127.0.0.1:8000)")
    p.add_argument("--token", help="API token (default $BRICKYARD_TOKEN or $BRICKYARD_HOME/admin-token)")


def add_commands(sub: argparse._SubParsersAction) -> None:
    """Adds token, submit, jobs and ci to a parser's subcommands."""
    from compiler.context import KV_CACHE_MODES, SWITCHABLE
    from compiler.passes.precision import PRECISIONS
    tk = sub.add_parser("token", help="service API tokens: token create NAME")
    tk.add_argument("action", choices=["create", "list"])
    tk.add_argument("args", nargs="*")
    tk.set_defaults(fn=cmd_token)
    sb = sub.add_parser("submit", help="compile MODEL.onnx (or a model archive, MODEL.tar: README.md) on a Brickyard "
                                      "service (upload, compile, download)")
    sb.add_argument("model")
    sb.add_argument("--target", default="h100", help="a preset name (brickyard targets)")
    _client_args(sb)
    sb.add_argument("--input-shape", action="append", default=[], metavar="NAME=D,D,..")
    sb.add_argument("--precision", choices=PRECISIONS, default="fp32",
                    help="inputs of contractions (MatMul, Gemm, Conv); accumulation and outputs stay fp32")
    sb.add_argument("--verify", choices=["host"], default=None,
                    help="the worker runs the compiled model on its CPU against onnxruntime before packaging "
                         "(report.json's verification)")
    sb.add_argument("--disable", action="append", default=[], metavar="NAME",
                    help="switch a technique off to measure its effect (repeatable or comma-separated): "
                         + ", ".join(SWITCHABLE))
    sb.add_argument("--kv-cache", choices=KV_CACHE_MODES, default="copy",
                    help="a KV-cache node's present K/V: copy, or in-place in the past's buffer (docs/llm.md)")
    sb.add_argument("--name", help="the model's name on the service (default: the file name)")
    sb.add_argument("--wait", action="store_true", help="follow the job until it ends (implied by -o)")
    sb.add_argument("-o", "--output", help="download the artifact here once the job succeeds")
    sb.add_argument("--timeout", type=float, default=3600.0, help="seconds to wait for the job (default 3600)")
    sb.add_argument("-q", "--quiet", action="store_true", help="no progress lines")
    sb.set_defaults(fn=cmd_submit)
    jb = sub.add_parser("jobs", help="list your compilations on a Brickyard service")
    _client_args(jb)
    jb.add_argument("--state", choices=["queued", "running", "succeeded", "failed", "cancelled"])
    jb.add_argument("--model", metavar="MODEL_ID", help="only this model's compilations")
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
