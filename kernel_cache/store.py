"""Content-addressed blob store: objects/ab/cdef... named by sha256, atomic writes, checked reads.

Besides blobs it keeps refs: a kernel key (sha256 of source, target arch and toolchain) -> JSON
metadata that names the cubin blob and ptxas's report, so a kernel built once is never rebuilt."""
from __future__ import annotations

import hashlib
import json
import os
import tempfile
import threading
from pathlib import Path


def _atomic_write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


class KernelStore:
    """A store rooted at a folder; safe for several processes (atomic renames, idempotent puts)."""

    def __init__(self, root: str | os.PathLike):
        self.root = Path(root)
        self.hits = 0
        self.misses = 0
        self.corrupt = 0
        self._lock = threading.Lock()

    def _blob_path(self, digest: str) -> Path:
        return self.root / "objects" / digest[:2] / digest[2:]

    def _ref_path(self, key: str) -> Path:
        return self.root / "refs" / key[:2] / key[2:]

    def put(self, data: bytes) -> str:
        """Stores bytes; returns their sha256."""
        digest = hashlib.sha256(data).hexdigest()
        p = self._blob_path(digest)
        if not p.exists():
            _atomic_write(p, data)
        return digest

    def get(self, digest: str) -> bytes | None:
        """The blob, or None if absent or corrupted (a corrupted blob is dropped, never served)."""
        p = self._blob_path(digest)
        try:
            data = p.read_bytes()
        except FileNotFoundError:
            return None
        if hashlib.sha256(data).hexdigest() != digest:
            with self._lock:
                self.corrupt += 1
            try:
                p.unlink()
            except FileNotFoundError:
                pass
            return None
        return data

    def has(self, digest: str) -> bool:
        return self._blob_path(digest).exists()

    def put_ref(self, key: str, meta: dict) -> None:
        _atomic_write(self._ref_path(key), json.dumps(meta, sort_keys=True).encode())

    def get_ref(self, key: str) -> dict | None:
        try:
            return json.loads(self._ref_path(key).read_bytes())
        except (FileNotFoundError, json.JSONDecodeError):
            return None

    def lookup_kernel(self, key: str) -> tuple[dict, bytes] | None:
        """(metadata, cubin) of a built kernel, counting a hit or a miss."""
        meta = self.get_ref(key)
        blob = self.get(meta["cubin"]) if meta else None
        with self._lock:
            if blob is None:
                self.misses += 1
                return None
            self.hits += 1
        return meta, blob

    def record_kernel(self, key: str, cubin: bytes, meta: dict) -> dict:
        meta = dict(meta, cubin=self.put(cubin))
        self.put_ref(key, meta)
        return meta

    def stats(self) -> dict:
        return {"hits": self.hits, "misses": self.misses, "corrupt": self.corrupt}


def default_store() -> KernelStore:
    """$BRICKYARD_STORE, else $BRICKYARD_HOME/store, else ~/.cache/brickyard/store."""
    root = os.environ.get("BRICKYARD_STORE")
    if not root:
        home = os.environ.get("BRICKYARD_HOME")
        root = os.path.join(home, "store") if home else os.path.join(Path.home(), ".cache", "brickyard", "store")
    return KernelStore(root)
