"""The artifact (DESIGN section 7; docs/artifact.md): one uncompressed tar holding the manifest, kernel
sources and cubins, the reports and, last, the constants (the transformed weights) in one member.

Float weights barely compress (gzip saved 8% of BERT-base's weights in 17 s; bench/artifact_speed.py), so
they are stored, and the archive is written in one streaming pass: each constant goes from memory to
the file, never through an in-memory archive. Putting the weights last makes an artifact three parts
— the head (every small member and the weights' tar header), the weights, a tail of zeros — so the
service keeps a model's weights once in its store and assembles the download from the parts."""
from __future__ import annotations

import json
import os
import tarfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from .ir.kernel import Kernel, KernelParam, TensorMapDecl
from .errors import ModelError
from .ir.dtypes import DType
from .ir.graph import Constant, TensorType
from .ir.dataflow import all_plans
from .ir.plan import AliasStep, IfStep, LaunchStep, LoopStep, Plan, ScanStep

FORMAT = 2
# format 1 (gzipped tar, constants.bin anywhere) has the same manifest and members, so it still loads
READABLE_FORMATS = (1, 2)
WEIGHTS_MEMBER = "constants.bin"
CONSTANT_ALIGN = 64  # each constant's offset in the weights, so a mapped file gives aligned arrays


@dataclass(frozen=True)
class ArtifactParts:
    """What Artifact.write_head wrote (head_bytes), what write_weights writes, and the tail (zeros) that
    closes the file."""

    head_bytes: int
    weights_bytes: int
    tail: bytes

    @property
    def total_bytes(self) -> int:
        return self.head_bytes + self.weights_bytes + len(self.tail)


def archive_tail(offset: int) -> bytes:
    """The zeros that close a tar whose last member's data ends at `offset`: padding to a block, the two
    end-of-archive blocks, padding to a whole record (what tarfile writes)."""
    n = -offset % tarfile.BLOCKSIZE + 2 * tarfile.BLOCKSIZE
    n += -(offset + n) % tarfile.RECORDSIZE
    return b"\0" * n


def _tar_header(name: str, size: int) -> bytes:
    info = tarfile.TarInfo(name)
    info.size, info.mtime, info.mode = size, 0, 0o644
    return info.tobuf(tarfile.PAX_FORMAT, "utf-8", "surrogateescape")


def _pad(n: int) -> bytes:
    return b"\0" * (-n % tarfile.BLOCKSIZE)


@dataclass
class Artifact:
    """A compiled model: the plan, a cubin per kernel digest, the report, the manifest header."""

    plan: Plan
    cubins: dict[str, bytes]
    report: dict
    header: dict
    sources: dict[str, str] = field(default_factory=dict)

    def save(self, path) -> None:
        """Writes the artifact to `path` in one pass (a temp file beside it, renamed when complete)."""
        path = Path(path)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.part")  # open() gives it the umask's mode
        try:
            with open(tmp, "wb") as f:
                parts = self.write_head(f)
                self.write_weights(f)
                f.write(parts.tail)
            os.replace(tmp, path)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise

    def _constants(self) -> list[tuple[str, Constant]]:
        # sorted by name, so one model's weights are the same bytes whatever else the options changed
        return sorted(_collect_constants(self.plan).items())

    def write_head(self, out: BinaryIO) -> ArtifactParts:
        """Writes the archive up to the weights' data: every other member, sorted, then the weights
        member's header. The whole file is this, write_weights', and the returned tail."""
        const_index, off = [], 0
        for name, c in self._constants():
            const_index.append({"name": name, "dtype": c.dtype.name, "shape": list(c.shape), "offset": off,
                                "nbytes": len(c.data)})
            off += len(c.data) + -len(c.data) % CONSTANT_ALIGN
        weights_bytes = off
        manifest = dict(self.header, format=FORMAT, plan=plan_to_json(self.plan), constants=const_index,
                        kernels=sorted({k.digest for k in self.plan.kernels()}),
                        cubins=sorted(self.cubins), weights={"member": WEIGHTS_MEMBER, "bytes": weights_bytes})
        from .report import report_html
        files = {
            "manifest.json": json.dumps(manifest, indent=1, sort_keys=True).encode(),
            "report.json": json.dumps(self.report, indent=1, sort_keys=True).encode(),
            "report.html": report_html(self.report).encode(),
        }
        for k in self.plan.kernels():
            files[f"kernels/{k.digest}.cu"] = k.source.encode()
        arch = self.header.get("target", {}).get("arch", "")
        for digest, cubin in self.cubins.items():
            files[f"kernels/{digest}.{arch}.cubin"] = cubin
        head_bytes = 0
        for name in sorted(files):
            for chunk in (_tar_header(name, len(files[name])), files[name], _pad(len(files[name]))):
                out.write(chunk)
                head_bytes += len(chunk)
        hdr = _tar_header(WEIGHTS_MEMBER, weights_bytes)
        out.write(hdr)
        head_bytes += len(hdr)
        return ArtifactParts(head_bytes, weights_bytes, archive_tail(head_bytes + weights_bytes))

    def write_weights(self, out: BinaryIO) -> None:
        """Writes the weights member's data: each constant at its 64-byte-aligned offset, straight from
        the plan's bytes (no copy, no archive in memory)."""
        for _name, c in self._constants():
            out.write(c.data)
            out.write(b"\0" * (-len(c.data) % CONSTANT_ALIGN))


def load_artifact(path) -> Artifact:
    """Reads an artifact written by Artifact.save (format 2, or a format-1 .tar.gz); a damaged file or an
    unknown format raises ModelError."""
    try:
        # "r:*" also opens format 1's gzip; the weights are read constant by constant, not as one blob
        with tarfile.open(path, "r:*") as tar:
            members = {m.name: m for m in tar.getmembers() if m.isfile()}
            if "manifest.json" not in members:
                raise ModelError(f"{path} has no manifest.json: not a Brickyard artifact")
            manifest = json.loads(tar.extractfile(members["manifest.json"]).read())
            fmt = manifest.get("format")
            if fmt not in READABLE_FORMATS:
                raise ModelError(f"artifact format {fmt} is not supported: this runtime reads formats "
                                 f"{', '.join(map(str, READABLE_FORMATS))} (compile the model again with this "
                                 f"Brickyard, or run it with the Brickyard that made it)")
            files = {n: tar.extractfile(m).read() for n, m in members.items()
                     if n != WEIGHTS_MEMBER and n != "manifest.json"}
            constants = {}
            if manifest["constants"]:
                # the member's data is contiguous in the (decompressed) archive: one read per constant
                # straight into its own bytes, in file order
                start = members[WEIGHTS_MEMBER].offset_data
                for c in sorted(manifest["constants"], key=lambda c: c["offset"]):
                    tar.fileobj.seek(start + c["offset"])
                    data = tar.fileobj.read(c["nbytes"])
                    if len(data) != c["nbytes"]:
                        raise ModelError(f"{path} is truncated: constant {c['name']} is cut short")
                    constants[c["name"]] = Constant(DType[c["dtype"]], tuple(c["shape"]), data)
    except (tarfile.TarError, OSError, EOFError, KeyError, json.JSONDecodeError) as e:
        raise ModelError(f"{path} is not a Brickyard artifact: {type(e).__name__}: {e}") from None
    sources = {n.split("/")[1].split(".")[0]: v.decode() for n, v in files.items()
               if n.startswith("kernels/") and n.endswith(".cu")}
    cubins = {n.split("/")[1].split(".")[0]: v for n, v in files.items()
              if n.startswith("kernels/") and n.endswith(".cubin")}
    plan = plan_from_json(manifest["plan"], sources, constants)
    report = json.loads(files.get("report.json", b"{}"))
    header = {k: v for k, v in manifest.items() if k not in ("plan", "constants", "kernels", "cubins", "weights")}
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
                          "arch_specific": k.arch_specific, "carried": [[v, lvl] for v, lvl in k.carried],
                          "arrivals": k.arrivals})
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
            "output_lengths": [[n, v, axis] for n, v, axis in plan.output_lengths],
            "donated": [[o, i] for o, i in plan.donated]}


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
                       carried=tuple((v, lvl) for v, lvl in s.get("carried", [])),
                       arrivals=int(s.get("arrivals", 0)))
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
                # an artifact from before bounded ops trims its Loop outputs on axis 0
                output_lengths=tuple((e[0], e[1], e[2] if len(e) > 2 else 0) for e in d.get("output_lengths", [])),
                donated=tuple((o, i) for o, i in d.get("donated", [])))
