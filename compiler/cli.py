"""The compiler's commands: compile, run, targets, inspect (`python -m compiler COMMAND`, or
`python -m compiler.cli`; no service needed, nothing above the compiler imported).

The `brickyard` console script (brickyard/cli.py) is one parser over these and the service's commands
(token, submit, jobs, ci: api/cli.py). Both parsers start from `new_parser` (prog, description, --debug)
and go through `run`, which turns errors into one line on stderr (`brickyard: error: ...`, exit 2; --debug
shows the traceback), Ctrl-C into 130 and a closed stdout pipe into a quiet 0. api/cli.py also uses
`fail`, `parse_shapes` and `print_table` from here."""
from __future__ import annotations

import argparse
import json
import sys
import time

from .errors import CompilerError
from .passes.fit import human_bytes


def parse_shapes(items: list[str]) -> tuple:
    """--input-shape NAME=D,D,.. values as ((name, dims), ...); a malformed one exits with status 2."""
    shapes = []
    for it in items or []:
        if "=" not in it:
            raise SystemExit(fail(f"--input-shape '{it}' must look like NAME=D,D,..."))
        name, dims = it.split("=", 1)
        try:
            shapes.append((name, tuple(int(d) for d in dims.split(",") if d.strip())))
        except ValueError:
            raise SystemExit(fail(f"--input-shape '{it}': dimensions must be integers")) from None
    return tuple(shapes)


def parse_disable(items: list[str]) -> tuple[str, ...]:
    """--disable NAME values (repeatable, or comma-separated) as a tuple of names."""
    return tuple(n.strip() for it in items or [] for n in it.split(",") if n.strip())


def fail(msg: str) -> int:
    """The one-line error on stderr; returns exit status 2."""
    print(f"brickyard: error: {msg}", file=sys.stderr)
    return 2


def print_table(rows: list[tuple]) -> None:
    """rows (the first one the header) as left-aligned columns two spaces apart."""
    widths = [max(len(str(r[i])) for r in rows) for i in range(len(rows[0]))]
    for r in rows:
        print("  ".join(str(v).ljust(w) for v, w in zip(r, widths)).rstrip())


def read_inputs(path: str) -> dict:
    """An .npz of model inputs by name (a key may carry zoo.py's `in:` prefix)."""
    import numpy as np
    try:
        data = np.load(path)
        return {(k[3:] if k.startswith("in:") else k): data[k] for k in data.files}
    except (OSError, ValueError) as e:
        raise CompilerError(f"cannot read inputs {path}: {e}") from None


def cmd_compile(a) -> int:
    from . import compile
    from .pipeline import CompileOptions
    opts = CompileOptions(input_shapes=parse_shapes(a.input_shape), verify=a.verify, precision=a.precision,
                          disable=parse_disable(a.disable), barriers=a.barriers, max_trip_count=a.max_trip_count,
                          kv_cache=a.kv_cache)
    from kernel_cache import KernelStore, default_store
    from .targets import get_target
    target = get_target(a.target)
    store = KernelStore(a.cache) if a.cache else default_store()
    given = None
    if a.verify_inputs:
        if not a.verify:
            raise CompilerError("--verify-inputs needs --verify host (or gpu)")
        given = read_inputs(a.verify_inputs)
    t0 = time.perf_counter()
    def progress(stage, frac):
        if not a.quiet:
            if stage == "import":  # with the first stage, so that a model refused on import stays one line
                print(f"target {target.name} ({target.arch}, {target.sms} SMs); kernel cache {store.root}",
                      file=sys.stderr)
            print(f"  [{frac * 100:5.1f}%] {stage} done ({time.perf_counter() - t0:.2f} s)", file=sys.stderr)
    art = compile(a.model, target, opts, progress=progress, store=store, verify_inputs=given)
    art.save(a.output)
    r = art.report
    print(f"compiled {r['model']['name']} for {r['target']['name']} ({r['target']['arch']}) in "
          f"{r['compile']['seconds']:.2f} s: {len(r['kernels'])} kernels "
          f"(cache {r['compile']['cache']['hits']} hits, {r['compile']['cache']['misses']} misses, {store.root}), "
          f"predicted {r['latency']['predicted_us']:.1f} us -> {a.output}")
    if a.verify:
        from .report_html import verification_sentence
        print(verification_sentence(r["verification"]))
        # a check that failed fails the command (the artifact is kept, to be looked into)
        return 1 if r["verification"]["outcome"] == "failed" else 0
    return 0


def cmd_run(a) -> int:
    import numpy as np
    from .artifact import load_artifact
    from .runtime.executor import Executor, make_backend
    from .errors import RuntimeFault
    art = load_artifact(a.artifact)
    try:
        inputs = {k: v for k, v in read_inputs(a.inputs).items() if k in art.plan.inputs}
    except CompilerError as e:
        raise RuntimeFault(e.message) from None
    kw = {"cubins": art.cubins, "arch": art.header["target"]["arch"]} if a.device == "gpu" else {}
    if a.device == "host" and a.mode:
        kw = {"mode": a.mode}
    graph = (a.launches or ("graph" if a.device == "gpu" else "plain")) == "graph"
    ex = Executor(art.plan, make_backend(a.device, **kw), graph=graph)
    t0 = time.perf_counter()
    out = ex.run(inputs)
    dt = time.perf_counter() - t0
    np.savez(a.outputs, **out)
    print(f"ran {art.header['model']['name']} on {a.device} in {dt:.3f} s ({ex.graph_status}) -> {a.outputs} "
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
    print_table(rows)
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


DESCRIPTION = "Compile ONNX models to CUDA kernels."


def new_parser(epilog: str | None = None) -> tuple[argparse.ArgumentParser, argparse._SubParsersAction]:
    """The `brickyard` parser with its global options (--debug) and an empty set of subcommands, which
    add_commands here and in api/cli.py fill in."""
    p = argparse.ArgumentParser(prog="brickyard", description=DESCRIPTION, epilog=epilog)
    p.add_argument("--debug", action="store_true", help="show tracebacks")
    sub = p.add_subparsers(dest="cmd", required=True)
    return p, sub


def add_commands(sub: argparse._SubParsersAction) -> None:
    """Adds compile, run, targets and inspect to a parser's subcommands."""
    from .passes.precision import PRECISIONS
    from .context import KV_CACHE_MODES, SWITCHABLE
    c = sub.add_parser("compile", help="compile MODEL.onnx to an artifact")
    c.add_argument("model")
    c.add_argument("--target", default="h100", help="a preset name (brickyard targets; default h100)")
    c.add_argument("-o", "--output", required=True)
    c.add_argument("--cache", metavar="DIR", help="the kernel cache (default $BRICKYARD_STORE, else "
                   "$BRICKYARD_HOME/store, else ~/.cache/brickyard/store); a service's store shares its kernels")
    c.add_argument("--input-shape", action="append", default=[], metavar="NAME=D,D,..",
                   help="fix an input's dynamic dimensions (its whole shape; `brickyard inspect` lists them)")
    c.add_argument("--verify", choices=["host", "gpu"], default=None,
                   help="run the result against onnxruntime before packaging, print the outcome; "
                        "exit 1 if it failed (the artifact is still written)")
    c.add_argument("--verify-inputs", metavar="FILE.npz", default=None,
                   help="with --verify: run the check on these inputs (one array per model input, by name) "
                        "instead of seeded random ones: a generation model's token ids and attention mask")
    c.add_argument("--precision", choices=PRECISIONS, default="fp32",
                   help="inputs of contractions (MatMul, Gemm, Conv); accumulation and outputs stay fp32")
    c.add_argument("--disable", action="append", default=[], metavar="NAME",
                   help="switch a technique off to measure its effect (repeatable or comma-separated): "
                        + ", ".join(SWITCHABLE))
    c.add_argument("--barriers", action="store_true",
                   help="rammer's barrier variant: join consecutive small launches in one cooperative launch "
                        "with step counters (off by default until measured on a GPU)")
    c.add_argument("--max-trip-count", type=int, default=None, metavar="N",
                   help="size the scan outputs of Loops whose iteration count is only known at run time for at "
                        "most N iterations (returned trimmed to the real count)")
    c.add_argument("--kv-cache", choices=KV_CACHE_MODES, default="copy",
                   help="copy: a KV-cache node's present K/V is a new tensor (onnxruntime's meaning); in-place: "
                        "its new rows are written into the past's buffer, which the runtime returns as the "
                        "present (the past input must feed that node alone; docs/llm.md)")
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
    r.add_argument("--launches", choices=["graph", "plain"], default=None,
                   help="graph: capture the plan once and replay it per inference (the default on the gpu); "
                        "plain: one launch call per kernel (the default on the host)")
    r.set_defaults(fn=cmd_run)
    t = sub.add_parser("targets", help="list the target presets")
    t.add_argument("--json", action="store_true")
    t.set_defaults(fn=cmd_targets)
    ins = sub.add_parser("inspect", help="describe MODEL.onnx: inputs, outputs, dynamic dimensions, ops, parameters")
    ins.add_argument("model")
    ins.add_argument("--json", action="store_true")
    ins.set_defaults(fn=cmd_inspect)


def build_parser() -> argparse.ArgumentParser:
    """The compiler's commands alone (`python -m compiler`)."""
    p, sub = new_parser(epilog="The service's commands (token, submit, jobs, ci) are in the `brickyard` "
                               "command (python -m brickyard).")
    add_commands(sub)
    return p


def run(parser: argparse.ArgumentParser, argv=None) -> int:
    """Parses argv (default sys.argv[1:]) and runs the chosen command's fn; its exit status."""
    a = parser.parse_args(argv)
    try:
        return a.fn(a)
    except CompilerError as e:
        if a.debug:
            raise
        return fail(e.one_line())
    except FileNotFoundError as e:
        if a.debug:
            raise
        return fail(f"file not found: {e.filename}")
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


def main(argv=None) -> int:
    return run(build_parser(), argv)


if __name__ == "__main__":
    sys.exit(main())
