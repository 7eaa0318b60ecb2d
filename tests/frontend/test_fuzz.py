"""Malformed models: whatever bytes a file holds, import and compile fail with a CompilerError (a
service answers every upload with a clear 422), never with Python's own exceptions.

Mutated copies of the shared models (seeded, in-process, bounded in time), then one regression test
per fix: invalid UTF-8 in a string field, an undefined element type on a graph output, model-local
functions that the ONNX inliner refuses."""
from __future__ import annotations

import random
import time

import numpy as np
import onnx
import pytest
from google.protobuf.descriptor import FieldDescriptor
from onnx import TensorProto, helper, numpy_helper

import compiler
from compiler.errors import CompilerError, ModelError
from compiler.frontend.onnx_import import import_model
from compiler.pipeline import CompileOptions
from tests.conftest import MODELS_DIR

F32 = TensorProto.FLOAT
FUZZ_MODELS = ("branchy", "rnn_loop", "resnet", "bert")
FUZZ_MUTANTS = 400
FUZZ_SECONDS = 30.0          # wall-clock cap of the mutant loop; the mutants run in a fixed order
FUZZ_MIN_MUTANTS = 60        # so that a slow machine still tests something
HOST_ONLY = CompileOptions(build=False, disable=("tune",))

# Invalid UTF-8: stray continuation bytes, bytes never valid, an overlong form, a UTF-16 surrogate.
BAD_UTF8 = (b"\xff", b"\xc3", b"\xfe", b"\x80", b"\xc0\xaf", b"\xed\xa0\x80", b"\xf8")
# A 5-byte UTF-8 marker: set in a string field, serialized, then swapped for 5 bytes of invalid
# UTF-8 (same length, so every length prefix stays right). The Python API cannot set them directly.
MARK = "\u2603ZQ"
INTS = (-1, 0, 1, 2, 3, -2, 64, -(2**31), 2**31 - 1, 2**32, 2**40, 2**62, -(2**63), 2**63 - 1)


@pytest.fixture(scope="module")
def shared(models_dir):
    return {name: (models_dir / f"{name}.onnx").read_bytes() for name in FUZZ_MODELS}


def _bad_bytes(rng: random.Random, n: int) -> bytes:
    out = b""
    while len(out) < n:
        out += rng.choice(BAD_UTF8)
    return out[:n]


def _swap_marker(data: bytes, rng: random.Random | None = None) -> bytes:
    mark = MARK.encode()
    assert data.count(mark) == 1
    return data.replace(mark, _bad_bytes(rng, len(mark)) if rng else b"\xff\xc3(\xa0\xed")


def _messages(m):
    """(message, path) for every message in a proto, iteratively."""
    stack = [(m, "")]
    while stack:
        msg, path = stack.pop()
        yield msg, path
        for f, v in msg.ListFields():
            if f.type == FieldDescriptor.TYPE_MESSAGE:
                if f.is_repeated:
                    stack.extend((x, f"{path}.{f.name}[{i}]") for i, x in enumerate(v))
                else:
                    stack.append((v, f"{path}.{f.name}"))


def _string_fields(m):
    """(message, field name, index or None, path) of every set string field."""
    for msg, path in _messages(m):
        for f, v in msg.ListFields():
            if f.type != FieldDescriptor.TYPE_STRING:
                continue
            if f.is_repeated:
                yield from ((msg, f.name, i, f"{path}.{f.name}[{i}]") for i in range(len(v)))
            else:
                yield msg, f.name, None, f"{path}.{f.name}"


def _set_string(msg, name, i, value):
    if i is None:
        setattr(msg, name, value)
    else:
        getattr(msg, name)[i] = value


# --- mutators --------------------------------------------------------------------------------------

def _weight_spans(data: bytes, proto: onnx.ModelProto) -> list[tuple[int, int]]:
    spans = []
    for t in proto.graph.initializer:
        if len(t.raw_data) > 256:
            at = data.find(t.raw_data)
            if at >= 0:
                spans.append((at, at + len(t.raw_data)))
    return spans


def _byte_mutant(rng: random.Random, data: bytes, spans) -> tuple[bytes, str]:
    """Byte-level damage, mostly outside the weights (damage there is just other weights)."""
    b = bytearray(data)

    def pos():
        for _ in range(20):
            p = rng.randrange(len(b))
            if not any(s <= p < e for s, e in spans):
                return p
        return rng.randrange(len(b))

    kind = rng.choice(("flip", "overwrite", "badutf8", "truncate", "dup", "insert", "delete"))
    for _ in range(rng.randint(1, 4) if kind in ("flip", "overwrite", "badutf8") else 1):
        p = pos()
        if kind == "flip":
            b[p] ^= 1 << rng.randrange(8)
        elif kind == "overwrite":
            b[p] = rng.randrange(256)
        elif kind == "badutf8":
            bad = _bad_bytes(rng, rng.randint(1, 3))
            b[p:p + len(bad)] = bad
        elif kind == "truncate":
            del b[p:]
        elif kind == "dup":
            b[p:p] = b[p:p + rng.randint(1, 64)]
        elif kind == "insert":
            b[p:p] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
        else:
            del b[p:p + rng.randint(1, 16)]
    return bytes(b), f"bytes {kind}"


def _structured_mutant(rng: random.Random, proto: onnx.ModelProto) -> tuple[bytes, str] | None:
    """A parsed copy with one field made wrong: invalid UTF-8, ints (dims, attributes, opsets),
    payload lengths, element type codes, repeated fields dropped or duplicated."""
    m = onnx.ModelProto()
    m.CopyFrom(proto)
    msgs = list(_messages(m))
    kind = rng.choice(("utf8", "int", "dims", "attr", "raw", "dtype", "repeated", "opset"))
    if kind == "utf8":
        msg, name, i, path = rng.choice(list(_string_fields(m)))
        old = getattr(msg, name) if i is None else getattr(msg, name)[i]
        _set_string(msg, name, i, old + MARK if rng.random() < 0.5 else MARK)
        return _swap_marker(m.SerializeToString(), rng), f"utf8 {path}"
    if kind in ("int", "dims"):
        int_types = (FieldDescriptor.TYPE_INT64, FieldDescriptor.TYPE_INT32)
        cands = [(msg, f, p) for msg, p in msgs for f in msg.DESCRIPTOR.fields
                 if f.type in int_types and (kind == "int" or f.name in ("dims", "dim_value"))]
        msg, f, p = rng.choice(cands)
        v = rng.choice(INTS)
        if f.type == FieldDescriptor.TYPE_INT32:
            v = max(min(v, 2**31 - 1), -(2**31))
        if f.is_repeated:
            values = getattr(msg, f.name)
            if len(values):
                values[rng.randrange(len(values))] = v
            else:
                values.append(v)
        else:
            setattr(msg, f.name, v)
        return m.SerializeToString(), f"{kind} {p}.{f.name}={v}"
    if kind == "attr":
        nodes = [(msg, p) for msg, p in msgs if isinstance(msg, onnx.NodeProto) and len(msg.attribute)]
        n, p = rng.choice(nodes)
        a = rng.choice(list(n.attribute))
        if a.type == onnx.AttributeProto.INTS and len(a.ints):
            a.ints[rng.randrange(len(a.ints))] = rng.choice(INTS)
        elif a.type == onnx.AttributeProto.STRING:
            a.s = rng.choice((b"", b"bogus", b"\xff\xc3", b"SAME_UPPER"))
        elif a.type == onnx.AttributeProto.TENSOR and rng.random() < 0.5:
            a.t.dims[:] = [rng.choice((0, 1, 3, -1, 2**40)) for _ in range(rng.randint(0, 3))]
        elif rng.random() < 0.5:
            a.type = rng.randrange(15)
        else:
            a.i = rng.choice(INTS)
        return m.SerializeToString(), f"attr {p}.{a.name}"
    if kind == "raw":
        ts = [(msg, p) for msg, p in msgs if isinstance(msg, onnx.TensorProto) and len(msg.raw_data)]
        t, p = rng.choice(ts)
        t.raw_data = (t.raw_data[:rng.randrange(len(t.raw_data))] if rng.random() < 0.5
                      else t.raw_data + bytes(rng.randint(1, 9)))
        return m.SerializeToString(), f"raw {p}"
    if kind == "dtype":
        cands = [(msg, name, p) for msg, p in msgs
                 for name in ("data_type", "elem_type") if name in msg.DESCRIPTOR.fields_by_name]
        msg, name, p = rng.choice(cands)
        v = rng.choice((-1, 0, 2, 7, 8, 9, 10, 11, 16, 17, 22, 23, 30, 99, 2**31 - 1))
        setattr(msg, name, v)
        return m.SerializeToString(), f"dtype {p}.{name}={v}"
    if kind == "repeated":
        cands = [(msg, f, p) for msg, p in msgs for f in msg.DESCRIPTOR.fields
                 if f.is_repeated and len(getattr(msg, f.name))]
        msg, f, p = rng.choice(cands)
        values = getattr(msg, f.name)
        i = rng.randrange(len(values))
        if rng.random() < 0.5:
            del values[i]
        elif f.type == FieldDescriptor.TYPE_MESSAGE:
            values.add().CopyFrom(values[i])
        else:
            values.append(values[i])
        return m.SerializeToString(), f"repeated {p}.{f.name}[{i}]"
    o = rng.choice(list(m.opset_import))
    o.version = rng.choice((-1, 0, 1, 7, 11, 13, 17, 19, 22, 10**6))
    return m.SerializeToString(), f"opset {o.domain or 'ai.onnx'}={o.version}"


# --- the fuzz run ----------------------------------------------------------------------------------

def test_mutated_shared_models_fail_only_with_compiler_errors(shared):
    """Seeded mutants of the shared models through import and, for some that import, compile():
    every failure is a CompilerError and invalid UTF-8 in a string field is a ModelError."""
    protos = {k: onnx.load_from_string(v) for k, v in shared.items()}
    spans = {k: _weight_spans(shared[k], protos[k]) for k in shared}
    wrong: list[str] = []
    outcomes: dict[str, int] = {}
    deadline = time.monotonic() + FUZZ_SECONDS
    ran = 0
    for seed in range(FUZZ_MUTANTS):
        if time.monotonic() > deadline:
            break
        rng = random.Random(seed)
        name = rng.choice(FUZZ_MODELS)
        if rng.random() < 0.5:
            data, what = _byte_mutant(rng, shared[name], spans[name])
        else:
            data, what = _structured_mutant(rng, protos[name])
        ran += 1
        stage, error = "import", None
        try:
            import_model(data)
            if seed % 4 == 0:  # compile is slower: a quarter of the mutants that import
                stage = "compile"
                compiler.compile(data, "h100", HOST_ONLY)
        except CompilerError as e:
            error = e
            assert "\n" not in str(e), f"seed {seed} ({name}, {what}): the message is not one line: {e!r}"
        except Exception as e:  # noqa: BLE001 - what the test is looking for
            wrong.append(f"seed {seed} ({name}, {what}): {stage} raised {type(e).__name__}: {e}")
            continue
        if what.startswith("utf8") and not isinstance(error, ModelError):
            wrong.append(f"seed {seed} ({name}, {what}): invalid UTF-8 gave "
                         f"{type(error).__name__ if error else 'no error'}, not a ModelError")
        key = type(error).__name__ if error else f"{stage} ok"
        outcomes[key] = outcomes.get(key, 0) + 1
    assert not wrong, f"{len(wrong)} of {ran} mutants:\n" + "\n".join(wrong)
    assert ran >= FUZZ_MIN_MUTANTS, f"only {ran} mutants ran in {FUZZ_SECONDS} s"
    assert outcomes.get("ModelError") and (outcomes.get("import ok") or outcomes.get("compile ok")), outcomes


def test_invalid_utf8_anywhere_in_a_shared_model_is_a_model_error(shared):
    """Every string field is checked, at any depth (subgraphs of If and Loop included)."""
    for name in FUZZ_MODELS:
        proto = onnx.load_from_string(shared[name])
        fields = list(_string_fields(proto))
        rng = random.Random(name)
        for k in rng.sample(range(len(fields)), min(15, len(fields))):
            m = onnx.ModelProto()
            m.CopyFrom(proto)
            msg, field, i, path = list(_string_fields(m))[k]
            _set_string(msg, field, i, MARK)
            with pytest.raises(ModelError, match="a string field is not valid UTF-8") as e:
                import_model(_swap_marker(m.SerializeToString(), rng))
            assert path.lstrip(".") in str(e.value), (name, path, str(e.value))


# --- regressions -----------------------------------------------------------------------------------

def _small_model() -> onnx.ModelProto:
    """Relu, Add of a weight, a named dimension, metadata, and a model-local function."""
    fn = helper.make_function("local", "Twice", ["a"], ["b"], [helper.make_node("Add", ["a", "a"], ["b"])],
                              [helper.make_opsetid("", 18)], doc_string="doubles")
    nodes = [helper.make_node("Relu", ["x"], ["r"], name="relu", doc_string="the relu"),
             helper.make_node("Add", ["r", "w"], ["s"], name="add"),
             helper.make_node("Twice", ["s"], ["t"], name="twice", domain="local"),
             helper.make_node("Transpose", ["t"], ["y"], name="transpose", perm=[1, 0])]
    w = numpy_helper.from_array(np.ones((2, 3), np.float32), "w")
    g = helper.make_graph(nodes, "small", [helper.make_tensor_value_info("x", F32, [2, 3])],
                          [helper.make_tensor_value_info("y", F32, [3, 2])], initializer=[w],
                          value_info=[helper.make_tensor_value_info("r", F32, ["two", 3])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 18), helper.make_opsetid("local", 1)],
                          functions=[fn], producer_name="tests")
    m.ir_version = 9
    helper.set_model_props(m, {"author": "tests"})
    return m


def test_small_model_imports():
    assert [n.op for n in import_model(_small_model()).graph.nodes] == ["Relu", "Add", "Add", "Transpose"]


def _set(path: str, value: str):
    def set_(m):
        *parents, last = path.split(".")
        msg = m
        for step in parents:
            name, _, index = step.partition("[")
            msg = getattr(msg, name)[int(index[:-1])] if index else getattr(msg, name)
        name, _, index = last.partition("[")
        if index:
            getattr(msg, name)[int(index[:-1])] = value
        else:
            setattr(msg, name, value)
    return set_


# Before the fix, protobuf handed these back as bytes: the ONNX checker (op_type, graph name) and the
# importer (initializer name, dim_param) raised UnicodeDecodeError or TypeError, and the others were
# accepted with bytes for names in the IR.
UTF8_CASES = [
    ("graph.node[0].op_type", "relu"),
    ("graph.node[0].name", None),
    ("graph.node[0].input[0]", "relu"),
    ("graph.node[1].output[0]", "add"),
    ("graph.node[3].attribute[0].name", "transpose"),
    ("graph.node[0].doc_string", "relu"),
    ("graph.node[2].domain", "twice"),
    ("graph.name", None),
    ("graph.initializer[0].name", None),
    ("graph.input[0].name", None),
    ("graph.output[0].name", None),
    ("graph.value_info[0].type.tensor_type.shape.dim[0].dim_param", None),
    ("functions[0].node[0].op_type", None),
    ("functions[0].doc_string", None),
    ("opset_import[1].domain", None),
    ("metadata_props[0].value", None),
    ("producer_name", None),
]


@pytest.mark.parametrize("path,node", UTF8_CASES, ids=[c[0] for c in UTF8_CASES])
def test_invalid_utf8_in_a_string_field_is_a_model_error(path, node):
    m = _small_model()
    _set(path, MARK)(m)
    data = _swap_marker(m.SerializeToString())
    with pytest.raises(ModelError, match="a string field is not valid UTF-8") as e:
        import_model(data)
    msg = str(e.value)
    assert f"({path} = b'\\xff\\xc3(\\xa0\\xed')" in msg and "\n" not in msg
    assert e.value.node == node
    with pytest.raises(ModelError, match="not valid UTF-8"):
        compiler.compile(data, "h100", HOST_ONLY)


def test_invalid_utf8_in_a_subgraph_names_the_path():
    m = onnx.load(MODELS_DIR / "branchy.onnx", load_external_data=False)
    if_node = next(n for n in m.graph.node if n.op_type == "If")
    k = list(m.graph.node).index(if_node)
    body = if_node.attribute[0].g
    body.node[0].name = MARK
    with pytest.raises(ModelError, match="not valid UTF-8") as e:
        import_model(_swap_marker(m.SerializeToString()))
    assert f"graph.node[{k}].attribute[0].g.node[0].name" in str(e.value)


def test_invalid_utf8_in_bytes_fields_is_data_not_an_error():
    """Tensor payloads and string attributes are bytes fields: any byte is allowed there."""
    m = _small_model()
    w = m.graph.initializer[0]
    w.raw_data = b"\xff\xc3\x80\xfe" * 6
    m.graph.node[0].attribute.append(helper.make_attribute("note", b"\xff\xfe"))
    with pytest.raises(ModelError, match="ONNX checker: Unrecognized attribute: note"):
        import_model(m)
    del m.graph.node[0].attribute[:]
    assert len(import_model(m).graph.nodes) == 4


@pytest.mark.parametrize("code", [2**31 - 1, -5, 99])
def test_graph_output_declared_with_an_undefined_element_type(code):
    """Was a ValueError from DataType.Name while the warning was written."""
    m = _small_model()
    m.graph.output[0].type.tensor_type.elem_type = code
    im = import_model(m)
    assert f"output 'y' is declared as type code {code} but computes float32" in im.warnings


def _calls_twice(m: onnx.ModelProto) -> onnx.NodeProto:
    return next(n for n in m.graph.node if n.op_type == "Twice")


@pytest.mark.parametrize("damage,match", [
    (lambda m: _calls_twice(m).input.append("x"), "Number of actual parameters cannot exceed"),
    (lambda m: _calls_twice(m).output.append("extra"), "Number of actual parameters cannot exceed"),
    (lambda m: m.functions[0].node.append(helper.make_node("Twice", ["b"], ["c"], domain="local")),
     "Cycle detected in model-local function references"),
    (lambda m: m.functions.append(m.functions[0]), "multiple local functions with the same"),
], ids=["call-with-extra-input", "call-with-extra-output", "recursive", "duplicated"])
def test_functions_the_inliner_refuses_are_model_errors(damage, match):
    """Were RuntimeError (a C++ assertion in the inliner) and onnx.checker.ValidationError."""
    m = _small_model()
    damage(m)
    with pytest.raises(ModelError, match="model-local functions that cannot be inlined") as e:
        import_model(m)
    assert match in str(e.value) and "\n" not in str(e.value)


def _one_node_model(nodes, inputs, outputs, inits) -> bytes:
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info(n, F32, s) for n, s in inputs],
                          [helper.make_tensor_value_info(n, F32, s) for n, s in outputs],
                          [numpy_helper.from_array(a, n) for n, a in inits])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)])
    m.ir_version = 10
    return m.SerializeToString()


# Found by a longer run of the fuzz loop above (seeds 1000-20000 over eight shared models): the
# compile raised ValueError from the welder stage's view arithmetic, two sizes for one value.
def test_a_recurrence_whose_hidden_size_contradicts_its_weights_is_a_shape_error():
    """ONNX infers an LSTM's outputs from hidden_size alone; the weights say 8."""
    rng = np.random.default_rng(0)
    W, R = rng.standard_normal((1, 32, 4)).astype(np.float32), rng.standard_normal((1, 32, 8)).astype(np.float32)
    data = _one_node_model([helper.make_node("LSTM", ["x", "W", "R"], ["y"], hidden_size=2)],
                           [("x", [3, 1, 4])], [("y", [3, 1, 1, 2])], [("W", W), ("R", R)])
    with pytest.raises(CompilerError, match=r"LSTM with hidden_size 2.*W must be \[1, 8, 4\], got \[1, 32, 4\]"):
        compiler.compile(data, "h100", HOST_ONLY)


def test_a_view_of_another_element_count_is_a_shape_error():
    """A Reshape to a constant shape of fewer elements than its input (ONNX's inference takes the
    shape as it is): the output cannot be a view of the input's bytes."""
    data = _one_node_model([helper.make_node("Relu", ["x"], ["r"]), helper.make_node("Reshape", ["r", "s"], ["y"]),
                            helper.make_node("Relu", ["y"], ["z"])],
                           [("x", [2, 3, 4])], [("z", [2, 6])], [("s", np.array([2, 6], np.int64))])
    with pytest.raises(CompilerError, match=r"declared \[2, 6\] \(12 elements\), but it is a view of 'r', \[2, 3, 4\]"):
        compiler.compile(data, "h100", HOST_ONLY)


def test_a_kernel_shape_that_contradicts_the_weight_is_a_shape_error():
    """Before: ONNX sized the output by kernel_shape (2 x 2) and the lowering read a 3 x 3 weight
    by it, silently."""
    w = np.ones((4, 3, 3, 3), np.float32)
    data = _one_node_model([helper.make_node("Conv", ["x", "w"], ["y"], kernel_shape=[2, 2])],
                           [("x", [1, 3, 8, 8])], [("y", [1, 4, 7, 7])], [("w", w)])
    with pytest.raises(CompilerError, match=r"kernel_shape \[2, 2\] contradicts the weight's spatial shape \[3, 3\]"):
        compiler.compile(data, "h100", HOST_ONLY)


# Found by running the mutants that compile against onnxruntime (seeds 60000-64124): it refused
# these, and Brickyard compiled them.
def test_an_unknown_auto_pad_is_a_shape_error():
    """Read as NOTSET before: a misspelt SAME_UPPER padded nothing."""
    w = np.ones((4, 3, 3, 3), np.float32)
    data = _one_node_model([helper.make_node("Conv", ["x", "w"], ["y"], auto_pad="SAME_UPPPER")],
                           [("x", [1, 3, 8, 8])], [("y", [1, 4, 8, 8])], [("w", w)])
    with pytest.raises(CompilerError, match=r"auto_pad 'SAME_UPPPER' is not one of NOTSET, SAME_UPPER"):
        compiler.compile(data, "h100", HOST_ONLY)


def test_an_initializer_with_a_negative_dimension_is_a_model_error():
    m = onnx.load_from_string(_one_node_model([helper.make_node("Add", ["x", "b"], ["y"])],
                                              [("x", [2])], [("y", [2])], [("b", np.ones(2, np.float32))]))
    m.graph.initializer[0].dims[:] = [-2]
    with pytest.raises(ModelError, match=r"tensor 'b' has dims \[-2\]: a dimension is negative"):
        compiler.compile(m.SerializeToString(), "h100", HOST_ONLY)
