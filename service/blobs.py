"""The service's view of the content-addressed store (kernel_cache): model files, artifacts, reports.

Big blobs (models, artifacts) are moved into place from a temp file, never read whole into memory;
the layout is the store's own (objects/ab/cdef...), so KernelStore.get reads them back.

An artifact is kept as a **composite**: `composites/ab/cdef...` (named by the sha256 of the whole
artifact) lists the blobs whose concatenation is its bytes — its head, its weights, its tail — so
every artifact of one model shares one weights blob (docs/artifact.md). An artifact stored whole
before composites existed is a plain blob and is still served as one."""
from __future__ import annotations

import errno
import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path

from kernel_cache import KernelStore

CHUNK = 1 << 20


def blob_path(root: Path, digest: str) -> Path:
    """Where the store keeps the blob named `digest` (same layout as KernelStore)."""
    return Path(root) / "objects" / digest[:2] / digest[2:]


def file_sha256(path: Path) -> tuple[str, int]:
    h = hashlib.sha256()
    size = 0
    with open(path, "rb") as f:
        while chunk := f.read(CHUNK):
            h.update(chunk)
            size += len(chunk)
    return h.hexdigest(), size


def adopt_file(root: Path, tmp: Path, digest: str) -> Path:
    """Moves a finished temp file (same filesystem) into the store under `digest`; idempotent."""
    dst = blob_path(root, digest)
    if dst.exists():
        tmp.unlink(missing_ok=True)
        return dst
    dst.parent.mkdir(parents=True, exist_ok=True)
    with open(tmp, "rb") as f:
        os.fsync(f.fileno())
    try:
        os.replace(tmp, dst)
    except OSError as e:
        if e.errno != errno.EXDEV:
            raise
        # the store is on another filesystem: copy next to the destination, then rename atomically
        fd, near = tempfile.mkstemp(dir=dst.parent, prefix=".tmp-")
        with os.fdopen(fd, "wb") as out, open(tmp, "rb") as src:
            shutil.copyfileobj(src, out, CHUNK)
            out.flush()
            os.fsync(out.fileno())
        os.replace(near, dst)
        tmp.unlink(missing_ok=True)
    return dst


class BlobWriter:
    """A blob written as a stream: a temp file in `tmp_dir` (the store's filesystem), hashed as it is
    written (and fed to the `also` hashers), moved into the store by finish(); idempotent like adopt_file."""

    def __init__(self, root: Path, tmp_dir: Path, also: Iterable = ()):
        self.root, self.also, self.size = Path(root), tuple(also), 0
        self._hash = hashlib.sha256()
        Path(tmp_dir).mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=tmp_dir, prefix="blob-")
        self.tmp = Path(tmp)
        self._f = os.fdopen(fd, "wb")

    def write(self, data) -> int:
        self._f.write(data)
        self._hash.update(data)
        for h in self.also:
            h.update(data)
        self.size += len(data)
        return len(data)

    def finish(self) -> str:
        """Closes the temp file and adopts it into the store; returns its digest."""
        self._f.close()
        digest = self._hash.hexdigest()
        adopt_file(self.root, self.tmp, digest)
        return digest

    def __enter__(self) -> "BlobWriter":
        return self

    def __exit__(self, *exc) -> None:
        self._f.close()
        self.tmp.unlink(missing_ok=True)  # adopted already, or abandoned on an error


class HashSink:
    """A write-only stream that only feeds hashers: to learn a blob's digest before deciding to store it."""

    def __init__(self, *hashers):
        self.hashers = hashers

    def write(self, data) -> int:
        for h in self.hashers:
            h.update(data)
        return len(data)


def composite_path(root: Path, digest: str) -> Path:
    return Path(root) / "composites" / digest[:2] / digest[2:]


def put_composite(root: Path, digest: str, parts: list[str], size: int) -> None:
    """Records that the bytes named `digest` (`size` long) are the concatenation of the blobs `parts`."""
    path = composite_path(root, digest)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    with os.fdopen(fd, "w") as f:
        json.dump({"parts": list(parts), "size": size}, f)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def composite_parts(root: Path, digest: str) -> tuple[list[str], int] | None:
    """The part digests and total size of composite `digest`, or None if there is no such record."""
    try:
        rec = json.loads(composite_path(root, digest).read_text())
        return list(rec["parts"]), int(rec["size"])
    except (FileNotFoundError, ValueError, KeyError, TypeError):
        return None


def stored_file(root: Path, digest: str) -> tuple[list[Path], int] | None:
    """The files whose concatenation is the bytes named `digest` (each part checked against its own
    digest), and their total size: one blob, or a composite's parts; None if absent or damaged."""
    rec = composite_parts(root, digest)
    if rec is None:
        p = verified_path(root, digest)
        return ([p], p.stat().st_size) if p is not None else None
    digests, size = rec
    paths = [verified_path(root, d) for d in digests]
    if any(p is None for p in paths) or sum(p.stat().st_size for p in paths) != size:
        return None
    return paths, size


def read_parts(paths: list[Path], chunk: int = CHUNK) -> Iterator[bytes]:
    """The files' bytes one after another, in chunks (what a download streams)."""
    for p in paths:
        with open(p, "rb") as f:
            while data := f.read(chunk):
                yield data


def put_bytes(root: Path, data: bytes) -> str:
    return KernelStore(root).put(data)


def get_bytes(root: Path, digest: str) -> bytes | None:
    """The blob, checked against its digest (a damaged blob is dropped and reads as absent)."""
    return KernelStore(root).get(digest)


def verified_path(root: Path, digest: str) -> Path | None:
    """The blob's path if it exists and its bytes still hash to `digest` (checked in chunks)."""
    p = blob_path(root, digest)
    try:
        actual, _ = file_sha256(p)
    except FileNotFoundError:
        return None
    if actual != digest:
        p.unlink(missing_ok=True)
        return None
    return p


def remove_blob(root: Path, digest: str) -> None:
    blob_path(root, digest).unlink(missing_ok=True)


def store_stats(root: Path) -> dict:
    """Object count and bytes under objects/ (a walk: fine for one machine's store)."""
    count = size = 0
    objects = Path(root) / "objects"
    for dirpath, _dirs, files in os.walk(objects):
        for name in files:
            if name.startswith(".tmp-"):
                continue
            try:
                size += os.stat(os.path.join(dirpath, name)).st_size
                count += 1
            except FileNotFoundError:
                pass
    return {"objects": count, "bytes": size}
