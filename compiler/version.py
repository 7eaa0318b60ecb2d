"""What identifies the compiler that made a kernel or an artifact: the package version, and the compiler
key, a sha256 over the compiler's own source files (Python and the CUDA/C++ preludes NVRTC and the host
harness compile with every kernel).

The version alone has stayed "0.1.0" through every change, so a key holding only it served cubins and
artifacts that an earlier, since-fixed compiler had made. Any byte changed in compiler/ changes the
compiler key, and with it every kernel build key, tuning record key and the service's dedup key."""
from __future__ import annotations

import functools
import hashlib
from importlib import metadata
from pathlib import Path

PACKAGE_ROOT = Path(__file__).resolve().parent
SOURCE_SUFFIXES = (".py", ".h", ".cuh", ".cu")


def package_version() -> str:
    """The installed distribution's version (pyproject.toml); the source tree's when not installed."""
    try:
        return metadata.version("brickyard")
    except metadata.PackageNotFoundError:
        return "0+unknown"


def compiler_key(root: Path | None = None) -> str:
    """sha256 over the relative path and bytes of every source file under root (default: this package)."""
    return _key(str((root or PACKAGE_ROOT).resolve()))


@functools.lru_cache(maxsize=8)
def _key(root: str) -> str:
    base = Path(root)
    h = hashlib.sha256()
    for p in sorted(p for p in base.rglob("*") if p.suffix in SOURCE_SUFFIXES and p.is_file()
                    and "__pycache__" not in p.parts):
        rel = p.relative_to(base).as_posix().encode()
        data = p.read_bytes()
        h.update(len(rel).to_bytes(8, "little") + rel + len(data).to_bytes(8, "little") + data)
    return h.hexdigest()
