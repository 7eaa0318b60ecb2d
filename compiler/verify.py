"""Verification: run a compiled plan and compare with onnxruntime on the same inputs."""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .runtime.executor import Executor, make_backend


def sample_inputs(plan, seed: int = 0) -> dict[str, np.ndarray]:
    """Seeded random inputs of the plan's signature (small non-negative ints for index-like inputs)."""
    rng = np.random.default_rng(seed)
    types = dict(plan.types)
    out = {}
    for n in plan.inputs:
        t = types[n]
        if t.dtype.is_float:
            out[n] = rng.standard_normal(t.shape).astype(t.dtype.np)
        elif t.dtype.name == "bool":
            out[n] = rng.random(t.shape) < 0.5
        else:
            out[n] = rng.integers(0, 8, size=t.shape).astype(t.dtype.np)
    return out


def max_rel_error(got: dict, ref: dict) -> float:
    """max over outputs of max|got - ref| / max|ref| (the models' acceptance measure); inf on a shape
    mismatch, NaN where one side has a NaN the other does not, inf for an unmatched infinity;
    NaNs and infinities both sides hold are equal."""
    worst = 0.0
    for n, r in ref.items():
        g = np.asarray(got[n], dtype=np.float64)
        r = np.asarray(r, dtype=np.float64)
        if g.shape != r.shape:
            return float("inf")
        if not r.size:
            continue
        with np.errstate(invalid="ignore"):
            diff = np.where((g == r) | (np.isnan(g) & np.isnan(r)), 0.0, np.abs(g - r))
        if np.isnan(diff).any():
            return float("nan")
        finite = r[np.isfinite(r)]
        denom = max(float(np.max(np.abs(finite))) if finite.size else 0.0, 1e-30)
        worst = max(worst, float(np.max(diff)) / denom)
    return worst


def _session(model):
    """onnxruntime on the CPU at its basic graph optimizations (constant folding, redundant nodes):
    the extended ones replace subgraphs with approximations (a DequantizeLinear -> MatMul becomes
    a quantized product that rounds the activations to 8 bits, 6e-3 off the ONNX semantics), and
    the reference must be what the model means."""
    import onnx
    import onnxruntime as ort
    src = model.SerializeToString() if isinstance(model, onnx.ModelProto) else (model if isinstance(model, bytes) else str(model))
    opts = ort.SessionOptions()
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
    return ort.InferenceSession(src, opts, providers=["CPUExecutionProvider"])


def _run(sess, inputs: dict) -> dict:
    return dict(zip([o.name for o in sess.get_outputs()], sess.run(None, inputs)))


class Measured(NamedTuple):
    error: float              # max relative error of the plan against onnxruntime
    reference_finite: float   # the share of onnxruntime's output elements that are finite (none: nothing compared)
    reference: dict           # onnxruntime's outputs (rounding_error compares its rounded run with them)
    outputs: dict             # the plan's outputs on the same inputs


def checked_inputs(names, type_of, given: dict) -> dict[str, np.ndarray]:
    """The caller's inputs for a model (a generation model's real token ids and attention mask,
    where seeded random integers are no valid mask): every input `names` lists present, at its type
    (`type_of(name)`); CompilerError naming the first that is not."""
    from .errors import CompilerError
    out = {}
    for n in names:
        if n not in given:
            raise CompilerError(f"the verification inputs have no '{n}'",
                                hint=f"give every input of the model: {', '.join(names)}")
        a, t = np.asarray(given[n]), type_of(n)
        if tuple(a.shape) != tuple(t.shape) or a.dtype != t.dtype.np:
            raise CompilerError(f"verification input '{n}' is {a.dtype}{list(a.shape)}, the compiled model takes "
                                f"{np.dtype(t.dtype.np)}{list(t.shape)}",
                                hint="compile with --input-shape for these shapes, or give arrays of these")
        out[n] = a
    return out


def measure_error(plan, model, device: str = "host", seed: int = 0, inputs: dict | None = None) -> Measured:
    """The plan against onnxruntime on `inputs` (checked_inputs), else on seeded random inputs
    (`sample_inputs(plan, seed)`)."""
    inputs = (checked_inputs(plan.inputs, dict(plan.types).__getitem__, inputs) if inputs is not None
              else sample_inputs(plan, seed))
    got = Executor(plan, make_backend(device)).run(inputs)
    ref = {n: np.asarray(v) for n, v in _run(_session(model), inputs).items() if n in plan.outputs}
    return Measured(max_rel_error(got, ref), finite_share(ref), ref, got)


def finite_share(values: dict) -> float:
    """The share of the float elements of `values` that are finite (1.0 with no float element)."""
    floats = [np.asarray(v) for v in values.values() if np.asarray(v).dtype.kind in "fc" and np.asarray(v).size]
    total = sum(v.size for v in floats)
    return 1.0 if not total else float(sum(np.isfinite(v).sum() for v in floats)) / total


# The ONNX contractions and the inputs of each that are its two operands (a bias is added after the
# sum, in fp32, as the precision stage leaves it).
CONTRACTION_OPERANDS = {"MatMul": (0, 1), "Gemm": (0, 1), "Conv": (0, 1), "ConvTranspose": (0, 1)}
# onnxruntime's names of the half types the rounding goes through; tf32, which has no ONNX type, is
# rounded by Veltkamp's split (`TF32_SPLIT`).
ROUNDED_TYPES = {"fp16": "FLOAT16", "bf16": "BFLOAT16", "tf32": None}
# Veltkamp: for fp32 x, g = (2^13 + 1) x, then g - (g - x) is x rounded to nearest (ties to even) to
# 24 - 13 = 11 significant bits, tf32's 10 stored and the implicit one (exact in IEEE fp32 arithmetic;
# only |x| within 2^13 of fp32's largest value overflows)
TF32_SPLIT = float(2 ** 13 + 1)


def rounded_model(model, precision: str):
    """A copy of the ONNX model in which every float contraction's operands are rounded to `precision`
    (Cast to the half type and back to float before the node; tf32 by `TF32_SPLIT`), in the main graph and in every
    subgraph: the precision stage's policy (docs/kernel-kinds.md) applied to the reference itself.
    Contractions over fewer than precision.MIN_REDUCED_K terms stay as they are where shape inference
    tells K; the precision stage's matrix-vector rule (small weights stay fp32) is not followed, so
    this rounds at least what the compiled plan rounds."""
    import onnx
    from onnx import TensorProto, helper

    from .passes.precision import MIN_REDUCED_K
    half = getattr(TensorProto, ROUNDED_TYPES[precision]) if ROUNDED_TYPES[precision] else None
    if isinstance(model, onnx.ModelProto):
        m = onnx.ModelProto()
        m.CopyFrom(model)
    else:
        m = onnx.load_model_from_string(model) if isinstance(model, bytes) else onnx.load(str(model))
    m = _with_shapes(m)
    count = 0

    def infos(g) -> dict:
        out = {}
        for v in list(g.input) + list(g.value_info) + list(g.output):
            t = v.type.tensor_type
            out[v.name] = (t.elem_type, [d.dim_value if d.HasField("dim_value") else None for d in t.shape.dim])
        for i in g.initializer:
            out[i.name] = (i.data_type, list(i.dims))
        return out

    def reduced_extent(node, shapes) -> int | None:
        a = shapes.get(node.input[0], (None, []))[1]
        b = shapes.get(node.input[1], (None, []))[1] if len(node.input) > 1 else []
        if node.op_type == "MatMul" and a:
            return a[-1]
        if node.op_type == "Gemm" and a:
            trans_a = next((x.i for x in node.attribute if x.name == "transA"), 0)
            return a[0] if trans_a else a[-1]
        if node.op_type in ("Conv", "ConvTranspose") and len(b) > 2 and None not in b[1:]:
            k = b[0] if node.op_type == "ConvTranspose" else b[1]
            for d in b[2:]:
                k *= d
            return k
        return None

    def rewrite(g) -> None:
        nonlocal count
        shapes = infos(g)
        nodes = []
        for node in g.node:
            for attr in node.attribute:
                for sub in ([attr.g] if attr.HasField("g") else []) + list(attr.graphs):
                    rewrite(sub)
            if node.op_type in CONTRACTION_OPERANDS and node.domain in ("", "ai.onnx"):
                k = reduced_extent(node, shapes)
                if k is None or k >= MIN_REDUCED_K:
                    for i in CONTRACTION_OPERANDS[node.op_type]:
                        name = node.input[i] if i < len(node.input) else ""
                        if not name or shapes.get(name, (TensorProto.FLOAT,))[0] != TensorProto.FLOAT:
                            continue
                        h, f = f"{name}__rounded{count}", f"{name}__rounded{count}_f32"
                        count += 1
                        if half is None:      # tf32: g = C x, then g - (g - x)
                            c, d = f"{h}_c", f"{h}_d"
                            nodes += [helper.make_node("Constant", [], [c], value=helper.make_tensor(
                                          c, TensorProto.FLOAT, [], [TF32_SPLIT])),
                                      helper.make_node("Mul", [name, c], [h]), helper.make_node("Sub", [h, name], [d]),
                                      helper.make_node("Sub", [h, d], [f])]
                        else:
                            nodes.append(helper.make_node("Cast", [name], [h], to=half))
                            nodes.append(helper.make_node("Cast", [h], [f], to=TensorProto.FLOAT))
                        node.input[i] = f
            nodes.append(node)
        del g.node[:]
        g.node.extend(nodes)

    rewrite(m.graph)
    return m, count


def _with_shapes(m):
    """The model with ONNX's inferred shapes, or as it is where inference fails (shapes only decide
    each contraction's K; without them every contraction is rounded)."""
    import onnx
    try:
        return onnx.shape_inference.infer_shapes(m)
    except Exception:   # noqa: BLE001 -- any failure of inference leaves the model as it is
        return m


def rounding_error(plan, model, precision: str, seed: int = 0, reference: dict | None = None) -> float | None:
    """How far onnxruntime itself moves when the contractions' operands are rounded to `precision`
    (`rounded_model`), on the verify stage's inputs: the error that the precision alone explains.
    `reference`: onnxruntime's plain outputs on those inputs where the caller has them
    (`measure_error`'s). None where the precision rounds nothing (fp32)."""
    return rounding_errors(plan, model, precision, seed, reference).rounding


class Rounded(NamedTuple):
    rounding: float | None        # onnxruntime with the operands rounded, against onnxruntime plain
    plan: float | None            # the plan against onnxruntime with the operands rounded


def rounding_errors(plan, model, precision: str, seed: int = 0, reference: dict | None = None,
                    outputs: dict | None = None) -> Rounded:
    """`rounding_error`, and the plan's own outputs (`outputs`, where the caller has them) against the
    rounded reference: a plan that matches onnxruntime computing with the same rounding is right
    whatever the rounding does to the plain reference. None for both in fp32."""
    if precision not in ROUNDED_TYPES:
        return Rounded(None, None)
    inputs = sample_inputs(plan, seed)
    rounded, count = rounded_model(model, precision)
    ref = reference if reference is not None else _run(_session(model), inputs)
    ref = {n: ref[n] for n in plan.outputs}
    got = _run(_session(rounded), inputs) if count else ref       # nothing rounded: the reference itself
    got = {n: got[n] for n in plan.outputs}
    return Rounded(max_rel_error(got, ref),
                   None if outputs is None else max_rel_error({n: outputs[n] for n in plan.outputs}, got))
