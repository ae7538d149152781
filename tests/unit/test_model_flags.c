/* test_model_flags.c - one run, typed as flags or given as a row of an
 * --against file, is one prediction.
 *
 * Every row of model/published_runs.csv is typed here as the command line
 * a user would write for it (the mapping below, column by column, is the
 * README's "model --against" table read backwards), parsed by the real
 * parser, turned into a job by `parbench model`'s own path
 * (pb_model_job), and predicted; the file path (pb_against_each) predicts
 * the same row.  The two step times must agree to rounding: any default
 * that differs between the paths (causal attention, overlaps, gradient
 * type, stage split ...) shows up as a difference here. */
#include "bench/glue/pb_against.h"
#include "bench/cmd/pb_cmd_model.h"
#include "bench/cli/pb_options.h"
#include "reports/pb_csv_records.h"

#include <stdlib.h>
#include <string.h>

#include "pb_test.h"

#define MAXRUNS 512
#define MAXARGS 96

typedef struct row {
    char args[MAXARGS][64];
    int nargs;
    char name[64];
    double file_s; /* the --against path's prediction; <0 refused */
    int seen;
} row_t;

typedef struct rows {
    row_t r[MAXRUNS];
    int n;
    int header;
    int col[64];
    const char *names[64];
    int ncols;
} rows_t;

static const char *field(const rows_t *t, const pb_csv_rec_t *rec, const char *name)
{
    for (int i = 0; i < t->ncols; i++)
        if (strcmp(t->names[i], name) == 0)
            return t->col[i] >= 0 && (size_t)t->col[i] < rec->nfields ? rec->field[t->col[i]]
                                                                        : "";
    return "";
}

static void add(row_t *r, const char *a)
{
    if (r->nargs < MAXARGS)
        snprintf(r->args[r->nargs++], sizeof r->args[0], "%s", a);
}

static void add2(row_t *r, const char *flag, const char *v)
{
    add(r, flag);
    add(r, v);
}

/* a column typed as its flag, with the value as written */
static const struct {
    const char *col, *flag;
} direct[] = {
    {"gpu", "--hw"},       {"gpus", "--gpus"},        {"layers", "--layers"},
    {"hidden", "--hidden"}, {"heads", "--heads"},     {"kv_heads", "--kv-heads"},
    {"ffn", "--ffn"},      {"vocab", "--vocab"},      {"experts", "--experts"},
    {"topk", "--topk"},    {"moe_ffn", "--moe-ffn"},  {"seq", "--seq"},
    {"mbs", "--mbs"},      {"gbs", "--gbs"},          {"tp", "--tp"},
    {"pp", "--pp"},        {"dp", "--dp"},            {"cp", "--cp"},
    {"ep", "--ep"},        {"vp", "--vp"},            {"pp_trim", "--pp-trim"},
    {"zero", "--zero"},    {"framework", "--framework"}, {"overlap", "--overlap"},
    {"dtype", "--dtype"},  {"tp_overlap", "--tp-overlap"}, {"param_dtype", "--param-dtype"},
    {"moe_imbalance", "--moe-imbalance"}, {"recompute", "--recompute-mode"},
    {"shared_ffn", "--shared-ffn"}, {"dense_first", "--dense-first"},
    {"shard_group", "--shard-group"}, {"pp_schedule", "--pp-schedule"},
    {"fp8_recipe", "--fp8-recipe"},
};

static int record(void *arg, size_t line, const pb_csv_rec_t *rec, pb_err_t *err)
{
    (void)line, (void)err;
    rows_t *t = arg;
    if (!t->header) {
        static const char *const want[] = {
            "name", "gpu", "gpus", "layers", "hidden", "heads", "kv_heads", "head_dim", "ffn",
            "vocab", "gated", "experts", "topk", "moe_ffn", "seq", "mbs", "gbs", "tp", "pp",
            "dp", "cp", "ep", "etp", "vp", "sp", "pp_trim", "recompute", "zero", "flash",
            "overlap", "dispatcher", "framework", "dtype", "tp_overlap", "param_dtype",
            "moe_imbalance", "moe_ep_overlap", "shared_ffn", "dense_first", "shard_group",
            "pp_schedule", "fp8_recipe", "hw_set"};
        t->ncols = (int)(sizeof want / sizeof want[0]);
        for (int i = 0; i < t->ncols; i++) {
            t->names[i] = want[i];
            t->col[i] = pb_csv_rec_find(rec, want[i]);
        }
        t->header = 1;
        return PB_OK;
    }
    if (rec->nfields == 0 || t->n == MAXRUNS)
        return PB_OK;
    row_t *r = &t->r[t->n++];
    memset(r, 0, sizeof *r);
    snprintf(r->name, sizeof r->name, "%s", field(t, rec, "name"));
    add(r, "parbench");
    add(r, "model");
    /* an empty optional column is the default, which the flags say by
     * leaving the flag out */
    for (size_t i = 0; i < sizeof direct / sizeof direct[0]; i++)
        if (field(t, rec, direct[i].col)[0] != '\0')
            add2(r, direct[i].flag, field(t, rec, direct[i].col));
    /* 0 in these columns means "none" or "the default", which the flags
     * say by leaving the flag out */
    if (strcmp(field(t, rec, "head_dim"), "0") != 0)
        add2(r, "--head-dim", field(t, rec, "head_dim"));
    if (strcmp(field(t, rec, "etp"), "0") != 0)
        add2(r, "--etp", field(t, rec, "etp"));
    add(r, strcmp(field(t, rec, "gated"), "1") == 0 ? "--gated" : "--no-gated");
    if (strcmp(field(t, rec, "sp"), "1") == 0)
        add(r, "--sp");
    if (strcmp(field(t, rec, "flash"), "0") == 0)
        add(r, "--no-flash");
    if (strcmp(field(t, rec, "moe_ep_overlap"), "1") == 0)
        add(r, "--moe-ep-overlap");
    /* hw_set: "key=value ..." is one --hw-set per pair */
    char hw[256];
    snprintf(hw, sizeof hw, "%s", field(t, rec, "hw_set"));
    char *save = NULL;
    for (char *kv = strtok_r(hw, " ", &save); kv; kv = strtok_r(NULL, " ", &save))
        add2(r, "--hw-set", kv);
    const char *disp = field(t, rec, "dispatcher");
    if (disp[0])
        add2(r, "--ep-dispatcher", disp);
    r->file_s = -1.0;
    return PB_OK;
}

static int from_file(void *arg, const pb_against_run_t *run, pb_err_t *err)
{
    (void)err;
    rows_t *t = arg;
    for (int i = 0; i < t->n; i++)
        if (!t->r[i].seen && strcmp(t->r[i].name, run->name) == 0) {
            t->r[i].seen = 1;
            t->r[i].file_s = run->step ? run->predicted_s : -1.0;
            break;
        }
    return PB_OK;
}

int main(void)
{
    const char *path = PB_SOURCE_DIR "/model/published_runs.csv";
    static rows_t t;
    pb_err_t err;
    pb_err_clear(&err);
    CHECK(pb_csv_parse_path(path, record, &t, &err) == PB_OK);
    FILE *f = fopen(path, "r");
    CHECK(f != NULL);
    if (f == NULL)
        PB_TEST_END("unit_model_flags");
    CHECK(pb_against_each(f, path, NULL, from_file, &t, &err) == PB_OK);
    fclose(f);
    CHECK(t.n >= 29); /* the file's runs at the time of writing */
    int compared = 0;
    for (int i = 0; i < t.n; i++) {
        row_t *r = &t.r[i];
        CHECK(r->seen);
        char *argv[MAXARGS + 1];
        for (int k = 0; k < r->nargs; k++)
            argv[k] = r->args[k];
        argv[r->nargs] = NULL;
        pb_options_t o;
        pb_err_t e;
        pb_err_clear(&e);
        int rc = pb_cli_parse(r->nargs, argv, &o, &e);
        pb_job_t j;
        pb_step_t st;
        if (rc == PB_OK)
            rc = pb_model_job(&o, &j, &e);
        if (rc == PB_OK)
            rc = pb_job_predict(&j, NULL, 0, &st, &e);
        if (r->file_s < 0) {
            /* refused by the file's path: refused by the flags' too */
            if (rc == PB_OK)
                fprintf(stderr, "%s: the file refused it, the flags did not\n", r->name);
            CHECK(rc != PB_OK);
            continue;
        }
        if (rc != PB_OK) {
            fprintf(stderr, "%s: the flags were refused: %s\n", r->name, e.msg);
            CHECK(rc == PB_OK);
            continue;
        }
        if (!(fabs(st.total - r->file_s) <= 1e-12 * r->file_s))
            fprintf(stderr, "%s: flags %.9f s, file %.9f s\n", r->name, st.total, r->file_s);
        CHECK_NEAR(st.total, r->file_s, 1e-12);
        compared++;
    }
    CHECK(compared >= 25); /* every run the model predicts */
    PB_TEST_END("unit_model_flags");
}
