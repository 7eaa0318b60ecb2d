"""SparTA's 2:4 path (issue 16): a contraction over a 2:4 constant, at fp16/bf16 on sm_80+, is
compressed (values + metadata), its expression rewritten to read the compressed form, and kinded
sparse24_gemm (mma.sp) where the micro-model predicts it faster; right on the host harness for
every operand layout the kernel stages, every pipeline depth and k step; left exactly as it was
otherwise (fp32, sm_75, a weight that is not 2:4, a dense model)."""
from __future__ import annotations

import dataclasses
import os

import ml_dtypes
import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import compiler
from compiler.analysis.views import gemm_view
from compiler.context import CompileOptions
from compiler.ir.plan import LaunchStep
from compiler.kinds import sparse24_gemm
from compiler.passes.sparse24 import compress, expand
from compiler.runtime.executor import Executor, HostBackend
from compiler.targets import get_target

SHARED = os.environ.get("BRICKYARD_SHARED", os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared"))
MODELS = os.path.join(SHARED, "models")
NP_HALF = {"fp16": np.float16, "bf16": ml_dtypes.bfloat16}


def prune_24(w: np.ndarray, k_axis: int) -> np.ndarray:
    """Magnitude 2:4 pruning along `k_axis`: the two largest of every four consecutive values kept."""
    wk = np.moveaxis(w, k_axis, -1).copy()
    g = wk.reshape(*wk.shape[:-1], -1, 4)
    drop = np.argsort(np.abs(g), axis=-1, kind="stable")[..., :2]
    np.put_along_axis(g, drop, 0.0, axis=-1)
    return np.moveaxis(g.reshape(wk.shape), -1, k_axis)


def _compile(model, target="a100", precision="fp16", *disable):
    return compiler.compile(model, target, CompileOptions(build=False, precision=precision, disable=disable))


def _contraction(m, k, n, *, layout="xW", x_dtype=TensorProto.FLOAT, seed=0, prune=True):
    """A MatMul/Gemm (+ Relu) over a 2:4 weight: "xW" x[m,k] @ W[k,n]; "Wx" W[m,k] @ x[k,n] (the
    weight as A, the dense operand row-major along n); "gemmT" Gemm(x, W[n,k], transB=1);
    "xTW" Transpose(xt[k,m]) @ W (the dense operand read k-major)."""
    rng = np.random.default_rng(seed)
    wshape = {"xW": (k, n), "Wx": (m, k), "gemmT": (n, k), "xTW": (k, n)}[layout]
    npt = np.float32 if x_dtype == TensorProto.FLOAT else np.float16    # the model's own type throughout
    w = rng.standard_normal(wshape).astype(np.float32)
    if prune:
        w = prune_24(w, {"xW": 0, "Wx": 1, "gemmT": 1, "xTW": 0}[layout])
    w = w.astype(npt)
    xshape = {"xW": (m, k), "Wx": (k, n), "gemmT": (m, k), "xTW": (k, m)}[layout]
    nodes = {"xW": [helper.make_node("MatMul", ["x", "W"], ["y"])],
             "Wx": [helper.make_node("MatMul", ["W", "x"], ["y"])],
             "gemmT": [helper.make_node("Gemm", ["x", "W"], ["y"], transB=1)],
             "xTW": [helper.make_node("Transpose", ["x"], ["xt"], perm=[1, 0]),
                     helper.make_node("MatMul", ["xt", "W"], ["y"])]}[layout]
    g = helper.make_graph(nodes + [helper.make_node("Relu", ["y"], ["z"])], "g",
                          [helper.make_tensor_value_info("x", x_dtype, list(xshape))],
                          [helper.make_tensor_value_info("z", x_dtype, [None, None])],
                          [numpy_helper.from_array(w, "W")])
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    x = rng.standard_normal(xshape).astype(npt)
    return model, x, w


def _want(layout, x, w, precision):
    """The contraction with both operands rounded to the precision's half type, summed exactly."""
    half = NP_HALF[precision]
    xr, wr = x.astype(half).astype(np.float64), w.astype(half).astype(np.float64)
    y = {"xW": lambda: xr @ wr, "Wx": lambda: wr @ xr, "gemmT": lambda: xr @ wr.T, "xTW": lambda: xr.T @ wr}[layout]()
    return np.maximum(y, 0)


def test_compress_keeps_two_positions_in_order_and_expands_back():
    rng = np.random.default_rng(1)
    w = prune_24(rng.standard_normal((8, 64)).astype(np.float32), 1)
    w[0, 4:8] = [0, 0, 0, 1.5]       # one non-zero, at the last position
    w[1, 0:4] = 0                    # none
    vals, meta = compress(w, compiler.ir.dtypes.DType.float16)
    assert vals.shape == (8, 32) and vals.dtype == np.float16 and meta.shape == (8, 16) and meta.dtype == np.uint8
    assert ((meta & 3) < (meta >> 2)).all()           # ordered metadata: p0 < p1 in every chunk
    assert meta[0, 1] == (0 | 3 << 2) and list(vals[0, 2:4]) == [0, 1.5]
    assert meta[1, 0] == (0 | 1 << 2)
    np.testing.assert_array_equal(expand(vals, meta), w.astype(np.float16).astype(np.float32))


LAYOUTS = [
    # (m, k, n, layout, precision, x dtype, target)
    (64, 256, 128, "xW", "fp16", TensorProto.FLOAT, "a100"),    # weight as B, dense A k-major, vector loads
    (37, 512, 90, "xW", "bf16", TensorProto.FLOAT, "h100"),     # ragged M and N: guarded rows both sides
    (96, 128, 48, "Wx", "fp16", TensorProto.FLOAT, "a100"),     # weight as A; dense B row-major (ldmatrix.trans)
    (64, 192, 80, "gemmT", "fp16", TensorProto.FLOAT16, "h100"),  # weight [n, k]; fp16 input: cp.async loads
    (48, 256, 64, "xTW", "fp16", TensorProto.FLOAT, "a100"),    # dense operand through a transpose
]


@pytest.fixture
def sparse_preferred(monkeypatch):
    """The 2:4 pass choosing mma.sp whenever a configuration fits: for tests of the kernel itself on
    small shapes, where a dense split-K kernel is predicted at least as fast (latency-bound: half
    the weight's bytes saves nothing there). test_the_choice_is_the_micro_model_s tests the choice."""
    import compiler.passes.sparse24 as pass_module
    real = pass_module.predict

    def predict(cfg, target):
        p = real(cfg, target)
        return p if cfg.kind == sparse24_gemm.NAME else dataclasses.replace(p, us=p.us * 100.0)
    monkeypatch.setattr(pass_module, "predict", predict)


def test_the_choice_is_the_micro_model_s():
    """Where the weight's bytes matter (128 x 512 x 256), mma.sp is predicted faster and chosen; on
    a latency-bound shape (64 x 256 x 128) the dense split-K kernel is predicted at least as fast
    and stays, with the reason recorded."""
    model, _, _ = _contraction(128, 512, 256)
    (entry,) = _compile(model).report["sparsity"]["kernels"]
    assert entry["chosen"] == "sparse24" and entry["predicted_us"]["sparse24"] < entry["predicted_us"]["dense"]
    model, _, _ = _contraction(64, 256, 128)
    (entry,) = _compile(model).report["sparsity"]["kernels"]
    assert entry["chosen"] == "dense" and entry["predicted_us"]["dense"] <= entry["predicted_us"]["sparse24"]
    assert "at least as fast" in entry["why"]


@pytest.mark.parametrize("m,k,n,layout,precision,x_dtype,target", LAYOUTS)
def test_a_two_four_contraction_runs_on_sparse_tensor_cores_and_is_right(m, k, n, layout, precision, x_dtype,
                                                                         target, sparse_preferred):
    model, x, w = _contraction(m, k, n, layout=layout, x_dtype=x_dtype)
    art = _compile(model, target, precision)
    (entry,) = art.report["sparsity"]["kernels"]
    assert entry["chosen"] == "sparse24", entry
    assert entry["operand"] == ("a" if layout == "Wx" else "b") and entry["format"] == "2:4"
    (kern,) = [k_ for k_ in art.report["kernels"] if k_["config"].get("format") == "2:4"]
    assert kern["flops"]["executed"] * 2 == kern["flops"]["dense"]
    assert kern["roofline"]["ceiling"] == f"tensor core {'bfloat16' if precision == 'bf16' else 'float16'}"
    # the dense weight left the plan: only its compressed form (values + metadata) is kept
    consts = dict(art.plan.constants)
    assert not any(n_.startswith("W") and not (".sp24v" in n_ or ".sp24m" in n_) for n_ in consts), sorted(consts)
    assert sum(c.type.nbytes for c in consts.values()) == w.size + w.size // 4    # K/2 halves + K/4 bytes per row
    want = _want(layout, x, w, precision)
    for mode in ("default", "shuffle"):
        got = Executor(art.plan, HostBackend(mode=mode, seed=3)).run({"x": x})["z"].astype(np.float64)
        np.testing.assert_allclose(got, want, rtol=2e-3, atol=2e-3, err_msg=mode)
    # the zeros matter: the same kernel without the weight's zeros in place would differ
    assert np.abs(_want(layout, x, np.where(w == 0, 0.5, w), precision) - want).max() > 0.1


def test_every_pipeline_depth_k_step_and_warp_shape_of_the_kind_is_right(sparse_preferred):
    """The kernel of many configurations (1-4 stages, k steps of 32 and 64, several warp tilings)
    rendered and run against NumPy, with the lanes of each warp in a shuffled order."""
    model, x, w = _contraction(40, 256, 72, seed=4)
    art = _compile(model)
    (step,) = [s for s in art.plan.steps if isinstance(s, LaunchStep)]
    kernel = step.kernel
    te = kernel.expr
    cfg0 = dict(kernel.config)
    v = gemm_view(te)
    cands = sparse24_gemm.candidates(te, v, "b", int(cfg0["values_arg"]), int(cfg0["meta_arg"]), "float16",
                                     get_target("a100"))
    picked = {}
    for cfg in (c for c in cands if c.param("split_k") == 1):   # split-K: test_split_k_of_the_kind_is_right
        blk, warp = cfg.tile("block"), cfg.tile("warp")
        picked.setdefault((cfg.param("stages"), blk.size("k"), blk.size("n") // warp.size("n"),
                           blk.size("m") // warp.size("m")), cfg)
    assert {s for s, *_ in picked} == {1, 2, 3, 4} and {bk for _, bk, *_ in picked} == {32, 64}
    chosen = [kv for s in (1, 2, 3, 4) for kv in sorted((kv for kv in picked.items() if kv[0][0] == s),
                                                         key=lambda kv: kv[0])[::3][:4]]
    ins = tuple(p.value for p in kernel.params if not p.output)
    out = kernel.params[-1].value
    want = _want("xW", x, w, "fp16")
    for key, cfg in chosen:
        k2 = sparse24_gemm.render_config(te, cfg, te.name, out, ins)
        plan = dataclasses.replace(art.plan, steps=tuple(LaunchStep(k2) if s is step else s for s in art.plan.steps))
        got = Executor(plan, HostBackend(mode="shuffle", seed=key[0])).run({"x": x})["z"]
        np.testing.assert_allclose(got, want, rtol=2e-3, atol=2e-3, err_msg=str(key))


def test_split_k_of_the_kind_is_right(sparse_preferred):
    """A skinny 2:4 contraction (16 x 1024 x 64) splits K on mma.sp as tc_gemm does: one launch,
    partial sums in the plan's workspace, each tile's last block summing them; right in both
    thread orders."""
    model, x, w = _contraction(16, 1024, 64, seed=5)
    art = _compile(model)
    (kern,) = art.plan.kernels()
    cfg = dict(kern.config)
    assert cfg["format"] == "2:4" and cfg["split_k"] > 1 and kern.arrivals > 0, cfg
    assert kern.params[-2].value in dict(art.plan.types)      # the workspace, a temporary of the plan
    want = _want("xW", x, w, "fp16")
    for mode in ("default", "shuffle"):
        got = Executor(art.plan, HostBackend(mode=mode, seed=2)).run({"x": x})["z"].astype(np.float64)
        np.testing.assert_allclose(got, want, rtol=2e-3, atol=2e-3, err_msg=mode)


@pytest.mark.parametrize("why,kwargs,target,precision", [
    ("fp32 has no sparse tensor-core path", {}, "a100", "fp32"),
    ("sm_75 has no mma.sp", {}, "t4", "fp16"),
    ("three non-zeros in a chunk is not 2:4", {"prune": False}, "a100", "fp16"),
])
def test_otherwise_the_contraction_is_left_as_it_was(why, kwargs, target, precision):
    model, _, _ = _contraction(64, 256, 128, **kwargs)
    on, off = _compile(model, target, precision), _compile(model, target, precision, "sparta")
    assert [k.digest for k in on.plan.kernels()] == [k.digest for k in off.plan.kernels()], why
    assert not any(k["config"].get("format") == "2:4" for k in on.report["kernels"]), why


@pytest.mark.parametrize("name", ["bert", "gpt2"])
def test_a_dense_model_at_fp16_gets_the_same_kernels_as_with_sparta_off(name):
    path = os.path.join(MODELS, f"{name}.onnx")
    on, off = _compile(path, "h100"), _compile(path, "h100", "fp16", "sparta")
    assert [k.digest for k in on.plan.kernels()] == [k.digest for k in off.plan.kernels()]
    assert on.report["sparsity"]["sparse_kernels"] == 0


def pruned_bert(path: str, out: str) -> list[str]:
    """bert.onnx with every 2-D MatMul weight 2:4-pruned along its input axis (what zoo.py's
    prune(model, "2:4", 0.5) does to each Linear before export); the pruned initializers' names."""
    model = onnx.load(path)
    weights = {n.input[1] for n in model.graph.node if n.op_type == "MatMul"}
    names = []
    for t in model.graph.initializer:
        a = numpy_helper.to_array(t)
        if t.name in weights and a.ndim == 2 and a.shape[0] % 32 == 0:
            t.CopyFrom(numpy_helper.from_array(prune_24(a.astype(np.float32), 0).astype(a.dtype), t.name))
            names.append(t.name)
    onnx.save(model, out)
    return names


@pytest.fixture(scope="module")
def bert_24(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("bert24") / "bert_24.onnx")
    names = pruned_bert(os.path.join(MODELS, "bert.onnx"), path)
    return path, names


def _dense_predicted_as_fast(entries) -> set[str]:
    """The pruned weights whose dense kernel (at this small size, a latency-bound split-K one) the
    micro-model predicts at least as fast as mma.sp, so that they stayed dense, saying why."""
    return {e["input"].split(".")[0] for e in entries if e["chosen"] == "dense" and "sparse24" in e["predicted_us"]
            and e["predicted_us"]["dense"] <= e["predicted_us"]["sparse24"] and "at least as fast" in e["why"]}


@pytest.mark.parametrize("target", ["a100", "h100"])
def test_a_two_four_bert_uses_sparse_tensor_cores_for_every_pruned_weight(bert_24, target):
    path, names = bert_24
    art = _compile(path, target)
    entries = art.report["sparsity"]["kernels"]
    chosen = [e for e in entries if e["chosen"] == "sparse24"]
    # a pruned GEMM runs on sparse tensor cores, or it joined a row chain (its LayerNorm after it)
    # the cost model predicts faster than the mma.sp GEMM and the rest apart, or its dense kernel
    # is predicted at least as fast
    reader = {i: n.name for n in onnx.load(path).graph.node for i in n.input}
    fused = {name for name in set(names) - {e["input"].split(".")[0] for e in chosen}
             for g in art.report["fusion"]["groups"] if g.get("level") == "shared" and reader[name] in g["ops"]
             and g["predicted_us"].get("apart_with_sparse_members")
             and g["predicted_us"]["fused"] < g["predicted_us"]["apart"]}
    dense = _dense_predicted_as_fast(entries)
    assert {e["input"].split(".")[0] for e in chosen} | fused | dense == set(names), entries
    assert art.report["sparsity"]["sparse_kernels"] == len(chosen) > 0
    # every one is an mma.sp kernel in the launches (Rammer co-launches the projections of a layer)
    calls = sum(k.source.count("by_mma_sp_m16n8k32_f16_f32(by_acc") for k in art.plan.kernels())
    assert calls == len(chosen)
    # with the welder stage off (no row chains to join), every pruned weight is on sparse tensor
    # cores (rammer off too: each GEMM its own kernel, so that each is one mma.sp call in a source)
    apart = _compile(path, target, "fp16", "welder", "rammer")
    entries = apart.report["sparsity"]["kernels"]
    alone = [e for e in entries if e["chosen"] == "sparse24"]
    assert {e["input"].split(".")[0] for e in alone} | _dense_predicted_as_fast(entries) == set(names), entries
    assert 2 * len(alone) > len(names), entries           # most of them on sparse tensor cores
    assert sum(k.source.count("by_mma_sp_m16n8k32_f16_f32(by_acc") for k in apart.plan.kernels()) == len(alone)


def test_a_two_four_bert_is_right_on_the_host_harness(bert_24):
    import onnxruntime as ort
    path, _ = bert_24
    data = np.load(os.path.join(MODELS, "bert.npz"))
    inputs = {k[3:]: data[k] for k in data if k.startswith("in:")}
    sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    ref = dict(zip([o.name for o in sess.get_outputs()], sess.run(None, inputs)))
    art = _compile(path, "a100")
    dense = _compile(path, "a100", "fp16", "sparta")
    got = Executor(art.plan, HostBackend()).run(inputs)
    base = Executor(dense.plan, HostBackend()).run(inputs)
    for name, want in ref.items():
        # fp16 operands: as far from the fp32 reference as the dense fp16 kernels are, and close to them
        err, err_dense = np.abs(got[name] - want).max(), np.abs(base[name] - want).max()
        assert err <= 2 * err_dense + 1e-3, (name, err, err_dense)
        np.testing.assert_allclose(got[name], base[name], rtol=5e-3, atol=5e-3)
