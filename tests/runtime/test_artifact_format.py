"""The artifact's format (compiler/artifact.py, docs/artifact.md): a round trip runs the same, the weights
are stored uncompressed as the last member, save streams them, format 1 still loads, bad files say so."""
from __future__ import annotations

import gzip
import io
import json
import tarfile
import tracemalloc

import numpy as np
import pytest

from compiler import compile
from compiler.artifact import (CONSTANT_ALIGN, FORMAT, WEIGHTS_MEMBER, ArtifactParts, _collect_constants,
                               load_artifact)
from compiler.errors import ModelError
from compiler.runtime.executor import Executor, make_backend
from tests.conftest import MODELS_DIR
from tests.weights_models import mlp_model, mlp_reference, mlp_weights


@pytest.fixture(scope="module")
def mlp():
    """An MLP with 8 MB of float32 weights compiled for h100, its weights and an input."""
    weights = mlp_weights(layers=4)
    art = compile(mlp_model(weights), "h100")
    x = np.random.default_rng(1).standard_normal((8, 256)).astype(np.float32)
    return art, weights, x


def host_run(art, inputs: dict) -> dict:
    return Executor(art.plan, make_backend("host")).run(inputs)


def weights_bytes(art) -> int:
    return sum(len(c.data) for c in _collect_constants(art.plan).values())


def test_round_trip_runs_the_same(mlp, tmp_path):
    art, weights, x = mlp
    path = tmp_path / "mlp.tar"
    art.save(path)
    loaded = load_artifact(path)
    assert loaded.header["format"] == FORMAT and loaded.header["target"]["arch"] == "sm_90"
    assert loaded.report == json.loads(json.dumps(art.report))
    assert set(loaded.cubins) == set(art.cubins) and all(loaded.cubins[d] == art.cubins[d] for d in art.cubins)
    assert dict(loaded.plan.constants).keys() == dict(art.plan.constants).keys()
    before, after = host_run(art, {"x": x}), host_run(loaded, {"x": x})
    assert np.array_equal(before["y"], after["y"])
    np.testing.assert_allclose(after["y"], mlp_reference(weights, x), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("name", ["bert", "rnn_loop"])
def test_round_trip_of_shared_models(name, tmp_path):
    """bert (fused kernels, many constants) and rnn_loop (constants inside a loop body's plan)."""
    art = compile(str(MODELS_DIR / f"{name}.onnx"), "h100")
    art.save(tmp_path / "a.tar")
    loaded = load_artifact(tmp_path / "a.tar")
    ref = np.load(MODELS_DIR / f"{name}.npz")
    inputs = {k[3:]: ref[k] for k in ref.files if k.startswith("in:")}
    before, after = host_run(art, inputs), host_run(loaded, inputs)
    for k in before:
        assert np.array_equal(before[k], after[k]), k
        np.testing.assert_allclose(after[k], ref[f"out:{k}"], rtol=1e-3, atol=1e-4)


def test_split_k_launches_keep_their_counters_through_the_artifact(tmp_path):
    """resnet at fp16 splits K in several convolutions: each such launch records how many arrival
    counters its wrapper keeps, and the loaded plan says the same and runs the same."""
    from compiler.context import CompileOptions
    art = compile(str(MODELS_DIR / "resnet.onnx"), "h100", CompileOptions(precision="fp16"))
    counts = [k.arrivals for k in art.plan.kernels()]
    assert any(counts), counts
    art.save(tmp_path / "a.tar")
    loaded = load_artifact(tmp_path / "a.tar")
    assert [k.arrivals for k in loaded.plan.kernels()] == counts
    ref = np.load(MODELS_DIR / "resnet.npz")
    inputs = {k[3:]: ref[k] for k in ref.files if k.startswith("in:")}
    before, after = host_run(art, inputs), host_run(loaded, inputs)
    for k in before:
        assert np.array_equal(before[k], after[k]), k
        np.testing.assert_allclose(after[k], ref[f"out:{k}"], rtol=1e-2, atol=1e-2)


def test_weights_are_stored_last_uncompressed_and_aligned(mlp, tmp_path):
    art, _, _ = mlp
    path = tmp_path / "mlp.tar"
    art.save(path)
    data = path.read_bytes()
    assert data[:2] != b"\x1f\x8b"  # not gzip
    assert len(data) % tarfile.RECORDSIZE == 0
    with tarfile.open(path, "r:") as tar:
        members = tar.getmembers()
        manifest = json.loads(tar.extractfile("manifest.json").read())
    last = members[-1]
    assert last.name == WEIGHTS_MEMBER and last.offset_data % tarfile.BLOCKSIZE == 0
    assert [m.name for m in members[:-1]] == sorted(m.name for m in members[:-1])
    assert manifest["weights"] == {"member": WEIGHTS_MEMBER, "bytes": last.size}
    # every constant's bytes, as they are in memory, at its offset: stored, not encoded
    consts = _collect_constants(art.plan)
    offsets = [c["offset"] for c in manifest["constants"]]
    assert offsets == sorted(offsets) and [c["name"] for c in manifest["constants"]] == sorted(consts)
    for c in manifest["constants"]:
        assert c["offset"] % CONSTANT_ALIGN == 0
        at = last.offset_data + c["offset"]
        assert data[at:at + c["nbytes"]] == consts[c["name"]].data
    assert last.size >= weights_bytes(art) > 8_000_000


def test_parts_concatenate_to_the_saved_file(mlp, tmp_path):
    """write_head's head + write_weights' weights + the tail is byte for byte what save writes (the
    service assembles downloads this way), and the weights part is only the weights."""
    art, _, _ = mlp
    art.save(tmp_path / "whole.tar")
    head, weights = io.BytesIO(), io.BytesIO()
    parts = art.write_head(head)
    art.write_weights(weights)
    assert isinstance(parts, ArtifactParts)
    assert (parts.head_bytes, parts.weights_bytes) == (len(head.getvalue()), len(weights.getvalue()))
    whole = (tmp_path / "whole.tar").read_bytes()
    assert head.getvalue() + weights.getvalue() + parts.tail == whole and parts.total_bytes == len(whole)
    assert not parts.tail.strip(b"\0")
    assert parts.weights_bytes - weights_bytes(art) < CONSTANT_ALIGN * len(_collect_constants(art.plan))


def test_save_streams_the_weights(mlp, tmp_path):
    """Saving allocates far less than the weights: they go from the plan to the file, with no archive
    (or copy of them) built in memory. Format 1 built constants.bin in a BytesIO and gzipped it."""
    art, _, _ = mlp
    art.save(tmp_path / "warm.tar")  # imports and lazy caches outside the measurement
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        art.save(tmp_path / "mlp.tar")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < weights_bytes(art) / 4, f"save allocated {peak} bytes at its peak"


def write_format1(src, dst) -> None:
    """What format 1's Artifact.save wrote: the same members, sorted, gzipped, format 1, no 'weights'."""
    with tarfile.open(src) as tar:
        files = {m.name: tar.extractfile(m).read() for m in tar.getmembers()}
    manifest = json.loads(files["manifest.json"])
    manifest["format"] = 1
    del manifest["weights"]
    files["manifest.json"] = json.dumps(manifest, indent=1, sort_keys=True).encode()
    with tarfile.open(dst, "w:gz") as tar:
        for name in sorted(files):
            info = tarfile.TarInfo(name)
            info.size, info.mtime = len(files[name]), 0
            tar.addfile(info, io.BytesIO(files[name]))


def test_format_1_artifacts_still_load(mlp, tmp_path):
    art, _, x = mlp
    art.save(tmp_path / "v2.tar")
    write_format1(tmp_path / "v2.tar", tmp_path / "v1.tar.gz")
    assert (tmp_path / "v1.tar.gz").read_bytes()[:2] == b"\x1f\x8b"
    old = load_artifact(tmp_path / "v1.tar.gz")
    assert old.header["format"] == 1
    assert np.array_equal(host_run(old, {"x": x})["y"], host_run(art, {"x": x})["y"])


def test_unknown_format_and_damaged_files_say_so(mlp, tmp_path):
    art, _, _ = mlp
    art.save(tmp_path / "good.tar")
    with tarfile.open(tmp_path / "good.tar") as tar:
        files = {m.name: tar.extractfile(m).read() for m in tar.getmembers()}
    manifest = json.loads(files["manifest.json"])
    manifest["format"] = 99
    files["manifest.json"] = json.dumps(manifest).encode()
    with tarfile.open(tmp_path / "future.tar", "w") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    with pytest.raises(ModelError, match="artifact format 99 is not supported: this runtime reads formats 1, 2"):
        load_artifact(tmp_path / "future.tar")
    good = (tmp_path / "good.tar").read_bytes()
    (tmp_path / "cut.tar").write_bytes(good[:len(good) // 2])  # the weights cut short
    with pytest.raises(ModelError, match="truncated|not a Brickyard artifact"):
        load_artifact(tmp_path / "cut.tar")
    (tmp_path / "junk.tar").write_bytes(gzip.compress(b"not a tar at all" * 100))
    with pytest.raises(ModelError, match="not a Brickyard artifact"):
        load_artifact(tmp_path / "junk.tar")
