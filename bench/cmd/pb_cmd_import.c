#include "pb_cmd_import.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../../core/pb_coll.h"
#include "../../util/pb_list.h"

#include "../../jobprof/pb_jobprof.h"
#include "../../jobprof/pb_jp_csv.h"
#include "../../jobprof/pb_jp_gz.h"
#include "../../jobprof/pb_jp_ranks.h"
#include "../../reports/pb_csv.h"
#include "../../reports/pb_import.h"
#include "pb_cmd_calibrate.h"
#include "pb_import_jobsum.h"
#include "../cli/pb_opt_common.h"

/* What one file held, on a line or three. */
static void summary(const char *path, const pb_import_out_t *out)
{
    const pb_result_t *r = &out->rows[0];
    char colls[200] = "";
    for (size_t i = 0; i < out->n; i++)
        pb_list_add(colls, sizeof colls, out->rows[i].collective, ",");
    printf("# %s: %zu rows from %s (%s), world %d", path, out->n, r->backend, colls, r->world);
    if (r->nodes > 0)
        printf(" on %d node%s", r->nodes, r->nodes == 1 ? "" : "s");
    if (r->group_size != r->world)
        printf(", groups of %d", r->group_size);
    printf("\n");
    if (out->skipped)
        printf("# %s: %zu line%s skipped (--partial); the first: %s\n", path, out->skipped,
               out->skipped == 1 ? "" : "s", out->first_skip);
    size_t wrong = 0, unplaced = 0;
    for (size_t i = 0; i < out->n; i++) {
        wrong += out->rows[i].wrong > 0;
        unplaced += strcmp(out->rows[i].link_class, PB_IMPORT_LINK_UNKNOWN) == 0;
    }
    if (out->failure[0] && out->failed_check)
        printf("# %s: the run failed its data check, every row kept, %zu marked wrong "
               "(--partial; calibrate leaves them out): %s\n", path, wrong, out->failure);
    else if (out->failure[0])
        printf("# %s: the run failed, the rows before it kept (--partial): %s\n", path,
               out->failure);
    if (unplaced)
        printf("# %s: placement unknown: the log does not say how its processes sat on "
               "nodes (link class '%s' on %zu rows); calibrate refuses them: give --nodes N "
               "or --per-node G\n", path, PB_IMPORT_LINK_UNKNOWN, unplaced);
    if (out->ignored[0])
        printf("# %s: left out (no parbench counterpart): %s\n", path, out->ignored);
    if (out->have_avg) {
        double a = out->avg_busbw_stated, b = out->avg_busbw_rows;
        printf("# %s: Avg bus bandwidth %.4g GB/s in the log, %.4g GB/s from its rows%s\n", path,
               a, b, a > 1.01 * b + 0.01 || b > 1.01 * a + 0.01 ? " (rows missing or edited?)" : "");
    }
}

/* A PyTorch profiler trace (or a directory of them): JSON, which starts
 * with '{'; no benchmark log does.  Gzipped (*.pt.trace.json.gz), it is
 * looked at gunzipped, and any gzip goes to the trace reader, which says
 * what it holds: the log readers take text only. */
static int is_trace(const char *path)
{
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        return 1;
    return pb_jp_first_char(path) == '{' || pb_jp_path_is_gzip(path);
}

/* PyTorch traces, one per rank, are one job: read whole, then written as
 * the ops CSV (replaced, not appended) that profile and replay read. */
static int import_traces(const pb_options_t *o, pb_err_t *err)
{
    if (o->import.output)
        return pb_err_set(err, PB_EINPUT, "-o fits benchmark logs; PyTorch traces become an "
                          "ops CSV for parbench profile and replay");
    pb_jobprof_t jp;
    pb_jobprof_init(&jp);
    int code = pb_jp_load(o->import.inputs, (size_t)o->import.ninputs, &jp, err);
    if (code == PB_OK)
        code = pb_jp_csv_write(o->run.csv_path, &jp, err);
    /* counted as profile counts the same recording (pb_import_jobsum.h) */
    if (code == PB_OK)
        code = pb_import_jobsum(&jp, err);
    if (code == PB_OK) {
        pb_jp_missing_warn(&jp, "the CSV holds the others only, and replay refuses it",
                           stderr);
        printf("# written: %zu records (one per rank's operation) to %s (parbench profile "
               "%s)\n", jp.nops, o->run.csv_path, o->run.csv_path);
    }
    pb_jobprof_free(&jp);
    return code;
}

/* Every file is parsed before a row is written: a bad log leaves no
 * half-written CSV behind. */
int pb_import_cmd(const pb_options_t *o, pb_err_t *err)
{
    int traces = 0;
    for (int i = 0; i < o->import.ninputs; i++)
        traces += is_trace(o->import.inputs[i]);
    int want = o->import.tool && strcmp(o->import.tool, "pytorch") == 0;
    if (traces && traces < o->import.ninputs)
        return pb_err_set(err, PB_EINPUT, "import reads PyTorch traces or benchmark logs, "
                          "not both at once");
    if (want && !traces)
        return pb_err_set(err, PB_EINPUT, "--tool pytorch: %s is not a PyTorch profiler trace "
                          "(JSON) nor a directory of them", o->import.inputs[0]);
    if (traces)
        return import_traces(o, err);
    pb_import_opts_t io = {PB_IMPORT_AUTO, o->import.partial, o->run.np,
                           o->import.nodes, o->import.per_node, o->import.op};
    if (pb_import_tool_parse(o->import.tool ? o->import.tool : "auto", &io.tool) != 0)
        return pb_err_set(err, PB_EINPUT, "--tool takes auto, nccl-tests, osu or imb, not '%s'",
                          o->import.tool);
    pb_import_out_t out[PB_MAX_INPUTS];
    memset(out, 0, sizeof out);
    int code = PB_OK;
    for (int i = 0; i < o->import.ninputs && code == PB_OK; i++)
        code = pb_import_file(o->import.inputs[i], &io, &out[i], err);
    pb_csv_writer_t *w = NULL;
    size_t total = 0;
    if (code == PB_OK)
        code = pb_csv_open(o->run.csv_path, &w, err);
    for (int i = 0; i < o->import.ninputs && code == PB_OK; i++) {
        for (size_t k = 0; k < out[i].n && code == PB_OK; k++)
            code = pb_csv_write(w, &out[i].rows[k], err);
        summary(o->import.inputs[i], &out[i]);
        total += out[i].n;
    }
    if (w)
        pb_csv_close(w);
    for (int i = 0; i < o->import.ninputs; i++)
        pb_import_out_free(&out[i]);
    if (code != PB_OK)
        return code;
    printf("# written: %zu rows to %s\n", total, o->run.csv_path);
    if (o->import.output == NULL)
        return PB_OK;
    /* -o: the calibration of the CSV's rows, as `calibrate` fits it */
    pb_options_t c = *o;
    c.calibrate.inputs[0] = o->run.csv_path;
    c.calibrate.ninputs = 1;
    c.calibrate.output = o->import.output;
    c.calibrate.fit_tol = o->import.fit_tol;
    return pb_calibrate_cmd(&c, err);
}

/* ---- the command: its options and table row ----------------------- */

static int set_tool(pb_options_t *o, const pb_opt_spec_t *s, const char *v, const char *shown,
                    pb_err_t *err)
{
    (void)s;
    (void)shown;
    if (strcmp(v, "auto") != 0 && strcmp(v, "nccl-tests") != 0 && strcmp(v, "osu") != 0 &&
        strcmp(v, "imb") != 0 && strcmp(v, "pytorch") != 0)
        return pb_err_set(err, PB_EINPUT,
                          "--tool takes auto, nccl-tests, osu, imb or pytorch, not '%s'", v);
    o->import.tool = v;
    return PB_OK;
}

/* --op: parbench's name of a collective a log can hold (the alias too:
 * all_reduce); stored as parbench names it */
static int set_op(pb_options_t *o, const pb_opt_spec_t *s, const char *v, const char *shown,
                  pb_err_t *err)
{
    (void)s;
    pb_coll_t c;
    if (pb_coll_parse(v, &c) != 0 || c == PB_ALLTOALLV)
        return pb_err_set(err, PB_EINPUT, "%s takes allreduce, allgather, reducescatter, "
                          "alltoall, broadcast, reduce or sendrecv, not '%s'", shown, v);
    o->import.op = pb_coll_name(c);
    return PB_OK;
}

static const pb_opt_spec_t import_specs[] = {
    {"csv", 0, "FILE", pb_opt_file, PB_OFF(run.csv_path), 0,
     "append the rows here (required); of PyTorch traces, the\n"
     "job's operations (replaced: parbench profile and replay read it)",
     "@file", NULL},
    {"tool", 0, "T", set_tool, 0, 0,
     "auto (default: from the log's banner or table header;\n"
     "JSON is a PyTorch profiler trace), nccl-tests, osu, imb,\n"
     "pytorch",
     "auto nccl-tests osu imb pytorch",
     "--tool and --partial are options of parbench import"},
    {"partial", 0, NULL, pb_opt_flag, PB_OFF(import.partial), 0,
     "keep the rows that parse and count the lines that do not;\n"
     "of a failed nccl-tests run, the rows before the failure,\n"
     "of one that failed its data check (#wrong, error, Out of\n"
     "bounds values N FAILED) every row, the wrong ones marked\n"
     "(default: a bad line or a failed run is an error naming\n"
     "file:line, exit 2; so is a missing --np or --op)",
     NULL, "--tool and --partial are options of parbench import"},
    {"np", 0, "N", pb_opt_int, PB_OFF(run.np), 1,
     "processes, for logs that do not say (OSU collectives)", NULL, NULL},
    {"nodes", 0, "N", pb_opt_int, PB_OFF(import.nodes), 1,
     "nodes the processes ran on, for logs that do not say\n"
     "(OSU, IMB; nccl-tests without its rank lines); without it\n"
     "or --per-node their rows' placement is unknown ('?'),\n"
     "and calibrate refuses them",
     NULL, NULL},
    {"per-node", 0, "G", pb_opt_int, PB_OFF(import.per_node), 1,
     "processes per node (placed in blocks: a table of P\n"
     "processes spans ceil(P/G) nodes), as --nodes",
     NULL, NULL},
    {"op", 0, "COLL", set_op, 0, 0,
     "the collective of a log that does not name it (nccl-tests\n"
     "without its banner, OSU without its title) where its file\n"
     "name does not either",
     "allreduce allgather reducescatter alltoall broadcast reduce sendrecv", NULL},
    {"output", 'o', "FILE", pb_opt_output, PB_OFF(import.output), 0,
     "also fit the rows as parbench calibrate does and write the\n"
     "calibration (for model --calib and plan --calib)",
     "@file", pb_o_elsewhere},
    {"fit-tol", 0, "P", pb_opt_percent, PB_OFF(import.fit_tol), 0, "with -o: as for calibrate (default 5)",
     NULL, NULL},
};
static const pb_opt_group_t import_group = PB_GROUP("", import_specs, NULL);

static void import_defaults(pb_options_t *o)
{
    o->import.fit_tol = 0.05; /* PB_FIT_TOL_DEFAULT */
}

static int import_finish(pb_options_t *o, pb_err_t *err)
{
    if (o->import.ninputs == 0)
        return pb_err_set(err, PB_EINPUT, "parbench import needs at least one log file "
                          "or trace");
    if (o->run.csv_path == NULL)
        return pb_err_set(err, PB_EINPUT, "parbench import needs --csv OUT.csv");
    return PB_OK;
}

static int import_alone(const pb_options_t *o, int rank0, pb_err_t *err)
{
    return rank0 ? pb_import_cmd(o, err) : PB_OK;
}

const pb_cmd_desc_t pb_cmd_import = {
    PB_CMD_IMPORT, "import",
    "nccl-tests, OSU or IMB logs -> results CSV; PyTorch traces -> ops CSV (parbench import --help)",
    "usage: parbench import LOG [LOG ...] --csv OUT.csv [--tool T] [--partial] [--np N]\n"
    "                       [--nodes N | --per-node G] [--op COLL] [-o calib.csv] [--fit-tol P]\n"
    "       parbench import TRACE|DIR [...] --csv OPS.csv\n"
    "\n"
    "Turns benchmark logs into parbench result rows (backend = the tool, label =\n"
    "the file name), so calibrate, report, compare and model --calib read them.\n"
    "Reads nccl-tests (every *_perf table: out-of-place and in-place, with or\n"
    "without redop/root columns, #wrong or N/A, per-iteration columns; world,\n"
    "nodes and groups from the '#  Rank' lines), OSU 5.x-7.x (latency tables with\n"
    "and without -f, osu_latency, osu_bw, osu_bibw) and IMB-MPI1 (every\n"
    "'# Benchmarking' block with its '#processes').  Sizes follow parbench's\n"
    "convention: OSU's and IMB's per-rank blocks (allgather, alltoall) are\n"
    "multiplied by the process count.  Logs as launchers write them: the prefix\n"
    "of mpirun --tag-output / --output tag and srun --label is taken off, a log\n"
    "whose banner was cut is known by its table header; a line is never cut\n"
    "(over 1 MiB: an error naming file:line).  Where a log does not say how its\n"
    "processes were placed (OSU, IMB), --nodes or --per-node says it; else the\n"
    "rows' link class is '?' and calibrate refuses them.  Runs no MPI.\n"
    "\n"
    "PyTorch profiler traces (torch.profiler's Chrome JSON, one per rank, or a\n"
    "directory of them; NCCL or gloo runs) are one job: its process groups (by\n"
    "global rank) and every collective and send/recv each rank issued, written\n"
    "as the ops CSV that parbench profile and parbench replay read.\n",
    {{&import_group, NULL}, {&pb_grp_help, NULL}},
    "", PB_MAX_INPUTS, import_defaults, import_finish, pb_pure_foreign, import_alone, NULL, 1, NULL};
