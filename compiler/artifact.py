"""The artifact (DESIGN section 7): manifest, kernel sources and cubins, constants, reports."""
from __future__ import annotations

import io
import json
import tarfile
from dataclasses import dataclass, field
from typing import Any

from .ir.kernel import Kernel, KernelParam, TensorMapDecl
from .errors import ModelError
from .ir.dtypes import DType
from .ir.graph import Constant, TensorType
from .ir.dataflow import all_plans
from .ir.plan import AliasStep, IfStep, LaunchStep, LoopStep, Plan, ScanStep

FORMAT = 1


@dataclass
class Artifact:
    """A compiled model: the plan, a cubin per kernel digest, the report, the manifest header."""

    plan: Plan
    cubins: dict[str, bytes]
    report: dict
    header: dict
    sources: dict[str, str] = field(default_factory=dict)

    def save(self, path) -> None:
        """Writes the .tar.gz artifact (deterministic member order)."""
        constants = _collect_constants(self.plan)
        blob = io.BytesIO()
        const_index = []
        for name, c in constants.items():
            off = blob.tell()
            blob.write(c.data)
            blob.write(b"\0" * (-blob.tell() % 64))
            const_index.append({"name": name, "dtype": c.dtype.name, "shape": list(c.shape), "offset": off,
                                "nbytes": len(c.data)})
        manifest = dict(self.header, format=FORMAT, plan=plan_to_json(self.plan), constants=const_index,
                        kernels=sorted({k.digest for k in self.plan.kernels()}),
                        cubins=sorted(self.cubins))
        from .report import report_html
        files = {
            "manifest.json": json.dumps(manifest, indent=1, sort_keys=True).encode(),
            "report.json": json.dumps(self.report, indent=1, sort_keys=True).encode(),
            "report.html": report_html(self.report).encode(),
            "constants.bin": blob.getvalue(),
        }
        for k in self.plan.kernels():
            files[f"kernels/{k.digest}.cu"] = k.source.encode()
        arch = self.header.get("target", {}).get("arch", "")
        for digest, cubin in self.cubins.items():
            files[f"kernels/{digest}.{arch}.cubin"] = cubin
        with tarfile.open(path, "w:gz") as tar:
            for name in sorted(files):
                info = tarfile.TarInfo(name)
                info.size = len(files[name])
                info.mtime = 0
                tar.addfile(info, io.BytesIO(files[name]))


def load_artifact(path) -> Artifact:
    """Reads an artifact written by Artifact.save; a damaged file raises ModelError."""
    try:
        with tarfile.open(path, "r:gz") as tar:
            files = {m.name: tar.extractfile(m).read() for m in tar.getmembers() if m.isfile()}
    except (tarfile.TarError, OSError, EOFError) as e:
        raise ModelError(f"{path} is not a Brickyard artifact: {e}") from None
    if "manifest.json" not in files:
        raise ModelError(f"{path} has no manifest.json: not a Brickyard artifact")
    manifest = json.loads(files["manifest.json"])
    if manifest.get("format") != FORMAT:
        raise ModelError(f"artifact format {manifest.get('format')} is not supported (expected {FORMAT})")
    blob = files.get("constants.bin", b"")
    constants = {}
    for c in manifest["constants"]:
        constants[c["name"]] = Constant(DType[c["dtype"]], tuple(c["shape"]),
                                        blob[c["offset"]:c["offset"] + c["nbytes"]])
    sources = {n.split("/")[1].split(".")[0]: v.decode() for n, v in files.items()
               if n.startswith("kernels/") and n.endswith(".cu")}
    cubins = {n.split("/")[1].split(".")[0]: v for n, v in files.items()
              if n.startswith("kernels/") and n.endswith(".cubin")}
    plan = plan_from_json(manifest["plan"], sources, constants)
    report = json.loads(files.get("report.json", b"{}"))
    header = {k: v for k, v in manifest.items() if k not in ("plan", "constants", "kernels", "cubins")}
    return Artifact(plan=plan, cubins=cubins, report=report, header=header, sources=sources)


def _collect_constants(plan: Plan, out: dict | None = None) -> dict[str, Constant]:
    out = {} if out is None else out
    for sub in all_plans(plan):
        for n, c in sub.constants:
            out.setdefault(n, c)
    return out


def _type_json(t: TensorType) -> list:
    return [t.dtype.name, list(t.shape)]


def plan_to_json(plan: Plan) -> dict[str, Any]:
    """The launch plan as JSON: kernels by digest, grid, block, shared memory, arguments, regions."""
    steps = []
    for s in plan.steps:
        if isinstance(s, LaunchStep):
            k = s.kernel
            steps.append({"launch": k.digest, "entry": k.entry, "grid": list(k.grid), "block": list(k.block),
                          "shared_bytes": k.shared_bytes, "cooperative": k.cooperative,
                          "args": [[p.value, p.ctype, p.output] for p in k.params], "ops": list(k.ops),
                          "config": [[a, b] for a, b in k.config],
                          "tensor_maps": [{"param": m.param, "dtype": m.dtype, "dims": list(m.dims),
                                           "strides": list(m.strides), "box": list(m.box), "swizzle": m.swizzle}
                                          for m in k.tensor_maps],
                          "arch_specific": k.arch_specific, "carried": [[v, lvl] for v, lvl in k.carried]})
        elif isinstance(s, AliasStep):
            steps.append({"alias": s.dst, "src": s.src})
        elif isinstance(s, IfStep):
            steps.append({"if": s.cond, "then": plan_to_json(s.then_plan), "else": plan_to_json(s.else_plan),
                          "outputs": list(s.outputs), "node": s.node})
        elif isinstance(s, LoopStep):
            steps.append({"loop": s.node, "trip_count": s.trip_count, "cond": s.cond,
                          "carried_in": list(s.carried_in), "body": plan_to_json(s.body),
                          "outputs": list(s.outputs), "n_scan": s.n_scan, "max_trips": s.max_trips,
                          "iterations": s.iterations})
        elif isinstance(s, ScanStep):
            steps.append({"scan": s.node, "state_in": list(s.state_in), "scan_in": list(s.scan_in),
                          "body": plan_to_json(s.body), "outputs": list(s.outputs), "n_state": s.n_state,
                          "scan_input_axes": list(s.scan_input_axes),
                          "scan_input_reverse": list(s.scan_input_reverse),
                          "scan_output_axes": list(s.scan_output_axes),
                          "scan_output_reverse": list(s.scan_output_reverse)})
    return {"inputs": list(plan.inputs), "outputs": list(plan.outputs), "outer": list(plan.outer),
            "types": {n: _type_json(t) for n, t in plan.types},
            "constants": [n for n, _ in plan.constants], "arena": [[n, o] for n, o in plan.arena],
            "arena_bytes": plan.arena_bytes, "steps": steps,
            "output_lengths": [[n, v] for n, v in plan.output_lengths]}


def plan_from_json(d: dict, sources: dict[str, str], constants: dict[str, Constant]) -> Plan:
    steps = []
    for s in d["steps"]:
        if "launch" in s:
            k = Kernel(entry=s["entry"], source=sources[s["launch"]],
                       params=tuple(KernelParam(c, v, bool(o)) for v, c, o in s["args"]),
                       grid=tuple(s["grid"]), block=tuple(s["block"]), shared_bytes=s["shared_bytes"],
                       cooperative=s["cooperative"], ops=tuple(s["ops"]),
                       config=tuple((a, b) for a, b in s.get("config", [])),
                       tensor_maps=tuple(TensorMapDecl(m["param"], m["dtype"], tuple(m["dims"]), tuple(m["strides"]),
                                                       tuple(m["box"]), m["swizzle"])
                                         for m in s.get("tensor_maps", [])),
                       arch_specific=bool(s.get("arch_specific", False)),
                       carried=tuple((v, lvl) for v, lvl in s.get("carried", [])))
            steps.append(LaunchStep(k))
        elif "alias" in s:
            steps.append(AliasStep(s["alias"], s["src"]))
        elif "if" in s:
            steps.append(IfStep(s["if"], plan_from_json(s["then"], sources, constants),
                                plan_from_json(s["else"], sources, constants), tuple(s["outputs"]), s["node"]))
        elif "loop" in s:
            steps.append(LoopStep(s["trip_count"], s["cond"], tuple(s["carried_in"]),
                                  plan_from_json(s["body"], sources, constants), tuple(s["outputs"]),
                                  s["n_scan"], s["loop"], s.get("max_trips", 0), s.get("iterations", "")))
        elif "scan" in s:
            steps.append(ScanStep(tuple(s["state_in"]), tuple(s["scan_in"]),
                                  plan_from_json(s["body"], sources, constants), tuple(s["outputs"]),
                                  s["n_state"], tuple(s["scan_input_axes"]), tuple(s["scan_input_reverse"]),
                                  tuple(s["scan_output_axes"]), tuple(s["scan_output_reverse"]), s["scan"]))
    return Plan(inputs=tuple(d["inputs"]), outputs=tuple(d["outputs"]), steps=tuple(steps),
                types=tuple((n, TensorType(DType[t[0]], tuple(t[1]))) for n, t in d["types"].items()),
                constants=tuple((n, constants[n]) for n in d["constants"]),
                arena=tuple((n, o) for n, o in d["arena"]), arena_bytes=d["arena_bytes"],
                outer=tuple(d.get("outer", [])),
                output_lengths=tuple((n, v) for n, v in d.get("output_lengths", [])))
