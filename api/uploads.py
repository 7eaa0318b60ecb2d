"""Streamed multipart upload: the `file` part goes to a temp file in chunks while it is hashed.

Starlette's UploadFile reads the whole body before the route runs; this parser reads the request stream
itself so an over-limit upload is refused as soon as the limit is passed, and nothing is held in memory."""
from __future__ import annotations

import hashlib
import os
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from python_multipart.multipart import MultipartParser, parse_options_header
from starlette.requests import Request

MAX_FIELD_BYTES = 64 * 1024
MULTIPART_SLACK = 1 << 20   # headers and boundaries around the file part


class UploadRejected(Exception):
    """The upload cannot be accepted; `status` is the HTTP status the route answers with."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status
        self.message = message


def safe_filename(name: str | None) -> str:
    """The upload's base name reduced to [A-Za-z0-9._-] (never hidden, never empty)."""
    base = os.path.basename((name or "").replace("\\", "/"))
    clean = re.sub(r"[^A-Za-z0-9._-]", "_", base).lstrip(".")[:120]
    return clean or "model.onnx"


def discard(path: Path) -> None:
    """Removes a received upload and its private folder."""
    path.unlink(missing_ok=True)
    try:
        path.parent.rmdir()
    except OSError:
        pass


@dataclass
class ReceivedUpload:
    path: Path
    sha256: str
    size: int
    filename: str | None
    fields: dict[str, str] = field(default_factory=dict)


async def receive_upload(request: Request, *, tmp_dir: Path, max_bytes: int,
                         file_field: str = "file") -> ReceivedUpload:
    """Reads a multipart/form-data request; the caller owns (and must remove) the returned temp file."""
    ctype, params = parse_options_header(request.headers.get("content-type", ""))
    if ctype != b"multipart/form-data" or b"boundary" not in params:
        raise UploadRejected(415, "send the model as multipart/form-data with the file in the field 'file'")
    length = request.headers.get("content-length")
    if length and length.isdigit() and int(length) > max_bytes + MULTIPART_SLACK:
        raise UploadRejected(413, f"the upload is {int(length)} bytes, over the limit of {max_bytes} bytes")

    tmp_dir.mkdir(parents=True, exist_ok=True)
    state = {"headers": {}, "hname": b"", "hvalue": b"", "name": None, "filename": None, "out": None,
             "size": 0, "fieldbuf": bytearray()}
    hasher = hashlib.sha256()
    fields: dict[str, str] = {}
    result: dict = {}

    def on_part_begin():
        state.update(headers={}, name=None, filename=None, out=None, fieldbuf=bytearray())

    def on_header_field(data, start, end):
        state["hname"] += data[start:end]

    def on_header_value(data, start, end):
        state["hvalue"] += data[start:end]

    def on_header_end():
        state["headers"][state["hname"].decode("latin-1").lower()] = state["hvalue"]
        state["hname"], state["hvalue"] = b"", b""

    def on_headers_finished():
        _disp, opts = parse_options_header(state["headers"].get("content-disposition", b""))
        name = opts.get(b"name", b"").decode("utf-8", "replace")
        state["name"] = name
        if name == file_field:
            if "path" in result:
                raise UploadRejected(422, f"send exactly one '{file_field}' part")
            fname = opts.get(b"filename")
            result["filename"] = fname.decode("utf-8", "replace") if fname else None
            # the file keeps its (sanitised) name, so the compiler's messages and model name read naturally
            folder = Path(tempfile.mkdtemp(dir=tmp_dir, prefix="upload-"))
            result["path"] = folder / safe_filename(result["filename"])
            state["out"] = open(result["path"], "xb")

    def on_part_data(data, start, end):
        n = end - start
        if state["out"] is not None:
            state["size"] += n
            if state["size"] > max_bytes:
                raise UploadRejected(413, f"the model is over the limit of {max_bytes} bytes")
            chunk = data[start:end]
            hasher.update(chunk)
            state["out"].write(chunk)
        else:
            if len(state["fieldbuf"]) + n > MAX_FIELD_BYTES:
                raise UploadRejected(413, f"form field '{state['name']}' is over {MAX_FIELD_BYTES} bytes")
            state["fieldbuf"] += data[start:end]

    def on_part_end():
        if state["out"] is not None:
            state["out"].close()
            state["out"] = None
        elif state["name"]:
            fields[state["name"]] = state["fieldbuf"].decode("utf-8", "replace")

    parser = MultipartParser(params[b"boundary"], {
        "on_part_begin": on_part_begin, "on_part_data": on_part_data, "on_part_end": on_part_end,
        "on_header_field": on_header_field, "on_header_value": on_header_value, "on_header_end": on_header_end,
        "on_headers_finished": on_headers_finished})
    try:
        async for chunk in request.stream():
            if chunk:
                parser.write(chunk)
        parser.finalize()
        if "path" not in result:
            raise UploadRejected(422, f"the multipart field '{file_field}' (the ONNX file) is missing")
        if state["out"] is not None:
            raise UploadRejected(422, "the upload ended in the middle of the file part")
    except BaseException as e:
        if state["out"] is not None:
            state["out"].close()
        if "path" in result:
            discard(result["path"])
        if isinstance(e, UploadRejected):
            raise
        if isinstance(e, Exception) and type(e).__module__.startswith("python_multipart"):
            raise UploadRejected(422, f"malformed multipart body: {e}") from None
        raise
    return ReceivedUpload(path=result["path"], sha256=hasher.hexdigest(), size=state["size"],
                          filename=result.get("filename"), fields=fields)
