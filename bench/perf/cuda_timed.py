"""cuda_timed.py - the one timing rule of bench/perf's PyTorch scripts
(fp8_scaled_mm.py, llama_layer.py): CUDA events around `reps` back-to-back
calls after `warm` warm-up ones (synchronised first, so that a compile or
an allocation in them is not timed), the median of `batches` such
batches, in milliseconds per call."""
import statistics

import torch


def timed_ms(fn, reps, warm, batches):
    for _ in range(warm):
        fn()
    torch.cuda.synchronize()
    out = []
    for _ in range(batches):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        for _ in range(reps):
            fn()
        b.record()
        b.synchronize()
        out.append(a.elapsed_time(b) / reps)
    return statistics.median(out)
