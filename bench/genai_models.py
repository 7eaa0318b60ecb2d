"""LLMs as onnxruntime-genai's model builder writes them: the ONNX files people download for
onnxruntime (GroupQueryAttention with its KV cache and rotary embedding, MatMulNBits for int4,
SkipSimplifiedLayerNormalization), built here from transformers' decoder families at tiny random
sizes, each compiled at a prompt and at a token-generation step over a ragged cache and checked on
the host harness against onnxruntime. It answers "does a genai model compile, run right and fuse?".

    # 1. build (transformers, torch and onnxruntime-genai: a side venv as bench/README.md shows)
    /tmp/zoovenv/bin/python bench/genai_models.py build --out var/genai
    # 2. compile and check (the project's venv, no GPU)
    .venv/bin/python bench/genai_models.py compile --models-dir var/genai [--only llama_fp32,...]

`build` writes a folder <family>_<precision> per model (fp32 and int4 for the CPU, fp16 for CUDA),
as the builder writes it: model.onnx with its weights in model.onnx.data beside it (read as
external data), genai_config.json; it records each failure in the folder's builds.json. `compile` writes bench/results/genai_models-<UTC
time>.json (one row per model and step: the input shapes, launches per inference, predicted us,
compile seconds, the host check's max relative error, how many attention kernels kept their
scores on chip, or the error that stopped it) and prints a table.

The checks feed what a generation loop feeds: token ids, an attention_mask of ones (the step's
second entry three positions shorter: its mask's last ones cleared, so seqlens_k differs per
entry), past keys and values. onnxruntime runs the int4 models with MatMulNBits' accuracy_level
removed: at level 4 its CPU kernel rounds the activations to int8, an approximation Brickyard does
not make (it computes the dequantized product exactly)."""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

VOCAB = 512
SMALL = dict(hidden_size=128, intermediate_size=256, num_hidden_layers=2, num_attention_heads=4,
             num_key_value_heads=2, max_position_embeddings=256, vocab_size=VOCAB, pad_token_id=0,
             bos_token_id=1, eos_token_id=2)

# `--size full`: one layer of a 7B LLaMA's shapes (32 heads of 128, 8 key/value heads, 11008-wide
# MLP, 32000 tokens), to read the decode step's weight streams at their real size
FULL = dict(hidden_size=4096, intermediate_size=11008, num_hidden_layers=1, num_attention_heads=32,
            num_key_value_heads=8, max_position_embeddings=4096, vocab_size=32000, pad_token_id=0,
            bos_token_id=1, eos_token_id=2)

# `--size full` of a family whose layer is not LLaMA's: its released shapes. gpt-oss-20b's (64
# heads of 64, 8 key/value heads, experts 2880 wide, top-4 of them, a 201088-token head), two
# layers (a windowed and a full one) of 4 experts: a token reads 4 experts either way
FULL_OF = {"gpt_oss": dict(hidden_size=2880, intermediate_size=2880, num_hidden_layers=2, num_attention_heads=64,
                           num_key_value_heads=8, head_dim=64, num_local_experts=4, num_experts_per_tok=4,
                           sliding_window=128, layer_types=["sliding_attention", "full_attention"],
                           max_position_embeddings=4096, vocab_size=201088, pad_token_id=0, bos_token_id=1,
                           eos_token_id=2)}

# family -> (transformers config class, causal-LM class, config overrides of SMALL)
FAMILIES = {
    "llama": ("LlamaConfig", "LlamaForCausalLM", {}),
    "mistral": ("MistralConfig", "MistralForCausalLM", {"sliding_window": 8}),
    "qwen2": ("Qwen2Config", "Qwen2ForCausalLM", {}),
    "qwen3": ("Qwen3Config", "Qwen3ForCausalLM", {"head_dim": 32}),
    "phi3": ("Phi3Config", "Phi3ForCausalLM", {"original_max_position_embeddings": 256}),
    "phi3_partial_rotary": ("Phi3Config", "Phi3ForCausalLM", {"original_max_position_embeddings": 256,
                                                              "partial_rotary_factor": 0.5}),
    # the 128k-context form: long RoPE factors past the original context (an If picks the caches)
    "phi3_longrope": ("Phi3Config", "Phi3ForCausalLM", {
        "original_max_position_embeddings": 64,
        "rope_parameters": {"rope_type": "longrope", "type": "longrope", "rope_theta": 10000.0,
                            "short_factor": [1.0] * 16, "long_factor": [1.5 + i / 16 for i in range(16)],
                            "original_max_position_embeddings": 64}}),
    "gemma": ("GemmaConfig", "GemmaForCausalLM", {"head_dim": 32}),
    "gemma2": ("Gemma2Config", "Gemma2ForCausalLM", {"head_dim": 32, "sliding_window": 8}),
    "gemma3": ("Gemma3TextConfig", "Gemma3ForCausalLM", {"head_dim": 32, "sliding_window": 8}),
    "granite": ("GraniteConfig", "GraniteForCausalLM", {}),
    "olmo": ("OlmoConfig", "OlmoForCausalLM", {}),
    "nemotron": ("NemotronConfig", "NemotronForCausalLM", {"partial_rotary_factor": 0.5}),
    "smollm3": ("SmolLM3Config", "SmolLM3ForCausalLM", {}),
    "phi": ("PhiConfig", "PhiForCausalLM", {"partial_rotary_factor": 0.5}),
    "ernie": ("Ernie4_5Config", "Ernie4_5ForCausalLM", {}),
    "hunyuan": ("HunYuanDenseV1Config", "HunYuanDenseV1ForCausalLM", {"head_dim": 32}),
    # a conv layer and an attention layer: com.microsoft CausalConvWithState with its own state
    "lfm2": ("Lfm2Config", "Lfm2ForCausalLM", {"layer_types": ["conv", "full_attention"], "full_attn_idxs": [1]}),
    # ... with a mixture of experts in every layer: com.microsoft MoE, routed by a sigmoid and TopK
    "lfm2_moe": ("Lfm2MoeConfig", "Lfm2MoeForCausalLM", {"layer_types": ["conv", "full_attention"], "num_experts": 4,
                                                        "num_experts_per_tok": 2, "moe_intermediate_size": 64,
                                                        "num_dense_layers": 0}),
    # head sinks in every attention (GroupQueryAttention's head_sink), a window on alternate layers,
    # SwiGLU experts (MoE, and 4-bit QMoE in int4) with biases, a clamp and the interleaved layout
    "gpt_oss": ("GptOssConfig", "GptOssForCausalLM", {"head_dim": 32, "sliding_window": 8, "num_local_experts": 4,
                                                      "num_experts_per_tok": 2, "intermediate_size": 64,
                                                      "layer_types": ["sliding_attention", "full_attention"]}),
}
PRECISIONS = (("fp32", "cpu"), ("int4", "cpu"), ("fp16", "cuda"))
# families released with MXFP4 experts: the builder reads their int4 experts from those tensors
MXFP4_EXPERTS = {"gpt_oss"}
E2M1 = (0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0)      # an fp4 code's magnitude (its 4th bit the sign)

# (step, batch, new tokens, past length, how many positions entry 1's cache is shorter, and for a
# loop's fixed-shape step, whose past is as long as its present (docs/llm.md), the --kv-cache mode)
STEPS = (("prompt", 2, 16, 0, 0, None), ("decode", 2, 1, 31, 3, None))
FULL_STEPS = (("decode_1k", 1, 1, 1023, 0, None),      # one token against 1023 cached positions
              # the fixed-shape step over a cache of 1024 and of 4096 positions, the new token last:
              # its present copied (onnxruntime's meaning) or written into the past's buffer
              ("fixed_1k_copy", 1, 1, 1024, 0, "copy"), ("fixed_1k_in_place", 1, 1, 1024, 0, "in-place"),
              ("fixed_4k_copy", 1, 1, 4096, 0, "copy"), ("fixed_4k_in_place", 1, 1, 4096, 0, "in-place"))


# --- build (side venv) -----------------------------------------------------------------------------

def _tokenizer(where: Path, vocab: int) -> None:
    """A word-level tokenizer over the vocabulary: the builder saves one beside the model."""
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast
    tok = Tokenizer(models.WordLevel({f"t{i}": i for i in range(vocab)}, unk_token="t0"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="t0", bos_token="t1", eos_token="t2").save_pretrained(where)


def _mxfp4_experts(checkpoint: Path) -> None:
    """Add each expert weight's MXFP4 form as the released gpt-oss checkpoints hold it: per expert,
    output row and 32 inputs, 16 bytes of E2M1 codes (two a byte, the first low) and a uint8 power
    of two (exponent + 127) large enough for the block's largest magnitude to fit 6."""
    import torch
    from safetensors.torch import load_file, save_file
    grid = torch.tensor(E2M1)
    path = checkpoint / "model.safetensors"
    tensors = load_file(path)
    for name in [n for n in tensors if n.endswith(("experts.gate_up_proj", "experts.down_proj"))]:
        w = tensors[name].transpose(1, 2).float()                    # (experts, out, in): input-major stored
        E, N, K = w.shape
        w = w.reshape(E, N, K // 32, 32)
        exp = torch.ceil(torch.log2(w.abs().amax(-1).clamp_min(1e-30) / 6.0)).clamp(-127, 127)
        q = w / torch.pow(2.0, exp)[..., None]
        mag = (q.abs()[..., None] - grid).abs().argmin(-1)
        code = (mag | (((q < 0) & (mag > 0)).long() << 3)).to(torch.uint8)
        tensors[name + "_blocks"] = (code[..., 0::2] | (code[..., 1::2] << 4)).contiguous()
        tensors[name + "_scales"] = (exp + 127).to(torch.uint8).contiguous()
    save_file(tensors, path, metadata={"format": "pt"})


def build_one(family: str, work: Path, out: Path, full: bool = False) -> dict:
    """The family's random checkpoint, then the builder's model at each precision."""
    import torch
    import transformers as tf
    config_cls, model_cls, extra = FAMILIES[family]
    tag = f"{family}_full" if full else family
    ckpt = work / tag / "hf"
    torch.manual_seed(0)
    dims = FULL_OF.get(family, FULL) if full else {**SMALL, **extra}
    model = getattr(tf, model_cls)(getattr(tf, config_cls)(**dims)).eval()
    model.save_pretrained(ckpt)
    if family in MXFP4_EXPERTS:
        _mxfp4_experts(ckpt)
    _tokenizer(ckpt, dims["vocab_size"])
    del model
    built, errors = [], {}
    # int4 for CUDA at full size, but not of MXFP4 experts: that build's QMoE is in the CUDA kernel's
    # own weight layout, which onnxruntime's CPU kernel (the check) does not run
    cuda_int4 = full and family not in MXFP4_EXPERTS
    for precision, ep in PRECISIONS + ((("int4", "cuda"),) if cuda_int4 else ()):
        name = f"{tag}_{precision}" + ("_cuda" if full and precision == "int4" and ep == "cuda" else "")
        dst = out / name
        r = subprocess.run([sys.executable, "-m", "onnxruntime_genai.models.builder", "-i", str(ckpt), "-o", str(dst),
                            "-p", precision, "-e", ep, "-c", str(work / "cache")], capture_output=True, text=True)
        if r.returncode != 0 or not (dst / "model.onnx").exists():
            errors[name] = (r.stderr.strip().splitlines() or ["no output"])[-1][:300]
            continue
        built.append(name)
    return {"built": built, "errors": errors}


def build(a) -> int:
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    work = out / "work"
    wanted = [f for f in a.only.split(",") if f] or list(FAMILIES)
    records = {}
    for family in wanted:
        try:
            rec = build_one(family, work, out, full=a.size == "full")
        except Exception as e:      # one family's failure must not hide the rest
            rec = {"built": [], "errors": {family: f"{type(e).__name__}: {str(e)[:300]}"}}
        records[f"{family}_full" if a.size == "full" else family] = rec
        print(family, "built", ", ".join(rec["built"]) or "nothing",
              *(f"\n  FAILED {k}: {v}" for k, v in rec["errors"].items()), flush=True)
    known = out / "builds.json"
    merged = json.loads(known.read_text()) if known.exists() else {}
    merged.update(records)
    known.write_text(json.dumps(merged, indent=1) + "\n")
    return 0


# --- compile and check (project venv) ----------------------------------------------------------------

def step_feeds(model, decoder: dict, batch: int, new: int, past: int, shorter: int, seed: int = 0,
               fixed: bool = False) -> dict:
    """What a generation loop feeds the model at this step, by the builder's input names; `decoder`
    is genai_config.json's model.decoder (the cache's head size is a symbol in the model; a layer
    with a window-sized cache gets its capacity, window_size + cache_slack, as genai allocates it).
    `fixed`: the loop's fixed-shape step, the mask as long as the past, its new tokens the last."""
    import numpy as np
    from onnx import helper
    rng = np.random.default_rng(seed)
    total = past if fixed else past + new
    mask = np.ones((batch, total), np.int64)
    if shorter:
        mask[1, total - shorter:] = 0
    feeds = {}
    for vi in model.graph.input:
        tt = vi.type.tensor_type
        dt = helper.tensor_dtype_to_np_dtype(tt.elem_type)
        if vi.name == "input_ids":
            feeds[vi.name] = rng.integers(0, VOCAB, (batch, new)).astype(dt)
        elif vi.name == "attention_mask":
            feeds[vi.name] = mask.astype(dt)
        elif vi.name == "position_ids":
            feeds[vi.name] = (mask.cumsum(1) - 1)[:, past:].astype(dt)
        elif vi.name.startswith("past_key_values."):
            heads = tt.shape.dim[1].dim_value
            sliding = decoder.get("sliding_window") or {}
            length = past
            if int(vi.name.split(".")[1]) in sliding.get("layers", ()):
                length = sliding["window_size"] + sliding.get("cache_slack", 0)
            feeds[vi.name] = rng.standard_normal((batch, heads, length, decoder["head_size"])).astype(dt)
        elif vi.name.startswith("past.") and vi.name.endswith(".conv"):    # a conv layer's (channels, k - 1) state
            dims = [d.dim_value for d in tt.shape.dim]
            feeds[vi.name] = rng.standard_normal((batch, *dims[1:])).astype(dt)
        else:
            raise ValueError(f"input {vi.name} is none a generation loop feeds")
    return feeds


def exact_reference(model):
    """The model onnxruntime checks against: MatMulNBits without accuracy_level (see above)."""
    for n in model.graph.node:
        if n.op_type == "MatMulNBits":
            for attr in [a for a in n.attribute if a.name == "accuracy_level"]:
                n.attribute.remove(attr)
    return model


def onnxruntime_outputs(folder: Path, model, feeds: dict) -> tuple[dict, str]:
    """onnxruntime's outputs and what produced them: the model itself, or where onnxruntime's CPU
    kernels cannot run it (GroupQueryAttention's q/k norm inputs exist on CUDA only) the same
    checkpoint built for the CPU at fp32 (<family>_fp32 beside it), on the same feeds."""
    import numpy as np
    import onnx
    import onnxruntime as ort

    def run(m, fed, where: Path):
        # the graph beside the model's own weights file, so that a model past protobuf's 2 GB runs
        # too (its weights stay external; the graph is what exact_reference changes)
        path = where / "reference.onnx"
        onnx.save(exact_reference(m), path)
        try:
            sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
        finally:
            path.unlink()
        return dict(zip([o.name for o in sess.get_outputs()], sess.run(None, fed)))
    try:
        return run(model, feeds, folder), "onnxruntime"
    except Exception as e:
        sibling = folder.parent / (folder.name.rsplit("_", 1)[0] + "_fp32")
        if sibling == folder or not (sibling / "model.onnx").exists():
            raise
        why = str(e).split("Status Message: ")[-1][:160]
        fed = {k: v.astype(np.float32) if v.dtype == np.float16 else v for k, v in feeds.items()}
        return run(onnx.load(sibling / "model.onnx", load_external_data=False), fed, sibling), \
            f"onnxruntime on {sibling.name} ({why})"


def compile_step(folder: Path, step) -> dict:
    sys.path.insert(0, str(ROOT))
    import numpy as np
    import onnx
    from compiler import compile
    from compiler.pipeline import CompileOptions
    from compiler.runtime.executor import Executor, make_backend
    from compiler.verify import max_rel_error
    name, batch, new, past, shorter, kv_cache = step
    path = folder / "model.onnx"
    model = onnx.load(path, load_external_data=False)      # the graph: its inputs and ops
    floats = {vi.type.tensor_type.elem_type for vi in model.graph.input if vi.name.startswith("past_key_values.")}
    precision = "fp16" if onnx.TensorProto.FLOAT16 in floats else "fp32"
    row = {"shapes": {"batch": batch, "new_tokens": new, "past": past, "entry_1_shorter_by": shorter,
                      "fixed_shape": kv_cache is not None},
           "precision": precision, "kv_cache": kv_cache or "copy"}
    try:
        config = json.loads((folder / "genai_config.json").read_text())
        feeds = step_feeds(model, config["model"]["decoder"], batch, new, past, shorter, fixed=kv_cache is not None)
        t0 = time.perf_counter()
        art = compile(str(path), "h100", CompileOptions(precision=precision, build=False, kv_cache=kv_cache or "copy",
                                                        input_shapes=tuple((k, v.shape) for k, v in feeds.items())))
        compile_s = time.perf_counter() - t0
        got = Executor(art.plan, make_backend("host")).run(feeds)
        want, row["reference"] = onnxruntime_outputs(folder, model, feeds)
    except Exception as e:
        return {**row, "error": f"{type(e).__name__}: {str(e)[:300]}", "where": traceback.format_exc(limit=-2)[-600:]}
    rep = art.report
    # where the logits miss the tolerance, at how many token positions: one position far off and the
    # rest close is a discrete choice that flipped (a MoE router's near-tie in fp16), not a drift
    g, w = (np.asarray(d["logits"], np.float64) for d in (got, want))
    per_token = np.abs(g - w).max(-1) / max(float(np.abs(w).max()), 1e-30)
    from compiler.report import TOLERANCE
    row["tokens_over_tolerance"] = f"{int((per_token > TOLERANCE[precision]).sum())} of {per_token.size}"
    carried = [{c["value"].rsplit("/", 1)[-1] for c in k["carried"]} for k in rep["kernels"]]
    attention = sum(n.op_type == "GroupQueryAttention" for n in model.graph.node)
    return {**row, "launches": rep["launches_per_inference"], "kernels": len(rep["kernels"]),
            "predicted_us": rep["latency"]["predicted_us"], "compile_s": round(compile_s, 2),
            # the report's own seconds per pipeline stage (import, sparta, welder, ...)
            "compile_stages": {s["name"]: round(s["seconds"], 2) for s in rep["compile"]["stages"]},
            "max_rel_error": max_rel_error(got, want), "attention_nodes": attention,
            "attention_on_chip": sum({"scores", "rowmax", "rowsum"} <= c for c in carried),
            "finite": bool(all(np.isfinite(v).all() for v in want.values())),
            "dram_bytes": rep["traffic"]["dram_bytes"], "donated": len(rep["kv_cache"]["donated"]),
            # each kernel: its ops' last path parts, predicted us, DRAM bytes, the bound level
            "kernels_us": [(sorted({o.rsplit("/", 2)[-2] if o.count("/") >= 2 else o for o in k["ops"]}),
                            k["predicted_us"], k["dram_bytes"], k["bound"]) for k in rep["kernels"]]}


def compile_all(a) -> int:
    sys.path.insert(0, str(ROOT))
    from bench.kernels import write_results
    from compiler.report import TOLERANCE
    models_dir = Path(a.models_dir)
    names = [m for m in a.only.split(",") if m] or sorted(p.parent.name for p in models_dir.glob("*/model.onnx"))
    if not names:
        print(f"no models in {models_dir}: run `bench/genai_models.py build --out {models_dir}` first", file=sys.stderr)
        return 2
    rows = []
    for name in names:
        for step in FULL_STEPS if "_full_" in name else STEPS:
            row = {"name": name, "step": step[0], **compile_step(models_dir / name, step)}
            row["ok"] = "error" not in row and row["max_rel_error"] <= TOLERANCE[row["precision"]]
            rows.append(row)
            print(f"{name:<28} {step[0]:<17}" + (f" ERROR {row['error']}" if "error" in row else
                  f" {row['launches']:>4} launches  {row['predicted_us']:>8.1f} us predicted  {row['compile_s']:>5.2f} s"
                  f"  err {row['max_rel_error']:.1e}  attention on chip {row['attention_on_chip']}/"
                  f"{row['attention_nodes']}"), flush=True)
    builds = models_dir / "builds.json"
    failed = {k: v for rec in (json.loads(builds.read_text()).values() if builds.exists() else ())
              for k, v in rec["errors"].items()}
    out = write_results("genai_models", "none (host harness; predicted times)",
                        {"target": "h100", "check": "host harness against onnxruntime (CPU)", "build": False,
                         "builder": "onnxruntime_genai.models.builder", "failed_builds": failed}, rows, a.out)
    bad = [r for r in rows if not r["ok"]]
    print(f"{len(rows) - len(bad)} of {len(rows)} steps compiled and matched onnxruntime"
          + (f"; {len(failed)} builds failed" if failed else "") + f" -> {out}")
    return 1 if bad else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build", help="build the models (needs transformers, torch and onnxruntime-genai)")
    b.add_argument("--out", required=True)
    b.add_argument("--only", default="", help="families, comma-separated")
    b.add_argument("--size", choices=("tiny", "full"), default="tiny",
                   help="full: one layer at a 7B LLaMA's shapes, or the family's own (FULL_OF) "
                        "(<family>_full_<precision>, with int4 for CUDA too), checked at one token against "
                        "1023 cached positions and at the fixed-shape steps")
    c = sub.add_parser("compile", help="compile each model at each step and check it on the host harness")
    c.add_argument("--models-dir", required=True)
    c.add_argument("--only", default="", help="models (<family>_<precision>), comma-separated")
    c.add_argument("--out", default=str(ROOT / "bench" / "results"))
    a = ap.parse_args()
    return build(a) if a.cmd == "build" else compile_all(a)


if __name__ == "__main__":
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    raise SystemExit(main())
