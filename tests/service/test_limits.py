"""Every upload gets an HTTP answer, through real sockets against the real service (uvicorn on loopback):
the size limit (413 as soon as it is passed, naming it, nothing kept), a model under the wrong form field
(422 naming `file`, after the body is read), a text field over its limit, and a client that stops
mid-body; the server stays healthy throughout."""
from __future__ import annotations

import json
import socket
import time

import pytest

from .conftest import relu_model, upload

pytestmark = pytest.mark.service
LIMIT = 64 * 1024
BIG = 10 * 1000 * 1000       # the 10 MB model


@pytest.fixture(scope="module")
def small_limit(tmp_path_factory):
    from .conftest import Service
    svc = Service(tmp_path_factory.mktemp("limit"), env={"BRICKYARD_MAX_UPLOAD_BYTES": str(LIMIT)},
                  worker=False).start()
    yield svc
    svc.stop()


@pytest.fixture(scope="module")
def default_limit(tmp_path_factory):
    """The default upload limit (2 GiB): a 10 MB body is within it."""
    from .conftest import Service
    svc = Service(tmp_path_factory.mktemp("nolimit"), worker=False).start()
    yield svc
    svc.stop()


def leftovers(svc) -> list:
    return [p for p in (svc.home / "tmp").rglob("*")]


def multipart(parts: list[tuple[str, str | None, bytes]], boundary: bytes = b"rawBOUNDARY42") -> tuple[bytes, str]:
    """(name, filename or None, data) parts -> (body, content type)."""
    out = b""
    for name, filename, data in parts:
        disp = f'form-data; name="{name}"' + (f'; filename="{filename}"' if filename else "")
        out += b"--" + boundary + f"\r\nContent-Disposition: {disp}\r\n".encode()
        if filename:
            out += b"Content-Type: application/octet-stream\r\n"
        out += b"\r\n" + data + b"\r\n"
    return out + b"--" + boundary + b"--\r\n", "multipart/form-data; boundary=" + boundary.decode()


def raw_post(svc, body: bytes, ctype: str, *, chunked: bool = False) -> tuple[int, dict, dict]:
    """POST /v1/models over a plain socket, as a simple client does: send the whole request, then read
    the answer. A reset or a close without an answer raises (the test fails)."""
    head = (f"POST /v1/models HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {svc.admin_token}\r\n"
            f"Content-Type: {ctype}\r\n")
    if chunked:
        step = 1 << 20
        payload = b"".join(b"%x\r\n" % len(body[i:i + step]) + body[i:i + step] + b"\r\n"
                           for i in range(0, len(body), step)) + b"0\r\n\r\n"
        head += "Transfer-Encoding: chunked\r\n\r\n"
    else:
        payload = body
        head += f"Content-Length: {len(body)}\r\n\r\n"
    with socket.create_connection(("127.0.0.1", svc.port), timeout=60) as s:
        s.sendall(head.encode() + payload)
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = s.recv(65536)
            assert chunk, f"the server closed the connection without an answer (got {data!r})"
            data += chunk
        header, _, rest = data.partition(b"\r\n\r\n")
        lines = header.decode("latin-1").split("\r\n")
        headers = {k.strip().lower(): v.strip() for k, _, v in (ln.partition(":") for ln in lines[1:])}
        n = int(headers["content-length"])
        while len(rest) < n:
            chunk = s.recv(65536)
            assert chunk, "the server closed the connection in the middle of its answer"
            rest += chunk
    return int(lines[0].split()[1]), headers, json.loads(rest[:n])


def healthy(svc) -> None:
    with svc.client() as c:
        assert c.get("/healthz").status_code == 200
        assert c.get("/readyz").status_code == 200, c.get("/readyz").text
    log = svc.tail(10**7)
    for bad in ("Exception in ASGI application", "unhandled error", "Traceback", "Exception in callback"):
        assert bad not in log, log[-4000:]


def test_over_the_limit_is_413(small_limit):
    with small_limit.client() as c:
        ok = upload(c, relu_model(), "relu.onnx")
        assert ok.status_code == 201, ok.text
        # declared length over the limit: refused before the body is read
        r = upload(c, b"\0" * (LIMIT * 40), "big.onnx")
        assert r.status_code == 413 and str(LIMIT) in r.json()["detail"]
        # no declared length (chunked): refused once the streamed file passes the limit
        def body():
            boundary = b"xyzBOUNDARY"
            yield b"--" + boundary + b'\r\nContent-Disposition: form-data; name="file"; filename="big.onnx"\r\n\r\n'
            for _ in range(4):
                yield b"\1" * (LIMIT // 2)
            yield b"\r\n--" + boundary + b"--\r\n"
        r = c.post("/v1/models", content=body(), headers={"content-type": "multipart/form-data; boundary=xyzBOUNDARY"})
        assert r.status_code == 413 and "over the limit" in r.json()["detail"]
        # just under the limit is read in full (and then refused as not ONNX, not as too big)
        r = upload(c, b"\1" * (LIMIT - 10), "almost.onnx")
        assert r.status_code == 422 and r.json()["category"] == "invalid_model"
        assert c.get("/v1/models").json()["total"] == 1
    assert leftovers(small_limit) == []


def test_over_the_limit_reaches_a_client_still_sending(small_limit):
    """A 10 MB body against a 64 KiB limit: the 413 comes before the body is read, and still reaches a
    client that sends everything before reading (the server closes lingering, not with a reset)."""
    for field in ("file", "model"):
        for chunked in (False, True):
            body, ctype = multipart([(field, "big.onnx", b"\1" * BIG)])
            status, headers, answer = raw_post(small_limit, body, ctype, chunked=chunked)
            assert status == 413, (field, chunked, answer)
            assert str(LIMIT) in answer["detail"] and headers.get("connection") == "close", answer
    healthy(small_limit)
    assert leftovers(small_limit) == []


def test_wrong_field_20_times_gets_20_answers(default_limit):
    """The issue's case (`curl -F model=@big.onnx`): 20 uploads of 10 MB under the wrong name in a row,
    20 answers that name the field `file`, and the service stays healthy."""
    body, ctype = multipart([("model", "big.onnx", b"\1" * BIG)])
    for i in range(20):
        status, headers, answer = raw_post(default_limit, body, ctype)
        assert status == 422, (i, answer)
        assert "'file'" in answer["detail"] and "'model'" in answer["detail"], answer
        assert headers.get("connection") != "close"  # the body was read: the connection stays usable
    healthy(default_limit)
    # no file part at all, a text field only: named too
    body, ctype = multipart([("name", None, b"resnet")])
    status, _, answer = raw_post(default_limit, body, ctype)
    assert status == 422 and "'file'" in answer["detail"] and "'name'" in answer["detail"], answer
    assert leftovers(default_limit) == []


def test_text_field_over_its_limit(default_limit):
    body, ctype = multipart([("name", None, b"n" * (LIMIT + 1)), ("file", "relu.onnx", relu_model())])
    status, _, answer = raw_post(default_limit, body, ctype)
    assert status == 413 and f"'name' is over its limit of {LIMIT} bytes" in answer["detail"], answer
    assert leftovers(default_limit) == []


def test_client_closing_mid_body(default_limit):
    """Clients that stop in the middle of the file part: nothing kept, the next upload is served."""
    svc = default_limit
    body, ctype = multipart([("file", "cut.onnx", b"\1" * BIG)])
    for cut in (100, BIG // 2):
        with socket.create_connection(("127.0.0.1", svc.port), timeout=30) as s:
            s.sendall((f"POST /v1/models HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {svc.admin_token}"
                       f"\r\nContent-Type: {ctype}\r\nContent-Length: {len(body)}\r\n\r\n").encode() + body[:cut])
    deadline = time.monotonic() + 10
    while svc.tail(10**7).count("closed the connection before the body ended") < 2 or leftovers(svc):
        assert time.monotonic() < deadline, (leftovers(svc), svc.tail())
        time.sleep(0.1)
    healthy(svc)
    with svc.client() as c:
        r = upload(c, relu_model((3, 5)), "next.onnx")
        assert r.status_code == 201, r.text
