"""The service's view of the content-addressed store (kernel_cache): model files, artifacts, reports.

Big blobs (models, artifacts) are moved into place from a temp file, never read whole into memory;
the layout is the store's own (objects/ab/cdef...), so KernelStore.get reads them back."""
from __future__ import annotations

import errno
import hashlib
import os
import shutil
import tempfile
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
