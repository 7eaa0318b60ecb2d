"""Streamed multipart upload: the `file` part goes to a temp file in chunks while it is hashed.

Starlette's UploadFile reads the whole body before the route runs; this parser reads the request stream
itself so an over-limit upload is refused as soon as the limit is passed, and nothing is held in memory.

Every request gets an answer: a part under another name (`-F model=@big.onnx`) or a text field over its
limit is read to the end and discarded, then refused naming the field `file` (answering before the body
is read would make the server close a socket with unread data, and the kernel then resets the connection
instead of delivering the answer). Only a body over the upload limit is refused before it ends; the server
closes that connection lingering (api/lingering.py), so the 413 still reaches the client."""
from __future__ import annotations

import hashlib
import os
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from python_multipart.multipart import MultipartParser, parse_options_header
from starlette.requests import ClientDisconnect, Request

MAX_FIELD_BYTES = 64 * 1024   # a text field (`name`)
MULTIPART_SLACK = 1 << 20     # headers, boundaries and text fields around the file part


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


def _describe(part: dict) -> str:
    what = f"'{part['name']}'" if part["name"] else "a part with no name"
    if part["filename"]:
        what += f" (file {part['filename']!r}, {part['size']} bytes)"
    return what


async def receive_upload(request: Request, *, tmp_dir: Path, max_bytes: int, file_field: str = "file",
                         text_fields: tuple[str, ...] = ("name",)) -> ReceivedUpload:
    """Reads a multipart/form-data request; the caller owns (and must remove) the returned temp file.

    Parts other than `file_field` and `text_fields` are read and discarded; if no `file_field` part came,
    the rejection names it and what came instead."""
    ctype, params = parse_options_header(request.headers.get("content-type", ""))
    if ctype != b"multipart/form-data" or b"boundary" not in params:
        raise UploadRejected(415, f"send the model as multipart/form-data with the file in the field "
                                  f"'{file_field}' (curl -F {file_field}=@model.onnx)")
    body_limit = max_bytes + MULTIPART_SLACK
    length = request.headers.get("content-length")
    if length and length.isdigit() and int(length) > body_limit:
        raise UploadRejected(413, f"the upload is {int(length)} bytes, over the limit of {max_bytes} bytes for "
                                  f"the model (plus {MULTIPART_SLACK} for the rest of the form)")

    tmp_dir.mkdir(parents=True, exist_ok=True)
    state = {"headers": {}, "hname": b"", "hvalue": b"", "part": None, "out": None, "size": 0,
             "fieldbuf": bytearray()}
    hasher = hashlib.sha256()
    fields: dict[str, str] = {}
    others: list[dict] = []        # parts under names this route does not read: discarded, named on refusal
    oversize: list[str] = []       # text fields over MAX_FIELD_BYTES: read to the end, then refused
    result: dict = {}

    def on_part_begin():
        state.update(headers={}, part=None, out=None, fieldbuf=bytearray())

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
        fname = opts.get(b"filename")
        part = {"name": name, "filename": fname.decode("utf-8", "replace") if fname is not None else None,
                "size": 0, "kind": "text" if name in text_fields else "other"}
        state["part"] = part
        if name == file_field:
            if "path" in result:
                raise UploadRejected(422, f"send exactly one '{file_field}' part")
            part["kind"] = "file"
            result["filename"] = part["filename"]
            # the file keeps its (sanitised) name, so the compiler's messages and model name read naturally
            folder = Path(tempfile.mkdtemp(dir=tmp_dir, prefix="upload-"))
            result["path"] = folder / safe_filename(result["filename"])
            state["out"] = open(result["path"], "xb")
        elif part["kind"] == "other":
            others.append(part)

    def on_part_data(data, start, end):
        part = state["part"]
        part["size"] += end - start
        if part["kind"] == "file":
            state["size"] += end - start
            if state["size"] > max_bytes:
                raise UploadRejected(413, f"the model is over the limit of {max_bytes} bytes")
            chunk = data[start:end]
            hasher.update(chunk)
            state["out"].write(chunk)
        elif part["kind"] == "text" and part["size"] <= MAX_FIELD_BYTES:
            state["fieldbuf"] += data[start:end]

    def on_part_end():
        part = state["part"]
        if state["out"] is not None:
            state["out"].close()
            state["out"] = None
        elif part is not None and part["kind"] == "text":
            if part["size"] > MAX_FIELD_BYTES:
                oversize.append(part["name"])
            else:
                fields[part["name"]] = state["fieldbuf"].decode("utf-8", "replace")

    parser = MultipartParser(params[b"boundary"], {
        "on_part_begin": on_part_begin, "on_part_data": on_part_data, "on_part_end": on_part_end,
        "on_header_field": on_header_field, "on_header_value": on_header_value, "on_header_end": on_header_end,
        "on_headers_finished": on_headers_finished})
    received = 0
    try:
        try:
            async for chunk in request.stream():
                if chunk:
                    received += len(chunk)
                    if received > body_limit:   # a body with no declared length, mostly not the file part
                        raise UploadRejected(413, f"the upload is over the limit of {max_bytes} bytes for the "
                                                  f"model (plus {MULTIPART_SLACK} for the rest of the form)")
                    parser.write(chunk)
        except ClientDisconnect:
            raise UploadRejected(400, "the client closed the connection before the body ended") from None
        parser.finalize()
        if oversize:
            raise UploadRejected(413, f"form field '{oversize[0]}' is over its limit of {MAX_FIELD_BYTES} bytes "
                                      f"(the model goes in the field '{file_field}')")
        if "path" not in result:
            instead = [p for p in others if p["filename"] is not None or p["size"] > MAX_FIELD_BYTES]
            if instead:
                raise UploadRejected(422, f"the model must be sent in the multipart field '{file_field}' "
                                          f"(curl -F {file_field}=@model.onnx); this request sent "
                                          f"{', '.join(_describe(p) for p in instead)} instead")
            sent = ", ".join(_describe(p) for p in others) or ", ".join(repr(k) for k in fields) or "no parts"
            raise UploadRejected(422, f"the multipart field '{file_field}' (the ONNX file) is missing; "
                                      f"the form had {sent}")
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
