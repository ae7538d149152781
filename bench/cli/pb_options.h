/* pb_options.h - everything the command line can say, as plain data.
 *
 * The options come in groups, one struct each: a group is what several
 * commands share (how a run launches and writes, what a measurement
 * sweeps, the model and its layout, the hardware a prediction assumes),
 * and a command's own options are one more struct.  Which command takes
 * which group, with the help text of every option, is the command table
 * (cmd/pb_cmd_*.c); the parser (pb_cli.c) fills only the groups of the
 * command typed, so a function that needs the model is given a
 * pb_model_opts_t, not the whole command line.
 *
 * Parsing is pure: no MPI, no I/O beyond the error value, so every rank
 * parses the same argv to the same result, and a bad flag is refused
 * identically everywhere without any communication. */
#ifndef PB_OPTIONS_H
#define PB_OPTIONS_H

#include <stddef.h>
#include <stdint.h>

#include "../../core/pb_coll.h"
#include "../../core/pb_dtype.h"
#include "../../util/pb_err.h"
#include "../../model/pb_gemm_shapes.h"
#include "../../validate/pb_vexpect.h"

#define PB_VERSION "0.1.0"

/* Command ids (the order --help lists them is cmd/pb_cmd_list.def's). */
typedef enum pb_command {
    PB_CMD_MAIN, /* no sub-command: the main job */
    PB_CMD_COLL,
    PB_CMD_GEMM, /* cuBLAS compute rate of a transformer layer's GEMMs */
    PB_CMD_TOPO,     /* the GPU/NIC matrix, node map, layout placement */
    PB_CMD_VALIDATE, /* send/recv bandwidth of every pair vs its class */
    PB_CMD_PATTERN, /* --pattern given (the main job's table) */
    PB_CMD_CALIBRATE, /* results CSV -> fitted collective model (pure) */
    PB_CMD_MODEL,     /* predicted step of one layout (pure) */
    PB_CMD_PLAN,      /* ranked layouts (pure) */
    PB_CMD_STEP,    /* one training step's schedule, executed */
    PB_CMD_REPORT,  /* results.csv [calib.csv] -> report.html; no MPI */
    PB_CMD_COMPARE, /* base.csv new.csv: the regression gate; no MPI */
    PB_CMD_IMPORT,  /* nccl-tests/OSU/IMB logs -> result rows; no MPI */
    PB_CMD_TUNE,    /* the communication settings fastest for a job's messages */
    PB_CMD_PROFILE, /* a recorded job's communication analysed (jobprof/); no MPI */
    PB_CMD_REPLAY,  /* a recorded job's communication run again (jobprof/) */
    PB_CMD_HELP,
    PB_CMD_VERSION
} pb_command_t;

#define PB_MODEL_FLAGS 32
#define PB_MAX_INPUTS 16

/* latency: one op per sample (OSU); throughput: a batch of back-to-back
 * ops per sample (nccl-tests); graph: the batch captured once as a device
 * graph and replayed (launch gaps gone; device backends only). */
typedef enum pb_mode {
    PB_MODE_LATENCY,
    PB_MODE_THROUGHPUT,
    PB_MODE_GRAPH,
    PB_MODE_COUNT
} pb_mode_t;

typedef enum pb_fault_kind {
    PB_FAULT_NONE,
    PB_FAULT_CORRUPT, /* one received element wrong: the checker must see it */
    PB_FAULT_STALL,   /* a device stops: the hang detection must see it */
    PB_FAULT_SLOW,    /* one pair slow: validate must flag it */
    PB_FAULT_HANG,    /* a rank stops before a step: the watchdog must name it */
    PB_FAULT_SLOW_RANK, /* every transfer of one rank slow: validate must name the rank */
    PB_FAULT_NOISY    /* one pair slow in validate's rounds only: it must be cleared */
} pb_fault_kind_t;

/* meas.given: what the user typed, so that a command's defaults never
 * override it */
enum {
    PB_GIVEN_OP = 1u << 0,
    PB_GIVEN_BUDGET = 1u << 1,
    PB_GIVEN_MIN_ITERS = 1u << 2,
    PB_GIVEN_FACTOR = 1u << 3,
    PB_GIVEN_CHECK = 1u << 4,
    PB_GIVEN_MODE = 1u << 5,
    PB_GIVEN_DTYPE = 1u << 6,
    PB_GIVEN_WARMUP = 1u << 7
};

/* Layout sizes in Megatron order, indexed like topo/pb_place.h's kinds. */
enum { PB_LAYOUT_TP, PB_LAYOUT_CP, PB_LAYOUT_EP, PB_LAYOUT_DP, PB_LAYOUT_PP, PB_LAYOUT_DIMS };

/* parbench step appends its rows here when no --csv/--json is given */
#define PB_STEP_DEFAULT_CSV "parbench-step.csv"

/* group "run": how a command that runs ranks launches, talks and writes */
typedef struct pb_run_opts {
    char backend[32];
    const char *nccl_lib; /* --nccl-lib: libnccl to load; NULL: search */
    int np;
    int gpus;           /* --gpus N: N ranks as threads of this process (0: none) */
    int no_launch;
    double timeout_s;   /* an operation longer than this is a hang */
    int memory_device;  /* --memory device: buffers on the GPU */
    uint64_t chunk_bytes;
    const char *csv_path;
    const char *json_path; /* --json: the same rows as JSON Lines */
    const char *label;
    int quiet;
    /* test switch */
    pb_fault_kind_t fault;
    int fault_rank;
    int fault_peer; /* slow:A-B: fault_rank = A, fault_peer = B */
} pb_run_opts_t;

/* group "measurement": what a sweep measures and how long (coll, the main
 * job, --pattern): lists, all of whose combinations run */
typedef struct pb_meas_opts {
    pb_coll_t colls[PB_COLL_COUNT];
    int ncolls;
    pb_dtype_t dtypes[PB_DTYPE_COUNT];
    int ndtypes;
    pb_redop_t redops[PB_REDOP_COUNT];
    int nredops;
    pb_mode_t modes[PB_MODE_COUNT];
    int nmodes;
    int out_of_place; /* --place out|in|both */
    int in_place;
    int root;
    int group_size; /* 0 = the whole world */
    /* sizes: either a range or an explicit list */
    uint64_t size_min, size_max, size_step;
    double size_factor;
    const char *size_list; /* points into argv */
    int sizes_given;       /* bits: 1 -b, 2 -e, 4 --sizes */
    /* iterations */
    uint64_t iters;  /* -n: fixed count; 0 = adaptive */
    uint64_t warmup; /* -w */
    /* seconds: fewer warm-up operations (at least one) where -w of them
     * would take longer, by the slowest rank's first; 0 = -w exactly
     * (the main job's default: a tenth of its time budget) */
    double warmup_cap;
    uint64_t min_iters, max_iters;
    double precision;   /* relative half-width of the median's 95 % CI */
    double time_budget; /* seconds per measurement */
    uint64_t batch;     /* throughput mode ops per sample; 0 = auto */
    uint64_t graph_replays; /* graph mode: replays of the captured batch per sample */
    /* --buffers: 1 rotate, 0 fixed, -1 (unset) the backend's reference
     * tool's way (PB_CAP_ROTATE: nccl-tests rotates, OSU does not) */
    int rotate;
    int dtypes_all; /* --dtype all: skip (and name) what the backend cannot run */
    const char *samples_path; /* --samples: every rank's every sample (points into argv) */
    int check;
    unsigned given; /* PB_GIVEN_* */
} pb_meas_opts_t;

/* The training settings a traffic list and a prediction depend on. */
typedef struct pb_train_opts {
    int dp_bucket; /* --dp-bucket: 1 + pb_bucket_t; 0: the stack's */
    int zero;          /* --zero 0..3 (--dist-opt = 1) */
    const char *grad_dtype;
    int recompute;
    double imbalance;
    /* --tokens-per-step T: the global batch as tokens (gbs = T / seq) */
    uint64_t tokens_per_step;
    /* --no-overlap-grad-reduce, --no-overlap-tp-bwd, --no-overlap-p2p:
     * Megatron-Core's overlaps, each on by default (pb_step.h) */
    int no_overlap_grad, no_overlap_tp_bwd, no_overlap_p2p;
    /* --framework NAME: the stack, whose operations the traffic lists
     * and whose defaults a prediction starts from (pb_job_set) */
    const char *framework;
} pb_train_opts_t;

/* group "model" (+ "layout"): the model and the layout a pattern, a step,
 * a prediction or a plan are about.  Model fields are kept as (key, value)
 * pairs in command-line order and applied by pb_model_set over the preset
 * and the model file, so a flag and a model-file line mean the same. */
typedef struct pb_model_opts {
    const char *preset;
    const char *model_file;
    const char *hf_config;     /* --hf-config: a Hugging Face config.json */
    const char *megatron_args; /* --megatron-args FILE|-: a launch script */
    /* what pb_megatron_merge read from the script: model_kv points here */
    char file_kv[PB_MODEL_FLAGS][2][24];
    char file_grad_dtype[8];
    const char *model_kv[PB_MODEL_FLAGS][2];
    int nmodel_kv;
    const char *dtype; /* the model's type (NULL: the preset's) */
    int layout[PB_LAYOUT_DIMS]; /* 0 = not given */
    unsigned layout_given; /* bit d: layout[d] was typed */
    int vp;
    int sp;
    int etp; /* --etp N: the experts' tensor parallelism (0: = tp) */
    int shard; /* --shard-group N: HSDP's shard group (0: the whole DP group) */
    const char *order;
    pb_train_opts_t train;
} pb_model_opts_t;

/* group "prediction": the hardware and the compute model of model, plan
 * and step's prediction (strings point into argv) */
typedef struct pb_predict_opts {
    int gpus;             /* --gpus (0: the layout's product) */
    int gpus_per_node;    /* --gpus-per-node (0: the hardware's) */
    const char *hw;       /* --hw preset name */
    const char *hw_set[PB_MAX_INPUTS]; /* --hw-set key=value */
    int nhw_set;
    const char *calib;    /* --calib: calibrate's CSV */
    const char *gemm_csv; /* --gemm-csv: parbench gemm rows for the compute rate */
    const char *against;  /* --against FILE: model the published runs of FILE */
    int selective;        /* --selective: selective recomputation */
    int flash;            /* --flash: flash attention (the default; explicit) */
    int no_flash;         /* --no-flash: materialised scores (s^2 activations) */
    int causal;           /* --causal: count half the attention scores (the
                           * default with flash attention) */
    int no_causal;        /* --no-causal: count every score (an encoder) */
    /* the stack's settings, applied by name through pb_job_set (as an
     * --against file's columns are), after --framework's defaults
     * (pb_train_opts_t): --dtype fp8 (the GEMMs'), --tp-overlap F|on|off,
     * --recompute-mode MODE (over --recompute / --selective) */
    const char *overlap; /* --overlap LETTERS: an --against file's overlap column */
    const char *gemm_dtype;
    const char *tp_overlap;
    const char *recompute_mode;
    /* --moe-imbalance F, --moe-ep-overlap, --param-dtype T (pb_job_set) */
    const char *moe_imbalance;
    int moe_ep_overlap;
    const char *param_dtype;
    /* --optim-dtype T, --loss KIND (pb_job_set): the memory model's */
    const char *optim_dtype;
    const char *loss;
    const char *json;     /* --json FILE|-: the prediction as JSON (model, plan) */
    int fsdp2;            /* --fsdp2: ZeRO-3's copies on the compute stream */
    int unfused_accum;    /* --unfused-grad-accum: a separate add per micro-batch */
    double tflops;        /* --tflops: compute rate override */
    const char *ep_dispatcher; /* --ep-dispatcher: alltoall, flex or auto */
    const char *pp_schedule;   /* --pp-schedule: 1f1b or dualpipe (model, plan) */
    const char *fp8_recipe;    /* --fp8-recipe: tensorwise or rowwise */
} pb_predict_opts_t;

/* ---- each command's own options ---- */

typedef struct pb_main_opts {
    const char *output;    /* -o: the main job's folder */
    unsigned pattern_mask; /* --pattern: bits of pb_strategy_t */
    int dry_run;
} pb_main_opts_t;

typedef struct pb_gemm_opts {
    pb_gemm_model_t layer; /* the layer whose GEMMs to time */
    int backward;          /* also dgrad and wgrad */
    pb_dtype_t dtypes[PB_DTYPE_COUNT];
    int ndtypes;
    int dtype_given;
    uint64_t iters, warmup;
} pb_gemm_opts_t;

typedef struct pb_topo_opts {
    const char *xml; /* a dump instead of the live machine */
    int nodes;       /* hypothetical nodes of that dump (0 = 1) */
    const char *nccl; /* --nccl-topo: an NCCL_TOPO_FILE instead */
    int nvlink;       /* --nvlink N: NVLinks per GPU pair, where the file says none */
} pb_topo_opts_t;

typedef struct pb_validate_opts {
    uint64_t max_pairs; /* pairs measured at most */
    double min_ratio;   /* flag pairs below ratio x class median */
    uint64_t bytes;     /* -b: message size */
    int pairs;          /* --pairs: a pb_tourn_pairs_t (validate/pb_tournament.h) */
    double budget_s;    /* --budget: seconds, 0 = none */
    double min_share;   /* flag pairs below share x their expected GB/s */
    uint64_t confirm;   /* flagged pairs re-measured alone at most */
    pb_vexpect_set_t expect; /* --expect CLASS=GB/s */
} pb_validate_opts_t;

typedef struct pb_step_opts {
    int schedule;         /* pb_sched_kind_t; -1: by --vp */
    double compute_scale; /* shrinks (or grows) the stand-in's durations */
    uint64_t steps;       /* the first is a warm-up */
    int no_comm;          /* test switch: only the pipeline's order remains */
    const char *trace_path; /* --trace: the last step's timeline, Chrome trace JSON */
    int check;
} pb_step_opts_t;

typedef struct pb_calibrate_opts {
    const char *inputs[PB_MAX_INPUTS]; /* results files */
    int ninputs;
    const char *output; /* -o: the pieces as CSV */
    double fit_tol;     /* --fit-tol: a piece's largest relative error */
} pb_calibrate_opts_t;

/* import: logs in (positional), rows out (--csv: run.csv_path; --np:
 * run.np), optionally the calibration */
typedef struct pb_import_cmd_opts {
    const char *inputs[PB_MAX_INPUTS];
    int ninputs;
    const char *tool; /* --tool auto|nccl-tests|osu|imb (NULL: auto) */
    int partial;
    const char *output; /* -o: the calibration of the rows */
    double fit_tol;
    int nodes, per_node; /* --nodes, --per-node: placement (0: the log's, or unknown) */
    const char *op;      /* --op: the collective of a log that names none */
} pb_import_cmd_opts_t;

/* tune: the budget, the pairs per case, the knobs searched, the files
 * written (strings point into argv) */
typedef struct pb_tune_opts {
    double budget_s;    /* --budget: seconds, 0 = none */
    uint64_t pairs;     /* --pairs: default/candidate pairs per case */
    const char *knobs;  /* --knobs: comma-separated names (NULL: every one that applies) */
    const char *env_path; /* --env: the env file (default tune.env) */
    const char *csv_path; /* --tune-csv: every candidate (default tune.csv) */
    int list;           /* --list-knobs: print the table, run nothing */
} pb_tune_opts_t;

/* replay: the recording (positional, pointing into argv), the passes,
 * the gaps, the sizes' scale, the steps the recording holds */
typedef struct pb_replay_opts {
    const char *inputs[PB_MAX_INPUTS];
    int ninputs;
    uint64_t iters;  /* timed passes over the recording */
    uint64_t warmup; /* untimed passes before them (the first verified) */
    int gaps;        /* --gaps: each rank's recorded idle time before an operation, busy */
    double scale;    /* --scale F: every size x F */
    uint64_t steps;  /* --steps K: the recording holds K training steps (0: not said) */
    const char *csv_path; /* --csv: the per-communicator table (replaced) */
} pb_replay_opts_t;

/* profile: the recordings (positional: files or folders, pointing into
 * argv), what to write, the thresholds of its findings */
typedef struct pb_profile_opts {
    const char *inputs[PB_MAX_INPUTS];
    int ninputs;
    const char *trace_path; /* --trace: every rank's operations, Chrome trace JSON */
    const char *csv_path;   /* --csv: the ops CSV (jobprof/pb_jp_csv.h) */
    const char *html_path;  /* --html: the findings as a page */
    uint64_t steps;         /* --steps: training steps recorded (0: estimated) */
    double min_eff;         /* --min-eff: rows below this share of the curve are listed */
    double min_lag_us;      /* --min-lag: a shorter lag makes nobody last */
    double size_tol;        /* --size-tol: sizes this close (a fraction) match the model's */
} pb_profile_opts_t;

/* report and compare: positional files (point into argv), -o, the
 * topology pairs CSV, the regression threshold (a fraction) */
typedef struct pb_files_opts {
    const char *args[2];
    int nargs;
    const char *output;
    const char *pairs_path;
    double threshold;
    int allow_missing; /* compare --allow-missing: rows on one side only pass */
    int ignore_noise;  /* compare --ignore-noise: the threshold without the rows' noise */
    const char *run_id; /* report --run ID: the run to show (NULL: the newest) */
    int all_runs;       /* report --all-runs: every run of the file on one page */
    int log_bw;         /* report --log-bw: bus bandwidth on a log axis */
} pb_files_opts_t;

typedef struct pb_options {
    pb_command_t cmd;
    int help;              /* -h given */
    pb_command_t help_for; /* the command whose help to print */
    /* shared groups */
    pb_run_opts_t run;
    pb_meas_opts_t meas;
    pb_model_opts_t model;
    pb_predict_opts_t predict;
    /* the commands' own */
    pb_main_opts_t main;
    pb_gemm_opts_t gemm;
    pb_topo_opts_t topo;
    pb_validate_opts_t validate;
    pb_step_opts_t step;
    pb_calibrate_opts_t calibrate;
    pb_files_opts_t files;
    pb_import_cmd_opts_t import;
    pb_tune_opts_t tune;
    int top; /* plan: layouts printed */
    pb_replay_opts_t replay;
    pb_profile_opts_t profile;
} pb_options_t;

/* Fills defaults, then parses argv (argv[0] is the program).  Returns
 * PB_OK or PB_EINPUT with one line in err. */
int pb_cli_parse(int argc, char **argv, pb_options_t *opt, pb_err_t *err);

/* Help text for a command, made from its table on first use. */
const char *pb_cli_usage(pb_command_t cmd);

#endif
