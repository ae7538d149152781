#include "pb_cmd_import.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../../util/pb_list.h"

#include "../../jobprof/pb_jobprof.h"
#include "../../jobprof/pb_jp_csv.h"
#include "../../reports/pb_csv.h"
#include "../../reports/pb_import.h"
#include "pb_cmd_calibrate.h"
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
    if (out->failure[0])
        printf("# %s: the run failed, the rows before it kept (--partial): %s\n", path,
               out->failure);
    if (out->ignored[0])
        printf("# %s: left out (no parbench counterpart): %s\n", path, out->ignored);
    if (out->have_avg) {
        double a = out->avg_busbw_stated, b = out->avg_busbw_rows;
        printf("# %s: Avg bus bandwidth %.4g GB/s in the log, %.4g GB/s from its rows%s\n", path,
               a, b, a > 1.01 * b + 0.01 || b > 1.01 * a + 0.01 ? " (rows missing or edited?)" : "");
    }
}

/* A PyTorch profiler trace (or a directory of them): JSON, which starts
 * with '{'; no benchmark log does. */
static int is_trace(const char *path)
{
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        return 1;
    FILE *f = fopen(path, "r");
    int c = ' ';
    while (f && (c = fgetc(f)) != EOF && (c == ' ' || c == '\t' || c == '\n' || c == '\r'))
        ;
    if (f)
        fclose(f);
    return c == '{';
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
    if (code == PB_OK) {
        printf("# %s: world %d, %zu communicators, %zu operations\n", jp.source, jp.world,
               jp.ncomms, jp.nops);
        /* one pass over the operations, not one per communicator */
        size_t *n = calloc(jp.ncomms, sizeof *n);
        uint64_t *bytes = calloc(jp.ncomms, sizeof *bytes);
        for (size_t i = 0; n && bytes && i < jp.nops; i++) {
            n[jp.ops[i].comm]++;
            bytes[jp.ops[i].comm] += jp.ops[i].bytes;
        }
        for (size_t c = 0; n && bytes && c < jp.ncomms; c++) {
            const pb_jcomm_t *cm = &jp.comms[c];
            printf("#   %-24s %3d ranks (%d", cm->name[0] ? cm->name : "(no name)", cm->nranks,
                   cm->members[0]);
            for (int r = 1; r < cm->nranks && r < 8; r++)
                printf(" %d", cm->members[r]);
            printf("%s): %zu operations, %.4g MB over all ranks\n", cm->nranks > 8 ? " ..." : "",
                   n[c], (double)bytes[c] / 1e6);
        }
        free(n);
        free(bytes);
        printf("# written: %zu operations to %s (parbench profile %s)\n", jp.nops,
               o->run.csv_path, o->run.csv_path);
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
    pb_import_opts_t io = {PB_IMPORT_AUTO, o->import.partial, o->run.np};
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
     "of a failed nccl-tests run, the rows before the failure\n"
     "(default: a bad line or a failed run is an error naming\n"
     "file:line, exit 2)",
     NULL, "--tool and --partial are options of parbench import"},
    {"np", 0, "N", pb_opt_int, PB_OFF(run.np), 1,
     "processes, for logs that do not say (OSU collectives)", NULL, NULL},
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
    "                       [-o calib.csv] [--fit-tol P]\n"
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
    "(over 1 MiB: an error naming file:line).  Runs no MPI.\n"
    "\n"
    "PyTorch profiler traces (torch.profiler's Chrome JSON, one per rank, or a\n"
    "directory of them; NCCL or gloo runs) are one job: its process groups (by\n"
    "global rank) and every collective and send/recv each rank issued, written\n"
    "as the ops CSV that parbench profile and parbench replay read.\n",
    {{&import_group, NULL}, {&pb_grp_help, NULL}},
    "", PB_MAX_INPUTS, import_defaults, import_finish, pb_pure_foreign, import_alone, NULL, 1, NULL};
