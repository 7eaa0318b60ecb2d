"""The SASS of cubins, read with NVIDIA's disassemblers (no GPU needed).

`cuobjdump` comes from the `nvidia-cuda-cuobjdump` wheel and disassembles through `nvdisasm`, from
`nvidia-cuda-nvdisasm` (both in the `test` extra; they install as `nvidia/cu13/bin/*` in
site-packages). Without nvdisasm, cuobjdump prints only the architecture headers, so both are
located together: the wheels' directory first, then PATH. `find_cuobjdump()` answers None when
either is missing; the caller decides whether that is a skip or an error.

- `disassemble(cubin)`: `cuobjdump --dump-sass` of one cubin, the reference listing;
- `disassemble_many(cubins)`: the same instructions for many cubins at once. nvdisasm spends about
  half a second of CPU starting up, whatever it disassembles, so one process per cubin costs
  minutes for a few hundred kernels. Here each cubin's `.text.<function>` sections are cut out of
  its ELF, concatenated per instruction set (every SASS instruction since sm_70 is 16 bytes, so
  the pieces decode independently) and put through one `nvdisasm --binary SMxy` each; instructions
  go back to their functions by offset. The instruction set is the `-arch` that ptxas recorded in
  the cubin's `.note.nv.tkinfo` (`sm_90a` for wgmma kernels: the ELF flags of sm_90 and sm_90a
  cubins are the same), else the SM number of the ELF flags.

Both give {function name: SassFunction}: each instruction as its offset, predicate, opcode with
its modifiers (`LDG.E.128.CONSTANT`, `HGMMA.64x128x16.F32`) and operands, so that checks match
whole opcodes (`base == "STL"`) rather than substrings of a listing (`HFMA2.MMA` is no `HMMA`)."""
from __future__ import annotations

import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from pathlib import Path

WHEEL_BIN_DIRS = ("cu13/bin", "cu12/bin")   # under each `nvidia` package directory on sys.path


@dataclass(frozen=True)
class Cuobjdump:
    """A cuobjdump and the directory of the nvdisasm it disassembles through."""

    path: Path
    nvdisasm_dir: Path

    def version(self) -> str:
        out = subprocess.run([str(self.path), "--version"], capture_output=True, text=True, check=True).stdout
        m = re.search(r"release [\d.]+, V([\d.]+)", out)
        return m.group(1) if m else out.strip().splitlines()[-1]


@dataclass(frozen=True)
class Instruction:
    offset: int
    predicate: str      # "@P0", "@!P1" or ""
    opcode: str         # with its modifiers: "LDG.E.128.CONSTANT"
    operands: str

    @property
    def base(self) -> str:
        """The opcode without modifiers: "LDG"."""
        return self.opcode.split(".", 1)[0]

    @property
    def modifiers(self) -> tuple[str, ...]:
        return tuple(self.opcode.split(".")[1:])


@dataclass(frozen=True)
class SassFunction:
    name: str
    arch: str                      # "sm_90a": cuobjdump's "code for" header, or the cubin's own record
    instructions: tuple[Instruction, ...]
    text: str                      # the function's listing as the disassembler printed it

    def having(self, base: str, *modifiers: str) -> list[Instruction]:
        """Instructions whose opcode is `base` carrying every one of `modifiers`."""
        return [i for i in self.instructions if i.base == base and all(m in i.modifiers for m in modifiers)]


def _candidate_dirs() -> list[Path]:
    dirs = []
    for entry in sys.path:
        for sub in WHEEL_BIN_DIRS:
            d = Path(entry or ".") / "nvidia" / sub
            if d.is_dir() and d not in dirs:
                dirs.append(d)
    return dirs


def _find(tool: str, first: Path | None = None) -> Path | None:
    for d in ([first] if first else []) + _candidate_dirs():
        p = d / tool
        if p.is_file() and os.access(p, os.X_OK):
            return p
    found = shutil.which(tool)
    return Path(found) if found else None


def find_cuobjdump() -> Cuobjdump | None:
    """The wheels' cuobjdump (PATH as a fallback) with an nvdisasm beside it or on PATH, or None."""
    cuobjdump = _find("cuobjdump")
    if cuobjdump is None:
        return None
    nvdisasm = _find("nvdisasm", cuobjdump.parent)
    if nvdisasm is None:
        return None
    return Cuobjdump(cuobjdump, nvdisasm.parent)


_CODE_FOR = re.compile(r"^\s*code for (sm_\w+)")
_FUNCTION = re.compile(r"^\s*Function : (\S+)")
# "        /*0050*/               @!P0 EXIT ;          /* 0x000000000000094d */"
_OFFSET = re.compile(r"^\s*/\*[0-9a-f]+\*/")
_INSN = re.compile(r"^\s*/\*([0-9a-f]+)\*/\s+(?:(@!?U?P[T\d]+)\s+)?([A-Z][A-Za-z0-9_.]*)\s*([^;]*);")


def parse_sass(listing: str) -> dict[str, SassFunction]:
    """cuobjdump --dump-sass output -> {function name: SassFunction}."""
    out: dict[str, SassFunction] = {}
    arch, name, insns, lines = "", None, [], []

    def close():
        if name is not None:
            out[name] = SassFunction(name, arch, tuple(insns), "\n".join(lines))

    for line in listing.splitlines():
        m = _CODE_FOR.match(line)
        if m:
            close()
            arch, name, insns, lines = m.group(1), None, [], []
            continue
        m = _FUNCTION.match(line)
        if m:
            close()
            name, insns, lines = m.group(1), [], [line]
            continue
        if name is None:
            continue
        lines.append(line)
        m = _INSN.match(line)
        if m:
            insns.append(Instruction(int(m.group(1), 16), m.group(2) or "", m.group(3), m.group(4).strip()))
        elif _OFFSET.match(line):   # an instruction this parser does not read: never skip one silently
            raise ValueError(f"unparsed SASS line in {name}: {line.strip()}")
    close()
    return out


def disassemble(cubin: bytes, tool: Cuobjdump | None = None) -> dict[str, SassFunction]:
    """The SASS of every function in `cubin`; raises RuntimeError when cuobjdump is missing or fails."""
    tool = tool or find_cuobjdump()
    if tool is None:
        raise RuntimeError("cuobjdump/nvdisasm not found: install the test extra "
                           "(nvidia-cuda-cuobjdump, nvidia-cuda-nvdisasm)")
    with tempfile.TemporaryDirectory(prefix="by-sass-") as d:
        f = Path(d) / "kernel.cubin"
        f.write_bytes(cubin)
        env = dict(os.environ, NVDISASM_PATH=str(tool.nvdisasm_dir))
        r = subprocess.run([str(tool.path), "--dump-sass", str(f)], capture_output=True, text=True, env=env)
    if r.returncode != 0 or "fatal" in r.stderr:
        raise RuntimeError(f"cuobjdump --dump-sass failed ({r.returncode}): {r.stderr.strip()}")
    functions = parse_sass(r.stdout)
    if not functions or not any(fn.instructions for fn in functions.values()):
        raise RuntimeError(f"cuobjdump printed no SASS instructions:\n{r.stdout[:500]}")
    return functions


# ---- many cubins through one nvdisasm per instruction set ---------------------------------------

def _elf_sections(cubin: bytes) -> dict[str, bytes]:
    """Section name -> contents of a 64-bit little-endian ELF (a cubin)."""
    if cubin[:4] != b"\x7fELF" or cubin[4] != 2 or cubin[5] != 1:
        raise ValueError("not a 64-bit little-endian ELF cubin")
    shoff, = struct.unpack_from("<Q", cubin, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", cubin, 0x3A)
    hdrs = [struct.unpack_from("<IIQQQQIIQQ", cubin, shoff + i * shentsize) for i in range(shnum)]
    names = hdrs[shstrndx][4]
    out = {}
    for name_off, sh_type, _f, _a, off, size, *_ in hdrs:
        name = cubin[names + name_off:cubin.index(b"\0", names + name_off)].decode()
        out[name] = b"" if sh_type == 8 else cubin[off:off + size]    # SHT_NOBITS: no contents
    return out


def cubin_arch(cubin: bytes, sections: dict[str, bytes] | None = None) -> str:
    """"sm_90a": the -arch ptxas recorded in .note.nv.tkinfo, else "sm_<SM>" from the ELF flags."""
    sections = sections if sections is not None else _elf_sections(cubin)
    m = re.search(rb"-arch (sm_\d+[af]?)\b", sections.get(".note.nv.tkinfo", b""))
    if m:
        return m.group(1).decode()
    flags, = struct.unpack_from("<I", cubin, 0x30)
    sm = (flags >> 8) & 0xFF if cubin[8] >= 8 else flags & 0xFF    # ELF ABI version 8 (CUDA 13) moved it
    return f"sm_{sm}"


# Instructions whose address operand nvdisasm prints as an absolute target: in a concatenation, an
# offset into the whole blob, rebased to the function's own start (as cuobjdump prints it).
_BRANCHES = frozenset({"BRA", "BSSY", "CALL", "RET", "JMP", "BRX", "JMX", "WARPSYNC"})
_ADDRESS = re.compile(r"\b0x([0-9a-f]+)\b")


def _rebase(operands: str, start: int) -> str:
    return _ADDRESS.sub(lambda m: f"0x{int(m.group(1), 16) - start:x}" if int(m.group(1), 16) >= start else m.group(0),
                        operands)


def disassemble_many(cubins: Mapping[Hashable, bytes], tool: Cuobjdump | None = None
                     ) -> dict[Hashable, dict[str, SassFunction]]:
    """{key: cubin} -> {key: {function name: SassFunction}}, one nvdisasm run per instruction set.
    A function's `text` is its instructions as nvdisasm printed them, offsets from its own start."""
    tool = tool or find_cuobjdump()
    if tool is None:
        raise RuntimeError("cuobjdump/nvdisasm not found: install the test extra "
                           "(nvidia-cuda-cuobjdump, nvidia-cuda-nvdisasm)")
    nvdisasm = tool.nvdisasm_dir / "nvdisasm"
    groups: dict[str, list[tuple[Hashable, str, bytes]]] = {}
    archs: dict[Hashable, str] = {}
    for key, cubin in cubins.items():
        sections = _elf_sections(cubin)
        arch = archs[key] = cubin_arch(cubin, sections)
        texts = [(n[len(".text."):], b) for n, b in sections.items() if n.startswith(".text.")]
        if not texts:
            raise ValueError(f"cubin {key!r} has no .text sections")
        for name, code in texts:
            if len(code) % 16:
                raise ValueError(f"{name}: {len(code)} bytes of code, not whole 16-byte instructions")
            groups.setdefault(arch, []).append((key, name, code))
    out: dict[Hashable, dict[str, SassFunction]] = {key: {} for key in cubins}
    with tempfile.TemporaryDirectory(prefix="by-sass-") as d:
        for arch, pieces in groups.items():
            blob = Path(d) / f"{arch}.bin"
            blob.write_bytes(b"".join(code for _, _, code in pieces))
            isa = "SM" + arch[len("sm_"):]
            r = subprocess.run([str(nvdisasm), "--binary", isa, str(blob)], capture_output=True, text=True)
            if r.returncode != 0:
                raise RuntimeError(f"nvdisasm --binary {isa} failed ({r.returncode}): {r.stderr.strip()}")
            by_offset: dict[int, tuple[str, str, str, str]] = {}
            for line in r.stdout.splitlines():
                m = _INSN.match(line)
                if m:
                    by_offset[int(m.group(1), 16)] = (m.group(2) or "", m.group(3), m.group(4).strip(), line)
            start = 0
            for key, name, code in pieces:
                insns, lines = [], []
                for off in range(start, start + len(code), 16):
                    if off not in by_offset:
                        raise RuntimeError(f"nvdisasm printed no instruction at {off:#x} ({key!r}, {name}, {isa})")
                    pred, opcode, operands, line = by_offset[off]
                    if start and opcode.split(".", 1)[0] in _BRANCHES:   # targets within the blob
                        operands = _rebase(operands, start)
                        line = line[:line.index(opcode)] + opcode + " " + operands + " ;"
                    insns.append(Instruction(off - start, pred, opcode, operands))
                    lines.append(line.replace(f"/*{off:04x}*/", f"/*{off - start:04x}*/", 1))
                out[key][name] = SassFunction(name, arch, tuple(insns), "\n".join(lines))
                start += len(code)
    return out
