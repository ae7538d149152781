#!/usr/bin/env python3
"""llama_layer.py [OUT.csv] - one Llama 3 8B transformer block, forward and
backward, on this machine's first GPU, as PyTorch-native stacks run it:
eager (the fsdp stack: unfused norm, rotary and activation ops) and under
torch.compile (the torchtitan stack), bf16, attention through
scaled_dot_product_attention pinned to its flash backend (FlashAttention-2,
torchtitan's on H100; parbench's attn_fa2).  One GPU, no communication: the
compute part of a step alone, to set beside parbench's kernel model of the
same block (`parbench model --framework fsdp|torchtitan`, doc/MODEL.md).

The block follows torchtitan's llama3 model (torchtitan/models/llama3/
model/model.py): RMSNorm (torch.nn.functional.rms_norm), wq/wk/wv/wo
without bias, rotary on q and k as complex multiplication, GQA 32 query /
8 KV heads of 128, causal SDPA, RMSNorm, SwiGLU MLP w2(silu(w1 x) * w3 x)
of 14336, two residual adds.  Shape: hidden 4096, seq 8192, batch 1 (and
batch 2), no activation checkpointing.

Timing (cuda_timed.py): CUDA events around 10 forward+backward passes
after 5 warm-up ones (compile's first call compiles), the median of 5
such batches.
Writes CSV rows: gpu, torch, mode, batch, seq, ms_per_layer_fwd_bwd,
model_tflops (6 x parameters x tokens + attention 3.5 x 2 x b s^2 h,
causal half: the FLOPs parbench counts, doc/MODEL.md).
"""
import csv
import sys

import torch
import torch.nn.functional as F
from torch import nn
from torch.nn.attention import SDPBackend, sdpa_kernel

from cuda_timed import timed_ms

H, HEADS, KV, HD, FFN, EPS = 4096, 32, 8, 128, 14336, 1e-5


def rope_table(seq, dev):
    inv = 1.0 / (500000.0 ** (torch.arange(0, HD, 2, device=dev).float() / HD))
    ang = torch.outer(torch.arange(seq, device=dev).float(), inv)
    return torch.polar(torch.ones_like(ang), ang)  # complex64 [seq, HD/2]


def rope(x, f):
    xc = torch.view_as_complex(x.float().reshape(*x.shape[:-1], -1, 2))
    out = torch.view_as_real(xc * f.view(1, x.shape[1], 1, -1)).flatten(3)
    return out.type_as(x)


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.wq = nn.Linear(H, HEADS * HD, bias=False)
        self.wk = nn.Linear(H, KV * HD, bias=False)
        self.wv = nn.Linear(H, KV * HD, bias=False)
        self.wo = nn.Linear(HEADS * HD, H, bias=False)
        self.w1 = nn.Linear(H, FFN, bias=False)
        self.w2 = nn.Linear(FFN, H, bias=False)
        self.w3 = nn.Linear(H, FFN, bias=False)
        self.n1 = nn.Parameter(torch.ones(H))
        self.n2 = nn.Parameter(torch.ones(H))

    def forward(self, x, f):
        b, s, _ = x.shape
        h = F.rms_norm(x, (H,), self.n1, EPS)
        q = rope(self.wq(h).view(b, s, HEADS, HD), f)
        k = rope(self.wk(h).view(b, s, KV, HD), f)
        v = self.wv(h).view(b, s, KV, HD)
        k = k.repeat_interleave(HEADS // KV, dim=2)  # torchtitan's repeat_kv
        v = v.repeat_interleave(HEADS // KV, dim=2)
        a = F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2),
                                           v.transpose(1, 2), is_causal=True)
        x = x + self.wo(a.transpose(1, 2).reshape(b, s, HEADS * HD))
        h = F.rms_norm(x, (H,), self.n2, EPS)
        return x + self.w2(F.silu(self.w1(h)) * self.w3(h))


def flops(b, s):
    params = H * (HEADS * HD) * 2 + H * (KV * HD) * 2 + 3 * H * FFN
    attn_fwd = 4.0 * b * s * s * H * 0.5  # causal half
    return 6.0 * params * b * s + 3.5 * attn_fwd


def main():
    out = open(sys.argv[1], "w", newline="") if len(sys.argv) > 1 else sys.stdout
    w = csv.writer(out)
    w.writerow(["gpu", "torch", "mode", "batch", "seq", "ms_per_layer_fwd_bwd", "model_tflops"])
    dev, seq = "cuda", 8192
    torch.manual_seed(0)
    blk = Block().to(dev, torch.bfloat16)
    f = rope_table(seq, dev)
    for mode in ("eager", "compile"):
        fn = torch.compile(blk) if mode == "compile" else blk
        for b in (1, 2):
            x = torch.randn(b, seq, H, device=dev, dtype=torch.bfloat16, requires_grad=True)
            g = torch.randn_like(x)

            def step():
                blk.zero_grad(set_to_none=True)
                fn(x, f).backward(g)

            with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
                ms = timed_ms(step, reps=10, warm=5, batches=5)
            w.writerow([torch.cuda.get_device_name(0), torch.__version__, mode, b, seq,
                        "%.3f" % ms, "%.1f" % (flops(b, seq) / ms / 1e9)])
            out.flush()


if __name__ == "__main__":
    main()
