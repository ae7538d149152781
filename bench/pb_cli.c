/* Command-line parsing: a table of options and one loop, no getopt (whose
 * state is global).  Accepted forms: --name value, --name=value, -x value,
 * -xvalue. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../collectives/pb_gemm.h"
#include "pb_harness.h"
#include "pb_options.h"
#include "pb_size.h"
#include "pb_step_sched.h"
#include "../patterns/pb_pat_op.h"

enum opt_id {
    O_HELP, O_VERSION, O_OP, O_DTYPE, O_REDOP, O_MIN, O_MAX, O_FACTOR, O_STEP, O_SIZES,
    O_ITERS, O_WARMUP, O_CHECK, O_CHECK_NUM, O_MODE, O_PLACE, O_ROOT, O_PRECISION,
    O_BUDGET, O_MIN_ITERS, O_MAX_ITERS, O_BATCH, O_CSV, O_LABEL, O_QUIET, O_BACKEND,
    O_NP, O_NO_LAUNCH, O_GROUP_SIZE, O_CHUNK, O_FAULT, O_GRAPH, O_TIMEOUT, O_MEMORY,
    O_MODEL, O_GATED, O_NO_GATED, O_BACKWARD, O_TOPO_XML, O_NODES,
    O_TP, O_CP, O_EP, O_DP, O_PP, /* layout: keep in this order (pb_dim_t's) */
    O_MAX_PAIRS, O_MIN_RATIO, O_PATTERN, O_DRY_RUN, O_PRESET, O_MODEL_FILE, O_VP,
    O_SP, O_ORDER, O_DP_BUCKET, O_ZERO, O_DIST_OPT, O_GRAD_DTYPE, O_RECOMPUTE, O_IMBALANCE,
    O_OUTPUT, O_FIT_TOL, O_GPUS, O_GPN, O_HW, O_HW_SET, O_CALIB, O_GEMM_CSV, O_SELECTIVE,
    O_FLASH, O_CAUSAL, O_TP_OVERLAP, O_TFLOPS, O_TOP,
    O_SCHEDULE, O_COMPUTE_SCALE, O_STEPS, O_NO_COMM, O_TRACE,
    O_JSON, O_PAIRS, O_THRESHOLD
};

struct opt_spec {
    const char *lng;
    char shrt;
    int has_arg;
    enum opt_id id;
};

static const struct opt_spec specs[] = {
    {"help", 'h', 0, O_HELP},          {"version", 'V', 0, O_VERSION},
    {"op", 0, 1, O_OP},                {"dtype", 'd', 1, O_DTYPE},
    {"redop", 0, 1, O_REDOP},          {"minbytes", 'b', 1, O_MIN},
    {"maxbytes", 'e', 1, O_MAX},       {"stepfactor", 'f', 1, O_FACTOR},
    {"stepbytes", 'i', 1, O_STEP},     {"sizes", 0, 1, O_SIZES},
    {"iters", 'n', 1, O_ITERS},        {"warmup", 'w', 1, O_WARMUP},
    {"check", 0, 0, O_CHECK},          {"", 'c', 1, O_CHECK_NUM},
    {"mode", 0, 1, O_MODE},            {"place", 0, 1, O_PLACE},
    {"root", 'r', 1, O_ROOT},          {"precision", 0, 1, O_PRECISION},
    {"time-budget", 0, 1, O_BUDGET},   {"min-iters", 0, 1, O_MIN_ITERS},
    {"max-iters", 0, 1, O_MAX_ITERS},  {"batch", 0, 1, O_BATCH},
    {"csv", 0, 1, O_CSV},              {"label", 0, 1, O_LABEL},
    {"quiet", 'q', 0, O_QUIET},        {"backend", 0, 1, O_BACKEND},
    {"np", 0, 1, O_NP},                {"no-launch", 0, 0, O_NO_LAUNCH},
    {"group-size", 0, 1, O_GROUP_SIZE}, {"mpi-chunk", 0, 1, O_CHUNK},
    {"fault", 0, 1, O_FAULT},          {"graph", 'G', 1, O_GRAPH},
    {"timeout", 'T', 1, O_TIMEOUT},    {"memory", 0, 1, O_MEMORY},
    {"pattern", 0, 1, O_PATTERN},      {"dry-run", 0, 0, O_DRY_RUN},
    {"preset", 0, 1, O_PRESET},        {"model-file", 0, 1, O_MODEL_FILE},
    /* model fields (--pattern, and gemm's layer): the option's name is the
     * model-file key */
    {"size", 0, 1, O_MODEL},           {"hidden", 0, 1, O_MODEL},
    {"layers", 0, 1, O_MODEL},         {"seq", 0, 1, O_MODEL},
    {"mbs", 0, 1, O_MODEL},            {"gbs", 0, 1, O_MODEL},
    {"heads", 0, 1, O_MODEL},          {"kv-heads", 0, 1, O_MODEL},
    {"ffn", 0, 1, O_MODEL},            {"vocab", 0, 1, O_MODEL},
    {"experts", 0, 1, O_MODEL},        {"topk", 0, 1, O_MODEL},
    {"moe-every", 0, 1, O_MODEL},      {"moe-ffn", 0, 1, O_MODEL},
    {"pp-trim", 0, 1, O_MODEL},        {"gated", 0, 0, O_GATED},
    {"no-gated", 0, 0, O_NO_GATED},
    {"backward", 0, 0, O_BACKWARD},    {"topo-xml", 0, 1, O_TOPO_XML},
    {"nodes", 0, 1, O_NODES},          {"tp", 0, 1, O_TP},
    {"cp", 0, 1, O_CP},                {"ep", 0, 1, O_EP},
    {"dp", 0, 1, O_DP},                {"pp", 0, 1, O_PP},
    {"vp", 0, 1, O_VP},                {"sp", 0, 0, O_SP},
    {"order", 0, 1, O_ORDER},          {"dp-bucket", 0, 1, O_DP_BUCKET},
    {"zero", 0, 1, O_ZERO},            {"dist-opt", 0, 0, O_DIST_OPT},
    {"grad-dtype", 0, 1, O_GRAD_DTYPE}, {"recompute", 0, 0, O_RECOMPUTE},
    {"imbalance", 0, 1, O_IMBALANCE},
    {"schedule", 0, 1, O_SCHEDULE},    {"compute-scale", 0, 1, O_COMPUTE_SCALE},
    {"steps", 0, 1, O_STEPS},
    {"no-comm", 0, 0, O_NO_COMM},      {"trace", 0, 1, O_TRACE},
    {"max-pairs", 0, 1, O_MAX_PAIRS},  {"min-ratio", 0, 1, O_MIN_RATIO},
    {"output", 'o', 1, O_OUTPUT},      {"fit-tol", 0, 1, O_FIT_TOL},
    {"gpus", 0, 1, O_GPUS},            {"gpus-per-node", 0, 1, O_GPN},
    {"hw", 0, 1, O_HW},                {"hw-set", 0, 1, O_HW_SET},
    {"calib", 0, 1, O_CALIB},          {"gemm-csv", 0, 1, O_GEMM_CSV},
    {"selective", 0, 0, O_SELECTIVE},  {"flash", 0, 0, O_FLASH},
    {"causal", 0, 0, O_CAUSAL},        {"tp-overlap", 0, 1, O_TP_OVERLAP},
    {"tflops", 0, 1, O_TFLOPS},        {"top", 0, 1, O_TOP},
    {"json", 0, 1, O_JSON},            {"pairs", 0, 1, O_PAIRS},
    {"threshold", 0, 1, O_THRESHOLD},
};

static const char usage_main[] =
    "usage: parbench [COMMAND] [OPTIONS]\n"
    "\n"
    "Measures the communication of large-model training on this machine.\n"
    "\n"
    "commands:\n"
    "  (none)   the main job: topology, a verified sweep of every collective (8 B to\n"
    "           64 MiB), the pattern suite of a small model, calibration and the\n"
    "           predicted reference step, then results.csv, topo-pairs.csv,\n"
    "           calib.csv and report.html in -o DIR (default\n"
    "           parbench-out/<date-time>)\n"
    "  coll     measure collectives (see parbench coll --help)\n"
    "  gemm     cuBLAS TFLOP/s of a transformer layer's GEMMs (see parbench gemm --help)\n"
    "  step     one training step's communication schedule, executed (parbench step --help)\n"
    "  topo     GPU/NIC link matrix, node map, layout placement (parbench topo --help)\n"
    "  validate send/recv bandwidth of every rank pair against its link class\n"
    "  calibrate fit collective times from results CSV (parbench calibrate --help)\n"
    "  model    predict a training step of a model and layout (parbench model --help)\n"
    "  plan     rank every layout of a model on N GPUs (parbench plan --help)\n"
    "  report   results.csv [calib.csv] -o report.html (parbench report --help)\n"
    "  compare  base.csv new.csv [--threshold 5%]: the regression gate\n"
    "           (parbench compare --help)\n"
    "  --pattern LIST    run the traffic of strategies tp, sp, pp, dp, ep, cp or all\n"
    "                    (see PATTERNS below)\n"
    "\n"
    "Started from a plain shell, parbench re-executes itself under mpirun with\n"
    "--np N ranks (default: as many as a layout fixes, else one per local GPU, else\n"
    "2); under mpirun or srun it runs.  Ctrl-C stops the ranks cleanly (exit 130).\n"
    "\n"
    "common options:\n"
    "  --np N            ranks to launch when not started by a launcher\n"
    "  --no-launch       run as a single MPI process instead of re-launching\n"
    "  --csv FILE        append one row per measurement (DESIGN.md schema)\n"
    "  --json FILE       append the same rows as JSON Lines (one object per line)\n"
    "  -o, --output DIR  main job: the output folder (default parbench-out/<date-time>)\n"
    "  -q, --quiet       no tables, no progress line\n"
    "  -h, --help        this text;  -V, --version  the version\n"
    "\n"
    "\n"
    "PATTERNS: parbench --pattern tp|sp|pp|dp|ep|cp|all [model] [layout] [--dry-run]\n"
    "  --dry-run         print the operations per step and their totals; no MPI\n"
    "                    (world: --np N if given, else the layout's product; no\n"
    "                    layout and no --np: 8)\n"
    "  model: --preset NAME (gpt3-175b, llama2-7b, llama2-70b, llama3-8b,\n"
    "         llama3-70b, llama3-405b, mixtral-8x7b, deepseek-v3, example-70b,\n"
    "         tiny (default)), --model-file F (key = value lines), --size/--hidden,\n"
    "         --layers, --seq, --mbs, --gbs, --heads, --kv-heads, --ffn, --vocab,\n"
    "         --experts, --topk, --moe-every, --moe-ffn, --gated|--no-gated, --pp-trim,\n"
    "         --dtype bf16|fp16|fp32\n"
    "  layout: --tp --cp --ep --dp --pp N, --vp N (interleaving), --sp,\n"
    "         --order tp-cp-ep-dp-pp (first fastest; Megatron's default).  Without\n"
    "         any, a single strategy gets all ranks; dp, when not given, is what\n"
    "         the launched ranks leave\n"
    "  dp:    --dp-bucket megatron|ddp (default megatron), --zero 0|1|2|3,\n"
    "         --dist-opt (= --zero 1), --grad-dtype fp32|bf16 (default fp32)\n"
    "  --recompute       full activation recomputation (repeats TP forward ops)\n"
    "  --imbalance F     EP: the hottest destination gets F x the mean (alltoallv)\n"
    "  timing and checking options as for coll (-n, -w, --check, --mode, ...)\n"
    "\n"
    "exit codes: 0 ok, 1 verification failure, 2 bad input, 3 runtime failure\n";

static const char usage_coll[] =
    "usage: parbench coll [OPTIONS]\n"
    "\n"
    "what:\n"
    "  --op LIST         allreduce, allgather, reducescatter, alltoall, alltoallv,\n"
    "                    broadcast, reduce, sendrecv, or all (default allreduce)\n"
    "  -d, --dtype LIST  float, double, half, bfloat16, int32, int8, f8e4m3, f8e5m2\n"
    "                    (f32, f64, f16, bf16, i32, i8, e4m3, e5m2), or all (default float)\n"
    "  --redop LIST      sum, max, min, avg (nccl only), or all = sum,max,min\n"
    "                    (default sum)\n"
    "  -r, --root N      root of broadcast and reduce (default 0)\n"
    "  --place P         out, in or both (default both): out-of-place / in-place\n"
    "  --group-size K    run on groups of K consecutive ranks, all at once\n"
    "\n"
    "sizes (K, M, G, T = powers of 1024):\n"
    "  -b, --minbytes S  smallest size (default 8)\n"
    "  -e, --maxbytes S  largest size (default: the smallest, or 64M with -b absent)\n"
    "  -f, --stepfactor F  multiply by F (default 2)\n"
    "  -i, --stepbytes S   or add S\n"
    "  --sizes LIST      explicit sizes, e.g. 8,1K,64M (each must divide as needed)\n"
    "  A size is the largest per-rank buffer (nccl-tests' convention): the message\n"
    "  for allreduce, broadcast, reduce and sendrecv; the gathered output for\n"
    "  allgather; the full input for reducescatter; one rank's send buffer for\n"
    "  alltoall(v).  Range sizes are rounded down to what the collective needs.\n"
    "\n"
    "timing:\n"
    "  --mode M          latency (barrier, time each op; OSU-like), throughput\n"
    "                    (time a batch of back-to-back ops; nccl-tests-like), or both\n"
    "                    (default latency); graph: the batch captured as a CUDA\n"
    "                    graph and replayed (nccl backend)\n"
    "  -G, --graph N     graph mode with N replays per sample (nccl-tests' -G)\n"
    "  -T, --timeout S   an operation past S seconds is a hang: say where, exit 3\n"
    "                    (default 300; 0 = never)\n"
    "  --precision P     sample until the median's 95% CI half-width is within P\n"
    "                    percent (default 2)\n"
    "  --time-budget S   seconds per measurement once --min-iters samples are in\n"
    "                    (default 1; slow operations take min-iters x their time)\n"
    "  --min-iters N, --max-iters N   sample count bounds (default 10, 1000)\n"
    "  -n, --iters N     fixed number of timed samples instead (no adaptation)\n"
    "  -w, --warmup N    untimed operations first (default 5)\n"
    "  --batch N         throughput mode: operations per sample (default: ~1 ms)\n"
    "\n"
    "checking and output:\n"
    "  --check (-c 1)    verify every result exactly; wrong elements fail the run\n"
    "  --csv FILE        append rows to FILE (a file with another header is refused)\n"
    "  --json FILE       append the same rows to FILE as JSON Lines\n"
    "  -q, --quiet       no tables and no progress line (on a terminal, a line on\n"
    "                    stderr shows done/total, the operation and the time left)\n"
    "  --label TEXT      free text for the label column\n"
    "  --backend NAME    auto (default: nccl when a GPU answers, else mpi), nccl, mpi\n"
    "  --memory M        host or device buffers for the mpi backend (device needs a\n"
    "                    CUDA-aware MPI)\n"
    "  --mpi-chunk S     largest single MPI call (default 1G; for tests)\n"
    "  --fault corrupt:R corrupt one received element on rank R (tests the checker)\n"
    "  --fault stall:R   stall rank R's device before its first operation (tests the\n"
    "                    hang detection of -T; nccl)\n"
    "  --fault hang:R    rank R stops before its first measurement, sleeping (tests\n"
    "                    the watchdog of -T: it must name rank R)\n";

static const char usage_gemm[] =
    "usage: parbench gemm [OPTIONS]\n"
    "\n"
    "Times the GEMMs of one transformer layer on one tensor-parallel rank with\n"
    "cuBLAS (cublasGemmEx, fp32 accumulation) and prints the achieved TFLOP/s,\n"
    "the compute rate the step model uses.  T = mbs * seq tokens, each GEMM\n"
    "X[M, K] x W[K, N]:\n"
    "  gemm_qkv       [T, h]   x [h, (h + 2h*g/a)/tp]\n"
    "  gemm_attn_out  [T, h/tp] x [h/tp, h]\n"
    "  gemm_mlp_up    [T, h]   x [h, f/tp]   (2f/tp with --gated)\n"
    "  gemm_mlp_down  [T, f/tp] x [f/tp, h]\n"
    "\n"
    "layer (default: h 4096, 32 heads, MHA, f = 4h, seq 4096, mbs 1, tp 1):\n"
    "  --hidden H        hidden size h (also --size)\n"
    "  --seq S           sequence length\n"
    "  --mbs B           micro-batch size\n"
    "  --tp T            tensor-parallel size (the shapes are one rank's share)\n"
    "  --heads A         attention heads\n"
    "  --kv-heads G      key/value heads (GQA; default: = heads)\n"
    "  --ffn F           MLP inner size (default 4h)\n"
    "  --gated           gated MLP (SwiGLU): up projection fused with the gate, 2f wide\n"
    "  --backward        also the backward GEMMs: dgrad [T,N]x[N,K], wgrad [K,T]x[T,N]\n"
    "\n"
    "timing and output:\n"
    "  -d, --dtype LIST  bf16 (default), fp16, fp32 (true fp32, no TF32)\n"
    "  -n, --iters N     timed multiplies per shape (default 50)\n"
    "  -w, --warmup N    untimed multiplies first (default 5)\n"
    "  --csv FILE        append one row per shape: pattern gemm, collective\n"
    "                    gemm_<name>, label \"M=.. N=.. K=..\", flops, tflops\n"
    "  --label TEXT      appended to the label column\n"
    "\n"
    "Runs as one process on the first visible GPU (CUDA_VISIBLE_DEVICES applies);\n"
    "it never launches mpirun itself.  Under mpirun or srun, every rank times its\n"
    "own GPU (local rank -> device) and each row reports the slowest rank.\n";

static const char usage_step[] =
    "usage: parbench step [model and layout options] [OPTIONS]\n"
    "\n"
    "Executes one training step's communication schedule on the launched ranks:\n"
    "each pipeline stage runs its micro-batches in schedule order, standing in for\n"
    "each layer's compute with a timed spin and issuing the layer's TP/SP, EP and\n"
    "CP operations on its real groups; pipeline exchanges happen where Megatron's\n"
    "schedule puts them; DP buckets go out during the last backward pass; the\n"
    "optimizer's collectives close the step.  Prints measured time per category\n"
    "(slowest rank) beside the prediction, and writes rows with pattern step.\n"
    "\n"
    "  model and layout   as with --pattern: --preset, --size, --layers, --seq, --mbs,\n"
    "                     --gbs, ..., --tp --cp --ep --dp --pp --sp, --zero, --recompute\n"
    "  --schedule S       1f1b, gpipe or interleaved (Megatron's, with --vp chunks\n"
    "                     per stage; the default when --vp is above 1, else 1f1b)\n"
    "  --tflops T         compute rate the stand-in assumes per GPU (default 156:\n"
    "                     an A100's 312 dense bf16 at the model's 0.5 achievable)\n"
    "  --compute-scale X  multiply the stand-in's durations by X (default 1): a\n"
    "                     70B-shaped step fits a small machine, communication exact\n"
    "  --steps N          steps to run, N >= 2: the first is a warm-up, the N - 1\n"
    "                     others are timed (default 3)\n"
    "  --check            verify every distinct operation after the timed steps\n"
    "  --csv FILE         append the rows here (default " PB_STEP_DEFAULT_CSV ")\n"
    "  --trace FILE       write the last step's timeline of every rank (passes,\n"
    "                     exchanges, DP waits) as a Chrome trace (chrome://tracing,\n"
    "                     ui.perfetto.dev)\n"
    "  --no-comm          test switch: no collectives, 4-byte pipeline exchanges:\n"
    "                     the measured idle time is the pipeline bubble alone\n";

static const char usage_topo[] =
    "usage: parbench topo [OPTIONS]\n"
    "\n"
    "The links between GPUs and NICs (as nvidia-smi topo -m prints them) with\n"
    "CPU and NUMA affinity, the node map of the launched ranks, and the slowest\n"
    "link each group of a layout crosses.\n"
    "\n"
    "  --topo-xml FILE   describe an hwloc XML dump instead of this machine;\n"
    "                    runs no MPI and launches nothing\n"
    "  --nodes N         with --topo-xml: a hypothetical cluster of N such nodes,\n"
    "                    one rank per GPU (per core without GPUs)\n"
    "  --tp N --cp N --ep N --dp N --pp N\n"
    "                    layout in Megatron order (tp fastest); dp defaults to\n"
    "                    what is left of the world\n"
    "  --csv FILE        write every pair: a, b, class, links (replaces FILE)\n"
    "\n"
    "classes, fastest first: X same GPU; NV# NVLink (# links); PIX one PCIe\n"
    "switch; PXB several switches; PHB one host bridge; NODE one NUMA node;\n"
    "SYS across sockets; NET across nodes.  Host ranks: CORE, L3, NODE, SOCKET\n"
    "(one package, several NUMA nodes), SYS, NET.\n";

static const char usage_report[] =
    "usage: parbench report RESULTS.csv [CALIB.csv] [-o report.html] [--pairs PAIRS.csv]\n"
    "\n"
    "Writes one self-contained XHTML page (no scripts, no network; plots drawn\n"
    "by PLplot as inline SVG): run metadata, the topology matrix (from --pairs,\n"
    "written by parbench topo --csv), bus bandwidth vs size per collective (one\n"
    "line per group size and link class), the calibrated model's curves and fit\n"
    "error when CALIB.csv is given, pattern tables per strategy, and the step\n"
    "breakdown (rows with pattern step or model).  Runs no MPI.\n"
    "\n"
    "  -o, --output FILE the page (default report.html)\n"
    "  --pairs FILE      topology pairs CSV (a, b, class, links)\n"
    "\n"
    "CALIB.csv columns: collective, group_size, link_class, bytes_lo, bytes_hi,\n"
    "latency_us, bandwidth_gbps, fit_error; a piece predicts\n"
    "time_us = latency_us + size / (bandwidth_gbps * 1e3) for bytes_lo <= size <= bytes_hi.\n";

static const char usage_compare[] =
    "usage: parbench compare BASE.csv NEW.csv [--threshold 5%]\n"
    "\n"
    "Matches rows on pattern, collective, group, group size, bytes, dtype,\n"
    "backend and world (and in-place, timing mode and reduction, which tell\n"
    "apart the measurements of one sweep), prints the change of median time\n"
    "and bus bandwidth, lists rows found in only one file, and exits 1 when a\n"
    "matched row's median time grew by more than the threshold.  Runs no MPI.\n"
    "\n"
    "  --threshold T     percent (5, 5% or 2.5%; default 5)\n"
    "\n"
    "exit codes: 0 no regression, 1 a regression, 2 bad input (a malformed file:\n"
    "file and line named)\n";

static const char usage_validate[] =
    "usage: parbench validate [OPTIONS]\n"
    "\n"
    "Measures send/recv bandwidth of rank pairs (host backend: every pair; with\n"
    "GPUs: pairs within each node and one pair per node pair) in 7 sweeps,\n"
    "compares each pair in each sweep with the median of the other pairs of its\n"
    "link class, and flags the pairs below --min-ratio in most sweeps.\n"
    "Exit 1 when any pair is flagged.\n"
    "\n"
    "  --max-pairs N     measure at most N pairs (default 256)\n"
    "  --min-ratio R     flag pairs below R x their class's median in most\n"
    "                    sweeps (default 0.8)\n"
    "  -b, --minbytes S  message size (default 1M)\n"
    "  --csv FILE        append one row per pair (pattern validate)\n"
    "  --fault slow:A-B  time 21 exchanges of ranks A and B for each one counted\n"
    "                    (tests the flagging)\n";

static const char usage_calibrate[] =
    "usage: parbench calibrate RESULTS.csv [MORE.csv ...] [-o calib.csv] [--fit-tol P]\n"
    "\n"
    "Fits, for every (collective, group size, link class) in the rows, and for\n"
    "reductions (allreduce, reducescatter) every data type too, time(bytes)\n"
    "piecewise by size range, each piece latency + bytes / bandwidth, and prints\n"
    "each piece with its worst and rms relative error.  A size measured several\n"
    "times (modes, runs; types, except for reductions) keeps its fastest median.\n"
    "Runs no MPI.\n"
    "\n"
    "  -o, --output FILE  write the pieces as CSV (for --calib of model and plan)\n"
    "  --fit-tol P        a piece of 4+ sizes may miss by at most P percent (default 5)\n";

static const char usage_model[] =
    "usage: parbench model [model] [layout] --gpus N --gpus-per-node G [--hw NAME]\n"
    "                      [--calib calib.csv] [--gemm-csv gemm.csv]\n"
    "\n"
    "Predicts one training step: compute, exposed TP, PP send/recv, pipeline\n"
    "bubble, DP gradient sync, EP all-to-all, CP exchange and optimizer, with\n"
    "tokens/s, TFLOP/s per GPU, MFU/HFU, TP/PP/DP efficiencies and memory per GPU.\n"
    "Communication times apply the calibration (else the hardware preset) to the\n"
    "operations the patterns generate.  Runs no MPI.\n"
    "\n"
    "  model and layout flags as for --pattern (--preset, --tp, --pp, --vp, --sp, ...);\n"
    "  dp defaults to what --gpus leaves\n"
    "  --hw NAME          a100, h100, h200, b200 (default a100)\n"
    "  --hw-set K=V       override a hardware field (bf16_tflops, hbm_gib, hbm_tbps,\n"
    "                     nvlink_gbps, nics_per_node, nic_gbitps, gpus_per_node,\n"
    "                     achievable, nvlink_eff, net_eff, lat_intra_us, lat_net_us)\n"
    "  --gpus-per-node G  GPUs per node (default: the hardware's)\n"
    "  --calib FILE       parbench calibrate's CSV\n"
    "  --gemm-csv FILE    parbench gemm rows: their GEMM rate sets the compute rate\n"
    "  --tflops X         compute rate per GPU instead\n"
    "  --recompute | --selective   full or selective activation recomputation\n"
    "  --flash            flash attention (no s^2 activations stored)\n"
    "  --causal           count half the attention scores (causal masking skipped)\n"
    "  --tp-overlap F     fraction of TP communication hidden behind GEMMs (default 0)\n"
    "  --zero 0|1|2|3, --dist-opt, --dp-bucket, --grad-dtype, --imbalance as --pattern\n";

static const char usage_plan[] =
    "usage: parbench plan [model] --gpus N --gpus-per-node G [--hw NAME] [--calib F]\n"
    "\n"
    "Enumerates tp, pp, vp, dp, cp, ep, micro-batch, recomputation and optimizer\n"
    "sharding; drops layouts that break a constraint or do not fit in memory;\n"
    "ranks the rest by predicted step time and prints the best --top N (10), each\n"
    "with the reason it loses to the one above.  Options as for parbench model.\n";

const char *pb_cli_usage(pb_command_t cmd)
{
    switch (cmd) {
    case PB_CMD_CALIBRATE:
        return usage_calibrate;
    case PB_CMD_MODEL:
        return usage_model;
    case PB_CMD_PLAN:
        return usage_plan;
    case PB_CMD_COLL:
        return usage_coll;
    case PB_CMD_GEMM:
        return usage_gemm;
    case PB_CMD_TOPO:
        return usage_topo;
    case PB_CMD_VALIDATE:
        return usage_validate;
    case PB_CMD_STEP:
        return usage_step;
    case PB_CMD_REPORT:
        return usage_report;
    case PB_CMD_COMPARE:
        return usage_compare;
    default:
        return usage_main;
    }
}

static void defaults(pb_options_t *o)
{
    memset(o, 0, sizeof *o);
    o->cmd = PB_CMD_MAIN;
    snprintf(o->backend, sizeof o->backend, "auto");
    o->timeout_s = 300.0;
    o->out_of_place = 1;
    o->in_place = 1;
    o->size_min = 8;
    o->size_factor = 2.0;
    o->warmup = 5;
    o->min_iters = 10;
    o->max_iters = 1000;
    o->precision = 0.02;
    o->time_budget = 1.0;
    o->fault_rank = -1;
    pb_gemm_model_defaults(&o->gemm);
    o->fault_peer = -1;
    o->max_pairs = 256;
    o->min_ratio = 0.8;
    o->imbalance = 1.0;
    o->fit_tol = 0.05;
    o->top = 10;
    o->schedule = -1; /* step: interleaved with --vp, else 1f1b */
    o->compute_scale = 1.0;
    o->steps = 3;
    o->threshold = 0.05;
}

void pb_cli_main_job_defaults(pb_options_t *o)
{
    if (!(o->given & PB_GIVEN_OP)) {
        o->ncolls = 0;
        for (int c = 0; c < PB_COLL_COUNT; c++)
            o->colls[o->ncolls++] = (pb_coll_t)c;
    }
    if (!o->sizes_given) {
        o->size_min = 8;
        o->size_max = UINT64_C(64) << 20;
    }
    if (!(o->given & PB_GIVEN_CHECK))
        o->check = 1;
    /* the whole sweep in well under a minute on a small machine */
    if (!(o->given & PB_GIVEN_BUDGET))
        o->time_budget = 0.25;
    if (!(o->given & PB_GIVEN_MIN_ITERS) && o->max_iters >= 5)
        o->min_iters = 5;
    /* no --csv: results.csv in the output folder (pb_main_job_prepare) */
}

static int parse_u64(const char *name, const char *v, uint64_t lo, uint64_t *out, pb_err_t *err)
{
    char *end;
    errno = 0;
    if (v[0] == '-' || v[0] == '\0')
        return pb_err_set(err, PB_EINPUT, "%s needs a whole number, not '%s'", name, v);
    unsigned long long x = strtoull(v, &end, 10);
    if (errno != 0 || *end != '\0')
        return pb_err_set(err, PB_EINPUT, "%s needs a whole number, not '%s'", name, v);
    if (x < lo)
        return pb_err_set(err, PB_EINPUT, "%s must be at least %llu (got %s)", name,
                          (unsigned long long)lo, v);
    *out = x;
    return PB_OK;
}

/* "5", "5%" and "2.5%" all mean percent */
static int parse_threshold(const char *name, const char *v, double *out, pb_err_t *err)
{
    char *end;
    errno = 0;
    double x = strtod(v, &end);
    if (end == v || (*end != '\0' && strcmp(end, "%") != 0) || errno == ERANGE || !(x >= 0.0) ||
        !isfinite(x))
        return pb_err_set(err, PB_EINPUT, "%s takes a percentage such as 5%% (got '%s')", name, v);
    *out = x / 100.0;
    return PB_OK;
}

static int parse_int(const char *name, const char *v, int lo, int *out, pb_err_t *err)
{
    uint64_t x;
    if (parse_u64(name, v, (uint64_t)lo, &x, err) != PB_OK)
        return err->code;
    if (x > INT_MAX)
        return pb_err_set(err, PB_EINPUT, "%s is too large: %s", name, v);
    *out = (int)x;
    return PB_OK;
}

static int parse_double(const char *name, const char *v, int percent_ok, double *out,
                        pb_err_t *err)
{
    char *end;
    errno = 0;
    double x = strtod(v, &end);
    if (percent_ok && end != v && *end == '%' && end[1] == '\0')
        end++;
    if (errno != 0 || end == v || *end != '\0' || !isfinite(x) || x <= 0.0)
        return pb_err_set(err, PB_EINPUT, "%s needs a positive number, not '%s'", name, v);
    *out = x;
    return PB_OK;
}

/* "a,b,c" or "all" into a list of enum values via a parse function. */
typedef int (*enum_parse_fn)(const char *s, int *out);

static int p_coll(const char *s, int *o)
{
    pb_coll_t c;
    int rc = pb_coll_parse(s, &c);
    *o = (int)c;
    return rc;
}
static int p_dtype(const char *s, int *o)
{
    pb_dtype_t t;
    int rc = pb_dtype_parse(s, &t);
    *o = (int)t;
    return rc;
}
static int p_redop(const char *s, int *o)
{
    pb_redop_t r;
    int rc = pb_redop_parse(s, &r);
    *o = (int)r;
    return rc;
}
static int p_mode(const char *s, int *o)
{
    if (strcmp(s, "latency") == 0)
        *o = PB_MODE_LATENCY;
    else if (strcmp(s, "throughput") == 0)
        *o = PB_MODE_THROUGHPUT;
    else if (strcmp(s, "graph") == 0)
        *o = PB_MODE_GRAPH;
    else
        return -1;
    return 0;
}

/* The names of a list's values, for the message that refuses one. */
typedef const char *(*enum_name_fn)(int);
static const char *n_coll(int i) { return pb_coll_name((pb_coll_t)i); }
static const char *n_dtype(int i) { return pb_dtype_name((pb_dtype_t)i); }
static const char *n_redop(int i) { return pb_redop_name((pb_redop_t)i); }
static const char *n_mode(int i) { return pb_mode_name((pb_mode_t)i); }
static const char *n_strategy(int i) { return pb_strategy_name((pb_strategy_t)i); }

static int unknown_value(const char *what, const char *tok, enum_name_fn name, int nall,
                         pb_err_t *err)
{
    char list[200] = "";
    size_t used = 0;
    for (int i = 0; i < nall && used < sizeof list; i++)
        used += (size_t)snprintf(list + used, sizeof list - used, "%s, ", name(i));
    return pb_err_set(err, PB_EINPUT, "unknown %s '%s' (one of: %s%sall)", what, tok, list,
                      name == n_mode ? "both, " : "");
}

/* "all" (and, for modes, "both") means the first all_count values */
static int parse_list(const char *what, const char *v, enum_parse_fn fn, enum_name_fn name,
                      int nall, int all_count, int *out, int *n, pb_err_t *err)
{
    *n = 0;
    if (strcmp(v, "all") == 0 || (fn == p_mode && strcmp(v, "both") == 0)) {
        for (int i = 0; i < all_count; i++)
            out[(*n)++] = i;
        return PB_OK;
    }
    char buf[256];
    if (strlen(v) >= sizeof buf || v[0] == '\0')
        return pb_err_set(err, PB_EINPUT, "bad %s list '%s'", what, v);
    snprintf(buf, sizeof buf, "%s", v);
    char *save = NULL;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int x;
        if (fn(tok, &x) != 0)
            return unknown_value(what, tok, name, nall, err);
        for (int i = 0; i < *n; i++)
            if (out[i] == x)
                return pb_err_set(err, PB_EINPUT, "%s '%s' given twice", what, tok);
        if (*n >= nall)
            return pb_err_set(err, PB_EINPUT, "too many %s values in '%s'", what, v);
        out[(*n)++] = x;
    }
    return PB_OK;
}

static int parse_fault(const char *v, pb_options_t *o, pb_err_t *err)
{
    if (strncmp(v, "slow:", 5) == 0) {
        /* slow:A-B, two different ranks */
        char buf[64];
        snprintf(buf, sizeof buf, "%s", v + 5);
        char *dash = strchr(buf, '-');
        if (dash == NULL || strlen(v + 5) >= sizeof buf)
            return pb_err_set(err, PB_EINPUT, "bad --fault '%s': expected slow:A-B", v);
        *dash = '\0';
        if (parse_int("--fault slow:", buf, 0, &o->fault_rank, err) ||
            parse_int("--fault slow:", dash + 1, 0, &o->fault_peer, err))
            return err->code;
        if (o->fault_rank == o->fault_peer)
            return pb_err_set(err, PB_EINPUT, "bad --fault '%s': A and B must differ", v);
        o->fault = PB_FAULT_SLOW;
        return PB_OK;
    }
    if (strncmp(v, "stall:", 6) == 0) {
        o->fault = PB_FAULT_STALL;
        return parse_int("--fault stall:", v + 6, 0, &o->fault_rank, err);
    }
    if (strncmp(v, "hang:", 5) == 0) {
        o->fault = PB_FAULT_HANG;
        return parse_int("--fault hang:", v + 5, 0, &o->fault_rank, err);
    }
    if (strncmp(v, "corrupt:", 8) != 0)
        return pb_err_set(err, PB_EINPUT,
                          "bad --fault '%s': expected corrupt:RANK, stall:RANK, hang:RANK or slow:A-B",
                          v);
    o->fault = PB_FAULT_CORRUPT;
    return parse_int("--fault corrupt:", v + 8, 0, &o->fault_rank, err);
}

static int p_strategy(const char *s, int *o)
{
    pb_strategy_t t;
    int rc = pb_strategy_parse(s, &t);
    *o = (int)t;
    return rc;
}

static const struct opt_spec *find_long(const char *name, size_t len)
{
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++)
        if (specs[i].lng[0] && strlen(specs[i].lng) == len && strncmp(specs[i].lng, name, len) == 0)
            return &specs[i];
    return NULL;
}

static const struct opt_spec *find_short(char c)
{
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++)
        if (specs[i].shrt == c)
            return &specs[i];
    return NULL;
}

/* A model field: kept as (key, value) for --pattern's model (applied over
 * the preset and model file by pb_model_set), and parsed at once into
 * gemm's layer for the fields a layer's GEMMs depend on. */
static int model_flag(pb_options_t *o, const char *key, const char *v, const char *shown,
                      pb_err_t *err)
{
    static const char *const gemm_keys[] = {"size", "hidden", "seq", "mbs",
                                            "heads", "kv-heads", "ffn"};
    uint64_t *gemm_fields[] = {&o->gemm.hidden, &o->gemm.hidden, &o->gemm.seq, &o->gemm.mbs,
                               &o->gemm.heads, &o->gemm.kv_heads, &o->gemm.ffn};
    if (o->nmodel_kv == PB_MODEL_FLAGS)
        return pb_err_set(err, PB_EINPUT, "too many model options");
    o->model_kv[o->nmodel_kv][0] = key;
    o->model_kv[o->nmodel_kv++][1] = v;
    o->given |= PB_GIVEN_MODEL;
    for (size_t i = 0; i < sizeof gemm_keys / sizeof gemm_keys[0]; i++)
        if (strcmp(key, gemm_keys[i]) == 0)
            return parse_u64(shown, v, 1, gemm_fields[i], err);
    return PB_OK;
}

static int apply(pb_options_t *o, const struct opt_spec *s, const char *v, const char *shown,
                 pb_err_t *err)
{
    int tmp[PB_COLL_COUNT + PB_DTYPE_COUNT], n;
    uint64_t u;
    switch (s->id) {
    case O_HELP:
        o->help = 1;
        return PB_OK;
    case O_VERSION:
        o->cmd = PB_CMD_VERSION;
        return PB_OK;
    case O_OP:
        if (parse_list("collective", v, p_coll, n_coll, PB_COLL_COUNT, PB_COLL_COUNT, tmp, &n, err))
            return err->code;
        for (int i = 0; i < n; i++)
            o->colls[i] = (pb_coll_t)tmp[i];
        o->ncolls = n;
        o->given |= PB_GIVEN_OP;
        return PB_OK;
    case O_DTYPE:
        o->dtype_arg = v;
        if (parse_list("dtype", v, p_dtype, n_dtype, PB_DTYPE_COUNT, PB_DTYPE_COUNT, tmp, &n, err))
            return err->code;
        for (int i = 0; i < n; i++)
            o->dtypes[i] = (pb_dtype_t)tmp[i];
        o->ndtypes = n;
        o->given |= PB_GIVEN_DTYPE;
        return PB_OK;
    case O_REDOP:
        /* "all" means every reduction MPI has; avg must be asked for */
        if (parse_list("redop", v, p_redop, n_redop, PB_REDOP_COUNT, PB_AVG, tmp, &n, err))
            return err->code;
        for (int i = 0; i < n; i++)
            o->redops[i] = (pb_redop_t)tmp[i];
        o->nredops = n;
        return PB_OK;
    case O_MODE:
        /* both = latency and throughput, the two modes every backend has */
        if (parse_list("mode", v, p_mode, n_mode, PB_MODE_COUNT, PB_MODE_GRAPH, tmp, &n, err))
            return err->code;
        for (int i = 0; i < n; i++)
            o->modes[i] = (pb_mode_t)tmp[i];
        o->nmodes = n;
        o->given |= PB_GIVEN_MODE;
        return PB_OK;
    case O_MIN:
        o->sizes_given |= 1;
        return pb_size_parse(v, &o->size_min, err);
    case O_MAX:
        o->sizes_given |= 2;
        return pb_size_parse(v, &o->size_max, err);
    case O_STEP:
        if (pb_size_parse(v, &o->size_step, err) != PB_OK)
            return err->code;
        if (o->size_step == 0)
            return pb_err_set(err, PB_EINPUT, "%s must be above 0", shown);
        return PB_OK;
    case O_FACTOR:
        if (parse_double(shown, v, 0, &o->size_factor, err) != PB_OK)
            return err->code;
        o->given |= PB_GIVEN_FACTOR;
        if (!(o->size_factor > 1.0))
            return pb_err_set(err, PB_EINPUT, "%s must be above 1 (got %s)", shown, v);
        return PB_OK;
    case O_SIZES:
        o->size_list = v;
        o->sizes_given |= 4;
        return PB_OK;
    case O_ITERS:
        return parse_u64(shown, v, 1, &o->iters, err);
    case O_WARMUP:
        return parse_u64(shown, v, 0, &o->warmup, err);
    case O_MIN_ITERS:
        o->given |= PB_GIVEN_MIN_ITERS;
        return parse_u64(shown, v, 1, &o->min_iters, err);
    case O_MAX_ITERS:
        return parse_u64(shown, v, 1, &o->max_iters, err);
    case O_BATCH:
        return parse_u64(shown, v, 1, &o->batch, err);
    case O_CHECK:
        o->given |= PB_GIVEN_CHECK;
        o->check = 1;
        return PB_OK;
    case O_CHECK_NUM:
        if (parse_u64(shown, v, 0, &u, err) != PB_OK)
            return err->code;
        o->given |= PB_GIVEN_CHECK;
        o->check = u != 0;
        return PB_OK;
    case O_PLACE:
        if (strcmp(v, "out") == 0 || strcmp(v, "both") == 0 || strcmp(v, "in") == 0) {
            o->out_of_place = strcmp(v, "in") != 0;
            o->in_place = strcmp(v, "out") != 0;
            return PB_OK;
        }
        return pb_err_set(err, PB_EINPUT, "--place takes out, in or both, not '%s'", v);
    case O_ROOT:
        return parse_int(shown, v, 0, &o->root, err);
    case O_PRECISION:
        if (parse_double(shown, v, 1, &o->precision, err) != PB_OK)
            return err->code;
        o->precision /= 100.0;
        return PB_OK;
    case O_BUDGET:
        o->given |= PB_GIVEN_BUDGET;
        return parse_double(shown, v, 0, &o->time_budget, err);
    case O_CSV:
        if (v[0] == '\0')
            return pb_err_set(err, PB_EINPUT, "--csv needs a file name");
        o->csv_path = v;
        return PB_OK;
    case O_LABEL:
        o->label = v;
        return PB_OK;
    case O_QUIET:
        o->quiet = 1;
        return PB_OK;
    case O_BACKEND:
        if (strlen(v) >= sizeof o->backend)
            return pb_err_set(err, PB_EINPUT, "unknown backend '%s'", v);
        snprintf(o->backend, sizeof o->backend, "%s", v);
        return PB_OK;
    case O_NP:
        return parse_int(shown, v, 1, &o->np, err);
    case O_NO_LAUNCH:
        o->no_launch = 1;
        return PB_OK;
    case O_GROUP_SIZE:
        return parse_int(shown, v, 1, &o->group_size, err);
    case O_CHUNK:
        if (pb_size_parse(v, &o->chunk_bytes, err) != PB_OK)
            return err->code;
        if (o->chunk_bytes == 0)
            return pb_err_set(err, PB_EINPUT, "--mpi-chunk must be above 0");
        return PB_OK;
    case O_FAULT:
        return parse_fault(v, o, err);
    case O_GRAPH:
        return parse_u64(shown, v, 1, &o->graph_replays, err);
    case O_TIMEOUT:
        if (strcmp(v, "0") == 0) { /* 0: never time out */
            o->timeout_s = 0.0;
            return PB_OK;
        }
        return parse_double(shown, v, 0, &o->timeout_s, err);
    case O_MEMORY:
        if (strcmp(v, "host") == 0 || strcmp(v, "device") == 0) {
            o->memory_device = strcmp(v, "device") == 0;
            return PB_OK;
        }
        return pb_err_set(err, PB_EINPUT, "--memory takes host or device, not '%s'", v);
    case O_MODEL:
        return model_flag(o, s->lng, v, shown, err);
    case O_GATED: /* a SwiGLU-style MLP: fused gate and up projections */
    case O_NO_GATED:
        o->gemm.gated = s->id == O_GATED;
        return model_flag(o, "gated", s->id == O_GATED ? "1" : "0", shown, err);
    case O_BACKWARD:
        o->given |= PB_GIVEN_MODEL;
        o->gemm_backward = 1;
        return PB_OK;
    case O_TOPO_XML:
        if (v[0] == '\0')
            return pb_err_set(err, PB_EINPUT, "--topo-xml needs a file name");
        o->topo_xml = v;
        return PB_OK;
    case O_NODES:
        return parse_int(shown, v, 1, &o->topo_nodes, err);
    case O_TP:
    case O_CP:
    case O_EP:
    case O_DP:
    case O_PP:
        o->layout_given |= 1u << (s->id - O_TP);
        if (parse_int(shown, v, 1, &o->layout[s->id - O_TP], err) != PB_OK)
            return err->code;
        if (s->id == O_TP) /* gemm's layer is split by the same tp */
            o->gemm.tp = (uint64_t)o->layout[PB_LAYOUT_TP];
        return PB_OK;
    case O_SCHEDULE: {
        pb_sched_kind_t k;
        if (pb_sched_parse(v, &k) != 0)
            return pb_err_set(err, PB_EINPUT, "--schedule takes 1f1b, gpipe or interleaved, not '%s'",
                              v);
        o->schedule = (int)k;
        return PB_OK;
    }
    case O_COMPUTE_SCALE:
        return parse_double(shown, v, 0, &o->compute_scale, err);
    case O_STEPS:
        if (parse_u64(shown, v, 1, &o->steps, err) != PB_OK)
            return err->code;
        if (o->steps < 2) /* nothing would be timed */
            return pb_err_set(err, PB_EINPUT,
                              "--steps %s: the first step is a warm-up, so at least 2 are needed",
                              v);
        return PB_OK;
    case O_NO_COMM:
        o->step_no_comm = 1;
        return PB_OK;
    case O_TRACE:
        if (v[0] == '\0')
            return pb_err_set(err, PB_EINPUT, "--trace needs a file name");
        o->trace_path = v;
        return PB_OK;
    case O_MAX_PAIRS:
        return parse_u64(shown, v, 1, &o->max_pairs, err);
    case O_MIN_RATIO:
        return parse_double(shown, v, 0, &o->min_ratio, err);
    case O_PATTERN:
        if (parse_list("pattern", v, p_strategy, n_strategy, PB_STRAT_COUNT, PB_STRAT_COUNT, tmp, &n, err))
            return err->code;
        o->pattern_mask = 0;
        for (int i = 0; i < n; i++)
            o->pattern_mask |= 1u << tmp[i];
        /* "all": every strategy once; tp and sp are one strategy */
        if (strcmp(v, "all") == 0)
            o->pattern_mask &= ~(1u << PB_STRAT_SP);
        return PB_OK;
    case O_JSON:
        if (v[0] == '\0')
            return pb_err_set(err, PB_EINPUT, "--json needs a file name");
        o->json_path = v;
        return PB_OK;
    case O_OUTPUT:
        if (v[0] == '\0')
            return pb_err_set(err, PB_EINPUT, "%s needs a name", shown);
        o->output = v;
        return PB_OK;
    case O_PAIRS:
        o->pairs_path = v;
        return PB_OK;
    case O_THRESHOLD:
        o->threshold_given = 1;
        return parse_threshold(shown, v, &o->threshold, err);
    case O_DRY_RUN:
        o->dry_run = 1;
        return PB_OK;
    case O_PRESET:
        o->preset = v;
        return PB_OK;
    case O_MODEL_FILE:
        o->model_file = v;
        return PB_OK;
    case O_VP:
        return parse_int(shown, v, 1, &o->vp, err);
    case O_SP:
        o->sp = 1;
        return PB_OK;
    case O_ORDER:
        o->order = v;
        return PB_OK;
    case O_DP_BUCKET:
        if (strcmp(v, "ddp") != 0 && strcmp(v, "megatron") != 0)
            return pb_err_set(err, PB_EINPUT, "--dp-bucket takes megatron or ddp, not '%s'", v);
        o->dp_bucket_ddp = strcmp(v, "ddp") == 0;
        return PB_OK;
    case O_ZERO:
        if (parse_int(shown, v, 0, &o->zero, err) != PB_OK)
            return err->code;
        if (o->zero > 3)
            return pb_err_set(err, PB_EINPUT, "--zero takes 0, 1, 2 or 3, not %s", v);
        return PB_OK;
    case O_DIST_OPT:
        o->zero = 1;
        return PB_OK;
    case O_GRAD_DTYPE:
        o->grad_dtype = v;
        return PB_OK;
    case O_RECOMPUTE:
        o->recompute = 1;
        return PB_OK;
    case O_FIT_TOL:
        if (parse_double(shown, v, 1, &o->fit_tol, err) != PB_OK)
            return err->code;
        o->fit_tol /= 100.0;
        return PB_OK;
    case O_GPUS:
        return parse_int(shown, v, 1, &o->gpus, err);
    case O_GPN:
        return parse_int(shown, v, 1, &o->gpus_per_node, err);
    case O_HW:
        o->hw = v;
        return PB_OK;
    case O_HW_SET:
        if (strchr(v, '=') == NULL)
            return pb_err_set(err, PB_EINPUT, "--hw-set takes key=value, not '%s'", v);
        if (o->nhw_set == PB_MAX_INPUTS)
            return pb_err_set(err, PB_EINPUT, "too many --hw-set options");
        o->hw_set[o->nhw_set++] = v;
        return PB_OK;
    case O_CALIB:
        o->calib = v;
        return PB_OK;
    case O_GEMM_CSV:
        o->gemm_csv = v;
        return PB_OK;
    case O_SELECTIVE:
        o->selective = 1;
        return PB_OK;
    case O_FLASH:
        o->flash = 1;
        return PB_OK;
    case O_CAUSAL:
        o->causal = 1;
        return PB_OK;
    case O_TP_OVERLAP:
        if (strcmp(v, "0") == 0) {
            o->tp_overlap = 0.0;
            return PB_OK;
        }
        if (parse_double(shown, v, 0, &o->tp_overlap, err) != PB_OK)
            return err->code;
        if (o->tp_overlap > 1.0)
            return pb_err_set(err, PB_EINPUT, "--tp-overlap is a fraction in [0, 1], not %s", v);
        return PB_OK;
    case O_TFLOPS:
        return parse_double(shown, v, 0, &o->tflops, err);
    case O_TOP:
        return parse_int(shown, v, 1, &o->top, err);
    case O_IMBALANCE:
        if (parse_double(shown, v, 0, &o->imbalance, err) != PB_OK)
            return err->code;
        if (o->imbalance < 1.0)
            return pb_err_set(err, PB_EINPUT, "--imbalance must be at least 1 (got %s)", v);
        return PB_OK;
    }
    return pb_err_set(err, PB_EINPUT, "unhandled option %s", shown);
}

/* gemm: bf16 unless told, only the types the probe multiplies, the
 * layer checked here so bad shapes are refused before any GPU is asked */
static int finish_gemm(pb_options_t *o, pb_err_t *err)
{
    if (!(o->given & PB_GIVEN_DTYPE)) {
        o->dtypes[0] = PB_BF16;
        o->ndtypes = 1;
    }
    for (int i = 0; i < o->ndtypes; i++)
        if (!pb_gemm_dtype_ok(o->dtypes[i]))
            return pb_err_set(err, PB_EINPUT, "gemm multiplies bf16, fp16 or fp32, not %s",
                              pb_dtype_name(o->dtypes[i]));
    if (o->iters == 0)
        o->iters = 50; /* fixed: a GEMM's time hardly varies */
    if (o->iters > 1000000) /* one CUDA event per multiply, all alive at once */
        return pb_err_set(err, PB_EINPUT, "gemm times at most 1000000 multiplies per shape");
    pb_gemm_model_resolve(&o->gemm);
    return pb_gemm_model_check(&o->gemm, err);
}

/* calibrate, model and plan: pure computations with their own options */
static int finish_model(pb_options_t *o, pb_err_t *err)
{
    int modelish = o->cmd == PB_CMD_MODEL || o->cmd == PB_CMD_PLAN || o->cmd == PB_CMD_STEP;
    if (o->cmd == PB_CMD_CALIBRATE && o->ninputs == 0)
        return pb_err_set(err, PB_EINPUT, "parbench calibrate needs at least one results CSV");
    if (o->output && o->cmd != PB_CMD_CALIBRATE && o->cmd != PB_CMD_REPORT &&
        o->cmd != PB_CMD_MAIN)
        return pb_err_set(err, PB_EINPUT,
                          "-o is an option of parbench calibrate, report and the main job");
    if (!modelish && (o->gpus || o->gpus_per_node || o->hw || o->nhw_set || o->calib ||
                      o->gemm_csv || o->selective || o->flash || o->causal || o->tflops ||
                      o->tp_overlap > 0))
        return pb_err_set(err, PB_EINPUT,
                          "--gpus, --gpus-per-node, --hw, --hw-set, --calib, --gemm-csv, "
                          "--selective, --flash, --causal, --tp-overlap and --tflops belong to "
                          "parbench model and plan");
    if (o->selective && o->recompute)
        return pb_err_set(err, PB_EINPUT, "give --recompute (full) or --selective, not both");
    if (o->cmd == PB_CMD_PLAN && (o->layout_given || o->vp || o->sp))
        return pb_err_set(err, PB_EINPUT, "parbench plan searches the layout: no --tp, --pp, "
                                          "--vp, --sp, --cp, --ep or --dp");
    if (o->cmd == PB_CMD_PLAN && o->gpus == 0)
        return pb_err_set(err, PB_EINPUT, "parbench plan needs --gpus N");
    if (o->cmd == PB_CMD_MODEL && !o->layout_given)
        return pb_err_set(err, PB_EINPUT, "parbench model needs a layout (--tp, --pp, ...)");
    return PB_OK;
}

/* report and compare read files: their own small set of options */
static int finish_files(pb_options_t *o, pb_err_t *err)
{
    if (o->cmd == PB_CMD_COMPARE && o->nargs != 2)
        return pb_err_set(err, PB_EINPUT, "compare needs two files: BASE.csv NEW.csv");
    if (o->cmd == PB_CMD_REPORT && o->nargs < 1)
        return pb_err_set(err, PB_EINPUT, "report needs a results file: RESULTS.csv [CALIB.csv]");
    if (o->cmd == PB_CMD_REPORT && o->output == NULL)
        o->output = "report.html";
    if (o->csv_path || o->json_path)
        return pb_err_set(err, PB_EINPUT, "--csv and --json are not options of parbench %s",
                          o->cmd == PB_CMD_REPORT ? "report" : "compare");
    return PB_OK;
}

static int finish(pb_options_t *o, pb_err_t *err)
{
    /* a step's rows are worth keeping even when no file was named: they
     * append to one file, each run under its own run_id */
    if (o->cmd == PB_CMD_STEP && o->csv_path == NULL && o->json_path == NULL)
        o->csv_path = PB_STEP_DEFAULT_CSV;
    if (o->cmd == PB_CMD_REPORT || o->cmd == PB_CMD_COMPARE) {
        if (o->pattern_mask || o->given || o->layout_given)
            return pb_err_set(err, PB_EINPUT, "parbench %s takes files, -o, --pairs and "
                              "--threshold only", o->cmd == PB_CMD_REPORT ? "report" : "compare");
        if (o->pairs_path && o->cmd != PB_CMD_REPORT)
            return pb_err_set(err, PB_EINPUT, "--pairs is an option of parbench report");
        if (o->output && o->cmd != PB_CMD_REPORT)
            return pb_err_set(err, PB_EINPUT,
                              "-o is an option of parbench calibrate, report and the main job");
        return finish_files(o, err);
    }
    if (finish_model(o, err) != PB_OK)
        return err->code;
    if (o->cmd == PB_CMD_CALIBRATE || o->cmd == PB_CMD_MODEL || o->cmd == PB_CMD_PLAN) {
        if (o->pattern_mask || o->dry_run)
            return pb_err_set(err, PB_EINPUT, "--pattern and --dry-run are not options of "
                                              "calibrate, model or plan");
        if (o->ndtypes > 1)
            return pb_err_set(err, PB_EINPUT, "--dtype takes one type (the model's)");
        return PB_OK;
    }
    if (o->pairs_path)
        return pb_err_set(err, PB_EINPUT, "--pairs is an option of parbench report");
    if (o->threshold_given)
        return pb_err_set(err, PB_EINPUT, "--threshold is an option of parbench compare");
    if (o->json_path && o->cmd == PB_CMD_TOPO)
        return pb_err_set(err, PB_EINPUT, "--json writes result rows; parbench topo writes "
                          "pairs (--csv)");
    if (o->pattern_mask && o->cmd == PB_CMD_COLL)
        return pb_err_set(err, PB_EINPUT, "--pattern is not an option of parbench coll");
    if (o->pattern_mask)
        o->cmd = PB_CMD_PATTERN;
    if (o->dry_run && o->cmd != PB_CMD_PATTERN)
        return pb_err_set(err, PB_EINPUT, "--dry-run needs --pattern");
    if (o->cmd == PB_CMD_PATTERN && o->ndtypes > 1)
        return pb_err_set(err, PB_EINPUT, "--dtype takes one type with --pattern (the model's)");
    if (o->cmd == PB_CMD_GEMM)
        return finish_gemm(o, err);
    if (o->cmd == PB_CMD_MAIN)
        pb_cli_main_job_defaults(o);
    if ((o->given & PB_GIVEN_MODEL) && o->cmd != PB_CMD_PATTERN && o->cmd != PB_CMD_MAIN &&
        o->cmd != PB_CMD_STEP)
        return pb_err_set(err, PB_EINPUT,
                          "model options (--hidden, --layers, --seq, ...) belong to --pattern "
                          "and parbench gemm");
    if (o->gemm_backward && o->cmd != PB_CMD_GEMM)
        return pb_err_set(err, PB_EINPUT, "--backward is an option of parbench gemm");
    if (o->ncolls == 0) {
        o->colls[0] = PB_ALLREDUCE;
        o->ncolls = 1;
    }
    if (o->ndtypes == 0) {
        o->dtypes[0] = PB_F32;
        o->ndtypes = 1;
    }
    if (o->nredops == 0) {
        o->redops[0] = PB_SUM;
        o->nredops = 1;
    }
    if (o->nmodes == 0) {
        o->modes[0] = PB_MODE_LATENCY;
        o->nmodes = 1;
    }
    if (o->graph_replays) { /* -G N: graph mode, beside any --mode given */
        int have = 0;
        for (int i = 0; i < o->nmodes; i++)
            have |= o->modes[i] == PB_MODE_GRAPH;
        if (!(o->given & PB_GIVEN_MODE))
            o->nmodes = 0;
        if (!have)
            o->modes[o->nmodes++] = PB_MODE_GRAPH;
    } else {
        o->graph_replays = 10;
    }
    if ((o->sizes_given & 4) && (o->sizes_given & 3))
        return pb_err_set(err, PB_EINPUT, "give sizes either with -b/-e or with --sizes, not both");
    if (o->size_step && (o->given & PB_GIVEN_FACTOR))
        return pb_err_set(err, PB_EINPUT, "give either -f (factor) or -i (step), not both");
    if (!(o->sizes_given & 2))
        o->size_max = (o->sizes_given & 1) ? o->size_min : UINT64_C(64) << 20;
    if (!(o->sizes_given & 4) && o->size_min > o->size_max)
        return pb_err_set(err, PB_EINPUT, "minimum size %llu is above maximum size %llu",
                          (unsigned long long)o->size_min, (unsigned long long)o->size_max);
    if (!(o->given & PB_GIVEN_MIN_ITERS) && o->min_iters > o->max_iters)
        o->min_iters = o->max_iters; /* only the user's own numbers can clash */
    if (o->min_iters > o->max_iters)
        return pb_err_set(err, PB_EINPUT, "--min-iters %llu is above --max-iters %llu",
                          (unsigned long long)o->min_iters, (unsigned long long)o->max_iters);
    if (!o->out_of_place && !o->in_place)
        return pb_err_set(err, PB_EINPUT, "nothing to measure: --place excludes both");
    if (o->topo_nodes && o->topo_xml == NULL)
        return pb_err_set(err, PB_EINPUT,
                          "--nodes needs --topo-xml: a live run has the nodes it runs on");
    /* gemm takes --tp (its layer's split); the whole layout is topo's */
    unsigned layout_ok = o->cmd == PB_CMD_GEMM ? 1u
                         : o->cmd == PB_CMD_TOPO || o->cmd == PB_CMD_PATTERN || o->cmd == PB_CMD_MAIN ||
                                   o->cmd == PB_CMD_STEP
                             ? ~0u
                             : 0u;
    if (o->topo_xml && o->cmd != PB_CMD_TOPO)
        return pb_err_set(err, PB_EINPUT, "--topo-xml is an option of parbench topo");
    if (o->layout_given & ~layout_ok)
        return pb_err_set(err, PB_EINPUT,
                          "a layout (--tp ...) belongs to --pattern and parbench topo");
    if (o->fault == PB_FAULT_SLOW && o->cmd != PB_CMD_VALIDATE)
        return pb_err_set(err, PB_EINPUT, "--fault slow: is an option of parbench validate");
    if (o->min_ratio > 1.0 && o->cmd == PB_CMD_VALIDATE)
        return pb_err_set(err, PB_EINPUT, "--min-ratio must be at most 1 (got %g)", o->min_ratio);
    return PB_OK;
}

int pb_cli_parse(int argc, char **argv, pb_options_t *o, pb_err_t *err)
{
    defaults(o);
    pb_err_clear(err);
    int i = 1;
    if (argc > 1 && argv[1][0] != '-') {
        if (strcmp(argv[1], "coll") == 0)
            o->cmd = PB_CMD_COLL;
        else if (strcmp(argv[1], "gemm") == 0)
            o->cmd = PB_CMD_GEMM;
        else if (strcmp(argv[1], "topo") == 0)
            o->cmd = PB_CMD_TOPO;
        else if (strcmp(argv[1], "validate") == 0)
            o->cmd = PB_CMD_VALIDATE;
        else if (strcmp(argv[1], "calibrate") == 0)
            o->cmd = PB_CMD_CALIBRATE;
        else if (strcmp(argv[1], "model") == 0)
            o->cmd = PB_CMD_MODEL;
        else if (strcmp(argv[1], "plan") == 0)
            o->cmd = PB_CMD_PLAN;
        else if (strcmp(argv[1], "step") == 0)
            o->cmd = PB_CMD_STEP;
        else if (strcmp(argv[1], "report") == 0)
            o->cmd = PB_CMD_REPORT;
        else if (strcmp(argv[1], "compare") == 0)
            o->cmd = PB_CMD_COMPARE;
        else if (strcmp(argv[1], "help") == 0)
            o->cmd = PB_CMD_HELP;
        else
            return pb_err_set(err, PB_EINPUT, "unknown command '%s' (see parbench --help)", argv[1]);
        i = 2;
    }
    for (; i < argc; i++) {
        const char *a = argv[i];
        const struct opt_spec *s = NULL;
        const char *val = NULL;
        char shown[64];
        if (a[0] == '-' && a[1] == '-' && a[2] != '\0') {
            const char *eq = strchr(a + 2, '=');
            size_t len = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
            s = find_long(a + 2, len);
            snprintf(shown, sizeof shown, "--%.*s", (int)(len < 40 ? len : 40), a + 2);
            if (s && eq) {
                if (!s->has_arg)
                    return pb_err_set(err, PB_EINPUT, "option %s takes no value", shown);
                val = eq + 1;
            }
        } else if (a[0] == '-' && a[1] != '\0' && a[1] != '-') {
            s = find_short(a[1]);
            snprintf(shown, sizeof shown, "-%c", a[1]);
            if (s && a[2] != '\0') {
                if (!s->has_arg)
                    return pb_err_set(err, PB_EINPUT, "unknown option '%s' (see parbench --help)", a);
                val = a + 2;
            }
        } else if (o->cmd == PB_CMD_CALIBRATE && a[0] != '-') {
            /* calibrate's inputs: results files */
            if (o->ninputs == PB_MAX_INPUTS)
                return pb_err_set(err, PB_EINPUT, "at most %d results files", PB_MAX_INPUTS);
            o->inputs[o->ninputs++] = a;
            continue;
        } else if ((o->cmd == PB_CMD_REPORT || o->cmd == PB_CMD_COMPARE) && o->nargs < 2) {
            o->args[o->nargs++] = a; /* the files to read */
            continue;
        } else {
            return pb_err_set(err, PB_EINPUT, "unexpected argument '%s' (see parbench --help)", a);
        }
        if (s == NULL)
            return pb_err_set(err, PB_EINPUT, "unknown option '%s' (see parbench --help)", a);
        if (s->has_arg && val == NULL) {
            if (i + 1 >= argc)
                return pb_err_set(err, PB_EINPUT, "option %s needs a value", shown);
            val = argv[++i];
        }
        if (apply(o, s, val, shown, err) != PB_OK)
            return err->code;
    }
    if (o->help) {
        o->help_for = o->cmd;
        o->cmd = PB_CMD_HELP;
    }
    if (o->cmd == PB_CMD_HELP || o->cmd == PB_CMD_VERSION)
        return PB_OK;
    return finish(o, err);
}
