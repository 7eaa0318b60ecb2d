"""External data: a model given as a path reads the weights kept in files beside it (onnx.save_model's
save_as_external_data, onnxruntime-genai's model.onnx + model.onnx.data), only from inside its own
directory, every location checked before any file is opened; its sha256 covers those weights."""
from __future__ import annotations

import builtins
import contextlib
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import compiler
from compiler.errors import ModelError
from compiler.frontend.onnx_import import ImportLimits, import_model, read_checked
from compiler.frontend.summary import summarize
from compiler.pipeline import CompileOptions
from compiler.runtime.executor import Executor, make_backend
from compiler.verify import sample_inputs

F32 = TensorProto.FLOAT
WEIGHT_BYTES = 64 * 64 * 4 + 64 * 4     # the MatMul's weight and the Add's bias


def affine_model() -> onnx.ModelProto:
    """y = x @ w + b with a 64x64 weight."""
    rng = np.random.default_rng(3)
    w = numpy_helper.from_array(rng.standard_normal((64, 64)).astype(np.float32), "w")
    b = numpy_helper.from_array(rng.standard_normal(64).astype(np.float32), "b")
    g = helper.make_graph([helper.make_node("MatMul", ["x", "w"], ["h"], name="matmul"),
                           helper.make_node("Add", ["h", "b"], ["y"], name="add")], "affine",
                          [helper.make_tensor_value_info("x", F32, [4, 64])],
                          [helper.make_tensor_value_info("y", F32, [4, 64])], [w, b])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)])
    m.ir_version = 9
    return m


def save_external(m: onnx.ModelProto, path, location: str = "weights.bin") -> str:
    """m saved by onnx as path + its every tensor in `location` beside it (m itself is left as it is)."""
    copy = onnx.ModelProto()
    copy.CopyFrom(m)  # save_model moves the tensors of the model it is given to external data
    with contextlib.chdir(os.path.dirname(path)):  # onnx looks for an existing `location` in the cwd
        onnx.save_model(copy, os.path.basename(path), save_as_external_data=True, all_tensors_to_one_file=True,
                        location=location, size_threshold=0)
    return str(path)


def external_tensor(name: str, dims: list[int], location: str, offset: int | None = None,
                    length: int | None = None) -> onnx.TensorProto:
    t = TensorProto(name=name, data_type=F32, dims=dims, data_location=TensorProto.EXTERNAL)
    t.external_data.add(key="location", value=location)
    for key, value in (("offset", offset), ("length", length)):
        if value is not None:
            t.external_data.add(key=key, value=str(value))
    return t


def add_model(path, *weights: onnx.TensorProto) -> str:
    """y = x + w0 + w1 + ..., each weight float32[4], saved as it is (its external_data untouched)."""
    nodes, last = [], "x"
    for i, w in enumerate(weights):
        nodes.append(helper.make_node("Add", [last, w.name], [f"s{i}"]))
        last = f"s{i}"
    nodes.append(helper.make_node("Identity", [last], ["y"]))
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", F32, [4])],
                          [helper.make_tensor_value_info("y", F32, [4])], list(weights))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)])
    m.ir_version = 9
    path.write_bytes(m.SerializeToString())
    return str(path)


def record_opens(monkeypatch) -> list[str]:
    opened: list[str] = []
    for mod, fn in ((builtins, "open"), (io, "open"), (os, "open")):
        real = getattr(mod, fn)
        monkeypatch.setattr(mod, fn, lambda f, *a, _r=real, **k: opened.append(str(f)) or _r(f, *a, **k))
    return opened


def host_outputs(art, feeds) -> dict:
    return Executor(art.plan, make_backend("host")).run(feeds)


# --- reading -------------------------------------------------------------------------------------

def test_external_data_compiles_to_the_single_file_models_outputs(tmp_path):
    m = affine_model()
    one = tmp_path / "one.onnx"
    onnx.save_model(m, str(one))
    (tmp_path / "ext").mkdir()
    ext = save_external(m, tmp_path / "ext" / "affine.onnx")
    assert os.path.getsize(tmp_path / "ext" / "weights.bin") == WEIGHT_BYTES
    assert os.path.getsize(ext) < 1024                       # the weights are not in the .onnx
    a = compiler.compile(str(one), "h100", CompileOptions(build=False))
    b = compiler.compile(ext, "h100", CompileOptions(build=False))
    feeds = sample_inputs(a.plan)
    got_a, got_b = host_outputs(a, feeds), host_outputs(b, feeds)
    assert np.array_equal(got_a["y"], got_b["y"])
    w, bias = (numpy_helper.to_array(t) for t in m.graph.initializer)
    np.testing.assert_allclose(got_b["y"], feeds["x"] @ w + bias, rtol=1e-5, atol=1e-5)


def test_shared_model_with_external_data_compiles_to_the_same_outputs(tmp_path, models_dir):
    m = onnx.load(str(models_dir / "bert.onnx"))
    ext = save_external(m, tmp_path / "bert.onnx")
    a = compiler.compile(str(models_dir / "bert.onnx"), "h100", CompileOptions(build=False))
    b = compiler.compile(ext, "h100", CompileOptions(build=False))
    feeds = sample_inputs(a.plan)
    got_a, got_b = host_outputs(a, feeds), host_outputs(b, feeds)
    assert got_a.keys() == got_b.keys() and all(np.array_equal(got_a[k], got_b[k]) for k in got_a)


def big_affine_model(rows: int = 512) -> onnx.ModelProto:
    """y = x @ w + b with a rows x 512 float32 weight: at 512 rows 1 MiB, the import's SIDE_BYTES."""
    rng = np.random.default_rng(4)
    w = numpy_helper.from_array(rng.standard_normal((rows, 512)).astype(np.float32), "w")
    b = numpy_helper.from_array(rng.standard_normal(512).astype(np.float32), "b")
    g = helper.make_graph([helper.make_node("MatMul", ["x", "w"], ["h"]), helper.make_node("Add", ["h", "b"], ["y"])],
                          "big", [helper.make_tensor_value_info("x", F32, [2, rows])],
                          [helper.make_tensor_value_info("y", F32, [2, 512])], [w, b])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)])
    m.ir_version = 9
    return m


def test_a_large_external_weight_is_imported_over_the_bytes_read(tmp_path):
    """A main-graph weight of SIDE_BYTES or more never enters the proto: the import's array and the
    IR's Constant are the bytes read from the file (no copy), small ones go through the proto as
    before, and the model's identity and outputs are those of the single-file model."""
    from compiler.frontend import onnx_import
    m = big_affine_model()
    one = tmp_path / "one.onnx"
    onnx.save_model(m, str(one))
    (tmp_path / "ext").mkdir()
    ext = save_external(m, tmp_path / "ext" / "big.onnx")
    checked = read_checked(ext, ImportLimits(external_data=True))
    assert set(checked.external) == {"w"} and len(checked.external["w"]) == onnx_import.SIDE_BYTES
    w = next(t for t in checked.proto.graph.initializer if t.name == "w")
    assert not w.HasField("raw_data")                         # the weight stayed out of the proto
    imported = onnx_import.import_checked(checked)
    const = dict(imported.graph.constants)["w"]
    assert const.data is checked.external["w"]                  # the very bytes read: not copied
    np.testing.assert_array_equal(const.array(), numpy_helper.to_array(m.graph.initializer[0]))
    a = compiler.compile(str(one), "h100", CompileOptions(build=False))
    b = compiler.compile(ext, "h100", CompileOptions(build=False))
    feeds = sample_inputs(a.plan)
    assert np.array_equal(host_outputs(a, feeds)["y"], host_outputs(b, feeds)["y"])


def test_a_weight_named_as_a_subgraph_tensor_goes_through_the_proto(tmp_path):
    """Bytes kept out of the proto are found by name, so a main-graph weight whose name a subgraph's
    tensor shares (here an If branch's initializer, as large) is read into the proto as before,
    and each scope gets its own value."""
    m = big_affine_model()
    shadow = helper.make_graph([helper.make_node("Identity", ["w"], ["u"])], "branch", [],
                               [helper.make_tensor_value_info("u", F32, [4])],
                               [numpy_helper.from_array(np.full((512, 512), 7.0, np.float32), "w")])
    m.graph.node.append(helper.make_node("If", ["p"], ["t"], then_branch=shadow, else_branch=shadow))
    m.graph.input.append(helper.make_tensor_value_info("p", TensorProto.BOOL, []))
    m.graph.output.append(helper.make_tensor_value_info("t", F32, [512, 512]))
    ext = save_external(m, tmp_path / "shadow.onnx")
    assert "w" not in read_checked(ext, ImportLimits(external_data=True)).external
    feeds = {"x": np.ones((2, 512), np.float32), "p": np.array(True)}
    got = host_outputs(compiler.compile(ext, "h100", CompileOptions(build=False)), feeds)
    np.testing.assert_array_equal(got["t"], np.full((512, 512), 7.0, np.float32))
    w, b = (numpy_helper.to_array(t) for t in m.graph.initializer)
    np.testing.assert_allclose(got["y"], feeds["x"] @ w + b, rtol=1e-4, atol=1e-4)


def test_external_data_in_subgraphs_and_functions(tmp_path):
    """A tensor attribute keeps its data outside too: an If branch's Constant, and a local function's
    Constant (read once the function is inlined)."""
    data = np.arange(12, dtype=np.float32)
    (tmp_path / "data.bin").write_bytes(data.tobytes())
    def constant_branch(name: str, offset: int) -> onnx.GraphProto:
        value = external_tensor(name, [4], "data.bin", offset, 16)
        return helper.make_graph([helper.make_node("Constant", [], [name], value=value)], f"branch_{name}", [],
                                 [helper.make_tensor_value_info(name, F32, [4])])
    branch, other = constant_branch("c", 0), constant_branch("d", 16)
    fn = helper.make_function("local", "AddThird", ["a"], ["b"], [
        helper.make_node("Constant", [], ["k"], value=external_tensor("k", [4], "data.bin", 32, 16)),
        helper.make_node("Add", ["a", "k"], ["b"])], [helper.make_opsetid("", 18)])
    g = helper.make_graph([helper.make_node("If", ["p"], ["t"], then_branch=branch, else_branch=other),
                           helper.make_node("AddThird", ["t"], ["y"], domain="local")], "g",
                          [helper.make_tensor_value_info("p", TensorProto.BOOL, [])],
                          [helper.make_tensor_value_info("y", F32, [4])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 18), helper.make_opsetid("local", 1)],
                          functions=[fn])
    m.ir_version = 9
    path = tmp_path / "m.onnx"
    path.write_bytes(m.SerializeToString())
    art = compiler.compile(str(path), "h100", CompileOptions(build=False))
    for p, branch_value in ((True, data[0:4]), (False, data[4:8])):
        np.testing.assert_array_equal(host_outputs(art, {"p": np.array(p)})["y"], branch_value + data[8:12])


def test_sparse_initializer_data_is_read(tmp_path):
    """Both halves of a sparse initializer are read (compiling one is refused later, by op)."""
    (tmp_path / "data.bin").write_bytes(np.array([5, 6], np.float32).tobytes() + np.array([1, 3], np.int64).tobytes())
    indices = TensorProto(name="si", data_type=TensorProto.INT64, dims=[2], data_location=TensorProto.EXTERNAL)
    indices.external_data.add(key="location", value="data.bin")
    indices.external_data.add(key="offset", value="8")
    sparse = helper.make_sparse_tensor(external_tensor("sv", [2], "data.bin", 0, 8), indices, [4])
    g = helper.make_graph([helper.make_node("Add", ["x", "sv"], ["y"])], "g",
                          [helper.make_tensor_value_info("x", F32, [4])],
                          [helper.make_tensor_value_info("y", F32, [4])], sparse_initializer=[sparse])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)])
    m.ir_version = 9
    path = tmp_path / "m.onnx"
    path.write_bytes(m.SerializeToString())
    (st,) = read_checked(str(path)).proto.graph.sparse_initializer
    assert numpy_helper.to_array(st.values).tolist() == [5, 6] and numpy_helper.to_array(st.indices).tolist() == [1, 3]
    assert not st.values.external_data and not st.indices.external_data


def test_summary_and_inspect_read_a_model_with_external_data(tmp_path):
    ext = save_external(affine_model(), tmp_path / "affine.onnx")
    s = summarize(ext)
    assert (s.parameters, s.parameter_bytes) == (64 * 64 + 64, WEIGHT_BYTES)
    assert s.sha256 == import_model(ext).model_sha256
    r = subprocess.run([sys.executable, "-m", "compiler", "inspect", ext, "--json"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["sha256"] == s.sha256


def test_cli_compiles_a_model_with_external_data(tmp_path):
    ext = save_external(affine_model(), tmp_path / "affine.onnx")
    out = tmp_path / "affine.tar"
    r = subprocess.run([sys.executable, "-m", "compiler", "compile", ext, "-o", str(out), "-q"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert out.is_file() and "compiled affine" in r.stdout


# --- refusals ------------------------------------------------------------------------------------

@pytest.fixture
def layout(tmp_path):
    """model/ holds the model and its good weights.bin; outside.bin lies next to model/, not in it."""
    (tmp_path / "model").mkdir()
    (tmp_path / "model" / "weights.bin").write_bytes(np.ones(4, np.float32).tobytes())
    (tmp_path / "outside.bin").write_bytes(np.full(4, 7, np.float32).tobytes())
    return tmp_path


def _refused(layout, monkeypatch, bad: onnx.TensorProto, *needles: str, limits=ImportLimits()) -> None:
    """A model with a good weight and `bad` is refused, naming the bad one, before any weight file is
    opened (the good one too: every location is checked first)."""
    path = add_model(layout / "model" / "m.onnx", external_tensor("good", [4], "weights.bin"), bad)
    opened = record_opens(monkeypatch)
    with pytest.raises(ModelError) as e:
        import_model(path, limits=limits)
    assert "'bad'" in str(e.value) and all(n in str(e.value) for n in needles), str(e.value)
    assert opened == [path], opened                    # the model itself, nothing else


def test_location_with_dotdot_is_refused(layout, monkeypatch):
    _refused(layout, monkeypatch, external_tensor("bad", [4], "../outside.bin"), "../outside.bin",
             "outside the model's directory")


def test_absolute_location_is_refused(layout, monkeypatch):
    where = str(layout / "outside.bin")
    _refused(layout, monkeypatch, external_tensor("bad", [4], where), where, "not a relative file name")


def test_symlink_out_of_the_directory_is_refused(layout, monkeypatch):
    os.symlink(layout / "outside.bin", layout / "model" / "link.bin")
    _refused(layout, monkeypatch, external_tensor("bad", [4], "link.bin"), "link.bin", "outside the model's directory")


def test_symlink_inside_the_directory_is_followed(layout):
    os.symlink("weights.bin", layout / "model" / "alias.bin")
    path = add_model(layout / "model" / "m.onnx", external_tensor("w", [4], "alias.bin"))
    (c,) = [c for _, c in import_model(path).graph.constants]
    assert np.array_equal(c.array(), np.ones(4, np.float32))


def test_missing_file_is_refused(layout, monkeypatch):
    _refused(layout, monkeypatch, external_tensor("bad", [4], "missing.bin"), "missing.bin", "cannot be read")


def test_directory_is_refused(layout, monkeypatch):
    (layout / "model" / "sub").mkdir()
    _refused(layout, monkeypatch, external_tensor("bad", [4], "sub"), "'sub'", "not a regular file")


@pytest.mark.parametrize("offset,length", [(8, 16), (32, None), (0, 17)])
def test_range_past_the_end_of_the_file_is_refused(layout, monkeypatch, offset, length):
    _refused(layout, monkeypatch, external_tensor("bad", [4], "weights.bin", offset, length), "weights.bin",
             "which has 16 bytes")


def test_malformed_offset_is_refused(layout, monkeypatch):
    bad = external_tensor("bad", [4], "weights.bin")
    bad.external_data.add(key="offset", value="-4")
    _refused(layout, monkeypatch, bad, "offset '-4'")


def test_external_bytes_over_the_limit_are_refused(layout, monkeypatch):
    _refused(layout, monkeypatch, external_tensor("bad", [4], "weights.bin"), "32 bytes", "limit of 31 bytes",
             "max_external_bytes", limits=ImportLimits(max_external_bytes=31))
    path = add_model(layout / "model" / "m.onnx", external_tensor("good", [4], "weights.bin"),
                     external_tensor("bad", [4], "weights.bin"))
    assert len(import_model(path, limits=ImportLimits(max_external_bytes=32)).graph.constants) == 2


def test_max_bytes_applies_to_the_onnx_file_alone(tmp_path):
    ext = save_external(affine_model(), tmp_path / "affine.onnx")
    assert os.path.getsize(ext) < 1024 < WEIGHT_BYTES
    import_model(ext, limits=ImportLimits(max_bytes=1024))
    with pytest.raises(ModelError, match="over the limit of 100 bytes"):
        import_model(ext, limits=ImportLimits(max_bytes=100))


def test_service_refuses_an_upload_with_external_data_without_opening_it(layout, monkeypatch):
    """The service's uploads are paths too, in a directory of other uploads: it never reads one's
    external data (ImportLimits.external_data=False)."""
    from service.model_info import describe_model
    path = add_model(layout / "model" / "m.onnx", external_tensor("w", [4], "weights.bin"))
    opened = record_opens(monkeypatch)
    with pytest.raises(ModelError, match="as one uncompressed tar"):
        describe_model(path, max_bytes=1 << 20)
    assert opened == [path], opened


# --- identity ------------------------------------------------------------------------------------

def test_sha256_covers_the_external_data(tmp_path):
    (tmp_path / "a").mkdir()
    ext = save_external(affine_model(), tmp_path / "a" / "affine.onnx")
    first = import_model(ext).model_sha256
    assert first != hashlib.sha256(open(ext, "rb").read()).hexdigest()
    assert import_model(ext).model_sha256 == first
    shutil.copytree(tmp_path / "a", tmp_path / "b")             # the same files elsewhere: the same model
    assert import_model(str(tmp_path / "b" / "affine.onnx")).model_sha256 == first
    weights = tmp_path / "a" / "weights.bin"
    data = bytearray(weights.read_bytes())
    data[100] ^= 1
    weights.write_bytes(bytes(data))
    assert import_model(ext).model_sha256 != first


def test_sha256_of_a_model_without_external_data_is_its_files(tmp_path):
    path = tmp_path / "one.onnx"
    onnx.save_model(affine_model(), str(path))
    assert import_model(str(path)).model_sha256 == hashlib.sha256(path.read_bytes()).hexdigest()
