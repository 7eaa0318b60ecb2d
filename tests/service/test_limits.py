"""The upload size limit: 413 as soon as the limit is passed, nothing kept (an API-only service)."""
from __future__ import annotations

import pytest

from .conftest import relu_model, upload

pytestmark = pytest.mark.service
LIMIT = 64 * 1024


@pytest.fixture(scope="module")
def small_limit(tmp_path_factory):
    from .conftest import Service
    svc = Service(tmp_path_factory.mktemp("limit"), env={"BRICKYARD_MAX_UPLOAD_BYTES": str(LIMIT)},
                  worker=False).start()
    yield svc
    svc.stop()


def leftovers(svc) -> list:
    return [p for p in (svc.home / "tmp").rglob("*")]


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
