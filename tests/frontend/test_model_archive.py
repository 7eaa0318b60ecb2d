"""Model archives (compiler/frontend/model_archive.py): a model with its external data files as one
uncompressed tar, read in place, its tensors' bytes from the archive's own members: the same model
and sha256 as from its folder; what a bad archive is refused for; and the service's import limits,
which read an archive's members but never a file beside an upload."""
from __future__ import annotations

import gzip
import io
import os
import tarfile

import numpy as np
import onnx
import pytest

import compiler
from compiler.errors import ModelError
from compiler.frontend.model_archive import is_tar
from compiler.frontend.onnx_import import ImportLimits, read_checked
from compiler.pipeline import CompileOptions
from compiler.verify import sample_inputs
from service.model_info import describe_model, upload_limits

from .test_external_data import add_model, affine_model, external_tensor, host_outputs, save_external

SERVICE = ImportLimits(external_data=False)     # as an upload is read: no file beside it


def tar_of(path, members: dict, *, links: dict | None = None, prefix: str = "") -> str:
    """An uncompressed tar at `path` of {name: bytes}, and symlink members {name: target}."""
    with tarfile.open(path, "w") as t:
        for name, data in members.items():
            info = tarfile.TarInfo(prefix + name)
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))
        for name, target in (links or {}).items():
            info = tarfile.TarInfo(prefix + name)
            info.type, info.linkname = tarfile.SYMTYPE, target
            t.addfile(info)
    return str(path)


def affine_folder(tmp_path) -> dict:
    """The affine model saved with its weights in weights.bin: {file name: bytes}."""
    (tmp_path / "folder").mkdir()
    save_external(affine_model(), tmp_path / "folder" / "affine.onnx")
    return {n: (tmp_path / "folder" / n).read_bytes() for n in ("affine.onnx", "weights.bin")}


@pytest.mark.parametrize("prefix", ["", "llama/", "./"])
def test_an_archive_is_the_model_of_its_folder(tmp_path, prefix):
    """From the tar (its members at the top, in a folder, or named ./...) the model, its sha256
    and its compiled outputs are those read from the folder, under the service's limits too."""
    files = affine_folder(tmp_path)
    archive = tar_of(tmp_path / "affine.tar", files, prefix=prefix)
    assert is_tar(open(archive, "rb").read(512)) and not is_tar(files["affine.onnx"][:512])
    folder = read_checked(str(tmp_path / "folder" / "affine.onnx"))
    packed = read_checked(archive, SERVICE)
    assert packed.sha256 == folder.sha256 and packed.source_name == "affine.onnx"
    a = compiler.compile(str(tmp_path / "folder" / "affine.onnx"), "h100", CompileOptions(build=False))
    b = compiler.compile(archive, "h100", CompileOptions(build=False), limits=SERVICE)
    feeds = sample_inputs(a.plan)
    assert np.array_equal(host_outputs(a, feeds)["y"], host_outputs(b, feeds)["y"])
    assert b.report["model"]["sha256"] == a.report["model"]["sha256"]


def test_the_data_is_read_in_place(tmp_path, monkeypatch):
    """Nothing is extracted: the only file opened is the archive."""
    archive = tar_of(tmp_path / "affine.tar", affine_folder(tmp_path))
    opened = []
    real = os.open
    monkeypatch.setattr(os, "open", lambda f, *a, **k: opened.append(os.fspath(f)) or real(f, *a, **k))
    read_checked(archive, SERVICE)
    assert opened and set(opened) == {os.path.realpath(archive)}


def _refused(path, *needles):
    with pytest.raises(ModelError) as e:
        read_checked(path, SERVICE)
    text = str(e.value)
    for n in needles:
        assert n in text, text
    return text


def _one_weight_model(tmp_path, location: str, offset=None, length=None) -> bytes:
    add_model(tmp_path / "m.onnx", external_tensor("w", [4], location, offset, length))
    return (tmp_path / "m.onnx").read_bytes()


WEIGHT = np.arange(4, dtype=np.float32).tobytes()


def test_refusals_name_what_is_wrong(tmp_path):
    files = affine_folder(tmp_path)
    _refused(tar_of(tmp_path / "none.tar", {"weights.bin": files["weights.bin"]}), "holds 0 .onnx files",
             "tar cf model.tar")
    _refused(tar_of(tmp_path / "two.tar", {**files, "other.onnx": files["affine.onnx"]}), "holds 2 .onnx files")
    _refused(tar_of(tmp_path / "nodata.tar", {"affine.onnx": files["affine.onnx"]}),
             "'weights.bin', which is no regular file of the archive")
    model = _one_weight_model(tmp_path, "../w.bin")          # sub/m.onnx naming the top level's w.bin: allowed
    assert read_checked(tar_of(tmp_path / "up.tar", {"sub/m.onnx": model, "w.bin": WEIGHT}), SERVICE)
    model = _one_weight_model(tmp_path, "../../w.bin")
    _refused(tar_of(tmp_path / "out.tar", {"m.onnx": model, "w.bin": WEIGHT}, prefix="sub/"),
             "'../../w.bin', which leads out of the archive")
    model = _one_weight_model(tmp_path, "link.bin")
    _refused(tar_of(tmp_path / "link.tar", {"m.onnx": model, "w.bin": WEIGHT}, links={"link.bin": "w.bin"}),
             "'link.bin', which is no regular file of the archive")
    model = _one_weight_model(tmp_path, "w.bin", offset=8, length=16)
    _refused(tar_of(tmp_path / "short.tar", {"m.onnx": model, "w.bin": WEIGHT}), "reads bytes 8 to 24", "16 bytes")
    model = _one_weight_model(tmp_path, "w.bin")
    good = tar_of(tmp_path / "good.tar", {"m.onnx": model, "w.bin": WEIGHT})
    assert read_checked(good, SERVICE).proto.graph.initializer[0].raw_data == WEIGHT
    gz = tmp_path / "good.tar.gz"
    gz.write_bytes(gzip.compress((tmp_path / "good.tar").read_bytes()))
    _refused(str(gz), "gzip-compressed", "tar cf model.tar")
    cut = tmp_path / "cut.tar"
    cut.write_bytes((tmp_path / "good.tar").read_bytes()[:1024 + 100])   # inside w.bin's member
    _refused(str(cut), "cut.tar")


def test_a_name_given_twice_is_refused(tmp_path):
    model = _one_weight_model(tmp_path, "w.bin")
    with tarfile.open(tmp_path / "twice.tar", "w") as t:
        for name, data in (("m.onnx", model), ("w.bin", WEIGHT), ("w.bin", WEIGHT[::-1])):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))
    _refused(str(tmp_path / "twice.tar"), "holds 'w.bin' twice")


def test_the_onnx_member_is_bounded(tmp_path):
    archive = tar_of(tmp_path / "affine.tar", affine_folder(tmp_path))
    with pytest.raises(ModelError, match="over the limit of 100 bytes"):
        read_checked(archive, ImportLimits(max_bytes=100, external_data=False))
    with pytest.raises(ModelError, match="external data read to"):
        read_checked(archive, ImportLimits(max_external_bytes=100, external_data=False))


def test_the_service_describes_an_archive(tmp_path):
    """describe_model (an upload's check) reads an archive's weights; the same model as one .onnx
    beside its data file is still refused (an upload has no directory)."""
    archive = tar_of(tmp_path / "affine.tar", affine_folder(tmp_path))
    info = describe_model(archive, max_bytes=1 << 30)
    assert info["summary"]["parameters"] == 64 * 64 + 64 and info["outputs"][0]["shape"] == [4, 64]
    with pytest.raises(ModelError, match="ImportLimits.external_data is off"):
        describe_model(str(tmp_path / "folder" / "affine.onnx"), max_bytes=1 << 30)
    limits = upload_limits(64 << 30)
    assert limits.max_bytes == 2 << 30 and limits.max_external_bytes == 64 << 30 and not limits.external_data
    onnx.checker.check_model(read_checked(archive, limits).proto)


def test_the_cli_takes_an_archive(tmp_path):
    """`brickyard inspect` and `brickyard compile` given the tar, as given the .onnx in its folder."""
    from tests.cli.test_cli_errors import brickyard
    archive = tar_of(tmp_path / "affine.tar", affine_folder(tmp_path))
    r = brickyard("inspect", archive)
    assert r.returncode == 0 and "parameters: 4,160" in r.stdout, r.stdout + r.stderr
    r = brickyard("compile", archive, "-o", str(tmp_path / "affine.brickyard"), "-q")
    assert r.returncode == 0 and (tmp_path / "affine.brickyard").exists(), r.stderr


def test_a_huge_metadata_header_is_refused_before_tarfile_reads_it(tmp_path):
    """A pax header claiming gigabytes (tarfile would read it whole into memory) is refused from its
    size field alone; an archive whose names need pax headers still reads."""
    model = _one_weight_model(tmp_path, "w.bin")
    good = tar_of(tmp_path / "paxed.tar", {"m.onnx": model, "w.bin": WEIGHT, "d/" + "x" * 150 + ".txt": b"long"})
    assert read_checked(good, SERVICE).proto.graph.initializer[0].raw_data == WEIGHT
    head = bytearray(512)
    head[0:9] = b"PaxHeader"
    head[100:108] = b"0000644\0"
    head[124:136] = b"%011o\0" % (8 << 30)           # 8 GiB of pax records
    head[156:157] = b"x"
    head[257:263] = b"ustar\0"
    head[263:265] = b"00"
    head[148:156] = b"        "
    head[148:156] = b"%06o\0 " % sum(head)
    bad = tmp_path / "huge_pax.tar"
    bad.write_bytes(bytes(head) + b"\0" * 1024)
    _refused(str(bad), "tar metadata header", "over 1048576")
