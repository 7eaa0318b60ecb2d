"""The `brickyard` command: compile, run, targets (service commands live in api/ and worker/)."""
from __future__ import annotations

import argparse
import json
import sys
import time


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
    opts = CompileOptions(input_shapes=_parse_shapes(a.input_shape), verify=a.verify)
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
    print(f"{'name':<9} {'arch':<7} {'SMs':>4} {'smem/blk KiB':>12} {'L2 MiB':>7} {'DRAM GB/s':>9} "
          f"{'FP32 TF':>8} {'FP16 TC TF':>10}")
    for t in PRESETS.values():
        print(f"{t.name:<9} {t.arch:<7} {t.sms:>4} {t.shared_per_block // 1024:>12} {t.l2_bytes // 2**20:>7} "
              f"{t.dram_gbps:>9.0f} {t.fp32_tflops:>8.1f} {t.fp16_tc_tflops:>10.0f}")
    return 0


def cmd_token(a) -> int:
    try:
        from api.tokens import main as tokens_main
    except ImportError:
        raise SystemExit(_fail("the service is not installed: make install")) from None
    return tokens_main([a.action, *a.args])


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="brickyard", description="Compile ONNX models to CUDA kernels.")
    p.add_argument("--debug", action="store_true", help="show tracebacks")
    sub = p.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("compile", help="compile MODEL.onnx to an artifact")
    c.add_argument("model")
    c.add_argument("--target", default="h100")
    c.add_argument("-o", "--output", required=True)
    c.add_argument("--input-shape", action="append", default=[], metavar="NAME=D,D,..")
    c.add_argument("--verify", choices=["host", "gpu"], default=None,
                   help="run the result against onnxruntime before packaging")
    c.add_argument("-q", "--quiet", action="store_true")
    c.set_defaults(fn=cmd_compile)
    r = sub.add_parser("run", help="run an artifact on inputs from an .npz")
    r.add_argument("artifact")
    r.add_argument("--inputs", required=True)
    r.add_argument("--outputs", required=True)
    r.add_argument("--device", choices=["host", "gpu"], default="host")
    r.add_argument("--mode", choices=["default", "shuffle", "asan"], default=None,
                   help="host harness mode (shuffle thread order; AddressSanitizer)")
    r.set_defaults(fn=cmd_run)
    t = sub.add_parser("targets", help="list the target presets")
    t.add_argument("--json", action="store_true")
    t.set_defaults(fn=cmd_targets)
    tk = sub.add_parser("token", help="service API tokens: token create NAME")
    tk.add_argument("action", choices=["create", "list"])
    tk.add_argument("args", nargs="*")
    tk.set_defaults(fn=cmd_token)
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


if __name__ == "__main__":
    sys.exit(main())
