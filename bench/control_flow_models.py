"""Cocktailer's control-flow benchmark set, adapted (issue 15 item 7), as ONNX Loop and If graphs.

    .venv/bin/python bench/control_flow_models.py --out DIR [--size small|full]

Written with onnx.helper rather than exported from PyTorch (`torch.export` of `while_loop`/`cond`
gives the same ONNX Loop and If; PyTorch is not on every machine that runs this), with seeded
random weights. Each model is built from its recurrence, not from any compiler's view of it:

    lstm_loop   a stacked LSTM (full: 10 layers, hidden 256, 64 steps) as one Loop over time steps;
                every layer's h and c are carried values, the top layer's h a scan output
    nasrnn      the NAS recurrent cell (8 gate transforms of x and h combined by sigmoid, tanh,
                ReLU, products and sums) as a Loop over time steps
    seq2seq     a greedy decoder with a data-dependent stop: each step embeds the last token,
                updates h, takes the arg max; the Loop runs until the end token or a step limit
    attn_decode attention decoding over a fixed KV cache: each step attends with the carried state
                as the query and updates it (the loop-invariant key transposes are hoisted)
    blockdrop   BlockDrop/SkipNet: a stack of residual blocks, each behind an If whose predicate a
                small policy computes from the activations (input-dependent skips)

Sizes: `full` follows Cocktailer's (batch 1); `small` is what CPU tests run on the host harness."""
from __future__ import annotations

import argparse
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

F, I64, B = TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL
SIZES = {
    "small": {"layers": 2, "hidden": 32, "steps": 6, "vocab": 16, "cache": 12, "blocks": 3},
    "full": {"layers": 10, "hidden": 256, "steps": 64, "vocab": 1000, "cache": 128, "blocks": 16},
}


class _Graph:
    """Nodes, initializers and fresh names for one graph (a model's main graph or a body)."""

    def __init__(self, rng: np.random.Generator, prefix: str):
        self.rng, self.prefix, self.nodes, self.inits, self.k = rng, prefix, [], [], 0

    def name(self, hint: str) -> str:
        self.k += 1
        return f"{self.prefix}{hint}_{self.k}"

    def const(self, value, dtype=np.float32, hint="c") -> str:
        n = self.name(hint)
        self.inits.append(numpy_helper.from_array(np.asarray(value, dtype=dtype), n))
        return n

    def weight(self, *shape, scale: float | None = None) -> str:
        scale = scale if scale is not None else 1.0 / np.sqrt(shape[0])
        return self.const(self.rng.standard_normal(shape) * scale, hint="w")

    def op(self, op: str, *inputs: str, hint: str | None = None, **attrs) -> str:
        out = self.name(hint or op.lower())
        self.nodes.append(helper.make_node(op, list(inputs), [out], **attrs))
        return out

    def linear(self, x: str, n_in: int, n_out: int) -> str:
        return self.op("Add", self.op("MatMul", x, self.weight(n_in, n_out)), self.weight(n_out, scale=0.1))


def _vi(name, shape, t=F):
    return helper.make_tensor_value_info(name, t, shape)


def _model(g: _Graph, inputs, outputs) -> onnx.ModelProto:
    graph = helper.make_graph(g.nodes, g.prefix.strip("_") or "model", inputs, outputs, initializer=g.inits)
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="brickyard-bench")
    m.ir_version = 8
    onnx.checker.check_model(m)
    return m


def _step_input(g: _Graph, seq: str, it: str) -> str:
    """Row `it` of a [steps, 1, H] sequence, as [1, H]."""
    return g.op("Squeeze", g.op("Gather", seq, it, axis=0), g.const([0], np.int64))


def _time_loop(s: dict, name: str, carried: list[tuple[str, list[int]]], cell) -> onnx.ModelProto:
    """A Loop over s['steps'] time steps of x: [steps, 1, H]; `cell(body, x_t, carried names)`
    returns (new carried names, the step's output), stacked as a scan output."""
    H, T = s["hidden"], s["steps"]
    rng = np.random.default_rng(0)
    body = _Graph(rng, "b_")
    ins = [f"in_{n}" for n, _ in carried]
    x_t = _step_input(body, "x", "it")
    new, y = cell(body, x_t, ins)
    outs = [body.op("Identity", "cond")] + [body.op("Identity", v) for v in new] + [body.op("Identity", y)]
    body_graph = helper.make_graph(
        body.nodes, "body", [_vi("it", [], I64), _vi("cond", [], B)] + [_vi(i, sh) for i, (_, sh) in zip(ins, carried)],
        [_vi(outs[0], [], B)] + [_vi(o, sh) for o, (_, sh) in zip(outs[1:-1], carried)] + [_vi(outs[-1], [1, H])],
        initializer=body.inits)
    main = _Graph(rng, "")
    zeros = [main.const(np.zeros(sh, np.float32), hint=f"{n}0") for n, sh in carried]
    trips, go = main.const(T, np.int64, "trips"), main.const(True, np.bool_, "go")
    finals = [f"{n}_final" for n, _ in carried]
    main.nodes.append(helper.make_node("Loop", [trips, go] + zeros, finals + ["ys"], body=body_graph, name=name))
    main.op("Reshape", "ys", main.const([T, H], np.int64), hint="y")
    y_out = main.nodes[-1].output[0]
    return _model(main, [_vi("x", [T, 1, H])], [_vi(y_out, [T, H])])


def lstm_loop(s: dict) -> onnx.ModelProto:
    L, H = s["layers"], s["hidden"]

    def cell(g: _Graph, x, carried):
        new, inp = [], x
        for layer in range(L):
            h, c = carried[2 * layer], carried[2 * layer + 1]
            gates = g.op("Add", g.linear(inp, H, 4 * H), g.op("MatMul", h, g.weight(H, 4 * H)))
            i, f, gg, o = (g.name(k) for k in "ifgo")
            g.nodes.append(helper.make_node("Split", [gates, g.const([H] * 4, np.int64)], [i, f, gg, o], axis=1))
            c2 = g.op("Add", g.op("Mul", g.op("Sigmoid", f), c), g.op("Mul", g.op("Sigmoid", i), g.op("Tanh", gg)))
            h2 = g.op("Mul", g.op("Sigmoid", o), g.op("Tanh", c2))
            new += [h2, c2]
            inp = h2
        return new, inp
    return _time_loop(s, "lstm_loop", [(f"{k}{layer}", [1, H]) for layer in range(L) for k in "hc"], cell)


def nasrnn(s: dict) -> onnx.ModelProto:
    H = s["hidden"]

    def cell(g: _Graph, x, carried):
        h, c = carried
        m = g.op("Add", g.linear(x, H, 8 * H), g.op("MatMul", h, g.weight(H, 8 * H)))
        parts = [g.name(f"m{k}") for k in range(8)]
        g.nodes.append(helper.make_node("Split", [m, g.const([H] * 8, np.int64)], parts, axis=1))
        l1 = [g.op("Sigmoid", parts[0]), g.op("Relu", parts[1]), g.op("Sigmoid", parts[2]), g.op("Relu", parts[3]),
              g.op("Tanh", parts[4]), g.op("Sigmoid", parts[5]), g.op("Tanh", parts[6]), g.op("Sigmoid", parts[7])]
        l2 = [g.op("Tanh", g.op("Mul", l1[0], l1[1])), g.op("Tanh", g.op("Add", l1[2], l1[3])),
              g.op("Tanh", g.op("Mul", l1[4], l1[5])), g.op("Sigmoid", g.op("Add", l1[6], l1[7]))]
        c2 = g.op("Add", g.op("Tanh", g.op("Mul", l2[0], l2[1])), c)   # the cell's memory joins at level 3
        h2 = g.op("Tanh", g.op("Mul", g.op("Tanh", c2), g.op("Add", l2[2], l2[3])))
        return [h2, c2], h2
    return _time_loop(s, "nasrnn", [("h", [1, H]), ("c", [1, H])], cell)


def seq2seq(s: dict) -> onnx.ModelProto:
    """Greedy decoding from an encoder state until the end token (0) or `steps` tokens."""
    H, V, T = s["hidden"], s["vocab"], s["steps"]
    rng = np.random.default_rng(1)
    body = _Graph(rng, "b_")
    emb = body.op("Gather", body.weight(V, H, scale=1.0), "tok_in", axis=0)             # [1, H]
    h2 = body.op("Tanh", body.op("Add", body.linear("h_in", H, H), emb))
    logits = body.linear(h2, H, V)
    tok = body.op("ArgMax", logits, axis=1, keepdims=0)                               # [1]
    n2 = body.op("Add", "n_in", body.const([1], np.int64))
    go = body.op("Not", body.op("Equal", body.op("ReduceMax", tok, keepdims=0), body.const(0, np.int64)))
    body_graph = helper.make_graph(
        body.nodes, "decode",
        [_vi("it", [], I64), _vi("cond", [], B), _vi("h_in", [1, H]), _vi("tok_in", [1], I64), _vi("n_in", [1], I64)],
        [_vi(go, [], B), _vi(h2, [1, H]), _vi(tok, [1], I64), _vi(n2, [1], I64)], initializer=body.inits)
    main = _Graph(rng, "")
    start = main.const([1], np.int64, "start")
    count = main.const([0], np.int64, "count")
    limit, go0 = main.const(T, np.int64, "limit"), main.const(True, np.bool_, "go")
    main.nodes.append(helper.make_node("Loop", [limit, go0, "h0", start, count], ["h_end", "last", "tokens"],
                                       body=body_graph, name="seq2seq"))
    return _model(main, [_vi("h0", [1, H])], [_vi("h_end", [1, H]), _vi("last", [1], I64), _vi("tokens", [1], I64)])


def attn_decode(s: dict) -> onnx.ModelProto:
    """`steps` decoding steps attending over a fixed cache K, V: [S, H] with the state as query."""
    H, S, T = s["hidden"], s["cache"], s["steps"]
    rng = np.random.default_rng(2)
    body = _Graph(rng, "b_")
    kt = body.op("Transpose", "K", perm=[1, 0])                       # invariant: hoisted
    q = body.linear("h_in", H, H)
    p = body.op("Softmax", body.op("Mul", body.op("MatMul", q, kt), body.const(1.0 / np.sqrt(H))), axis=-1)
    ctx = body.op("MatMul", p, "V")
    h2 = body.op("Tanh", body.op("Add", body.linear(ctx, H, H), "h_in"))
    out = body.op("Identity", h2)
    body_graph = helper.make_graph(
        body.nodes, "attend", [_vi("it", [], I64), _vi("cond", [], B), _vi("h_in", [1, H])],
        [_vi(body.op("Identity", "cond"), [], B), _vi(h2, [1, H]), _vi(out, [1, H])], initializer=body.inits)
    main = _Graph(rng, "")
    trips, go = main.const(T, np.int64, "trips"), main.const(True, np.bool_, "go")
    main.nodes.append(helper.make_node("Loop", [trips, go, "h0"], ["h_end", "hs"], body=body_graph, name="attn_decode"))
    return _model(main, [_vi("h0", [1, H]), _vi("K", [S, H]), _vi("V", [S, H])],
                  [_vi("h_end", [1, H]), _vi("hs", [T, 1, H])])


def blockdrop(s: dict) -> onnx.ModelProto:
    """Residual blocks x + W2 relu(W1 x), each run only when a policy on x says so."""
    H, N = s["hidden"], s["blocks"]
    rng = np.random.default_rng(3)
    main = _Graph(rng, "")
    x = "x"
    for k in range(N):
        br = _Graph(rng, f"blk{k}_")
        y = br.op("Add", x, br.linear(br.op("Relu", br.linear(x, H, H)), H, H))
        then_g = helper.make_graph(br.nodes, f"run{k}", [], [_vi(y, [1, H])], initializer=br.inits)
        skip = _Graph(rng, f"skip{k}_")
        z = skip.op("Identity", x)
        else_g = helper.make_graph(skip.nodes, f"skip{k}", [], [_vi(z, [1, H])])
        score = main.op("ReduceSum", main.op("MatMul", x, main.weight(H, 1)), keepdims=0)
        pred = main.op("Greater", score, main.const(0.0))
        out = main.name(f"x{k + 1}")
        main.nodes.append(helper.make_node("If", [pred], [out], then_branch=then_g, else_branch=else_g, name=f"block{k}"))
        x = out
    return _model(main, [_vi("x", [1, H])], [_vi(x, [1, H])])


MODELS = {"lstm_loop": lstm_loop, "nasrnn": nasrnn, "seq2seq": seq2seq, "attn_decode": attn_decode,
          "blockdrop": blockdrop}


def sample_inputs(model: onnx.ModelProto, seed: int = 0) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    out = {}
    for vi in model.graph.input:
        shape = [d.dim_value for d in vi.type.tensor_type.shape.dim]
        out[vi.name] = rng.standard_normal(shape).astype(np.float32)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--size", choices=sorted(SIZES), default="small")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    for name, make in MODELS.items():
        path = os.path.join(a.out, f"{name}.onnx")
        onnx.save(make(SIZES[a.size]), path)
        print(path)


if __name__ == "__main__":
    main()
