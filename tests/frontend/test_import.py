"""The import stage: reading and checking models, static types, folding, canonicalisation."""
from __future__ import annotations

import builtins
import hashlib
import io
import os

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from compiler.errors import ModelError, ShapeError, UnsupportedOp
from compiler.frontend.onnx_import import ImportLimits, import_model
from compiler.ir.dtypes import DType
from compiler.ir.graph import Constant, Graph, TensorType
from compiler.ops import registry
from compiler.passes.lower import lower_graph
from tests.conftest import MODELS_DIR, shared_models

F32, I64 = TensorProto.FLOAT, TensorProto.INT64
OPSET = 18


def make_model(nodes, inputs, outputs, inits=(), opset=OPSET, extra_opsets=()) -> onnx.ModelProto:
    g = helper.make_graph(nodes, "g", inputs, outputs, initializer=list(inits))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset), *extra_opsets])
    m.ir_version = 9  # what the installed onnxruntime reads
    return m


def vi(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


def init(name, a):
    return numpy_helper.from_array(np.asarray(a), name)


def check_graph(g: Graph, outer: dict[str, TensorType] | None = None) -> None:
    """IR invariants: every read is defined earlier, every value typed, constants match their types."""
    types = g.type_map
    defined = set(g.inputs) | set(g.const_map) | set(g.outer)
    for name, c in g.constants:
        assert types[name] == c.type, name
    for name in g.outer:
        assert outer is not None and name in outer and outer[name] == types[name], name
    for n in g.nodes:
        for i in n.inputs:
            assert i == "" or i in defined, f"{n.name} reads {i} before it is defined"
        for sg in n.subgraphs():
            check_graph(sg, {k: types[k] for k in defined})
        for o in n.outputs:
            if o:
                assert o not in defined, f"{o} defined twice"
                assert o in types, f"{o} has no type"
                defined.add(o)
    for o in g.outputs:
        assert o in defined, o
    for t in types.values():
        assert all(isinstance(d, int) and d >= 0 for d in t.shape)


def run_ir(g: Graph, feeds: dict[str, np.ndarray], opset: int = OPSET) -> list[np.ndarray]:
    """Evaluates an IR graph with the registry's NumPy references (no subgraphs)."""
    env = {k: c.array() for k, c in g.constants}
    env.update(feeds)
    for n in g.nodes:
        ref = registry.lookup(n.op, n.domain).reference
        outs = ref(n, [env[i] if i else None for i in n.inputs], opset)
        for o, v in zip(n.outputs, outs):
            if o:
                assert v.shape == g.type_of(o).shape and v.dtype == g.type_of(o).dtype.np, (n.op, o)
                env[o] = v
    return [env[o] for o in g.outputs]


def run_ort(m: onnx.ModelProto, feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
    import onnxruntime as ort
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL  # the original graph, unfused
    s = ort.InferenceSession(m.SerializeToString(), so, providers=["CPUExecutionProvider"])
    return s.run(None, feeds)


@pytest.fixture
def test_op(monkeypatch):
    """Registers an op for this test only (restored afterwards); an existing definition is kept."""
    registry._load_families()

    def add(op, reference=None, foldable=True, domain=""):
        keys = [(domain, op)] + ([("ai.onnx", op)] if domain == "" else [])
        if all(k in registry.REGISTRY for k in keys):
            return
        d = registry.OpDef(op, lambda ctx: None, reference or _no_reference, domain, foldable)
        for k in keys:
            monkeypatch.setitem(registry.REGISTRY, k, d)
    return add


def _no_reference(node, inputs, opset):
    raise AssertionError(f"{node.op} should not have been evaluated")


# --- reading ---------------------------------------------------------------------------------------

def test_bytes_that_are_not_onnx():
    rng = np.random.default_rng(1)
    for data in (b"this is certainly not a protobuf \xff\xfe", rng.integers(0, 256, 4096, dtype=np.uint8).tobytes()):
        with pytest.raises(ModelError, match="not a valid ONNX model"):
            import_model(data)


def test_truncated_model_file(tmp_path):
    data = (MODELS_DIR / "bert.onnx").read_bytes()
    p = tmp_path / "half.onnx"
    p.write_bytes(data[: len(data) // 2])
    with pytest.raises(ModelError, match="half.onnx is not a valid ONNX model"):
        import_model(p)


def test_size_limit_is_checked_before_reading(tmp_path, monkeypatch):
    """An oversize model file is refused after its first 512 bytes (the header that would make it
    a model archive: compiler/frontend/model_archive.py), not read whole."""
    p = tmp_path / "m.onnx"
    p.write_bytes(make_model([helper.make_node("Relu", ["x"], ["y"])], [vi("x", F32, [2])],
                             [vi("y", F32, [2])]).SerializeToString() + b"\0" * 4096)
    reads = []
    real_open = builtins.open

    class Counted:
        def __init__(self, f):
            self.f = f

        def read(self, n=-1):
            reads.append(n)
            return self.f.read(n)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.f.close()
    monkeypatch.setattr(builtins, "open", lambda f, *a, **k: Counted(real_open(f, *a, **k)))
    with pytest.raises(ModelError, match="over the limit of 10 bytes"):
        import_model(p, limits=ImportLimits(max_bytes=10))
    assert reads == [512]


def _external_weight_model(where: str) -> onnx.ModelProto:
    """y = x + weight, the weight's 16 bytes in secret_weights.bin, as an initializer or a Constant."""
    w = onnx.TensorProto(name="weight", data_type=F32, dims=[4])
    w.data_location = TensorProto.EXTERNAL
    w.external_data.add(key="location", value="secret_weights.bin")
    w.external_data.add(key="length", value="16")
    nodes = [helper.make_node("Add", ["x", "weight"], ["y"])]
    inits = [w]
    if where == "constant":
        nodes.insert(0, helper.make_node("Constant", [], ["weight"], value=w))
        inits = []
    return make_model(nodes, [vi("x", F32, [4])], [vi("y", F32, [4])], inits)


def _record_opens(monkeypatch) -> list[str]:
    opened: list[str] = []
    for mod, fn in ((builtins, "open"), (io, "open"), (os, "open")):
        real = getattr(mod, fn)
        monkeypatch.setattr(mod, fn, lambda f, *a, _r=real, **k: opened.append(str(f)) or _r(f, *a, **k))
    return opened


@pytest.mark.parametrize("where", ["initializer", "constant"])
@pytest.mark.parametrize("given", ["bytes", "proto"])
def test_external_data_is_refused_without_opening_it(where, given, tmp_path, monkeypatch):
    """A model given as bytes or a proto has no directory: its external data is refused, and the file
    it names is not opened even where the working directory has one."""
    m = _external_weight_model(where)
    (tmp_path / "secret_weights.bin").write_bytes(np.arange(4, dtype=np.float32).tobytes())
    monkeypatch.chdir(tmp_path)
    opened = _record_opens(monkeypatch)
    with pytest.raises(ModelError) as e:
        import_model(m.SerializeToString() if given == "bytes" else m)
    assert "weight" in str(e.value) and "secret_weights.bin" in str(e.value)
    assert "cannot reference external data files" in str(e.value) and "file path" in str(e.value)
    assert not any("secret_weights" in f for f in opened), opened


@pytest.mark.parametrize("where", ["initializer", "constant"])
def test_external_data_is_read_beside_a_path_model(where, tmp_path):
    m = _external_weight_model(where)
    (tmp_path / "secret_weights.bin").write_bytes(np.arange(4, dtype=np.float32).tobytes())
    p = tmp_path / "m.onnx"
    p.write_bytes(m.SerializeToString())
    (c,) = [c for _, c in import_model(str(p)).graph.constants]
    assert np.array_equal(c.array(), np.arange(4, dtype=np.float32))
    with pytest.raises(ModelError, match="ImportLimits.external_data is off"):   # the service's setting
        import_model(str(p), limits=ImportLimits(external_data=False))


def test_sha256_name_and_opset(tmp_path):
    m = make_model([helper.make_node("Relu", ["x"], ["y"])], [vi("x", F32, [3])], [vi("y", F32, [3])])
    m.producer_name, m.producer_version = "unit", "1.0"
    p = tmp_path / "tiny_relu.onnx"
    p.write_bytes(m.SerializeToString())
    im = import_model(p)
    assert im.model_sha256 == hashlib.sha256(p.read_bytes()).hexdigest()
    assert (im.name, im.opset, im.producer) == ("tiny_relu", OPSET, "unit 1.0")
    assert im.input_names == ("x",) and im.output_names == ("y",)
    assert import_model(m).model_sha256 == import_model(p.read_bytes()).model_sha256


@pytest.mark.parametrize("ahead", [1, 10**6])
def test_an_opset_newer_than_onnx_knows_is_refused(ahead):
    """A model stamped with a default-domain opset past the newest the installed onnx defines (an
    op's meaning may have changed since) is a ModelError naming both, as onnxruntime refuses it,
    not compiled as the newest known."""
    m = make_model([helper.make_node("Relu", ["x"], ["y"])], [vi("x", F32, [3])], [vi("y", F32, [3])])
    newest = onnx.defs.onnx_opset_version()
    m.opset_import[0].version = newest + ahead
    with pytest.raises(ModelError, match=f"version {newest + ahead} of the default ONNX operator set.*is {newest}"):
        import_model(m)
    m.opset_import[0].version = newest
    assert import_model(m).opset == newest


# --- ops and domains ---------------------------------------------------------------------------------

def test_unknown_domain_is_refused():
    node = helper.make_node("FancyAttention", ["x"], ["y"], name="fancy_1", domain="com.example")
    m = make_model([node], [vi("x", F32, [2])], [vi("y", F32, [2])],
                   extra_opsets=[helper.make_opsetid("com.example", 1)])
    with pytest.raises(UnsupportedOp) as e:
        import_model(m)
    msg = str(e.value)
    assert "FancyAttention" in msg and "com.example" in msg and "fancy_1" in msg
    assert e.value.op_type == "FancyAttention" and e.value.domain == "com.example"


def test_op_without_definition_names_all_missing_ops(monkeypatch):
    registry._load_families()
    # two ops ONNX gives no function body (one with a body would be expanded into it: test_function_expansion.py)
    for op in ("Hardmax", "Sin"):
        for dom in ("", "ai.onnx"):
            monkeypatch.delitem(registry.REGISTRY, (dom, op), raising=False)
    nodes = [helper.make_node("Hardmax", ["x"], ["h"], name="hm"), helper.make_node("Sin", ["h"], ["y"], name="si")]
    m = make_model(nodes, [vi("x", F32, [2, 3])], [vi("y", F32, [2, 3])])
    with pytest.raises(UnsupportedOp) as e:
        import_model(m)
    assert e.value.op_type == "Hardmax" and e.value.node == "hm" and "Sin" in str(e.value)


def test_string_constant_is_unsupported(test_op):
    test_op("Identity")
    c = helper.make_node("Constant", [], ["s"], value=helper.make_tensor("v", TensorProto.STRING, [1], [b"a"]))
    m = make_model([c, helper.make_node("Identity", ["s"], ["y"])], [], [vi("y", TensorProto.STRING, [1])])
    with pytest.raises(UnsupportedOp, match="STRING"):
        import_model(m)


def test_checker_errors_are_model_errors():
    # a Relu with two inputs is not valid ONNX
    m = make_model([helper.make_node("Relu", ["x", "x"], ["y"])], [vi("x", F32, [2])], [vi("y", F32, [2])])
    with pytest.raises(ModelError, match="ONNX checker"):
        import_model(m)


def test_unsupported_element_types():
    m = make_model([helper.make_node("Identity", ["x"], ["y"])], [vi("x", TensorProto.STRING, [2])],
                   [vi("y", TensorProto.STRING, [2])])
    with pytest.raises(UnsupportedOp, match="input 'x' has element type STRING"):
        import_model(m)
    w = helper.make_tensor("w8", TensorProto.FLOAT8E4M3FN, [2], [1.0, 2.0])
    m = make_model([helper.make_node("Cast", ["w8"], ["y"], to=F32)], [], [vi("y", F32, [2])], [w])
    with pytest.raises(UnsupportedOp, match="'w8' has element type FLOAT8E4M3FN"):
        import_model(m)


def test_model_local_functions_are_inlined():
    fn = helper.make_function("local", "ReluNeg", ["a"], ["b"],
                              [helper.make_node("Relu", ["a"], ["r"]), helper.make_node("Neg", ["r"], ["b"])],
                              [helper.make_opsetid("", OPSET)])
    m = make_model([helper.make_node("ReluNeg", ["x"], ["y"], domain="local")], [vi("x", F32, [3])],
                   [vi("y", F32, [3])], extra_opsets=[helper.make_opsetid("local", 1)])
    m.functions.append(fn)
    g = import_model(m).graph
    check_graph(g)
    assert [n.op for n in g.nodes] == ["Relu", "Neg"] and g.outputs == ("y",)


# --- input shapes --------------------------------------------------------------------------------------

def _dynamic_relu():
    return make_model([helper.make_node("Relu", ["x"], ["y"])], [vi("x", F32, ["batch", 128])],
                      [vi("y", F32, ["batch", 128])])


def test_dynamic_dimension_without_input_shape():
    with pytest.raises(ShapeError) as e:
        import_model(_dynamic_relu())
    assert "x axis 0 ('batch')" in str(e.value) and "--input-shape x=1,128" in str(e.value)


def test_dynamic_dimension_fixed_by_input_shapes():
    g = import_model(_dynamic_relu(), input_shapes={"x": (4, 128)}).graph
    assert g.type_of("x") == TensorType(DType.float32, (4, 128)) == g.type_of("y")
    check_graph(g)


@pytest.mark.parametrize("shapes,match", [
    ({"z": (1, 128)}, "not an input"),
    ({"x": (1, 128, 1)}, "rank 2"),
    ({"x": (1, 64)}, "static size 128 on axis 1"),
    ({"x": (1, -3)}, "non-negative"),
])
def test_bad_input_shapes(shapes, match):
    with pytest.raises(ShapeError, match=match):
        import_model(_dynamic_relu(), input_shapes=shapes)


def test_named_dimension_shared_between_inputs():
    m = make_model([helper.make_node("Add", ["a", "b"], ["y"])], [vi("a", F32, ["n", 8]), vi("b", F32, ["n", 8])],
                   [vi("y", F32, ["n", 8])])
    g = import_model(m, input_shapes={"a": (3, 8)}).graph
    assert g.type_of("b").shape == (3, 8) and g.type_of("y").shape == (3, 8)
    with pytest.raises(ShapeError, match="dimension 'n'"):
        import_model(m, input_shapes={"a": (3, 8), "b": (5, 8)})


def test_initializers_listed_as_inputs_are_constants():
    w = np.random.default_rng(2).standard_normal((3,)).astype(np.float32)
    m = make_model([helper.make_node("Add", ["x", "w"], ["y"])], [vi("x", F32, [3]), vi("w", F32, [3])],
                   [vi("y", F32, [3])], [init("w", w)])
    im = import_model(m)
    assert im.input_names == ("x",)
    np.testing.assert_array_equal(im.graph.constant("w").array(), w)


# --- folding -----------------------------------------------------------------------------------------

def test_shape_arithmetic_folds_to_a_constant_shape():
    rng = np.random.default_rng(3)
    nodes = [
        helper.make_node("Shape", ["x"], ["s"]),
        helper.make_node("Gather", ["s", "zero"], ["d0"], axis=0),
        helper.make_node("Unsqueeze", ["d0", "ax0"], ["d0u"]),
        helper.make_node("Concat", ["d0u", "minus1"], ["newshape"], axis=0),
        helper.make_node("Reshape", ["x", "newshape"], ["y"]),
    ]
    inits = [init("zero", np.array(0, np.int64)), init("ax0", np.array([0], np.int64)),
             init("minus1", np.array([-1], np.int64))]
    m = make_model(nodes, [vi("x", F32, ["b", 3, 4])], [vi("y", F32, ["b", 12])], inits)
    g = import_model(m, input_shapes={"x": (5, 3, 4)}).graph
    check_graph(g)
    assert [n.op for n in g.nodes] == ["Reshape"]
    shape_in = g.nodes[0].inputs[1]
    np.testing.assert_array_equal(g.constant(shape_in).array(), [5, -1])
    assert [k for k, _ in g.constants] == [shape_in]  # the folded pieces are gone
    assert g.type_of("y") == TensorType(DType.float32, (5, 12))
    x = rng.standard_normal((5, 3, 4)).astype(np.float32)
    np.testing.assert_array_equal(run_ir(g, {"x": x})[0], run_ort(m, {"x": x})[0])


def test_constant_forms_fold():
    nodes = [
        helper.make_node("Constant", [], ["a"], value_float=2.5),
        helper.make_node("Constant", [], ["b"], value_floats=[1.0, -2.0, 3.0]),
        helper.make_node("Constant", [], ["c"], value_int=7),
        helper.make_node("Constant", [], ["d"], value_ints=[1, 2, 3]),
        helper.make_node("Mul", ["a", "b"], ["ab"]),
        helper.make_node("Add", ["c", "d"], ["cd"]),
        helper.make_node("Add", ["x", "ab"], ["y"]),
    ]
    m = make_model(nodes, [vi("x", F32, [3])], [vi("y", F32, [3]), vi("cd", I64, [3])])
    g = import_model(m).graph
    check_graph(g)
    assert [n.op for n in g.nodes] == ["Add"]
    np.testing.assert_array_equal(g.constant(g.nodes[0].inputs[1]).array(), np.float32([2.5, -5.0, 7.5]))
    np.testing.assert_array_equal(g.constant("cd").array(), [8, 9, 10])  # a constant graph output stays
    assert g.outputs == ("y", "cd")


def test_size_limit_on_folding_keeps_the_node():
    """w + w past the limit stays a node where the model still holds w (the Mul reads it): the
    fold would keep a second value of w's size beside it (a weight rewrite alone folds past the
    limit: tests/frontend/test_weight_folds.py)."""
    nodes = [helper.make_node("Add", ["w", "w"], ["w2"]), helper.make_node("Add", ["x", "w2"], ["s"]),
             helper.make_node("Mul", ["s", "w"], ["y"])]
    w = np.random.default_rng(4).standard_normal((64,)).astype(np.float32)
    m = make_model(nodes, [vi("x", F32, [64])], [vi("y", F32, [64])], [init("w", w)])
    assert [n.op for n in import_model(m).graph.nodes] == ["Add", "Mul"]
    g = import_model(m, limits=ImportLimits(max_fold_elements=32)).graph
    assert [n.op for n in g.nodes] == ["Add", "Add", "Mul"]
    check_graph(g)


def test_output_that_is_an_input_or_constant():
    m = make_model([helper.make_node("Relu", ["x"], ["y"])], [vi("x", F32, [2])],
                   [vi("y", F32, [2]), vi("x", F32, [2]), vi("w", F32, [2])], [init("w", np.float32([1, 2]))])
    g = import_model(m).graph
    check_graph(g)
    assert g.outputs == ("y", "x", "w") and g.constant("w") is not None


# --- canonicalisation ----------------------------------------------------------------------------------

def test_gemm_with_constant_operands_becomes_matmul_add():
    rng = np.random.default_rng(5)
    b = rng.standard_normal((6, 5)).astype(np.float32)  # (N, K): transB
    c = rng.standard_normal((6,)).astype(np.float32)
    node = helper.make_node("Gemm", ["x", "b", "c"], ["y"], transB=1, alpha=0.5, beta=2.0)
    m = make_model([node], [vi("x", F32, [3, 5])], [vi("y", F32, [3, 6])], [init("b", b), init("c", c)])
    g = import_model(m).graph
    check_graph(g)
    assert [n.op for n in g.nodes] == ["MatMul", "Add"] and g.outputs == ("y",)
    mm, add = g.nodes
    np.testing.assert_allclose(g.constant(mm.inputs[1]).array(), 0.5 * b.T, rtol=1e-6)
    np.testing.assert_allclose(g.constant(add.inputs[1]).array(), 2.0 * c, rtol=1e-6)
    assert "b" not in g.const_map and "c" not in g.const_map
    x = rng.standard_normal((3, 5)).astype(np.float32)
    np.testing.assert_allclose(run_ir(g, {"x": x})[0], run_ort(m, {"x": x})[0], rtol=1e-5, atol=1e-5)


def test_gemm_with_runtime_operands():
    rng = np.random.default_rng(6)
    node = helper.make_node("Gemm", ["a", "b"], ["y"], transA=1, transB=1, alpha=1.5)
    m = make_model([node], [vi("a", F32, [4, 3]), vi("b", F32, [5, 4])], [vi("y", F32, [3, 5])])
    g = import_model(m).graph
    check_graph(g)
    assert [n.op for n in g.nodes] == ["Transpose", "Transpose", "MatMul", "Mul"]
    feeds = {"a": rng.standard_normal((4, 3)).astype(np.float32), "b": rng.standard_normal((5, 4)).astype(np.float32)}
    np.testing.assert_allclose(run_ir(g, feeds)[0], run_ort(m, feeds)[0], rtol=1e-5, atol=1e-5)


def test_batchnorm_folds_into_conv():
    rng = np.random.default_rng(7)
    w = rng.standard_normal((4, 3, 3, 3)).astype(np.float32)
    cb = rng.standard_normal((4,)).astype(np.float32)
    scale, bias = rng.uniform(0.5, 2, 4).astype(np.float32), rng.standard_normal(4).astype(np.float32)
    mean, var = rng.standard_normal(4).astype(np.float32), rng.uniform(0.1, 3, 4).astype(np.float32)
    nodes = [helper.make_node("Conv", ["x", "w", "cb"], ["c"], pads=[1, 1, 1, 1]),
             helper.make_node("BatchNormalization", ["c", "s", "bb", "m", "v"], ["bn"], epsilon=1e-3),
             helper.make_node("Relu", ["bn"], ["y"])]
    inits = [init(k, a) for k, a in (("w", w), ("cb", cb), ("s", scale), ("bb", bias), ("m", mean), ("v", var))]
    m = make_model(nodes, [vi("x", F32, [2, 3, 6, 6])], [vi("y", F32, [2, 4, 6, 6])], inits)
    g = import_model(m).graph
    check_graph(g)
    assert [n.op for n in g.nodes] == ["Conv", "Relu"] and g.nodes[0].outputs == ("bn",)
    # the folded weights, recomputed by hand
    k = scale / np.sqrt(var.astype(np.float64) + 1e-3)
    conv = g.nodes[0]
    np.testing.assert_allclose(g.constant(conv.inputs[1]).array(), w * k[:, None, None, None], rtol=1e-6)
    np.testing.assert_allclose(g.constant(conv.inputs[2]).array(), (cb - mean) * k + bias, rtol=1e-5, atol=1e-6)
    x = rng.standard_normal((2, 3, 6, 6)).astype(np.float32)
    np.testing.assert_allclose(run_ir(g, {"x": x})[0], run_ort(m, {"x": x})[0], rtol=1e-4, atol=1e-4)


def test_batchnorm_stays_when_conv_output_is_shared():
    rng = np.random.default_rng(8)
    w = rng.standard_normal((2, 2, 1, 1)).astype(np.float32)
    p = [init(k, rng.uniform(0.5, 1.5, 2).astype(np.float32)) for k in ("s", "bb", "m", "v")]
    nodes = [helper.make_node("Conv", ["x", "w"], ["c"]),
             helper.make_node("BatchNormalization", ["c", "s", "bb", "m", "v"], ["bn"]),
             helper.make_node("Add", ["bn", "c"], ["y"])]
    m = make_model(nodes, [vi("x", F32, [1, 2, 3, 3])], [vi("y", F32, [1, 2, 3, 3])], [init("w", w)] + p)
    assert [n.op for n in import_model(m).graph.nodes] == ["Conv", "BatchNormalization", "Add"]


def test_identity_dropout_and_dead_nodes_are_removed():
    nodes = [helper.make_node("Relu", ["x"], ["r"]),
             helper.make_node("Identity", ["r"], ["i"]),
             helper.make_node("Dropout", ["i"], ["d", "mask"]),
             helper.make_node("Neg", ["x"], ["unused"]),
             helper.make_node("Identity", ["d"], ["y"])]
    m = make_model(nodes, [vi("x", F32, [4])], [vi("y", F32, [4])])
    g = import_model(m).graph
    check_graph(g)
    assert [(n.op, n.inputs, n.outputs) for n in g.nodes] == [("Relu", ("x",), ("y",))]
    assert set(g.type_map) == {"x", "y"}


def test_identity_of_an_input_to_an_output_is_kept():
    nodes = [helper.make_node("Identity", ["x"], ["y"]), helper.make_node("Identity", ["w"], ["z"])]
    m = make_model(nodes, [vi("x", F32, [2])], [vi("y", F32, [2]), vi("z", F32, [2])], [init("w", np.float32([3, 4]))])
    g = import_model(m).graph
    check_graph(g)
    assert g.outputs == ("y", "z") and [n.op for n in g.nodes] == ["Identity"]
    np.testing.assert_array_equal(g.constant("z").array(), [3, 4])


# --- graph structure and limits ------------------------------------------------------------------------

def test_unsorted_nodes_are_sorted_and_cycles_refused():
    nodes = [helper.make_node("Neg", ["r"], ["y"]), helper.make_node("Relu", ["x"], ["r"])]
    m = make_model(nodes, [vi("x", F32, [2])], [vi("y", F32, [2])])
    g = import_model(m).graph
    assert [n.op for n in g.nodes] == ["Relu", "Neg"]
    check_graph(g)
    cyc = [helper.make_node("Add", ["x", "b"], ["a"], name="n1"), helper.make_node("Neg", ["a"], ["b"], name="n2")]
    m = make_model(cyc, [vi("x", F32, [2])], [vi("b", F32, [2])])
    with pytest.raises(ModelError, match="cycle"):
        import_model(m)


def test_node_and_chain_limits():
    nodes = [helper.make_node("Neg", [f"v{i}"], [f"v{i + 1}"]) for i in range(30)]
    m = make_model(nodes, [vi("v0", F32, [2])], [vi("v30", F32, [2])])
    assert len(import_model(m).graph.nodes) == 30
    with pytest.raises(ModelError, match="more than 20 nodes"):
        import_model(m, limits=ImportLimits(max_nodes=20))
    with pytest.raises(ModelError, match="longest chain of dependent nodes is 30"):
        import_model(m, limits=ImportLimits(max_chain=29))


def _nested_ifs(depth: int) -> onnx.ModelProto:
    body = helper.make_graph([helper.make_node("Neg", ["x"], ["o0"])], "b0", [], [vi("o0", F32, [2])])
    for d in range(1, depth + 1):
        body = helper.make_graph([helper.make_node("If", ["c"], [f"o{d}"], then_branch=body, else_branch=body)],
                                 f"b{d}", [], [vi(f"o{d}", F32, [2])])
    top = body.node[0]
    return make_model([top], [vi("x", F32, [2]), vi("c", TensorProto.BOOL, [])], [vi(f"o{depth}", F32, [2])])


def test_subgraph_nesting_limit(test_op):
    test_op("If", foldable=False)
    g = import_model(_nested_ifs(3)).graph  # three Ifs: two levels of subgraph inside the top If's branches
    check_graph(g)
    with pytest.raises(ModelError, match="nested 3 deep"):
        import_model(_nested_ifs(4), limits=ImportLimits(max_nesting=2))


# --- control flow --------------------------------------------------------------------------------------

def test_if_branches_read_the_enclosing_scope(test_op):
    test_op("If", foldable=False)
    w = np.random.default_rng(9).standard_normal((4,)).astype(np.float32)
    then_g = helper.make_graph([helper.make_node("Add", ["x", "w"], ["t"])], "then", [], [vi("t", F32, None)])
    else_g = helper.make_graph([helper.make_node("Neg", ["x"], ["e"])], "else", [], [vi("e", F32, None)])
    nodes = [helper.make_node("ReduceSum", ["x"], ["s"], keepdims=0),
             helper.make_node("Greater", ["s", "zero"], ["c"]),
             helper.make_node("If", ["c"], ["y"], then_branch=then_g, else_branch=else_g)]
    m = make_model(nodes, [vi("x", F32, [2, 4])], [vi("y", F32, [2, 4])],
                   [init("w", w), init("zero", np.float32(0))])
    g = import_model(m).graph
    check_graph(g)
    assert g.type_of("y") == TensorType(DType.float32, (2, 4))
    then_ir = g.nodes[-1].attr("then_branch")
    assert then_ir.outer == ("x",) and then_ir.type_of("t").shape == (2, 4)
    np.testing.assert_array_equal(then_ir.constant("w").array(), w)  # constants travel with the body
    assert "w" not in g.const_map  # ... and the enclosing graph no longer needs them


def test_if_branches_with_different_shapes(test_op):
    test_op("If", foldable=False)
    then_g = helper.make_graph([helper.make_node("Neg", ["x"], ["t"])], "then", [], [vi("t", F32, None)])
    else_g = helper.make_graph([helper.make_node("Neg", ["z"], ["e"])], "else", [], [vi("e", F32, None)])
    # two axes apart (one axis apart gives an output of run-time length: tests/ops/test_runtime_extents.py)
    m = make_model([helper.make_node("If", ["c"], ["y"], then_branch=then_g, else_branch=else_g, name="if0")],
                   [vi("c", TensorProto.BOOL, []), vi("x", F32, [2, 2]), vi("z", F32, [3, 3])], [vi("y", F32, [2, 2])])
    with pytest.raises(ShapeError, match="different types") as e:
        import_model(m)
    assert e.value.node == "if0"


def test_identity_renames_reach_into_subgraphs(test_op):
    test_op("If", foldable=False)
    then_g = helper.make_graph([helper.make_node("Neg", ["i"], ["t"])], "then", [], [vi("t", F32, None)])
    else_g = helper.make_graph([helper.make_node("Relu", ["i"], ["e"])], "else", [], [vi("e", F32, None)])
    nodes = [helper.make_node("Relu", ["x"], ["r"]), helper.make_node("Identity", ["r"], ["i"]),
             helper.make_node("If", ["c"], ["y"], then_branch=then_g, else_branch=else_g)]
    m = make_model(nodes, [vi("x", F32, [2]), vi("c", TensorProto.BOOL, [])], [vi("y", F32, [2])])
    g = import_model(m).graph
    check_graph(g)
    assert [n.op for n in g.nodes] == ["Relu", "If"]
    for branch in g.nodes[1].subgraphs():
        assert branch.outer == ("r",) and branch.nodes[0].inputs == ("r",)


def _loop_model(cond_from_body: bool) -> onnx.ModelProto:
    body_nodes = [helper.make_node("Add", ["acc_in", "x"], ["acc_out"]),
                  helper.make_node("Mul", ["acc_out", "two"], ["scan_out"])]
    cond_out = "cond_in"
    if cond_from_body:
        body_nodes.append(helper.make_node("Less", ["it", "five"], ["cond_next"]))
        cond_out = "cond_next"
    body = helper.make_graph(body_nodes, "body",
                             [vi("it", I64, []), vi("cond_in", TensorProto.BOOL, []), vi("acc_in", F32, None)],
                             [vi(cond_out, TensorProto.BOOL, []), vi("acc_out", F32, None), vi("scan_out", F32, None)])
    loop = helper.make_node("Loop", ["trips", "", "acc0"], ["acc", "scans"], body=body)
    inits = [init("trips", np.array(3, np.int64)), init("acc0", np.zeros((2, 3), np.float32)),
             init("two", np.float32(2)), init("five", np.array(5, np.int64))]
    return make_model([loop], [vi("x", F32, [2, 3])], [vi("acc", F32, [2, 3]), vi("scans", F32, [3, 2, 3])], inits)


def test_loop_with_constant_trip_count_has_static_scan_outputs(test_op):
    test_op("Loop", foldable=False)
    g = import_model(_loop_model(cond_from_body=False)).graph
    check_graph(g)
    assert g.type_of("acc") == TensorType(DType.float32, (2, 3))
    assert g.type_of("scans") == TensorType(DType.float32, (3, 2, 3))
    body = g.nodes[0].attr("body")
    assert body.type_of("acc_in").shape == (2, 3) and body.type_of("it") == TensorType(DType.int64, ())
    assert body.outer == ("x",)


def test_loop_with_runtime_condition_and_scan_outputs_is_bounded_by_its_trip_count(test_op):
    test_op("Loop", foldable=False)
    g = import_model(_loop_model(cond_from_body=True)).graph
    check_graph(g)
    (loop,) = g.nodes
    assert loop.attr("max_trip_count") == 3
    assert g.type_of("scans") == TensorType(DType.float32, (3, 2, 3))
    iterations = loop.outputs[-1]
    assert g.type_of(iterations) == TensorType(DType.int64, ())
    # the lowering trims the scan outputs to the iterations (passes/bounded_rows.py)
    assert lower_graph(g, OPSET).output_lengths == (("scans", iterations, 0),)


def test_loop_with_runtime_trip_count_and_scan_outputs_needs_a_bound(test_op):
    test_op("Loop", foldable=False)
    m = _loop_model(cond_from_body=False)
    m.graph.initializer.remove(next(t for t in m.graph.initializer if t.name == "trips"))
    m.graph.input.append(vi("trips", I64, []))
    with pytest.raises(UnsupportedOp, match="--max-trip-count"):
        import_model(m)
    g = import_model(m, max_trip_count=7).graph
    assert g.type_of("scans") == TensorType(DType.float32, (7, 2, 3))
    assert lower_graph(g, OPSET).output_lengths == (("scans", g.nodes[0].outputs[-1], 0),)


def test_loop_carried_value_that_changes_shape(test_op):
    test_op("Loop", foldable=False)
    body = helper.make_graph([helper.make_node("Concat", ["v_in", "v_in"], ["v_out"], axis=0)], "body",
                             [vi("it", I64, []), vi("c", TensorProto.BOOL, []), vi("v_in", F32, None)],
                             [vi("c", TensorProto.BOOL, []), vi("v_out", F32, None)])
    m = make_model([helper.make_node("Loop", ["n", "", "x"], ["v"], body=body)], [vi("x", F32, [2]),
                   vi("n", I64, [])], [vi("v", F32, [2])])
    with pytest.raises(ShapeError, match="loop-carried value 0 enters the Loop as float32\\[2\\] but the body gives float32\\[4\\]"):
        import_model(m)


def test_scan_body_types_come_from_the_node(test_op):
    test_op("Scan", foldable=False)
    body = helper.make_graph([helper.make_node("Add", ["s_in", "elem"], ["s_out"]),
                              helper.make_node("Relu", ["s_out"], ["out_elem"])], "body",
                             [vi("s_in", F32, None), vi("elem", F32, None)],
                             [vi("s_out", F32, None), vi("out_elem", F32, None)])
    scan = helper.make_node("Scan", ["s0", "xs"], ["s_final", "ys"], body=body, num_scan_inputs=1,
                            scan_input_axes=[1], scan_output_axes=[-1])
    m = make_model([scan], [vi("s0", F32, [4]), vi("xs", F32, [4, 7])], [vi("s_final", F32, [4]), vi("ys", F32, [4, 7])])
    g = import_model(m).graph
    check_graph(g)
    assert g.type_of("ys").shape == (4, 7) and g.type_of("s_final").shape == (4,)
    assert g.nodes[0].attr("body").type_of("elem").shape == (4,)


# --- the shared models ---------------------------------------------------------------------------------

@pytest.mark.parametrize("name", shared_models())
def test_shared_model_imports_with_static_shapes(name):
    im = import_model(MODELS_DIR / f"{name}.onnx")
    g = im.graph
    check_graph(g)
    assert im.opset == 18 and im.input_names and im.output_names
    assert "Gemm" not in g.op_histogram() and "Identity" not in g.op_histogram()
    ref = np.load(MODELS_DIR / f"{name}.npz")
    for k in ref.files:  # the inferred output types are those PyTorch produced
        kind, value = k.split(":", 1)
        t = g.type_of(value)
        assert t.shape == ref[k].shape and t.dtype.np == ref[k].dtype, (k, t)


LIGHT = os.path.join(os.path.dirname(onnx.__file__), "backend", "test", "data", "light")


@pytest.mark.parametrize("name,gone", [("light_resnet50", "BatchNormalization"), ("light_squeezenet", "Dropout")])
def test_onnx_zoo_models_import(name, gone):
    """Older real models (opset 8/9): every BatchNorm follows a Conv and folds; an unread Dropout mask,
    which ONNX cannot type at that opset, is dropped with its Dropout."""
    path = os.path.join(LIGHT, f"{name}.onnx")
    if not os.path.exists(path):
        pytest.skip("onnx ships without its light models here")
    im = import_model(path)
    check_graph(im.graph)
    declared = [d.dim_value for d in onnx.load(path, load_external_data=False).graph.output[0].type.tensor_type.shape.dim]
    assert gone not in im.graph.op_histogram() and list(im.graph.type_of(im.output_names[0]).shape) == declared
    assert declared[:2] == [1, 1000] and not im.warnings


def test_weight_whose_data_does_not_fit_its_dims_is_a_model_error():
    # the checker sees the weights without payloads, so the payload check is the importer's own
    w = numpy_helper.from_array(np.arange(16, dtype=np.float32).reshape(4, 4), "w")
    w.raw_data = w.raw_data[:40]
    m = make_model([helper.make_node("MatMul", ["x", "w"], ["y"])], [vi("x", F32, [1, 4])], [vi("y", F32, [1, 4])],
                   inits=[w])
    with pytest.raises(ModelError, match=r"tensor 'w' has dims \[4, 4\] but its data does not fit"):
        import_model(m)


def test_constants_share_a_whole_bytes_buffer_and_imported_weights_round_trip():
    # a weight is held once: a Constant made from an array over a whole bytes object (what the importer
    # gets from a protobuf payload) keeps that very object
    w = np.random.default_rng(3).standard_normal((64, 32)).astype(np.float32)
    payload = w.tobytes()
    assert Constant.from_array(np.frombuffer(payload, np.float32).reshape(64, 32)).data is payload
    # views that are not the whole buffer, in order, are copied
    assert Constant.from_array(np.frombuffer(payload, np.float32).reshape(64, 32)[1:]).data == w[1:].tobytes()
    assert Constant.from_array(np.frombuffer(payload, np.float32).reshape(64, 32).T).data == w.T.tobytes()
    m = make_model([helper.make_node("MatMul", ["x", "w"], ["y"])], [vi("x", F32, [2, 64])], [vi("y", F32, [2, 32])],
                   inits=[numpy_helper.from_array(w, "w")])
    (c,) = [c for _, c in import_model(m).graph.constants if c.shape == (64, 32)]
    assert np.array_equal(c.array(), w)


def test_element_bounds_of_run_time_integers():
    """frontend/element_bounds.py: each element's (lower, upper) bounds through the ops exporters
    compute sizes with (Shape of a value of run-time length, Gather, Unsqueeze, Concat with a
    constant, ReduceMin, Reshape): min(1000, n) is at most 1000, n at most its bound and at least
    0 and the real extent of the value it measures (its source), the static axis's extent exact;
    a gather at positions known only at run time has none."""
    from compiler.frontend.element_bounds import element_bounds, exact_bounds, is_exact

    exact = exact_bounds
    shape = helper.make_node("Shape", ["x"], ["s"])
    s = element_bounds(shape, [], (2,), static_shape=((0, 4), (5000, 4), (("x", 0), None)))
    assert [b.tolist() for b in s] == [[0, 4], [5000, 4], [("x", 0), None]]
    gather = helper.make_node("Gather", ["s", "i"], ["n"], axis=0)
    n = element_bounds(gather, [s, exact(0)], ())
    assert [b.tolist() for b in n] == [0, 5000, ("x", 0)] and not is_exact(n)    # x's extent itself
    assert is_exact(element_bounds(gather, [s, exact(1)], ()))        # the static axis: 4
    assert element_bounds(gather, [s, (np.array(0.0), np.array(1.0), np.array(None))], ()) is None
    unsq = element_bounds(helper.make_node("Unsqueeze", ["n", "a"], ["n1"]), [n, exact([0])], (1,))
    both = element_bounds(helper.make_node("Concat", ["c", "n1"], ["b"], axis=0), [exact([1000]), unsq], (2,))
    assert [b.tolist() for b in both] == [[1000, 0], [1000, 5000], [None, ("x", 0)]]
    k = element_bounds(helper.make_node("ReduceMin", ["b"], ["k"], keepdims=0), [both], ())
    assert [b.tolist() for b in k] == [0, 1000, None]        # bounded, but no longer x's extent
    # a sum and a difference are bounded by their terms' bounds; only adding a pinned 0 keeps the
    # source (`torch.split` ends written as 0 + n)
    add, sub = helper.make_node("Add", ["p", "q"], ["m"]), helper.make_node("Sub", ["p", "q"], ["m"])
    assert [b.tolist() for b in element_bounds(add, [n, n], ())] == [0, 10000, None]
    assert [b.tolist() for b in element_bounds(add, [exact([0]), unsq], (1,))] == [[0], [5000], [("x", 0)]]
    assert [b.tolist() for b in element_bounds(sub, [n, exact(3)], ())] == [-3, 4997, None]
    assert [b.tolist() for b in element_bounds(sub, [n, exact(0)], ())] == [0, 5000, ("x", 0)]
    # Equal and Where, as `expand` writes its -1 test: a choice pinned where the bounds decide it
    eq = element_bounds(helper.make_node("Equal", ["b", "m1"], ["e"]), [both, exact([-1, 1000])], (2,))
    assert [b.tolist() for b in eq] == [[0, 0], [0, 1], [None, None]]     # n >= 0 is never -1; n may be 1000
    where = helper.make_node("Where", ["e", "ones", "b"], ["w"])
    w = element_bounds(where, [eq, exact([1, 1]), both], (2,))      # undecided: either side's bounds
    assert [b.tolist() for b in w] == [[1000, 0], [1000, 5000], [None, None]]
    never = element_bounds(helper.make_node("Equal", ["b", "m1"], ["e"]), [both, exact([-1, -1])], (2,))
    w = element_bounds(where, [never, exact([1, 1]), both], (2,))   # decided: the source carried
    assert [b.tolist() for b in w] == [[1000, 0], [1000, 5000], [None, ("x", 0)]]
    w = element_bounds(where, [exact([True, False]), exact([1, 1]), both], (2,))
    assert [b.tolist() for b in w] == [[1, 0], [1, 5000], [None, ("x", 0)]]
    # a Slice at positions known at compile time: Shape(x)[:1]
    head = element_bounds(helper.make_node("Slice", ["s", "a", "b"], ["h"]), [s, exact([0]), exact([1])], (1,))
    assert [b.tolist() for b in head] == [[0], [5000], [("x", 0)]]
    # unknown stays unknown
    assert element_bounds(helper.make_node("Mul", ["n", "n"], ["m"]), [n, n], ()) is None
    inf = (np.array([-np.inf]), np.array([np.inf]), np.array([None]))
    assert np.isinf(element_bounds(helper.make_node("Concat", ["u", "c"], ["b"], axis=0),
                                   [inf, exact([1])], (2,))[1][0])
