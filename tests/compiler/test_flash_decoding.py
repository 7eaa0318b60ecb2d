"""Kind flash_decoding (compiler/kinds/flash_decoding.py, compiler/codegen/flash_decoding.py):
attention with few queries a head as one kernel whose blocks split the keys, the last block of a
head combining the splits. Run on the host harness against NumPy (in default and shuffled block
order, so that any block may arrive last) over key lengths 1..5000, head sizes 32..256 (and ones
that are not a multiple of a warp), one to eight queries, with and without padding and causal
masks, in fp32 and with 16-bit inputs, over every chunk the kind offers; the ONNX Attention op;
and its price against the other kinds and the members apart."""
from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import helper, numpy_helper

from compiler import compile
from compiler.ir.dtypes import DType
from compiler.kinds import flash_attention, flash_decoding as fd, resident_rows
from compiler.pipeline import CompileOptions, plan_before

from .test_resident import ONNX_TYPE, TOL, attention_np, force_fused_kind, make_model, run


def decoding_kernels(report) -> list[dict]:
    return [k for k in report["kernels"] if k["config"].get("schedule") == fd.NAME]


@pytest.fixture
def decoding_only(monkeypatch):
    """The welder stage's choice forced to this kind where it applies, to check its kernel at
    sizes where another kind or the members apart are predicted faster."""
    force_fused_kind(monkeypatch, fd.NAME)


def decoding_attention(b, h, sq, sk, d, dv, dtype, mask: str) -> bytes:
    """Q (sq new tokens) against K and V (sk cached): Q.K^T * scale (+ mask) -> Softmax ->
    Where(IsNaN, 0) -> .V -> transpose to (b, sq, h, dv), as exporters write a decoder's step."""
    t = ONNX_TYPE[dtype]
    scale = numpy_helper.from_array(np.array(1 / np.sqrt(d), DType[dtype].np), "scale")
    zero = numpy_helper.from_array(np.array(0, DType[dtype].np), "zero")
    nodes = [helper.make_node("Transpose", ["k"], ["kt"], perm=[0, 1, 3, 2]),
             helper.make_node("MatMul", ["q", "kt"], ["qk"]),
             helper.make_node("Mul", ["qk", "scale"], ["scores"])]
    inputs = [("q", t, [b, h, sq, d]), ("k", t, [b, h, sk, d]), ("v", t, [b, h, sk, dv])]
    logits = "scores"
    if mask != "none":
        inputs.append(("mask", t, [b, 1, 1, sk] if mask == "padding" else [sq, sk]))
        nodes.append(helper.make_node("Add", ["scores", "mask"], ["masked"]))
        logits = "masked"
    nodes += [helper.make_node("Softmax", [logits], ["p"], axis=-1),
              helper.make_node("IsNaN", ["p"], ["nan"]),
              helper.make_node("Where", ["nan", "zero", "p"], ["pz"]),
              helper.make_node("MatMul", ["pz", "v"], ["o"]),
              helper.make_node("Transpose", ["o"], ["y"], perm=[0, 2, 1, 3])]
    return make_model(nodes, inputs, [("y", t, [b, sq, h, dv])], [scale, zero])


def decoding_feeds(rng, b, h, sq, sk, d, dv, dtype, mask) -> dict:
    np_t = DType[dtype].np
    feeds = {"q": rng.standard_normal((b, h, sq, d)), "k": rng.standard_normal((b, h, sk, d)),
             "v": rng.standard_normal((b, h, sk, dv))}
    feeds = {n: x.astype(np.float32).astype(np_t) for n, x in feeds.items()}
    if mask == "padding":           # batch i pads its last i * sk / 3 keys
        m = np.zeros((b, 1, 1, sk), np.float32)
        for i in range(1, b):
            m[i, ..., sk - i * max(1, sk // 3):] = -np.inf
        feeds["mask"] = m.astype(np_t)
    elif mask == "causal":          # the new tokens are the last sq of the sk
        feeds["mask"] = np.triu(np.full((sq, sk), -np.inf, np.float32), sk - sq + 1).astype(np_t)
    return feeds


# the reference: attention_np broadcasts the one-query scores against any number of keys alike
decoding_np = attention_np


CASES = [
    # (batch, heads, new tokens, cached keys, head size, value size, dtype, mask)
    (1, 2, 1, 1, 32, 32, "float32", "none"),
    (2, 3, 1, 100, 32, 32, "float32", "padding"),
    (1, 4, 1, 2048, 64, 64, "float32", "padding"),
    (1, 2, 4, 300, 128, 128, "float32", "causal"),
    (1, 1, 3, 5000, 256, 256, "float32", "none"),
    (2, 2, 8, 513, 40, 72, "float32", "causal"),
    (2, 2, 1, 777, 96, 96, "float16", "padding"),
    (1, 2, 2, 1030, 64, 64, "bfloat16", "causal"),
]


@pytest.mark.parametrize("b,h,sq,sk,d,dv,dtype,mask", CASES)
def test_decoding_attention_is_one_kernel_and_right(b, h, sq, sk, d, dv, dtype, mask, decoding_only):
    rng = np.random.default_rng(sk * 7 + d + sq)
    feeds = decoding_feeds(rng, b, h, sq, sk, d, dv, dtype, mask)
    art, got = run(decoding_attention(b, h, sq, sk, d, dv, dtype, mask), feeds)
    want = decoding_np(feeds, d)
    for g in got:
        assert g.dtype == DType[dtype].np
        np.testing.assert_allclose(g.astype(np.float32), want, rtol=TOL[dtype], atol=TOL[dtype])
    rep = art.report
    assert rep["launches_per_inference"] == 1
    (k,) = decoding_kernels(rep)
    cfg = k["config"]
    assert (cfg["row_length"], cfg["head_dim"], cfg["value_dim"], cfg["heads"]) == (sk, d, dv, b * h)
    assert cfg["key_splits"] == -(-sk // cfg["key_chunk"])
    assert k["grid"][0] == b * h * cfg["key_splits"] and k["block"][0] == fd.THREADS


def run_tiling(monkeypatch, t: fd.Tiling, data: bytes, feeds: dict, want: np.ndarray) -> dict:
    """The model compiled with the kind's configuration forced to tiling `t`, checked against
    `want` on the host harness (fixed and shuffled block order): its kernel's report entry."""
    monkeypatch.setattr(fd, "configuration", lambda att, spec, target: fd._config(
        t, fd.workload(att, spec, t), att.head_count))
    art, got = run(data, feeds)
    for y in got:
        np.testing.assert_allclose(y, want, rtol=1e-4, atol=1e-4)
    (k,) = decoding_kernels(art.report)
    return k


def force_group(monkeypatch, group: int) -> None:
    """The kind's configuration: the fastest predicted tiling with `group` heads a block, where
    the attention offers that group (else the usual choice)."""
    choose = fd.configuration
    monkeypatch.setattr(fd, "configuration", lambda att, spec, target: min(
        (fd._config(t, fd.workload(att, spec, t), att.head_count)
         for t in fd.tilings(att, target.shared_per_block) if t.group == group),
        key=lambda c: fd.predict(c, target).us) if group in fd.head_groups(att) else choose(att, spec, target))


def test_every_chunk_is_right(monkeypatch, decoding_only):
    """Each chunk the kind offers, from one split (the closing in the block) to 22 (the head's
    last block combines them), over a head size that is not a multiple of a warp (40) and a value
    size that leaves key groups (48: two groups of 64 lanes, the second partly past the end)."""
    b, h, sq, sk, d, dv = 2, 1, 3, 700, 40, 48
    rng = np.random.default_rng(21)
    feeds = decoding_feeds(rng, b, h, sq, sk, d, dv, "float32", "padding")
    data = decoding_attention(b, h, sq, sk, d, dv, "float32", "padding")
    want = decoding_np(feeds, d)
    seen = set()
    for ch in fd.CHUNKS:
        if ch > 1024:       # longer than the shortest chunk that holds every key
            continue
        t = fd.Tiling(ch, -(-sk // ch), sq, d, dv)
        k = run_tiling(monkeypatch, t, data, feeds, want)
        assert (k["config"]["key_chunk"], k["config"]["key_splits"]) == (ch, t.splits)
        assert k["shared_bytes"] == t.shared_bytes()
        seen.add(t.splits)
    assert seen == {1, 2, 3, 6, 11, 22}


def test_a_fully_masked_head_gives_zeros_through_the_nan_guard(decoding_only):
    """Batch 1 masks every key: each split's max is -inf, so every block's weights are 0, and the
    guard's zero is written, not 0/0."""
    b, h, sq, sk, d = 2, 2, 1, 600, 32
    rng = np.random.default_rng(5)
    feeds = decoding_feeds(rng, b, h, sq, sk, d, d, "float32", "padding")
    feeds["mask"][1] = -np.inf
    art, got = run(decoding_attention(b, h, sq, sk, d, d, "float32", "padding"), feeds)
    (k,) = decoding_kernels(art.report)
    assert k["config"]["key_splits"] > 1
    for g in got:
        assert np.all(g[1] == 0) and np.all(np.isfinite(g))
        np.testing.assert_allclose(g, decoding_np(feeds, d), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("sk,d,causal", [(900, 64, 0), (65, 128, 1)])
def test_onnx_attention_op_decoding(sk, d, causal, decoding_only):
    """The Attention op's lowering (its -inf -> 0 guard on the max, the division by the sum in
    the product's epilogue) with one query against sk keys."""
    from compiler.ir.graph import Node
    from compiler.ops.registry import lookup
    rng = np.random.default_rng(sk + d)
    b, h = 2, 3
    t = ONNX_TYPE["float32"]
    feeds = {"q": rng.standard_normal((b, h, 1, d)).astype(np.float32),
             "k": rng.standard_normal((b, h, sk, d)).astype(np.float32),
             "v": rng.standard_normal((b, h, sk, d)).astype(np.float32)}
    feeds["mask"] = np.where(rng.random((1, sk)) < 0.2, -np.inf, 0).astype(np.float32)
    feeds["mask"][:, 0] = 0
    node = helper.make_node("Attention", ["q", "k", "v", "mask"], ["y"], is_causal=causal)
    data = make_model([node], [("q", t, [b, h, 1, d]), ("k", t, [b, h, sk, d]), ("v", t, [b, h, sk, d]),
                               ("mask", t, [1, sk])], [("y", t, [b, h, 1, d])], opset=23)
    art, got = run(data, feeds)
    ir_node = Node(op="Attention", name="a", inputs=("q", "k", "v", "mask"), outputs=("y",),
                   attrs=(("is_causal", causal),))
    (want,) = lookup("Attention").reference(ir_node, [feeds[n] for n in ("q", "k", "v", "mask")], 23)
    for g in got:
        np.testing.assert_allclose(g, want, rtol=1e-4, atol=1e-4)
    assert art.report["launches_per_inference"] == 1
    assert decoding_kernels(art.report)


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_a_decoders_step_takes_this_kind_unforced_with_its_keys_split(dtype):
    """One token of 32 heads against 2048 cached keys of 128 (a 7B decoder's step): the other
    kinds give one block a head, 32 blocks on an h100's 132 SMs; this kind is priced faster than
    each of them and than the members apart, and its chunk is the micro-model's choice. Its
    workspace is in the plan's types, sized as the configuration says."""
    from compiler.roller.micro_model import predict
    from compiler.targets import get_target
    data = decoding_attention(1, 32, 1, 2048, 128, 128, dtype, "padding")
    art = compile(data, "h100", CompileOptions(build=False))
    (g,) = [g for g in art.report["fusion"]["groups"] if g.get("level") == "shared"]
    kinds = g["predicted_us"]["kinds"]
    assert g["predicted_us"]["kind"] == fd.NAME == min(kinds, key=kinds.get)
    assert resident_rows.NAME in kinds and g["predicted_us"]["fused"] < g["predicted_us"]["apart"]
    assert art.report["launches_per_inference"] == 1
    (k,) = decoding_kernels(art.report)
    assert k["config"]["key_splits"] > 1 and k["grid"][0] == 32 * k["config"]["key_splits"]
    plan = plan_before("roller", data, "h100", CompileOptions(build=False))
    (spec,) = [s.spec for s in plan.steps if getattr(getattr(s, "spec", None), "kind", None) == fd.NAME]
    types = dict(plan.types)
    assert spec.workspace and types[spec.workspace].shape == (int(spec.config.param("ws_elems")),)
    assert types[spec.workspace].shape[0] == 32 * k["config"]["key_splits"] * 1 * (128 + 2)
    target = get_target("h100")
    att = fd.analyse(spec)
    best = min(predict(fd._config(t, fd.workload(att, spec, t), 32), target).us
               for t in fd.tilings(att, target.shared_per_block))
    assert k["config"]["predicted_us"] == round(best, 4)


def test_split_k_off_splits_no_keys():
    """`--disable split_k`: the decoder's step above splits nothing (no kernel's keys or k split,
    no workspace). One block a head then prices flash decoding far above the rows kernel
    (whose QK product is a reduction of its own), so the plan is that pair, predicted slower than
    the split kernel, and right."""
    data = decoding_attention(1, 32, 1, 2048, 128, 128, "float32", "padding")
    split = compile(data, "h100", CompileOptions(build=False)).report
    feeds = decoding_feeds(np.random.default_rng(5), 1, 32, 1, 2048, 128, 128, "float32", "padding")
    art, got = run(data, feeds, disable=("split_k",), modes=("default",))
    rep = art.report
    assert rep["memory"]["workspace_bytes"] == 0
    assert all(int(k["config"].get(p, 1)) == 1 for k in rep["kernels"] for p in ("key_splits", "split_k"))
    (g,) = rep["fusion"]["declined"]
    kinds = g["predicted_us"]["kinds"]
    assert kinds[fd.NAME] > kinds[resident_rows.NAME]
    assert decoding_kernels(split)[0]["config"]["key_splits"] > 1
    assert rep["latency"]["predicted_us"] > split["latency"]["predicted_us"]
    np.testing.assert_allclose(got[0], decoding_np(feeds, 128), rtol=TOL["float32"], atol=TOL["float32"])


def gqa_decoding_attention(b, h, kv, sq, sk, d, dtype, mask, repeat) -> bytes:
    """decoding_attention with `kv` key/value heads repeated to the h query heads as exporters
    write it: "expand" (transformers' repeat_kv: Unsqueeze, Expand, Reshape; query head i reads
    key head i / (h / kv)) or "tile" (Tile over the heads: query head i reads key head i % kv)."""
    m = onnx.load_from_string(decoding_attention(b, h, sq, sk, d, d, dtype, mask))
    g, rep = m.graph, h // kv
    nodes = []
    for name in ("k", "v"):
        if repeat == "expand":
            nodes += [helper.make_node("Unsqueeze", [name, "axis2"], [name + "_u"]),
                      helper.make_node("Expand", [name + "_u", "expanded"], [name + "_e"]),
                      helper.make_node("Reshape", [name + "_e", "repeated"], [name + "_r"])]
        else:
            nodes.append(helper.make_node("Tile", [name, "tiles"], [name + "_r"]))
    for node in g.node:
        node.input[:] = [x + "_r" if x in ("k", "v") else x for x in node.input]
    chain = list(g.node)
    del g.node[:]
    g.node.extend(nodes + chain)
    g.initializer.extend([numpy_helper.from_array(np.array(x, np.int64), n) for n, x in
                          (("axis2", [2]), ("expanded", [b, kv, rep, sk, d]), ("repeated", [b, h, sk, d]),
                           ("tiles", [1, rep, 1, 1]))])
    for vi in g.input:
        if vi.name in ("k", "v"):
            vi.type.tensor_type.shape.dim[1].dim_value = kv
    onnx.checker.check_model(m)
    return m.SerializeToString()


@pytest.mark.parametrize("b,h,kv,sq,sk,dtype,mask,group", [
    (1, 8, 2, 1, 700, "float32", "none", 4),
    (2, 8, 4, 3, 300, "float32", "causal", 2),       # 2 heads x 3 queries a block
    (2, 12, 3, 2, 129, "float16", "padding", 4),
    (1, 6, 2, 1, 90, "float32", "padding", 3),
    (1, 8, 2, 3, 64, "float32", "none", 2),          # 4 x 3 rows are over 8: the group's halves
])
def test_grouped_query_heads_share_a_block(monkeypatch, b, h, kv, sq, sk, dtype, mask, group, decoding_only):
    """Grouped-query attention whose keys are repeated per query head (repeat_kv): the query heads
    of a key head are proven to read the same keys (analysis/quasi_affine.py) and share a block;
    the largest group within MAX_QUERIES rows is offered, and its kernel (forced: at these sizes
    the micro-model may prefer more blocks) is right."""
    d = 64
    rng = np.random.default_rng(h * sk + sq)
    feeds = decoding_feeds(rng, b, kv, sq, sk, d, d, dtype, mask)
    feeds["q"] = rng.standard_normal((b, h, sq, d)).astype(np.float32).astype(DType[dtype].np)
    data = gqa_decoding_attention(b, h, kv, sq, sk, d, dtype, mask, "expand")
    plan = plan_before("roller", data, "h100", CompileOptions(build=False))
    (spec,) = [s.spec for s in plan.steps if getattr(getattr(s, "spec", None), "kind", None) == fd.NAME]
    assert max(fd.head_groups(fd.analyse(spec))) == group
    force_group(monkeypatch, group)
    art, got = run(data, feeds)
    want = decoding_np({**feeds, "k": np.repeat(feeds["k"], h // kv, 1), "v": np.repeat(feeds["v"], h // kv, 1)}, d)
    for y in got:
        np.testing.assert_allclose(y.astype(np.float32), want, rtol=TOL[dtype], atol=TOL[dtype])
    assert art.report["launches_per_inference"] == 1
    (k,) = decoding_kernels(art.report)
    cfg = k["config"]
    assert cfg["head_group"] == group and k["grid"][0] == b * h // group * cfg["key_splits"]


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_a_gqa_decoders_step_groups_its_heads_unforced(dtype):
    """One token of 32 query heads over 8 repeated key heads against 4096 cached keys of 128 (a
    Llama-3-8B step): groups of 2 and 4 heads are offered, the micro-model prices a group below
    one head a block (each key read once for several queries: a half or a quarter of the L2
    traffic), and the welder stage takes the cheapest."""
    from compiler.roller.micro_model import predict
    from compiler.targets import get_target
    data = gqa_decoding_attention(1, 32, 8, 1, 4096, 128, dtype, "padding", "expand")
    art = compile(data, "h100", CompileOptions(build=False))
    (k,) = decoding_kernels(art.report)
    assert art.report["launches_per_inference"] == 1
    plan = plan_before("roller", data, "h100", CompileOptions(build=False))
    (spec,) = [s.spec for s in plan.steps if getattr(getattr(s, "spec", None), "kind", None) == fd.NAME]
    att, target = fd.analyse(spec), get_target("h100")
    assert fd.head_groups(att) == (1, 2, 4)
    price = {t: predict(fd._config(t, fd.workload(att, spec, t), att.head_count), target).us
             for t in fd.tilings(att, target.shared_per_block)}
    best = {g: min(us for t, us in price.items() if t.group == g) for g in (1, 2, 4)}
    chosen = k["config"]["head_group"]
    assert chosen > 1 and best[chosen] == min(best.values()) < best[1]
    assert k["config"]["predicted_us"] == round(best[chosen], 4)
    assert k["grid"][0] == 32 // chosen * k["config"]["key_splits"]


def test_every_head_group_is_right(monkeypatch, decoding_only):
    """Each group the kind offers, with one split and with several (the workspace indexed by
    group), the heads two row axes (batch and head) so that the group is on the last of them."""
    b, h, kv, sq, sk, d = 2, 8, 2, 2, 300, 32
    rng = np.random.default_rng(3)
    feeds = decoding_feeds(rng, b, kv, sq, sk, d, d, "float32", "causal")
    feeds["q"] = rng.standard_normal((b, h, sq, d)).astype(np.float32)
    data = gqa_decoding_attention(b, h, kv, sq, sk, d, "float32", "causal", "expand")
    want = decoding_np({**feeds, "k": np.repeat(feeds["k"], h // kv, 1), "v": np.repeat(feeds["v"], h // kv, 1)}, d)
    seen = set()
    for g in (1, 2, 4):
        for ch in (512, 64):
            t = fd.Tiling(ch, -(-sk // ch), g * sq, d, d, g)
            k = run_tiling(monkeypatch, t, data, feeds, want)
            assert (k["config"]["head_group"], k["config"]["key_splits"]) == (g, t.splits)
            assert k["grid"][0] == b * h // g * t.splits
            seen.add((g, t.splits))
    assert seen == {(1, 1), (1, 5), (2, 1), (2, 5), (4, 1), (4, 5)}


def test_interleaved_key_heads_are_not_grouped(decoding_only):
    """Tile repeats the key heads interleaved (query head i reads key head i % kv): consecutive
    query heads read different keys, so no group is proven, and the kernel is right one head a
    block."""
    b, h, kv, sq, sk, d = 1, 8, 2, 1, 200, 32
    rng = np.random.default_rng(8)
    feeds = decoding_feeds(rng, b, kv, sq, sk, d, d, "float32", "none")
    feeds["q"] = rng.standard_normal((b, h, sq, d)).astype(np.float32)
    data = gqa_decoding_attention(b, h, kv, sq, sk, d, "float32", "none", "tile")
    art, got = run(data, feeds)
    want = decoding_np({**feeds, "k": np.tile(feeds["k"], (1, h // kv, 1, 1)),
                        "v": np.tile(feeds["v"], (1, h // kv, 1, 1))}, d)
    for y in got:
        np.testing.assert_allclose(y, want, rtol=1e-4, atol=1e-4)
    plan = plan_before("roller", data, "h100", CompileOptions(build=False))
    (spec,) = [s.spec for s in plan.steps if getattr(getattr(s, "spec", None), "kind", None) == fd.NAME]
    assert fd.head_groups(fd.analyse(spec)) == (1,)
    (k,) = decoding_kernels(art.report)
    assert k["config"]["head_group"] == 1 and k["grid"][0] == h * k["config"]["key_splits"]


def test_prefill_is_not_this_kinds():
    """Nine queries a head or more: the kind declines with the reason (the others tile them)."""
    from .test_flash_attention import row_chains
    data = decoding_attention(1, 2, 9, 64, 32, 32, "float32", "none")
    (spec,) = [s for s in row_chains(data) if not isinstance(flash_attention.recognise(s), str)]
    why = fd.analyse(spec)
    assert isinstance(why, str) and "9 queries" in why and fd.applies(spec) == why
    assert fd.applies(row_chains(decoding_attention(1, 2, 8, 64, 32, 32, "float32", "none"))[0]) is None
