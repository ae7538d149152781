/* pb_options.h - everything the command line can say, as plain data.
 *
 * Parsing (pb_cli.c) is pure: no MPI, no I/O beyond the error value, so
 * every rank parses the same argv to the same result, and a bad flag is
 * refused identically everywhere without any communication. */
#ifndef PB_OPTIONS_H
#define PB_OPTIONS_H

#include <stddef.h>
#include <stdint.h>

#include "../core/pb_coll.h"
#include "../core/pb_dtype.h"
#include "../util/pb_err.h"
#include "pb_gemm_shapes.h"

#define PB_VERSION "0.1.0"

typedef enum pb_command {
    PB_CMD_MAIN, /* no sub-command: the main job */
    PB_CMD_COLL,
    PB_CMD_GEMM, /* cuBLAS compute rate of a transformer layer's GEMMs */
    PB_CMD_TOPO,     /* the GPU/NIC matrix, node map, layout placement */
    PB_CMD_VALIDATE, /* send/recv bandwidth of every pair vs its class */
    PB_CMD_PATTERN, /* --pattern given */
    PB_CMD_CALIBRATE, /* results CSV -> fitted collective model (pure) */
    PB_CMD_MODEL,     /* predicted step of one layout (pure) */
    PB_CMD_PLAN,      /* ranked layouts (pure) */
    PB_CMD_STEP,    /* one training step's schedule, executed */
    PB_CMD_REPORT,  /* results.csv [calib.csv] -> report.html; no MPI */
    PB_CMD_COMPARE, /* base.csv new.csv: the regression gate; no MPI */
    PB_CMD_HELP,
    PB_CMD_VERSION
} pb_command_t;

#define PB_MODEL_FLAGS 32

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
    PB_FAULT_HANG     /* a rank stops before a step: the watchdog must name it */
} pb_fault_kind_t;

enum {
    PB_GIVEN_OP = 1u << 0,
    PB_GIVEN_BUDGET = 1u << 1,
    PB_GIVEN_MIN_ITERS = 1u << 2,
    PB_GIVEN_FACTOR = 1u << 3,
    PB_GIVEN_CHECK = 1u << 4,
    PB_GIVEN_MODE = 1u << 5,
    PB_GIVEN_DTYPE = 1u << 6,
    PB_GIVEN_MODEL = 1u << 7 /* any of the layer options of `gemm` */
};


/* Layout sizes in Megatron order, indexed like topo/pb_place.h's kinds. */
enum { PB_LAYOUT_TP, PB_LAYOUT_CP, PB_LAYOUT_EP, PB_LAYOUT_DP, PB_LAYOUT_PP, PB_LAYOUT_DIMS };

/* parbench step appends its rows here when no --csv/--json is given */
#define PB_STEP_DEFAULT_CSV "parbench-step.csv"

typedef struct pb_options {
    pb_command_t cmd;
    int help;              /* -h given */
    pb_command_t help_for; /* the command whose help to print */
    char backend[32];

    /* what to measure: lists, all of whose combinations run */
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

    /* sizes: either a range or an explicit list */
    uint64_t size_min, size_max, size_step;
    double size_factor;
    const char *size_list; /* points into argv */
    int sizes_given;

    /* iterations */
    uint64_t iters;  /* -n: fixed count; 0 = adaptive */
    uint64_t warmup; /* -w */
    uint64_t min_iters, max_iters;
    double precision;   /* relative half-width of the median's 95 % CI */
    double time_budget; /* seconds per measurement */
    uint64_t batch;     /* throughput mode ops per sample; 0 = auto */
    uint64_t graph_replays; /* graph mode: replays of the captured batch per sample */
    double timeout_s;   /* an operation longer than this is a hang */
    int memory_device;  /* --memory device: buffers on the GPU */

    int check;
    const char *csv_path;
    const char *json_path; /* --json: the same rows as JSON Lines */
    const char *label;
    int quiet;

    /* parbench gemm: the layer whose GEMMs to time, and whether to time
     * the backward pass's dgrad and wgrad GEMMs too */
    pb_gemm_model_t gemm;
    int gemm_backward;

    /* launching and groups */
    int np;
    int no_launch;
    int group_size; /* 0 = the whole world */
    uint64_t chunk_bytes;

    /* options the user typed, so that command defaults never override
     * them (PB_GIVEN_* bits) */
    unsigned given;
    /* topology and validation */
    const char *topo_xml; /* a dump instead of the live machine */
    int topo_nodes;       /* hypothetical nodes of that dump (0 = 1) */
    int layout[PB_LAYOUT_DIMS]; /* 0 = not given */
    unsigned layout_given; /* bit d: layout[d] was typed */
    uint64_t max_pairs; /* validate: pairs measured at most */
    double min_ratio;   /* validate: flag pairs below ratio x class median */
    /* --pattern: the strategies (bits of pb_strategy_t), the model and
     * the layout they run; strings point into argv.  Model fields are
     * kept as (key, value) pairs in command-line order and applied by
     * pb_model_set over the preset and the model file, so a flag and a
     * model-file line mean the same thing. */
    unsigned pattern_mask;
    int dry_run;
    const char *preset;
    const char *model_file;
    const char *model_kv[PB_MODEL_FLAGS][2];
    int nmodel_kv;
    const char *dtype_arg; /* the last --dtype: the model's type with --pattern */
    int vp;
    int sp;
    const char *order;
    int dp_bucket_ddp; /* --dp-bucket ddp|megatron */
    int zero;          /* --zero 0..3 (--dist-opt = 1) */
    const char *grad_dtype;
    int recompute;
    double imbalance;

    /* calibrate, model, plan: pure computations, no MPI (strings point
     * into argv) */
#define PB_MAX_INPUTS 16
    const char *inputs[PB_MAX_INPUTS]; /* calibrate's result files */
    int ninputs;
    const char *output;   /* -o: calibrate's CSV, report's file, the main job's folder */
    double fit_tol;       /* --fit-tol: a piece's largest relative error */
    int gpus;             /* --gpus (0: the layout's product) */
    int gpus_per_node;    /* --gpus-per-node (0: the hardware's) */
    const char *hw;       /* --hw preset name */
    const char *hw_set[PB_MAX_INPUTS]; /* --hw-set key=value */
    int nhw_set;
    const char *calib;    /* --calib: calibrate's CSV */
    const char *gemm_csv; /* --gemm-csv: parbench gemm rows for the compute rate */
    int selective;        /* --selective: selective recomputation */
    int flash;            /* --flash: flash attention (no s^2 activations) */
    int causal;           /* --causal: count half the attention scores */
    double tp_overlap;    /* --tp-overlap F */
    double tflops;        /* --tflops: compute rate override */
    int top;              /* plan: layouts printed */
    /* step: schedule (pb_sched_kind_t; -1: by --vp), compute stand-in, steps */
    int schedule;
    double compute_scale; /* shrinks (or grows) the stand-in's durations */
    uint64_t steps;       /* the first is a warm-up */
    int step_no_comm;     /* test switch: only the pipeline's order remains */
    const char *trace_path; /* --trace: the last step's timeline, Chrome trace JSON */
    /* report and compare: positional files (point into argv), -o, the
     * topology pairs CSV, the regression threshold (a fraction) */
    const char *args[2];
    int nargs;
    const char *pairs_path;
    double threshold;
    int threshold_given;
    /* main job: the folder every output went to (set on rank 0 by
     * pb_main_job_prepare; NULL elsewhere) */
    const char *out_dir;

    /* test switches */
    pb_fault_kind_t fault;
    int fault_rank;
    int fault_peer; /* slow:A-B: fault_rank = A, fault_peer = B */
} pb_options_t;

/* Fills defaults, then parses argv (argv[0] is the program).  Returns
 * PB_OK or PB_EINPUT with one line in err. */
int pb_cli_parse(int argc, char **argv, pb_options_t *opt, pb_err_t *err);

/* The defaults of the main job, applied when no sub-command is given. */
void pb_cli_main_job_defaults(pb_options_t *opt);

/* Help text for a command. */
const char *pb_cli_usage(pb_command_t cmd);

#endif
