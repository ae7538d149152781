#include "pb_import_cmd.h"

#include <stdio.h>
#include <string.h>

#include "../reports/pb_csv.h"
#include "../reports/pb_import.h"
#include "pb_model_cmd.h"

/* What one file held, on a line or three. */
static void summary(const char *path, const pb_import_out_t *out)
{
    const pb_result_t *r = &out->rows[0];
    char colls[200] = "";
    size_t used = 0;
    for (size_t i = 0; i < out->n && used < sizeof colls; i++) {
        const char *c = out->rows[i].collective;
        size_t len = strlen(c);
        const char *at = strstr(colls, c);
        if (at && (at[len] == ',' || at[len] == '\0'))
            continue;
        used += (size_t)snprintf(colls + used, sizeof colls - used, "%s%s", used ? "," : "", c);
    }
    printf("# %s: %zu rows from %s (%s), world %d", path, out->n, r->backend, colls, r->world);
    if (r->nodes > 0)
        printf(" on %d node%s", r->nodes, r->nodes == 1 ? "" : "s");
    if (r->group_size != r->world)
        printf(", groups of %d", r->group_size);
    printf("\n");
    if (out->skipped)
        printf("# %s: %zu line%s skipped (--partial); the first: %s\n", path, out->skipped,
               out->skipped == 1 ? "" : "s", out->first_skip);
    if (out->ignored[0])
        printf("# %s: left out (no parbench counterpart): %s\n", path, out->ignored);
    if (out->have_avg) {
        double a = out->avg_busbw_stated, b = out->avg_busbw_rows;
        printf("# %s: Avg bus bandwidth %.4g GB/s in the log, %.4g GB/s from its rows%s\n", path,
               a, b, a > 1.01 * b + 0.01 || b > 1.01 * a + 0.01 ? " (rows missing or edited?)" : "");
    }
}

/* Every file is parsed before a row is written: a bad log leaves no
 * half-written CSV behind. */
int pb_import_cmd(const pb_options_t *o, pb_err_t *err)
{
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
