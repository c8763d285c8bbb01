#!/usr/bin/python3
"""The same training step as bench_train.cpp, in PyTorch (Debian's python3-torch, the same
LibTorch 1.13 underneath, or on a GPU machine the wheel's 2.x): pre-LN causal Transformer, fused
QKV, AdamW, clipping at 1. Prints one JSON line like bench_train.

On CUDA: --precision fp32|tf32|bf16 (bf16: autocast, float32 weights), --attn matmul|sdpa
(matmul + softmax as written below, or F.scaled_dot_product_attention), --compile
(torch.compile of the model), AdamW fused=True and foreach clipping, as a careful PyTorch user
would train."""
import argparse, json, math, os, time
import torch
import torch.nn as nn
import torch.nn.functional as F


class Attention(nn.Module):
    def __init__(self, d, h, talking, sdpa=False):
        super().__init__()
        self.h, self.dk, self.sdpa = h, d // h, sdpa
        self.qkv = nn.Linear(d, 3 * d, bias=False)
        self.o = nn.Linear(d, d, bias=False)
        self.p_l = nn.Parameter(torch.eye(h)) if talking else None
        self.p_w = nn.Parameter(torch.eye(h)) if talking else None

    def forward(self, x):
        B, n, d = x.shape
        q, k, v = self.qkv(x).split(d, dim=2)
        q, k, v = (t.view(B, n, self.h, self.dk).transpose(1, 2) for t in (q, k, v))
        if self.sdpa and self.p_l is None:
            o = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            return self.o(o.transpose(1, 2).reshape(B, n, d))
        logits = q @ k.transpose(-2, -1) / math.sqrt(self.dk)
        if self.p_l is not None:
            logits = torch.einsum("bknm,kh->bhnm", logits, self.p_l)
        mask = torch.ones(n, n, dtype=torch.bool, device=x.device).triu(1)
        w = logits.masked_fill(mask, float("-inf")).softmax(-1)
        if self.p_w is not None:
            w = torch.einsum("bhnm,hv->bvnm", w, self.p_w)
        return self.o((w @ v).transpose(1, 2).reshape(B, n, d))


class Block(nn.Module):
    def __init__(self, d, h, talking, sdpa):
        super().__init__()
        self.ln1, self.attn, self.ln2 = nn.LayerNorm(d), Attention(d, h, talking, sdpa), nn.LayerNorm(d)
        self.fc1, self.fc2 = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        return x + self.fc2(F.gelu(self.fc1(self.ln2(x))))


class LM(nn.Module):
    def __init__(self, V, d, L, n, h, talking, sdpa=False):
        super().__init__()
        self.tok, self.pos = nn.Embedding(V, d), nn.Embedding(n, d)
        self.blocks = nn.ModuleList(Block(d, h, talking, sdpa) for _ in range(L))
        self.ln, self.head = nn.LayerNorm(d), nn.Linear(d, V)

    def forward(self, t):
        x = self.tok(t) + self.pos(torch.arange(t.shape[1], device=t.device))
        for b in self.blocks:
            x = b(x)
        return self.head(self.ln(x))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--attention", default="multi-head")
    ap.add_argument("--heads", type=int, default=8)
    ap.add_argument("--d-model", type=int, default=256)
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--n", type=int, default=128)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--vocab", type=int, default=256)
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--precision", default="fp32", choices=["fp32", "tf32", "bf16"])
    ap.add_argument("--attn", default="matmul", choices=["matmul", "sdpa"])
    ap.add_argument("--compile", action="store_true")
    ap.add_argument("--profile", help="also write a Chrome trace of one more step to this file (torch.profiler)")
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(0)
    dev = torch.device(a.device)
    cuda = dev.type == "cuda"
    if cuda:
        torch.backends.cuda.matmul.allow_tf32 = a.precision == "tf32"
        torch.backends.cudnn.allow_tf32 = a.precision == "tf32"
    V = a.vocab
    model = LM(V, a.d_model, a.layers, a.n, a.heads, a.attention == "talking-heads", a.attn == "sdpa").to(dev)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.01, **({"fused": True} if cuda else {}))
    fwd = torch.compile(model) if a.compile else model

    def step():
        t = torch.randint(0, V, (a.batch, a.n + 1), device=dev)
        with torch.autocast(dev.type, dtype=torch.bfloat16, enabled=a.precision == "bf16"):
            logits = fwd(t[:, :-1])
        loss = F.cross_entropy(logits.float().reshape(-1, V), t[:, 1:].reshape(-1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0, **({"foreach": True} if cuda else {}))
        opt.step()
        return loss.item()  # the worker reads its loss every step too

    for _ in range(a.warmup):
        step()
    if cuda:
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
    t0 = time.perf_counter()
    for _ in range(a.steps):
        step()
    if cuda:
        torch.cuda.synchronize()
    secs = time.perf_counter() - t0
    blas = os.environ.get("OPENBLAS_NUM_THREADS", "pool")
    config = (f"{a.precision} {a.attn}" + (" compile" if a.compile else "")) if cuda else f"torch {a.threads} x OpenBLAS {blas}"
    out = {"impl": "pytorch", "config": config, "attention": a.attention, "heads": a.heads, "device": a.device,
           "precision": a.precision, "tokens_per_s": a.steps * a.batch * a.n / secs, "step_ms": secs / a.steps * 1e3}
    if cuda:
        out["peak_gpu_gib"] = torch.cuda.max_memory_allocated() / 2**30
    if a.profile:  # the same one step as bench_train --profile: CPU ops, and the GPU kernels on CUDA
        acts = [torch.profiler.ProfilerActivity.CPU] + ([torch.profiler.ProfilerActivity.CUDA] if cuda else [])
        with torch.profiler.profile(activities=acts) as prof:
            step()
            if cuda:
                torch.cuda.synchronize()
        prof.export_chrome_trace(a.profile)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
