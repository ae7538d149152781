#!/usr/bin/env python3
"""Builds model/memory_runs.csv from the rows collected from published
sources (model/memory_src/collected_*.csv, one file per group of stacks,
each row with its source), in the columns `parbench model --against`
reads.  Run from the repository root: python3 model/memory_src/build.py

What it does, in order:
  - leaves out rows the model cannot express (printed with the reason);
  - maps the collected columns onto the runs file's (the unit to GiB, the
    kind of measurement, the stack's settings);
  - applies the corrections made when each row's configuration was checked
    against its source (each below, with the source);
  - assigns the split before the model is run on any row: within each
    source (family), in file order, every second row is a test row.
No row's columns are chosen by the model's error."""
import csv, glob, re, sys
pub = next(csv.reader(open('model/published_runs.csv')))
extra = ['grad_dtype', 'optim_dtype', 'loss', 'alloc_frag', 'hw_set', 'mem_gib', 'mem_kind']
cols = pub + [c for c in extra if c not in pub]  # a column named twice is refused
fam_of = [('flagperf', 'flagperf'), ('mcore-ci', 'megatron-ci'), ('usp-nanotron', 'nanotron-playbook'),
          ('tt-llama31-8b-32xh200', 'torchtitan-h200'), ('tt-llama31-8b-64xh200', 'torchtitan-h200'),
          ('tt-llama3-8b-8xb200', 'torchao-b200'), ('tt-', 'torchtitan-bench-2412'),
          ('bloom', 'bigscience-bloom'), ('neox', 'gpt-neox-lambda'), ('mle', 'ml-engineering'),
          ('llr', 'llama-recipes'), ('hf-starcoder', 'hf-personal-copilot')]
excluded = []
rows = []
for f in sorted(glob.glob('model/memory_src/collected_*.csv')):
    for x in csv.DictReader(open(f)):
        n = x['name']; notes = (x['notes'] + ' ' + x['stack']).lower()
        why = None
        if x['offload'].strip():
            why = 'offload (' + x['offload'][:60] + ') is not modelled'
        elif 'paged' in notes and 'adamw' in notes:
            why = 'PagedAdamW pages optimizer state to the host'
        elif n.startswith('ttune-llama32'):
            why = 'tied embeddings (Llama 3.2 3B) are not modelled'
        elif n.startswith('usp-nanotron-1b') or n.startswith('usp-nanotron-3b'):
            why = 'tied embeddings (nanotron 1B/3B) are not modelled'
        elif 'mla' in n:
            why = 'multi-latent attention is not modelled'
        elif n.startswith('neox-'):
            why = '44 layers over 6 stages unevenly (7 and 8): no pp_trim gives that split'
        elif n.startswith('lit-'):
            why = 'an encoder-decoder, not a decoder-only model'
        if why:
            excluded.append((n, why)); continue
        r = {c: '' for c in cols}
        for c in pub:
            if c in x: r[c] = x[c]
        gpu = x['gpu']
        src = x['source']
        if gpu == 'h100-96gb':
            # the 96 GB H100 of Grand Teton: the h100 preset with the memory
            # CUDA reports on it, 95.0396 GiB (pytorch/torchtitan PR #165:
            # "can convert against 95.0396 GiB GPU memory")
            gpu = 'h100'
            r['hw_set'] = 'hbm_gib=96 hbm_cuda_gib=95.0396'
            src += ' [the 96 GB H100 of Grand Teton: h100 with hw_set hbm_cuda_gib 95.0396]'
        r['gpu'] = gpu
        r['source'] = src + ((' | ' + x['notes']) if x['notes'] else '')
        r['family'] = next(fm for p, fm in fam_of if n.startswith(p))
        v = float(x['mem_value']); u = x['mem_unit']
        # the stacks print bytes / 2^30 labelled GB (every GB source here: torch's
        # counters / 2**30, nvidia-smi MiB / 1024); MiB / 1024
        r['mem_gib'] = '%.3f' % (v / 1024 if u in ('MiB', 'MB') else v)
        r['mem_kind'] = x['mem_kind']
        r['grad_dtype'] = x['grad_dtype'] if x['grad_dtype'] in ('fp32', 'bf16') else ''
        r['param_dtype'] = x['param_dtype'] if x['param_dtype'] in ('fp32', 'bf16') else ''
        r['dtype'] = x['dtype'] if x['dtype'] in ('bf16', 'fp16', 'fp8') else 'bf16'
        r['metric'] = r['value'] = r['flops'] = ''
        if 'anyprecision' in n:
            r['optim_dtype'] = 'bf16'
        if 'pure bf16' in notes or 'purebf16' in n or 'pure_bf16' in notes:
            r['optim_dtype'] = 'bf16'
        if 'liger1' in n or 'liger' in n and 'liger0' not in n:
            r['loss'] = 'fused-linear'
        if x['framework'] == 'torchtitan':
            # torchtitan gathers in mixed_precision_param, bf16 by default:
            # the helpers' fp32 named the shard, which the stack implies
            r['param_dtype'] = ''
            if r['family'] == 'torchtitan-bench-2412':
                # torchtitan 9dec370 train.py: "TODO: compiling loss function
                # causes CUDA errors, turning off for now": an eager fp32 loss
                r['loss'] = 'fp32'
        if x['framework'] == 'torchtitan' and x['pp'] not in ('', '1'):
            r['zero'] = '3'  # fully_shard with reshard_after_forward False (pb_framework.c)
        if n.startswith('usp-nanotron'):
            # the plotted "GPU memory" is nanotron's Mem Res,
            # torch.cuda.max_memory_reserved() / 1024**3 (verified against the
            # sweep's CSV)
            r['mem_kind'] = 'reserved'
        if r['family'] == 'torchao-b200':
            # pytorch/ao benchmarks/float8/training/llama3.sh runs torchtitan's
            # run_train.sh, which sets PYTORCH_CUDA_ALLOC_CONF=
            # expandable_segments:True: the reserve measured with expandable
            # segments, 1.054 (inclusionAI/Ling-V2, alloc_pairs.csv)
            r['alloc_frag'] = '0.054'
        if n == 'mle-llama31-8b-8xh200-z2-noac-s8k-liger0':
            # Hugging Face transformers (5.x) upcasts the logits in its loss
            # (ForCausalLMLoss): an eager fp32 cross-entropy
            r['loss'] = 'fp32'
        if n.startswith('flagperf-mixtral'):
            r['vocab'] = '32768'  # Megatron pads to a multiple of 128 x tp 8
        if n.startswith('hf-starcoder'):
            # accelerate's bf16 MixedPrecision gathers bf16 (the fp32 shard
            # is the master, which the fsdp stack implies)
            r['param_dtype'] = ''
        if r['pp_trim'] == '1':
            # the helpers wrote 1 for "one layer fewer on each end stage":
            # parbench's pp_trim counts both ends (pb_stages.h), 2
            r['pp_trim'] = '2'
        r['split'] = ''
        r['inferred'] = ' '.join(c for c in x['inferred'].split() if c in cols)
        for c in ('experts', 'topk', 'moe_ffn', 'shared_ffn', 'dense_first', 'head_dim', 'etp', 'pp_trim'):
            if r[c] == '': r[c] = '0'
        if r['overlap'] == '': r['overlap'] = '-'
        if r['vp'] == '': r['vp'] = '1'
        rows.append(r)
# the split, before the model sees a row: within each family, in file order,
# every second row is a test row (the first fit)
seen = {}
for r in rows:
    k = seen.get(r['family'], 0); seen[r['family']] = k + 1
    r['split'] = 'test' if k % 2 else 'fit'
w = csv.DictWriter(open('model/memory_runs.csv', 'w', newline=''), fieldnames=cols, lineterminator='\n')
w.writeheader()
for r in rows: w.writerow(r)
print(len(rows), 'rows;', sum(r['split'] == 'test' for r in rows), 'test')
for e in excluded: print('excluded', e)
