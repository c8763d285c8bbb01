#!/usr/bin/env python3
"""hf_reference.py DIR --ids 3,1,4,1,5: the forward pass of a Hugging Face GPT-2, BERT or
Llama-style (llama, mistral) checkpoint directory in pure Python, float64, stdlib only.

It is the CI peer of Headroom's LibTorch import (core/model/hf_model.cpp, tests/hf/hf_model_test.cpp):
written from the semantics of transformers' modeling_gpt2.py, modeling_bert.py, modeling_llama.py
and modeling_mistral.py, sharing no code with the C++, and small enough to run tiny models (d 16,
2 layers, a dozen tokens) in well under a second without numpy or torch. The check against the
transformers package itself is a separate, later script for a machine that has it.

Reads model.safetensors (preferred, as transformers does) or model.safetensors.index.json and its
shards, F32 / F16 / BF16 / F64 tensors, and config.json with transformers' keys and the defaults of
its config classes. Prints one JSON object for the one sequence of ids:
  {"output": [[...] per position],   GPT-2 / Llama: logits [n][V]; BERT (BertModel): last hidden state [n][d]
   "attentions": [layer][head][i][j], softmax weights after the mask
   "scores": [layer][head][i][j]}     scaled q.k logits before the mask (after RoPE for Llama)
Any problem (missing file or tensor, bad config, unsupported dtype or activation, id out of range)
is one line on stderr and exit status 1, never partial output.
"""
import argparse
import json
import math
import os
import struct
import sys


class RefError(Exception):
    pass


# ---------------------------------------------------------------- safetensors

def read_header(path):
    try:
        with open(path, "rb") as f:
            raw = f.read(8)
            if len(raw) != 8:
                raise RefError(f"{path}: shorter than the 8-byte safetensors header length")
            (size,) = struct.unpack("<Q", raw)
            header = json.loads(f.read(size).decode("utf-8"))
    except OSError as e:
        raise RefError(f"{path}: cannot be read ({e.strerror})")
    except (ValueError, UnicodeDecodeError) as e:
        raise RefError(f"{path}: malformed safetensors header ({e})")
    header.pop("__metadata__", None)
    return {name: (path, 8 + size, info) for name, info in header.items()}


def open_tensors(directory):
    single = os.path.join(directory, "model.safetensors")
    index = os.path.join(directory, "model.safetensors.index.json")
    if os.path.exists(single):
        return read_header(single)
    if not os.path.exists(index):
        raise RefError(f"{directory}: neither model.safetensors nor model.safetensors.index.json")
    try:
        with open(index) as f:
            weight_map = json.load(f)["weight_map"]
    except (OSError, ValueError, KeyError) as e:
        raise RefError(f"{index}: unreadable index ({e})")
    headers, tensors = {}, {}
    for name, shard in weight_map.items():
        if shard not in headers:
            headers[shard] = read_header(os.path.join(directory, shard))
        if name not in headers[shard]:
            raise RefError(f"{index}: {name} is not in {shard}")
        tensors[name] = headers[shard][name]
    return tensors


def bf16(bits):
    return struct.unpack("<f", struct.pack("<I", bits << 16))[0]


def decode(path, start, info, name):
    dtype, shape = info["dtype"], info["shape"]
    begin, end = info["data_offsets"]
    with open(path, "rb") as f:
        f.seek(start + begin)
        data = f.read(end - begin)
    count = 1
    for s in shape:
        count *= s
    if dtype == "F32":
        values = struct.unpack(f"<{count}f", data)
    elif dtype == "F64":
        values = struct.unpack(f"<{count}d", data)
    elif dtype == "F16":
        values = struct.unpack(f"<{count}e", data)
    elif dtype == "BF16":
        values = [bf16(b) for b in struct.unpack(f"<{count}H", data)]
    else:
        raise RefError(f"{path}: tensor {name} is {dtype}, not a float dtype")
    return list(values), shape


class Weights:
    """The tensors under the family's prefix; old BERT files spell LayerNorm.weight / .bias as
    gamma / beta (transformers renames them on load)."""

    def __init__(self, directory, prefixes, probe):
        self.tensors = {}
        for name, where in open_tensors(directory).items():
            if name.endswith(".gamma"):
                name = name[: -len("gamma")] + "weight"
            elif name.endswith(".beta"):
                name = name[: -len("beta")] + "bias"
            self.tensors[name] = where
        found = [p for p in prefixes if p + probe in self.tensors]
        if not found:
            raise RefError(f"{directory}: no {probe} under any of the prefixes {prefixes}")
        self.prefix = found[0]

    def has(self, name, prefixed=True):
        return (self.prefix + name if prefixed else name) in self.tensors

    def get(self, name, prefixed=True):
        """A 1-D tensor as a list, a 2-D one as a list of rows (in its stored layout)."""
        full = self.prefix + name if prefixed else name
        if full not in self.tensors:
            raise RefError(f"missing tensor {full}")
        path, start, info = self.tensors[full]
        values, shape = decode(path, start, info, full)
        if len(shape) == 1:
            return values
        if len(shape) != 2:
            raise RefError(f"tensor {full} has shape {shape}, expected 1 or 2 dimensions")
        cols = shape[1]
        return [values[r * cols:(r + 1) * cols] for r in range(shape[0])]


# ---------------------------------------------------------------- config.json

def read_config(directory):
    path = os.path.join(directory, "config.json")
    try:
        with open(path) as f:
            c = json.load(f)
    except (OSError, ValueError) as e:
        raise RefError(f"{path}: unreadable ({e})")

    def need(key):
        if c.get(key) is None:
            raise RefError(f"{path}: key {key} is missing")
        return c[key]

    def opt(key, default):
        return default if c.get(key) is None else c[key]

    t = c.get("model_type")
    if t == "gpt2":  # GPT2Config
        d = need("n_embd")
        if not opt("scale_attn_weights", True) or opt("scale_attn_by_inverse_layer_idx", False):
            raise RefError(f"{path}: only the 1/sqrt(head size) logit scale is modelled")
        return dict(family="gpt2", vocab=need("vocab_size"), d=d, layers=need("n_layer"), heads=need("n_head"),
                    kv_heads=need("n_head"), head_dim=d // need("n_head"), inner=opt("n_inner", 4 * d),
                    positions=need("n_positions"), eps=opt("layer_norm_epsilon", 1e-5),
                    act=opt("activation_function", "gelu_new"), tie=opt("tie_word_embeddings", True))
    if t == "bert":  # BertConfig
        d = need("hidden_size")
        if opt("position_embedding_type", "absolute") != "absolute":
            raise RefError(f"{path}: only absolute position embeddings are modelled")
        return dict(family="bert", vocab=need("vocab_size"), d=d, layers=need("num_hidden_layers"),
                    heads=need("num_attention_heads"), kv_heads=need("num_attention_heads"),
                    head_dim=d // need("num_attention_heads"), inner=need("intermediate_size"),
                    positions=need("max_position_embeddings"), eps=opt("layer_norm_eps", 1e-12),
                    act=opt("hidden_act", "gelu"))
    if t in ("llama", "mistral"):  # LlamaConfig / MistralConfig
        d, heads = need("hidden_size"), need("num_attention_heads")
        if c.get("rope_scaling") is not None:
            raise RefError(f"{path}: rope_scaling is not modelled")
        return dict(family="llama", vocab=need("vocab_size"), d=d, layers=need("num_hidden_layers"), heads=heads,
                    kv_heads=opt("num_key_value_heads", heads), head_dim=opt("head_dim", d // heads),
                    inner=need("intermediate_size"),
                    positions=opt("max_position_embeddings", 4096 * 32 if t == "mistral" else 2048),
                    eps=opt("rms_norm_eps", 1e-6), act=opt("hidden_act", "silu"), tie=opt("tie_word_embeddings", False),
                    theta=opt("rope_theta", 10000.0),
                    # MistralConfig's default window is 4096; an explicit null means none.
                    window=(c["sliding_window"] if "sliding_window" in c else 4096) if t == "mistral" else None)
    raise RefError(f"{path}: model_type {t!r} is not gpt2, bert, llama or mistral")


# ---------------------------------------------------------------- arithmetic on lists

def activation(name):
    if name == "gelu":
        return lambda x: 0.5 * x * (1.0 + math.erf(x / math.sqrt(2.0)))
    if name == "gelu_new":
        return lambda x: 0.5 * x * (1.0 + math.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)))
    if name == "relu":
        return lambda x: max(x, 0.0)
    if name == "silu":
        return lambda x: x / (1.0 + math.exp(-x))
    raise RefError(f"activation {name!r} is not modelled (gelu, gelu_new, relu, silu)")


def linear(x, w, b=None):
    """nn.Linear: w is [out][in]; y = x w^T + b."""
    return [[sum(a * c for a, c in zip(row, wr)) + (b[o] if b else 0.0) for o, wr in enumerate(w)] for row in x]


def conv1d(x, w, b):
    """GPT-2's Conv1D: w is [in][out]; y = x w + b."""
    out = len(w[0])
    y = []
    for row in x:
        acc = list(b)
        for a, wr in zip(row, w):
            for o in range(out):
                acc[o] += a * wr[o]
        y.append(acc)
    return y


def add(x, y):
    return [[a + b for a, b in zip(r, s)] for r, s in zip(x, y)]


def layer_norm(x, w, b, eps):
    out = []
    for row in x:
        mean = sum(row) / len(row)
        var = sum((v - mean) ** 2 for v in row) / len(row)
        inv = 1.0 / math.sqrt(var + eps)
        out.append([(v - mean) * inv * g + s for v, g, s in zip(row, w, b)])
    return out


def rms_norm(x, w, eps):
    out = []
    for row in x:
        inv = 1.0 / math.sqrt(sum(v * v for v in row) / len(row) + eps)
        out.append([v * inv * g for v, g in zip(row, w)])
    return out


def heads_of(x, count, size):
    """[n][count*size] -> [count][n][size]."""
    return [[row[h * size:(h + 1) * size] for row in x] for h in range(count)]


def attention(q, k, v, cfg, visible):
    """q: [heads][n][hd], k / v: [kv_heads][n][hd]. Query head h reads kv head h // (heads / kv_heads)
    (repeat_kv). Returns the merged context [n][heads*hd], the weights and the scaled logits."""
    n, hd = len(q[0]), cfg["head_dim"]
    group = cfg["heads"] // cfg["kv_heads"]
    scale = 1.0 / math.sqrt(hd)
    merged = [[] for _ in range(n)]
    weights, scores = [], []
    for h in range(cfg["heads"]):
        kh, vh = k[h // group], v[h // group]
        s = [[sum(a * b for a, b in zip(q[h][i], kh[j])) * scale for j in range(n)] for i in range(n)]
        w = []
        for i in range(n):
            seen = [s[i][j] for j in range(n) if visible(i, j)]
            top = max(seen)
            e = [math.exp(s[i][j] - top) if visible(i, j) else 0.0 for j in range(n)]
            total = sum(e)
            w.append([x / total for x in e])
        for i in range(n):
            merged[i].extend(sum(w[i][j] * vh[j][c] for j in range(n)) for c in range(hd))
        weights.append(w)
        scores.append(s)
    return merged, weights, scores


def rope(x, theta):
    """Rotary positions, transformers' rotate_half convention: x * cos + rotate_half(x) * sin, with
    angle(p, c) = p * theta^(-2 (c mod hd/2) / hd) and rotate_half(x) = [-x[hd/2:], x[:hd/2]]."""
    hd = len(x[0])
    half = hd // 2
    out = []
    for p, row in enumerate(x):
        rot = [-v for v in row[half:]] + row[:half]
        angles = [p * theta ** (-2.0 * (c % half) / hd) for c in range(hd)]
        out.append([v * math.cos(a) + r * math.sin(a) for v, r, a in zip(row, rot, angles)])
    return out


# ---------------------------------------------------------------- the three families

def gpt2(wts, cfg, ids):
    act = activation(cfg["act"])
    wte, wpe = wts.get("wte.weight"), wts.get("wpe.weight")
    x = [[a + b for a, b in zip(wte[t], wpe[p])] for p, t in enumerate(ids)]
    d, h, hd = cfg["d"], cfg["heads"], cfg["head_dim"]
    attentions, scores = [], []
    for i in range(cfg["layers"]):
        p = f"h.{i}."
        a = layer_norm(x, wts.get(p + "ln_1.weight"), wts.get(p + "ln_1.bias"), cfg["eps"])
        qkv = conv1d(a, wts.get(p + "attn.c_attn.weight"), wts.get(p + "attn.c_attn.bias"))
        q = heads_of([r[:d] for r in qkv], h, hd)
        k = heads_of([r[d:2 * d] for r in qkv], h, hd)
        v = heads_of([r[2 * d:] for r in qkv], h, hd)
        ctx, w, s = attention(q, k, v, cfg, lambda qi, kj: kj <= qi)
        attentions.append(w)
        scores.append(s)
        x = add(x, conv1d(ctx, wts.get(p + "attn.c_proj.weight"), wts.get(p + "attn.c_proj.bias")))
        m = layer_norm(x, wts.get(p + "ln_2.weight"), wts.get(p + "ln_2.bias"), cfg["eps"])
        m = [[act(v) for v in r] for r in conv1d(m, wts.get(p + "mlp.c_fc.weight"), wts.get(p + "mlp.c_fc.bias"))]
        x = add(x, conv1d(m, wts.get(p + "mlp.c_proj.weight"), wts.get(p + "mlp.c_proj.bias")))
    x = layer_norm(x, wts.get("ln_f.weight"), wts.get("ln_f.bias"), cfg["eps"])
    head = wts.get("lm_head.weight", prefixed=False) if wts.has("lm_head.weight", prefixed=False) else wte
    return linear(x, head), attentions, scores


def bert(wts, cfg, ids):
    act = activation(cfg["act"])
    word, pos = wts.get("embeddings.word_embeddings.weight"), wts.get("embeddings.position_embeddings.weight")
    typ = wts.get("embeddings.token_type_embeddings.weight")[0]  # token_type_ids default to zeros
    x = [[a + b + c for a, b, c in zip(word[t], pos[p], typ)] for p, t in enumerate(ids)]
    x = layer_norm(x, wts.get("embeddings.LayerNorm.weight"), wts.get("embeddings.LayerNorm.bias"), cfg["eps"])
    h, hd = cfg["heads"], cfg["head_dim"]
    attentions, scores = [], []

    def dense(inp, name):
        return linear(inp, wts.get(name + ".weight"), wts.get(name + ".bias"))

    for i in range(cfg["layers"]):
        p = f"encoder.layer.{i}."
        q = heads_of(dense(x, p + "attention.self.query"), h, hd)
        k = heads_of(dense(x, p + "attention.self.key"), h, hd)
        v = heads_of(dense(x, p + "attention.self.value"), h, hd)
        ctx, w, s = attention(q, k, v, cfg, lambda qi, kj: True)  # all-ones attention_mask
        attentions.append(w)
        scores.append(s)
        ln = p + "attention.output.LayerNorm"
        x1 = layer_norm(add(dense(ctx, p + "attention.output.dense"), x), wts.get(ln + ".weight"),
                        wts.get(ln + ".bias"), cfg["eps"])
        inner = [[act(v) for v in r] for r in dense(x1, p + "intermediate.dense")]
        ln = p + "output.LayerNorm"
        x = layer_norm(add(dense(inner, p + "output.dense"), x1), wts.get(ln + ".weight"), wts.get(ln + ".bias"),
                       cfg["eps"])
    return x, attentions, scores


def llama(wts, cfg, ids):
    act = activation(cfg["act"])
    if cfg["head_dim"] % 2:
        raise RefError(f"head_dim {cfg['head_dim']} is odd; rotary positions rotate pairs")
    embed = wts.get("embed_tokens.weight")
    x = [list(embed[t]) for t in ids]
    h, kv, hd = cfg["heads"], cfg["kv_heads"], cfg["head_dim"]
    window = cfg["window"]

    def visible(i, j):
        # transformers' sliding_window_overlay: kv_idx > q_idx - sliding_window, on top of causal.
        return j <= i and (not window or j > i - window)

    attentions, scores = [], []
    for i in range(cfg["layers"]):
        p = f"layers.{i}."
        a = rms_norm(x, wts.get(p + "input_layernorm.weight"), cfg["eps"])
        q = [rope(m, cfg["theta"]) for m in heads_of(linear(a, wts.get(p + "self_attn.q_proj.weight")), h, hd)]
        k = [rope(m, cfg["theta"]) for m in heads_of(linear(a, wts.get(p + "self_attn.k_proj.weight")), kv, hd)]
        v = heads_of(linear(a, wts.get(p + "self_attn.v_proj.weight")), kv, hd)
        ctx, w, s = attention(q, k, v, cfg, visible)
        attentions.append(w)
        scores.append(s)
        x = add(x, linear(ctx, wts.get(p + "self_attn.o_proj.weight")))
        m = rms_norm(x, wts.get(p + "post_attention_layernorm.weight"), cfg["eps"])
        gate, up = linear(m, wts.get(p + "mlp.gate_proj.weight")), linear(m, wts.get(p + "mlp.up_proj.weight"))
        x = add(x, linear([[act(g) * u for g, u in zip(gr, ur)] for gr, ur in zip(gate, up)],
                          wts.get(p + "mlp.down_proj.weight")))
    x = rms_norm(x, wts.get("norm.weight"), cfg["eps"])
    if wts.has("lm_head.weight", prefixed=False):
        head = wts.get("lm_head.weight", prefixed=False)
    elif cfg["tie"]:
        head = embed
    else:
        raise RefError("missing tensor lm_head.weight (tie_word_embeddings is false)")
    return linear(x, head), attentions, scores


FAMILIES = {
    "gpt2": (gpt2, ["", "transformer."], "wte.weight"),
    "bert": (bert, ["", "bert."], "embeddings.word_embeddings.weight"),
    "llama": (llama, ["model.", ""], "embed_tokens.weight"),
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dir")
    parser.add_argument("--ids", required=True, help="comma-separated token ids")
    args = parser.parse_args()
    try:
        ids = [int(t) for t in args.ids.split(",")]
    except ValueError:
        raise RefError(f"--ids {args.ids!r}: expected comma-separated integers")
    cfg = read_config(args.dir)
    if not ids or len(ids) > cfg["positions"]:
        raise RefError(f"{len(ids)} ids; the model takes 1 to {cfg['positions']}")
    bad = [t for t in ids if not 0 <= t < cfg["vocab"]]
    if bad:
        raise RefError(f"id {bad[0]} is outside the vocabulary of {cfg['vocab']}")
    forward, prefixes, probe = FAMILIES[cfg["family"]]
    output, attentions, scores = forward(Weights(args.dir, prefixes, probe), cfg, ids)
    json.dump({"output": output, "attentions": attentions, "scores": scores}, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    try:
        main()
    except RefError as e:
        print(f"hf_reference.py: {e}", file=sys.stderr)
        sys.exit(1)
