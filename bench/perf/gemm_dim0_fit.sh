#!/bin/sh
# gemm_dim0_fit.sh - the GEMM shape-loss constant PB_GEMM_DIM0 (model/pb_gemm_rate.c),
# fitted by least squares to measured per-shape GEMM efficiencies.
#
# Model (model/pb_gemm_rate.c): a GEMM of M x N x K reaches
#     e(M, N, K) = c x f(M) x f(N) x f(K),   f(d) = d / (d + d0)
# of the dense peak.  c is the rate of an unbounded shape; d0 the dimension at
# which one dimension alone halves it.  For each d0 on a grid of 1..4000 the
# best c is closed-form (c = sum(y P) / sum(P^2), P = f(M) f(N) f(K)); the d0
# with the least sum of squared residuals is printed, the constant itself.
#
# Data: MooreThreads/SimuMax configs/system/a100_pcie.json (commit 4dcaae51),
# accelerator.op.matmul.accurate_efficient_factor: bf16 cuBLAS GEMMs measured
# on an A100 PCIe 80 GB as a fraction of 312 TFLOP/s.  The 61 shapes measured
# as forward (layout TN) and as input gradient (NN, N and K swapped), 122
# points; the weight-gradient rows (NT) accumulate into fp32 and carry an
# extra loss of their own (PB_WGRAD_EFF), so they are left out.  Columns:
# M N K (forward) eff_TN eff_NN.  The same table is in doc/MODEL.md.
#
# Usage: bench/perf/gemm_dim0_fit.sh [-v]   (-v: also c, the rms residual and
# the curve of the residual around the optimum)
set -eu
verbose=${1:-}
awk -v verbose="$verbose" '
function f(d, d0) { return d / (d + d0) }
{ M[n] = $1; N[n] = $2; K[n] = $3; y[n] = $4; n++   # forward
  M[n] = $1; N[n] = $3; K[n] = $2; y[n] = $5; n++ } # input gradient
END {
    best = -1
    for (d0 = 1; d0 <= 4000; d0++) {
        syp = 0; spp = 0
        for (i = 0; i < n; i++) {
            p[i] = f(M[i], d0) * f(N[i], d0) * f(K[i], d0)
            syp += y[i] * p[i]; spp += p[i] * p[i]
        }
        c = syp / spp; s = 0
        for (i = 0; i < n; i++) { r = y[i] - c * p[i]; s += r * r }
        sse[d0] = s; cc[d0] = c
        if (best < 0 || s < bestsse) { best = d0; bestsse = s }
    }
    if (verbose != "") {
        printf "points %d  d0 %d  c %.4f  rms residual %.4f\n", n, best, cc[best], sqrt(bestsse / n)
        for (d = 50; d <= 800; d += 50)
            printf "  d0 %4d  c %.4f  rms %.5f\n", d, cc[d], sqrt(sse[d] / n)
    }
    print best
}' <<'DATA'
4096 1536 5120 0.7877 0.7375
4096 24576 1536 0.6971 0.7378
4096 576 5120 0.4968 0.5918
4096 32768 512 0.6176 0.7146
4096 5120 16384 0.7493 0.7612
4096 24576 5120 0.7504 0.7844
4096 5120 12288 0.7717 0.7403
4096 6144 5120 0.6988 0.7678
4096 5120 3072 0.7175 0.6952
24640 3072 5120 0.7407 0.7349
24640 5120 1536 0.7029 0.7518
4096 102400 5120 0.7552 0.7619
4096 1536 7168 0.8030 0.7104
4096 576 7168 0.4984 0.6445
4096 7168 16384 0.7423 0.7648
4096 36864 7168 0.7600 0.7645
4096 7168 18432 0.7389 0.7566
4096 4096 7168 0.7410 0.7125
4096 7168 2048 0.6813 0.7151
33024 4096 7168 0.7506 0.7487
33024 7168 2048 0.7317 0.7472
4096 129280 7168 0.7512 0.7551
4096 6144 4096 0.7168 0.7412
4096 4096 4096 0.7214 0.7248
4096 28672 4096 0.7373 0.7357
4096 4096 14336 0.7378 0.7373
4096 128384 4096 0.7458 0.7527
4096 3072 4096 0.7584 0.7098
4096 4096 2048 0.6821 0.6131
4096 14336 4096 0.7384 0.7576
4096 64256 4096 0.7460 0.7530
4096 1536 4096 0.7827 0.7465
4096 4096 1024 0.6162 0.4576
4096 7168 4096 0.7110 0.7420
4096 4096 3584 0.7056 0.6450
4096 32128 4096 0.7313 0.7325
4096 768 4096 0.7654 0.7160
4096 4096 512 0.6101 0.5394
4096 3584 4096 0.6572 0.7270
4096 4096 1792 0.6804 0.5478
4096 16128 4096 0.7344 0.7582
4096 10240 8192 0.7554 0.7544
4096 8192 8192 0.7327 0.7387
4096 57344 8192 0.7528 0.7549
4096 8192 28672 0.7411 0.7565
4096 128256 8192 0.7446 0.7448
4096 5120 8192 0.7547 0.7209
4096 8192 4096 0.7123 0.7447
4096 28672 8192 0.7478 0.7464
4096 8192 14336 0.7423 0.7535
4096 64128 8192 0.7463 0.7540
4096 2560 8192 0.7908 0.6965
4096 8192 2048 0.6787 0.6998
4096 14336 8192 0.7502 0.7401
4096 8192 7168 0.7279 0.7220
4096 32128 8192 0.7469 0.7493
4096 1280 8192 0.6625 0.7235
4096 8192 1024 0.6024 0.4882
4096 7168 8192 0.7212 0.7356
4096 8192 3584 0.6944 0.6703
4096 16128 8192 0.7494 0.7420
DATA
