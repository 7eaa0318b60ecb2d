"""The service end to end over HTTP, against one running embedded service (uvicorn + Celery worker)."""
from __future__ import annotations

import datetime as dt
import hashlib
import re

import numpy as np
import pytest

from compiler.artifact import load_artifact
from compiler.runtime.executor import Executor, make_backend

from .conftest import SHARED, compile_job, read_events, relu_model, seeded, upload, wait_job

pytestmark = pytest.mark.service


def run_on_host(artifact_path, inputs: dict) -> dict:
    art = load_artifact(artifact_path)
    return Executor(art.plan, make_backend("host")).run(inputs)


@pytest.fixture(scope="module")
def bert_job(service, bert_path, tmp_path_factory):
    """bert uploaded and compiled for h100; its events, the job, the artifact on disk."""
    with service.client() as c:
        r = upload(c, bert_path.read_bytes(), "bert.onnx")
        assert r.status_code == 201, r.text
        model = r.json()
        job = compile_job(c, model["id"], "h100")
        # the response is the job as stored after its message was published: a worker may already have it
        assert (job["state"], job["attempts"]) in (("queued", 0), ("running", 1)), job
        events = read_events(c, job["id"])
        job = c.get(f"/v1/compilations/{job['id']}").json()
        r = c.get(f"/v1/compilations/{job['id']}/artifact")
        assert r.status_code == 200, r.text
        path = tmp_path_factory.mktemp("dl") / "bert.tar.gz"
        path.write_bytes(r.content)
        return {"model": model, "job": job, "events": events, "artifact": path, "etag": r.headers["etag"],
                "report": c.get(f"/v1/compilations/{job['id']}/report").json()}


def test_upload_describes_the_model(service, bert_path, bert_job):
    m = bert_job["model"]
    data = bert_path.read_bytes()
    assert m["sha256"] == hashlib.sha256(data).hexdigest() and m["size"] == len(data) and m["name"] == "bert"
    assert m["inputs"] == [{"name": "input_0", "dtype": "int64", "shape": [1, 64]}]
    assert m["outputs"] == [{"name": "output_0", "dtype": "float32", "shape": [1, 64, 128], "runtime_axis": None}]
    assert m["op_histogram"]["MatMul"] > 0 and m["op_histogram"]["LayerNormalization"] > 0
    with service.client() as c:
        again = upload(c, data, "renamed.onnx")  # same bytes, same owner: the same model
        assert again.status_code == 200 and again.json()["id"] == m["id"]
        assert c.get(f"/v1/models/{m['id']}").json()["sha256"] == m["sha256"]
        listed = c.get("/v1/models").json()
        assert m["id"] in [x["id"] for x in listed["items"]] and listed["total"] >= 1


def test_upload_marks_outputs_of_run_time_length(service):
    """A detector's postprocess (torchvision's batched_nms as exported: bench/detection.py): the
    upload's description gives each output of run-time length its bound and `runtime_axis`."""
    from bench.detection import batched_nms_head
    with service.client() as c:
        r = upload(c, batched_nms_head(40, 3, max_det=25), "postprocess.onnx")
        assert r.status_code == 201, r.text
        outputs = {o["name"]: o for o in r.json()["outputs"]}
    assert outputs["det_boxes"] == {"name": "det_boxes", "dtype": "float32", "shape": [25, 4], "runtime_axis": 0}
    assert outputs["det_labels"] == {"name": "det_labels", "dtype": "int64", "shape": [25], "runtime_axis": 0}


def test_bert_compiles_and_its_artifact_matches_pytorch(bert_job):
    job, events = bert_job["job"], bert_job["events"]
    assert job["state"] == "succeeded", job
    assert job["attempts"] == 1 and job["error"] is None and job["progress"] == 1.0
    assert set(job["stage_seconds"]) >= {"import", "lower", "build", "memory_plan", "package"}
    created, started, finished = (dt.datetime.fromisoformat(job[k]) for k in ("created_at", "started_at", "finished_at"))
    assert created.tzinfo is not None and created <= started <= finished
    # the SSE stream: queued, then running through the stages in order, ending with succeeded
    states = [e["event"] for e in events]
    assert states[0] == "queued" and states[-1] == "succeeded" and "running" in states
    stages = [e["stage"] for e in events if e["event"] == "running"]
    assert stages[:2] == ["import", "lower"] and "build" in stages[2:]  # in the pipeline's order
    progress = [e["progress"] for e in events]
    assert progress == sorted(progress) and progress[-1] == 1.0
    # the download is the artifact the job names, and it runs on the host harness like PyTorch did
    data = bert_job["artifact"].read_bytes()
    assert hashlib.sha256(data).hexdigest() == job["artifact_sha256"] == bert_job["etag"].strip('"')
    ref = np.load(SHARED / "models" / "bert.npz")
    out = run_on_host(bert_job["artifact"], {k[3:]: ref[k] for k in ref.files if k.startswith("in:")})
    for k in ref.files:
        if k.startswith("out:"):
            want = ref[k]
            err = np.abs(out[k[4:]] - want).max() / np.abs(want).max()
            assert err < 1e-3, (k, err)
    report = bert_job["report"]
    assert report["target"] == {"name": "h100", "arch": "sm_90"} and report["model"]["sha256"] == job["model_sha256"]
    assert report["model"]["name"] == bert_job["model"]["name"] != job["model_sha256"]  # not the blob's name
    assert report["compile"]["cache"]["misses"] > 0 and report["compile"]["cache"]["hits"] == 0
    assert job["cache"] == {"hits": 0, "misses": report["compile"]["cache"]["misses"]}


def test_artifact_etag_and_reports(service, bert_job):
    job_id = bert_job["job"]["id"]
    with service.client() as c:
        r = c.get(f"/v1/compilations/{job_id}/artifact", headers={"If-None-Match": bert_job["etag"]})
        assert r.status_code == 304 and r.content == b""
        r = c.get(f"/v1/compilations/{job_id}/artifact", headers={"If-None-Match": '"other"'})
        assert r.status_code == 200 and r.headers["content-type"] == "application/x-tar"
        html = c.get(f"/v1/compilations/{job_id}/report", params={"format": "html"})
        assert html.status_code == 200 and html.headers["content-type"].startswith("text/html")
        assert "<html" in html.text.lower()
        assert c.get(f"/v1/compilations/{job_id}/report", params={"format": "pdf"}).status_code == 422
        # a finished job's events replay to the end and stop
        assert read_events(c, job_id)[-1]["event"] == "succeeded"


def test_compiling_again_is_answered_from_the_store(service, bert_job):
    first = bert_job["job"]
    with service.client() as c:
        before = c.get("/v1/cache/stats").json()
        again = compile_job(c, bert_job["model"]["id"], "h100")
        # answered at once: created already succeeded, pointing at the same artifact and report
        assert again["state"] == "succeeded" and again["id"] != first["id"]
        assert again["artifact_sha256"] == first["artifact_sha256"] and again["deduplicated_from"] == first["id"]
        assert c.get(f"/v1/compilations/{again['id']}/report").json() == bert_job["report"]
        assert c.get(f"/v1/compilations/{again['id']}/artifact").headers["etag"] == bert_job["etag"]
        # another target of the same arch compiles: every kernel it shares with the h100 build (same
        # source) comes from the store; only those its own numbers (bandwidth, L2) tiled otherwise are built
        h200 = wait_job(c, compile_job(c, bert_job["model"]["id"], "h200")["id"])
        assert h200["state"] == "succeeded", h200
        report = c.get(f"/v1/compilations/{h200['id']}/report").json()
        h100_kernels = {k["digest"] for k in bert_job["report"]["kernels"]}
        h200_kernels = {k["digest"] for k in report["kernels"]}
        shared = len(h200_kernels & h100_kernels)
        assert shared >= len(h200_kernels) // 2, (len(h200_kernels), shared)
        assert report["compile"]["cache"] == {"hits": shared, "misses": len(h200_kernels - h100_kernels)}
        after = c.get("/v1/cache/stats").json()
        assert after["artifact_hits"] == before["artifact_hits"] + 1
        assert after["kernel_hits"] == before["kernel_hits"] + shared
        assert after["kernel_misses"] == before["kernel_misses"] + len(h200_kernels - h100_kernels)
        assert after["objects"] > 0 and after["bytes"] > bert_job["artifact"].stat().st_size
        listed = c.get("/v1/compilations", params={"model_id": bert_job["model"]["id"], "state": "succeeded"}).json()
        assert {first["id"], again["id"], h200["id"]} <= {j["id"] for j in listed["items"]}
        page = c.get("/v1/compilations", params={"limit": 1, "offset": 1}).json()
        assert len(page["items"]) == 1 and page["total"] >= 3


def test_kernels_and_metrics(service, bert_job):
    k = bert_job["report"]["kernels"][0]
    with service.client() as c:
        meta = c.get(f"/v1/kernels/{k['digest']}").json()
        assert meta["name"] == k["name"] and meta["arch"] == "sm_90" and meta["meta"]["grid"] == k["grid"]
        src = c.get(f"/v1/kernels/{k['digest']}/source")
        assert src.status_code == 200 and k["name"] in src.text
        cubin = c.get(f"/v1/kernels/{k['digest']}/cubin")
        assert cubin.status_code == 200 and cubin.content[:4] == b"\x7fELF"
        assert c.get("/v1/kernels/" + "0" * 64).status_code == 404
        targets = {t["name"]: t for t in c.get("/v1/targets").json()}
        assert targets["h100"]["arch"] == "sm_90" and targets["h100"]["spec"]["sms"] == 132
        assert targets["h100"]["queue"] == "cpu"  # no GPU workers configured: cross-compiled
    import httpx
    assert httpx.get(service.url + "/healthz").json() == {"status": "ok"}
    assert httpx.get(service.url + "/readyz").json()["checks"] == {"database": "ok", "queue": "ok", "store": "ok"}
    assert "/v1/compilations/{compilation_id}/events" in httpx.get(service.url + "/openapi.json").json()["paths"]
    assert httpx.get(service.url + "/docs").status_code == 200
    text = httpx.get(service.url + "/metrics").text
    succeeded = re.search(r'^brickyard_jobs\{state="succeeded"\} (\S+)$', text, re.M)
    assert succeeded and float(succeeded.group(1)) >= 1
    assert re.search(r'^brickyard_kernel_cache_misses_total (\S+)$', text, re.M)
    assert re.search(r'^brickyard_compile_seconds_count (\S+)$', text, re.M)
    assert 'route="/v1/compilations/{compilation_id}"' in text


def test_auth_and_ownership(service, bert_job):
    import httpx
    model_id, job_id = bert_job["model"]["id"], bert_job["job"]["id"]
    r = httpx.get(service.url + "/v1/models")
    assert r.status_code == 401 and "token" in r.json()["detail"]
    assert httpx.get(service.url + "/v1/models", headers={"Authorization": "Bearer bky_wrong"}).status_code == 401
    bob = service.create_token("bob")
    with service.client(bob) as c:
        assert c.get("/v1/models").json()["total"] == 0
        for path in (f"/v1/models/{model_id}", f"/v1/compilations/{job_id}", f"/v1/compilations/{job_id}/artifact",
                     f"/v1/compilations/{job_id}/events", f"/v1/kernels/{bert_job['report']['kernels'][0]['digest']}"):
            r = c.get(path)
            assert r.status_code == 404 and "not found" in r.json()["detail"], (path, r.text)
        assert c.delete(f"/v1/models/{model_id}").status_code == 404
        assert c.post(f"/v1/compilations/{job_id}/cancel").status_code == 404
        r = c.post("/v1/compilations", json={"model_id": model_id, "target": "h100"})
        assert r.status_code == 404
        mine = upload(c, relu_model(), "relu.onnx")
        assert mine.status_code == 201 and mine.json()["id"] != model_id
    with service.client() as c:  # and the other way round
        assert c.get(f"/v1/models/{mine.json()['id']}").status_code == 404


def test_bad_input_gets_a_4xx_with_a_message(service, bert_job):
    model_id = bert_job["model"]["id"]
    with service.client() as c:
        r = upload(c, np.random.default_rng(1).bytes(5000), "garbage.onnx")
        assert r.status_code == 422 and r.json()["category"] == "invalid_model"
        assert "garbage" in r.json()["detail"] and "not a valid ONNX model" in r.json()["detail"]
        r = c.post("/v1/models", data={"name": "x"}, files={"other": ("a", b"123")})
        assert r.status_code == 422 and "'file'" in r.json()["detail"]
        assert c.post("/v1/models", json={"file": "x"}).status_code == 415
        cases = [
            ({"model_id": model_id, "target": "h900"}, "unknown target 'h900'"),
            ({"model_id": model_id, "target": "h100", "options": {"input_shapes": "oops"}}, "input_shapes"),
            ({"model_id": model_id, "target": "h100", "options": {"input_shapes": {"input_0": ["a", 64]}}},
             "input_shapes"),
            ({"model_id": model_id, "target": "h100", "options": {"precision": "fp7"}}, "precision"),
            ({"model_id": model_id, "target": "h100", "options": {"max_trip_count": 0}}, "max_trip_count"),
            ({"model_id": model_id, "target": "h100", "options": {"verify": "gpu"}}, "verify"),
            ({"model_id": model_id, "target": "h100", "options": {"disable": ["warp_drive"]}}, "cannot disable 'warp_drive'"),
            ({"model_id": model_id, "target": "h100", "options": {"input_shapes": {"nope": [1]}}}, "not an input"),
            ({"model_id": model_id, "target": "h100", "options": {"input_shapes": {"input_0": [2, 64]}}},
             "static size"),
            ({"model_id": model_id, "target": {"name": "x", "arch": "sm_90", "sms": "many"}}, "target.sms"),
            ({"model_id": model_id, "target": {"name": "x", "arch": "sm_99", "sms": 4}}, "unsupported arch"),
            ({"model_id": model_id, "target": {"name": "x", "arch": "sm_90"}}, "needs 'sms'"),
            ({"model_id": model_id, "target": "h100", "colour": "red"}, "colour"),
            ({"target": "h100"}, "model_id"),
        ]
        for body, words in cases:
            r = c.post("/v1/compilations", json=body)
            assert r.status_code == 422 and words in r.json()["detail"], (body, r.status_code, r.text)
        r = c.post("/v1/compilations", content=b"{not json", headers={"content-type": "application/json"})
        assert r.status_code == 422 and "JSON" in r.json()["detail"]
        assert c.post("/v1/compilations", json={"model_id": "nope", "target": "h100"}).status_code == 404
        for path in ("/v1/compilations/nope", "/v1/compilations/nope/artifact", "/v1/models/nope"):
            r = c.get(path)
            assert r.status_code == 404 and "nope" in r.json()["detail"]
        assert c.get("/v1/compilations", params={"state": "bogus"}).status_code == 422
        assert c.get("/v1/compilations", params={"limit": 0}).status_code == 422
        r = c.post(f"/v1/compilations/{bert_job['job']['id']}/cancel")
        assert r.status_code == 409 and "succeeded" in r.json()["detail"]


def test_disable_welder_through_the_api(service, bert_job):
    """options.disable reaches the worker's compiler: the unfused plan of the same model has the
    lowered kernel count and more predicted DRAM traffic, and its report says fusion was off."""
    fused = bert_job["report"]
    with service.client() as c:
        job = compile_job(c, bert_job["model"]["id"], "h100", disable=["welder"])
        assert job["options"]["disable"] == ["welder"]
        job = wait_job(c, job["id"])
        assert job["state"] == "succeeded", job
        unfused = c.get(f"/v1/compilations/{job['id']}/report").json()
    assert fused["fusion"]["enabled"] and not unfused["fusion"]["enabled"]
    assert unfused["schedule"]["kernels"] == fused["fusion"]["kernels_before"] > fused["schedule"]["kernels"]
    assert unfused["traffic"]["dram_bytes"] > fused["traffic"]["dram_bytes"]


def test_kv_cache_in_place_through_the_api(service, tmp_path):
    """options.kv_cache reaches the worker's compiler: a GroupQueryAttention step whose past is as
    long as its present compiles with each present in its past's buffer, and the downloaded
    artifact runs the step as onnxruntime does."""
    from tests.ops.test_contrib_attention import ort_run
    from tests.ops.test_contrib_gqa import gqa_case
    from tests.ops.test_kv_in_place import CASES, zero_after_fill
    data, feeds = gqa_case(**CASES["decode_packed_interleaved"])
    feeds = zero_after_fill(CASES["decode_packed_interleaved"], feeds)
    with service.client() as c:
        r = upload(c, data, "gqa_step.onnx")
        assert r.status_code == 201, r.text
        job = compile_job(c, r.json()["id"], "h100", kv_cache="in-place")
        assert job["options"]["kv_cache"] == "in-place"
        job = wait_job(c, job["id"])
        assert job["state"] == "succeeded", job
        report = c.get(f"/v1/compilations/{job['id']}/report").json()
        artifact = tmp_path / "gqa_step.tar"
        artifact.write_bytes(c.get(f"/v1/compilations/{job['id']}/artifact").content)
        assert c.post("/v1/compilations", json={"model_id": job["model_id"], "target": "h100",
                                                "options": {"kv_cache": "shared"}}).status_code == 422
    assert report["kv_cache"] == {"mode": "in-place",
                                  "donated": {"present_key": "past_key", "present_value": "past_value"}}
    got, want = run_on_host(artifact, feeds), ort_run(data, feeds)
    for name, w in want.items():
        np.testing.assert_allclose(got[name], w, rtol=0, atol=2e-5 * max(1.0, np.abs(w).max()), err_msg=name)


def test_a_model_archive_through_the_api(service, tmp_path):
    """A model whose weights live in an external data file, uploaded as one uncompressed tar of the
    .onnx and that file: described, compiled by the worker from the archive's members, and its
    artifact gives the folder's model's outputs; the same tar gzipped is a 422 that says how to
    send it, and the .onnx alone a 422 naming the file it cannot read."""
    import gzip

    import compiler
    from compiler.pipeline import CompileOptions
    from compiler.verify import sample_inputs
    from tests.frontend.test_model_archive import affine_folder, tar_of
    files = affine_folder(tmp_path)
    archive = tar_of(tmp_path / "affine.tar", files)
    with service.client() as c:
        r = upload(c, open(archive, "rb").read(), "affine.tar")
        assert r.status_code == 201, r.text
        model = r.json()
        assert model["name"] == "affine" and model["parameters"] == 64 * 64 + 64
        job = wait_job(c, compile_job(c, model["id"], "h100")["id"])
        assert job["state"] == "succeeded", job
        artifact = tmp_path / "affine.brickyard"
        artifact.write_bytes(c.get(f"/v1/compilations/{job['id']}/artifact").content)
        r = upload(c, gzip.compress(open(archive, "rb").read()), "affine.tar.gz")
        assert r.status_code == 422 and "gzip-compressed" in r.json()["detail"] and "tar cf" in r.json()["detail"]
        r = upload(c, files["affine.onnx"], "affine.onnx")
        assert r.status_code == 422 and "'weights.bin'" in r.json()["detail"], r.text
    local = compiler.compile(str(tmp_path / "folder" / "affine.onnx"), "h100", CompileOptions(build=False))
    feeds = sample_inputs(local.plan)
    np.testing.assert_array_equal(run_on_host(artifact, feeds)["y"],
                                  Executor(local.plan, make_backend("host")).run(feeds)["y"])


def test_verify_through_the_api(service, bert_job):
    """options.verify: the worker runs the compiled plan on its CPU against onnxruntime before
    packaging; the report says how it went (the same model unverified has no outcome)."""
    assert bert_job["report"]["verification"]["outcome"] == "not run"
    with service.client() as c:
        job = compile_job(c, bert_job["model"]["id"], "h100", verify="host")
        assert job["options"]["verify"] == "host"
        job = wait_job(c, job["id"], timeout=300)
        assert job["state"] == "succeeded", job
        v = c.get(f"/v1/compilations/{job['id']}/report").json()["verification"]
    assert v["device"] == "host" and v["outcome"] == "passed" and 0 < v["max_rel_error"] <= v["tolerance"]


def test_dynamic_model_needs_input_shapes_and_runs(service, tmp_path):
    with service.client() as c:
        r = upload(c, relu_model(("N", 8)), "dyn.onnx", name="dynamic relu")
        assert r.status_code == 201, r.text
        m = r.json()
        assert m["name"] == "dynamic relu" and m["inputs"][0]["shape"] == ["N", 8]
        assert any("dynamic" in w for w in m["warnings"])
        r = c.post("/v1/compilations", json={"model_id": m["id"], "target": "l4"})
        assert r.status_code == 422 and "input_shapes" in r.json()["detail"]
        job = wait_job(c, compile_job(c, m["id"], "l4", input_shapes={"x": [3, 8]})["id"])
        assert job["state"] == "succeeded" and job["arch"] == "sm_89", job
        art = tmp_path / "dyn.tar.gz"
        art.write_bytes(c.get(f"/v1/compilations/{job['id']}/artifact").content)
    x = seeded((3, 8), seed=7)
    np.testing.assert_array_equal(run_on_host(art, {"x": x})["y"], np.maximum(x, 0))


def detector_model() -> bytes:
    """A detector in Paddle2ONNX's manner: x[-1, 3, ?, ?]; three stride-2 convolutions, so at 1x1 (what the
    upload used to import it at) its feature maps vanish."""
    from onnx import TensorProto, helper, numpy_helper
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, "?", "?"])
    x.type.tensor_type.shape.dim[0].Clear()
    x.type.tensor_type.shape.dim[0].dim_value = -1
    nodes, inits, prev = [], [], "x"
    for i, (cin, cout) in enumerate([(3, 4), (4, 4), (4, 4)]):
        inits.append(numpy_helper.from_array(seeded((cout, cin, 3, 3), seed=20 + i) * 0.3, f"w{i}"))
        nodes.append(helper.make_node("Conv", [prev, f"w{i}"], [f"c{i}"], strides=[2, 2]))
        prev = f"c{i}"
    y = helper.make_tensor_value_info(prev, TensorProto.FLOAT, ["?", 4, "?", "?"])
    m = helper.make_model(helper.make_graph(nodes, "det", [x], [y], inits),
                          opset_imports=[helper.make_opsetid("", 17)])
    return m.SerializeToString()


def test_exporters_dynamic_dims_and_impossible_shapes(service, tmp_path):
    with service.client() as c:
        r = upload(c, detector_model(), "det.onnx")
        assert r.status_code == 201, r.text
        m = r.json()
        assert m["inputs"][0]["shape"] == ["?", 3, "?", "?"] and m["outputs"][0]["shape"][:2] == ["x[0]", 4]
        assert [d["symbol"] for d in m["dynamic_dims"]] == ["x[0]", "x[2]", "x[3]"]
        assert m["example_input_shapes"] == {"x": ["<x[0]>", 3, "<x[2]>", "<x[3]>"]}
        assert m["parameters"] == 4 * 3 * 9 + 2 * 4 * 4 * 9 and m["parameter_bytes"] == 4 * m["parameters"]
        r = c.post("/v1/compilations", json={"model_id": m["id"], "target": "h100"})
        assert r.status_code == 422 and r.json()["category"] == "shape", r.text
        assert "x axis 2 (unnamed)" in r.json()["detail"] and '"x": ["<x[0]>", 3, "<x[2]>", "<x[3]>"]' in r.json()["detail"]
        # height and width are two dimensions: 48 x 192 compiles and runs
        job = wait_job(c, compile_job(c, m["id"], "h100", input_shapes={"x": [1, 3, 48, 192]})["id"])
        assert job["state"] == "succeeded", job
        art = tmp_path / "det.tar.gz"
        art.write_bytes(c.get(f"/v1/compilations/{job['id']}/artifact").content)
        assert run_on_host(art, {"x": seeded((1, 3, 48, 192), seed=5)})["c2"].shape == (1, 4, 5, 23)
        # too large for the device: failed with too_large, naming the tensor and the limit
        job = wait_job(c, compile_job(c, m["id"], "h100", input_shapes={"x": [1, 3, 100000, 100000]})["id"])
        assert job["state"] == "failed" and job["error"]["category"] == "too_large", job
        assert "tensor 'x'" in job["error"]["message"] and "80.0 GiB" in job["error"]["message"]
        job = wait_job(c, compile_job(c, m["id"], "h100", input_shapes={"x": [1, 3, 2**62, 64]})["id"])
        assert job["state"] == "failed" and job["error"]["category"] == "too_large", job
        assert "2^63-1" in job["error"]["message"]
        targets = {t["name"]: t for t in c.get("/v1/targets").json()}
        assert targets["h100"]["spec"]["memory_bytes"] == 80 * 2**30 and targets["h100"]["spec"]["max_grid"][1] == 65535


def test_cancel_and_delete(service):
    with service.client() as c:
        m = upload(c, relu_model((4, 4)), "small.onnx").json()
        # cancelling a queued job: tests/service/test_recovery.py (no worker there, so no race); here a
        # finished job cannot be cancelled and keeps its artifact
        job = wait_job(c, compile_job(c, m["id"], "t4")["id"])
        assert job["state"] == "succeeded", job
        r = c.post(f"/v1/compilations/{job['id']}/cancel")
        assert r.status_code == 409 and "already succeeded" in r.json()["detail"], r.text
        assert read_events(c, job["id"])[-1]["event"] == "succeeded"
        assert c.get(f"/v1/compilations/{job['id']}/artifact").status_code == 200
        time_ok = wait_job(c, compile_job(c, m["id"], "a100")["id"])
        assert time_ok["state"] == "succeeded"
        assert c.delete(f"/v1/models/{m['id']}").status_code == 204
        assert c.get(f"/v1/models/{m['id']}").status_code == 404
        assert c.get(f"/v1/compilations/{time_ok['id']}").json()["model_id"] is None  # jobs outlive their model


def test_a_revoked_token_is_refused_within_the_cache_time(service):
    import subprocess
    import sys
    import time

    import httpx

    from .conftest import REPO
    carol = service.create_token("carol")
    with service.client(carol) as c:
        assert c.get("/v1/models").status_code == 200  # now remembered by the API process
        out = subprocess.run([sys.executable, "-m", "api.tokens", "revoke", "-"], cwd=REPO, env=service.env(),
                             input=carol + "\n", capture_output=True, text=True)
        assert out.returncode == 0 and out.stdout.strip() == "revoked 1 token(s)", out
        revoked_at = time.monotonic()
        while c.get("/v1/models").status_code == 200:
            assert time.monotonic() - revoked_at < 5.0 + 2.0, "a revoked token still works after the cache time"
            time.sleep(0.2)
        r = c.get("/v1/models")
        assert r.status_code == 401 and "revoked" in r.json()["detail"]
    again = subprocess.run([sys.executable, "-m", "api.tokens", "revoke", carol], cwd=REPO, env=service.env(),
                           capture_output=True, text=True)
    assert again.returncode == 2 and "no live token" in again.stderr
    assert httpx.get(service.url + "/v1/models", headers={"Authorization": f"Bearer {carol}"}).status_code == 401
