"""A model as one uncompressed tar: its .onnx and the external data files it names.

A model over 2 GiB cannot be one protobuf, so its weights live in files beside it (onnxruntime-genai
writes model.onnx + model.onnx.data). Where there is no directory to read them from (an upload to
the service) the model travels as one tar of those files (`tar cf model.tar model.onnx
model.onnx.data`, or the model's folder), and the importer reads each tensor's bytes in place, at
its member's offset in the archive: nothing is extracted, so no file outside the archive can be
named. An uncompressed tar keeps every member's bytes contiguous; a compressed one does not, and
weights barely compress (docs/artifact.md), so it is refused with the command that makes the
plain one.

The archive holds exactly one .onnx member; its external data locations are member names relative
to that member's directory, each a regular file of the archive (no link, no sparse member, no name
given twice, no '..' leading out of the archive)."""
from __future__ import annotations

import functools
import os
import posixpath
import tarfile
from dataclasses import dataclass

from ..errors import ModelError

MAX_MEMBERS = 10_000      # members looked at: a genai folder has a handful
# pax headers and GNU long names, which tarfile reads whole into memory: a name takes a few hundred
# bytes, so a larger one is a hostile archive, not a model's
MAX_METADATA_BYTES = 1 << 20
_METADATA_TYPES = (b"x", b"g", b"L", b"K")
_ARCHIVE_HINT = "make it with `tar cf model.tar model.onnx model.onnx.data` (the .onnx and the data files it names)"


@dataclass(frozen=True)
class ModelArchive:
    """An opened model archive: where each regular member's bytes are in the file."""

    path: str                                     # the archive (symlinks resolved)
    model: str                                    # the .onnx member's name
    members: tuple[tuple[str, int, int], ...]     # regular members: (name, data offset, size)

    @property
    def name(self) -> str:
        return posixpath.basename(self.model)

    @functools.cached_property
    def _by_name(self) -> dict[str, tuple[int, int]]:
        return {n: (off, size) for n, off, size in self.members}

    def member(self, name: str) -> tuple[int, int] | None:
        """(data offset in the archive, size) of regular member `name`, or None."""
        return self._by_name.get(name)

    def resolve(self, location: str) -> str | None:
        """The member name an external data `location` of the model names (relative to the .onnx
        member's directory), or None where it would lead out of the archive."""
        if "\0" in location or location.startswith("/") or "\\" in location:
            return None
        name = posixpath.normpath(posixpath.join(posixpath.dirname(self.model), location))
        return None if name == ".." or name.startswith("../") else name


def is_tar(head: bytes) -> bool:
    """Whether a file's first 512 bytes are a tar header (ustar magic, valid checksum): the sniff
    that tells a model archive from an ONNX file (a protobuf whose 512 first bytes also pass both
    checks would be a coincidence of 2^-40 and more)."""
    if len(head) < 512 or head[257:262] != b"ustar":
        return False
    try:
        want = int(head[148:156].split(b"\0", 1)[0].strip() or b"-1", 8)
    except ValueError:
        return False
    return want == sum(head[:148]) + 8 * 32 + sum(head[156:512])


def compression(head: bytes) -> str | None:
    """The compression a file's first bytes show (gzip, bzip2, xz, zstd), else None: no ONNX model
    starts so (a protobuf's first byte is a field tag, and these are not valid ones)."""
    for magic, name in ((b"\x1f\x8b", "gzip"), (b"BZh", "bzip2"), (b"\xfd7zXZ\x00", "xz"),
                        (b"\x28\xb5\x2f\xfd", "zstd")):
        if head.startswith(magic):
            return name
    return None


def _header_size(head: bytes) -> int:
    """A tar header's size field: octal digits, or base-256 where its first byte's top bit is set."""
    field = head[124:136]
    if field[0] & 0x80:
        return int.from_bytes(field[1:], "big")
    digits = field.split(b"\0", 1)[0].strip()
    try:
        return int(digits or b"0", 8)
    except ValueError:
        return -1


def _check_headers(path: str, name: str) -> None:
    """Walks the raw headers before tarfile reads any: a metadata member over MAX_METADATA_BYTES
    or a size that does not parse is refused, and so are more headers than members allowed."""
    size = os.stat(path).st_size
    with open(path, "rb") as f:
        pos = 0
        for _ in range(2 * MAX_MEMBERS + 1):       # each member may bring a metadata header
            if pos + 512 > size:
                return
            f.seek(pos)
            head = f.read(512)
            if not head.strip(b"\0"):
                return                             # the end-of-archive blocks
            n = _header_size(head)
            if n < 0:
                raise ModelError(f"{name} has a tar header whose size does not parse", hint=_ARCHIVE_HINT)
            if head[156:157] in _METADATA_TYPES and n > MAX_METADATA_BYTES:
                raise ModelError(f"{name} has a {n}-byte tar metadata header (pax or long name), over "
                                 f"{MAX_METADATA_BYTES}", hint=_ARCHIVE_HINT)
            pos += 512 + (n + 511) // 512 * 512
    raise ModelError(f"{name} holds more than {MAX_MEMBERS} members", hint=_ARCHIVE_HINT)


def open_archive(path: str) -> ModelArchive:
    """Lists the archive's members and finds its one .onnx; raises ModelError naming what is wrong."""
    real = os.path.realpath(path)
    _check_headers(real, os.path.basename(path))
    members: list[tuple[str, int, int]] = []
    seen: set[str] = set()
    try:
        with tarfile.open(real, mode="r:") as tf:
            for count, info in enumerate(iter(tf.next, None)):
                if count >= MAX_MEMBERS:
                    raise ModelError(f"{os.path.basename(path)} holds more than {MAX_MEMBERS} members",
                                     hint=_ARCHIVE_HINT)
                name = posixpath.normpath(info.name)
                if name in seen:
                    raise ModelError(f"{os.path.basename(path)} holds '{name}' twice", hint=_ARCHIVE_HINT)
                seen.add(name)
                if info.isreg() and not info.issparse():
                    members.append((name, info.offset_data, info.size))
    except tarfile.TarError as e:
        raise ModelError(f"{os.path.basename(path)} is not a readable tar archive: {e}", hint=_ARCHIVE_HINT) from None
    size = os.stat(real).st_size
    models = [m for m in members if m[0].lower().endswith(".onnx")]
    if len(models) != 1:
        found = ", ".join(m[0] for m in models[:5]) or "none"
        raise ModelError(f"{os.path.basename(path)} holds {len(models)} .onnx files ({found}); a model archive "
                         "holds exactly one, with the data files it names", hint=_ARCHIVE_HINT)
    if any(off + n > size for _, off, n in members):
        raise ModelError(f"{os.path.basename(path)} is truncated: a member ends after the file",
                         hint="upload the whole archive again")
    return ModelArchive(real, models[0][0], tuple(members))
