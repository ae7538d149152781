#!/usr/bin/env python3
"""fp8_scaled_mm.py [OUT.csv] - the GEMMs of torchao's float8 training
recipes, timed on this machine's first GPU with PyTorch (not parbench: it
needs torch.float8 and torch._scaled_mm, which only PyTorch has).

What each recipe runs for a linear layer y = x w^T (torchao/float8/
float8_ops.py, addmm_float8_unwrapped; config.py, Float8LinearConfig):
  tensorwise  output:  _scaled_mm, per-tensor scales, fast accumulation
              (gemm_config_output use_fast_accum=True), cuBLAS;
              grad_input, grad_weight: the same without fast accumulation
              (Float8GemmConfig() defaults to use_fast_accum=False).
  rowwise     output:  _scaled_mm with per-row scales (M,1) x (1,N), fast
              accumulation: PyTorch's CUTLASS rowwise kernel
              (aten/src/ATen/native/cuda/RowwiseScaledMM.cu);
              grad_input, grad_weight: without fast accumulation, where
              torchao calls the per-tensor cuBLAS kernel with unit scales
              and multiplies the output by the row scales after
              ("The rowwise CUTLASS-based kernel is so slow without
              fast-accum that we'd rather use the tensorwise cuBLAS-based
              kernel and do the scaling manually afterwards").
Both are timed as torchao issues them, eagerly (the multiply as its own
kernel: what compile may fuse is not assumed), with bf16 torch.mm beside.

Shapes: the linear layers of Llama 3 8B (hidden 4096, q+k+v 6144, MLP
14336) and of Llama 3 70B at TP 8 (hidden 8192: q+k+v 1280, out 1024 in,
MLP 3584), at M = 8192 and 16384 tokens; each in its three roles (output
M x N x K, grad_input M x K x N, grad_weight N x K x M).

Timing (cuda_timed.py): CUDA events around 20 back-to-back calls after 5
warm-up ones, the median of 7 such batches; operands e4m3 (grad_output is e4m3 in torchao's
rowwise recipe too), output bf16.  Writes CSV rows: shape, role, M, N, K,
kind, us, tflops.
"""
import csv
import sys

import torch

from cuda_timed import timed_ms

E4M3 = torch.float8_e4m3fn
SHAPES = {  # name: (K, N) of the forward y[M,N] = x[M,K] w[N,K]^T
    "l3-8b-qkv": (4096, 6144),
    "l3-8b-o": (4096, 4096),
    "l3-8b-up": (4096, 14336),
    "l3-8b-down": (14336, 4096),
    "l3-70b-tp8-qkv": (8192, 1280),
    "l3-70b-tp8-o": (1024, 8192),
    "l3-70b-tp8-up": (8192, 3584),
    "l3-70b-tp8-down": (3584, 8192),
}


def kinds(M, N, K):
    """The calls of each kind for one GEMM of M x N x K (a[M,K] @ b[K,N])."""
    dev = "cuda"
    a16 = torch.randn(M, K, device=dev, dtype=torch.bfloat16)
    b16 = torch.randn(N, K, device=dev, dtype=torch.bfloat16).t()  # column-major, as _scaled_mm wants
    a8, b8 = a16.to(E4M3), b16.to(E4M3)
    one = torch.ones((), device=dev, dtype=torch.float32)
    ra = torch.rand(M, 1, device=dev, dtype=torch.float32) + 0.5
    rb = torch.rand(1, N, device=dev, dtype=torch.float32) + 0.5
    post = ra * rb  # torchao's post_inverse_scale, (M, N) by broadcast

    def rw_slow():
        out = torch._scaled_mm(a8, b8, scale_a=one, scale_b=one, out_dtype=torch.bfloat16,
                               use_fast_accum=False)
        out *= post
        return out

    return {
        "bf16_mm": lambda: torch.mm(a16, b16),
        "tw_fast": lambda: torch._scaled_mm(a8, b8, scale_a=one, scale_b=one,
                                            out_dtype=torch.bfloat16, use_fast_accum=True),
        "tw_slow": lambda: torch._scaled_mm(a8, b8, scale_a=one, scale_b=one,
                                            out_dtype=torch.bfloat16, use_fast_accum=False),
        "rw_fast": lambda: torch._scaled_mm(a8, b8, scale_a=ra, scale_b=rb,
                                            out_dtype=torch.bfloat16, use_fast_accum=True),
        "rw_slow_torchao": rw_slow,
    }


def main():
    out = open(sys.argv[1], "w", newline="") if len(sys.argv) > 1 else sys.stdout
    w = csv.writer(out)
    w.writerow(["gpu", "torch", "shape", "role", "M", "N", "K", "kind", "us", "tflops"])
    gpu = torch.cuda.get_device_name(0)
    for name, (K, N) in SHAPES.items():
        for M in (8192, 16384):
            for role, (m, n, k) in (("output", (M, N, K)), ("grad_input", (M, K, N)),
                                    ("grad_weight", (N, K, M))):
                for kind, fn in kinds(m, n, k).items():
                    us = 1e3 * timed_ms(fn, reps=20, warm=5, batches=7)
                    w.writerow([gpu, torch.__version__, name, role, m, n, k, kind, "%.2f" % us,
                                "%.1f" % (2.0 * m * n * k / us / 1e6)])
                out.flush()
                torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
