"""The content-addressed store: atomic, checked reads, corrupted blobs dropped and never served."""
from __future__ import annotations

import hashlib
import os
from concurrent.futures import ProcessPoolExecutor

from kernel_cache import KernelStore


def test_put_get_roundtrip(tmp_path):
    s = KernelStore(tmp_path)
    data = os.urandom(5000)
    d = s.put(data)
    assert d == hashlib.sha256(data).hexdigest()
    assert (tmp_path / "objects" / d[:2] / d[2:]).is_file()
    assert s.get(d) == data
    assert s.put(data) == d  # idempotent


def test_corrupted_blob_is_dropped(tmp_path):
    s = KernelStore(tmp_path)
    data = os.urandom(1000)
    d = s.put(data)
    p = tmp_path / "objects" / d[:2] / d[2:]
    p.write_bytes(data[:-1] + bytes([data[-1] ^ 1]))
    assert s.get(d) is None
    assert not p.exists() and s.corrupt == 1


def test_kernel_refs_count_hits_and_misses(tmp_path):
    s = KernelStore(tmp_path)
    assert s.lookup_kernel("ab" * 32) is None
    s.record_kernel("ab" * 32, b"cubin-bytes", {"registers": 12})
    meta, cubin = s.lookup_kernel("ab" * 32)
    assert cubin == b"cubin-bytes" and meta["registers"] == 12
    assert s.stats() == {"hits": 1, "misses": 1, "corrupt": 0}


def test_corrupted_cubin_is_a_miss(tmp_path):
    s = KernelStore(tmp_path)
    meta = s.record_kernel("cd" * 32, b"x" * 100, {})
    p = tmp_path / "objects" / meta["cubin"][:2] / meta["cubin"][2:]
    p.write_bytes(b"y" * 100)
    assert s.lookup_kernel("cd" * 32) is None


def _writer(args):
    root, seed = args
    s = KernelStore(root)
    return [s.put(bytes([seed % 7]) * 4096 * (1 + k % 3)) for k in range(30)]


def test_concurrent_writers(tmp_path):
    with ProcessPoolExecutor(2) as pool:
        results = list(pool.map(_writer, [(str(tmp_path), i) for i in range(6)]))
    s = KernelStore(tmp_path)
    for digests in results:
        for d in digests:
            assert s.get(d) is not None
    assert not list(tmp_path.rglob(".tmp-*"))
