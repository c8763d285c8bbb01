#!/usr/bin/env python3
"""Headroom's import of Hugging Face checkpoints against transformers itself (issue 16).

For each family (GPT-2, BERT, Llama with grouped key/value heads) this builds a small model with
transformers from a config (random weights; nothing is downloaded), saves it with
save_pretrained (model.safetensors, as users keep checkpoints), runs it on fixed token ids with
eager attention and output_attentions, then runs `headroom-worker inspect --model DIR --ids ...
--dump FILE --layer K` for every layer and compares:
  - the model's output (GPT-2 and Llama logits, BERT's last hidden state), and
  - every layer's attention weights W (after mask and softmax),
within --tolerance (default 1e-4, absolute, float32). Prints a table and exits 1 on any miss.

Needs torch, transformers and safetensors (a GPU machine's PyTorch has them; CI does not, and
tests/hf runs the pure-Python peer scripts/hf_reference.py instead).

  python3 scripts/hf_peer_check.py --worker build/app/worker/headroom-worker [--keep DIR]
"""

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

try:
    import torch
    import transformers
    from safetensors.torch import load_file
except ImportError as e:  # say what is missing, and where this runs
    sys.exit(f"hf_peer_check: {e}; it needs torch, transformers and safetensors (pip install transformers safetensors)")

IDS = [5, 17, 3, 42, 8, 23, 1, 30, 12, 7, 19, 2]


def families():
    t = transformers
    yield "GPT-2", t.GPT2LMHeadModel(t.GPT2Config(vocab_size=64, n_embd=64, n_layer=2, n_head=4, n_positions=32))
    yield "BERT", t.BertModel(t.BertConfig(vocab_size=64, hidden_size=48, num_hidden_layers=2, num_attention_heads=4,
                                           intermediate_size=96, max_position_embeddings=32), add_pooling_layer=True)
    yield "Llama", t.LlamaForCausalLM(t.LlamaConfig(vocab_size=64, hidden_size=64, num_hidden_layers=2,
                                                    num_attention_heads=8, num_key_value_heads=2,
                                                    intermediate_size=96, max_position_embeddings=64))


def headroom_layer(worker, model_dir, layer, out):
    cmd = [worker, "inspect", "--model", str(model_dir), "--ids", ",".join(map(str, IDS)), "--dump", str(out),
           "--layer", str(layer), "--json"]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return load_file(str(out))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--worker", default="build/app/worker/headroom-worker")
    ap.add_argument("--tolerance", type=float, default=1e-4)
    ap.add_argument("--keep", help="write the models here instead of a temporary folder")
    args = ap.parse_args()
    torch.manual_seed(0)
    root = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="headroom-peer-"))
    rows, worst = [], 0.0
    for name, model in families():
        model.eval()
        model.config._attn_implementation = "eager"  # attentions are returned by the eager path only
        folder = root / name.lower().replace("-", "")
        model.save_pretrained(folder, safe_serialization=True)
        with torch.no_grad():
            out = model(torch.tensor([IDS]), output_attentions=True)
        reference = out.logits[0] if hasattr(out, "logits") else out.last_hidden_state[0]
        diffs = []
        for layer, attention in enumerate(out.attentions):
            dump = headroom_layer(args.worker, folder, layer, folder / f"layer{layer}.safetensors")
            if layer == 0:
                diffs.append(("output", (dump["output"] - reference).abs().max().item()))
            ours = dump["W"].permute(2, 0, 1)  # [n, m, heads] -> [heads, n, m]
            diffs.append((f"W layer {layer}", (ours - attention[0]).abs().max().item()))
        for what, d in diffs:
            rows.append((name, what, d))
            worst = max(worst, d)
    print(f"transformers {transformers.__version__}, torch {torch.__version__}; tolerance {args.tolerance:g}")
    print("| family | compared | max abs difference |")
    print("|---|---|---|")
    for name, what, d in rows:
        print(f"| {name} | {what} | {d:.2e}{'' if d <= args.tolerance else '  MISS'} |")
    return 0 if worst <= args.tolerance else 1


if __name__ == "__main__":
    sys.exit(main())
