#include "pb_samples_csv.h"

#include <csv.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct pb_samples_writer {
    FILE *f;
    char *path;
};

static const char header[] =
    "run_id,pattern,collective,group,bytes,dtype,in_place,mode,sample,rank,time_us,slowest\n";

int pb_samples_open(const char *path, pb_samples_writer_t **out, pb_err_t *err)
{
    *out = NULL;
    pb_samples_writer_t *w = calloc(1, sizeof *w);
    if (w == NULL || (w->path = strdup(path)) == NULL) {
        free(w);
        return pb_err_set(err, PB_ERUNTIME, "out of memory opening '%s'", path);
    }
    if ((w->f = fopen(path, "w")) == NULL || fputs(header, w->f) < 0) {
        int e = errno;
        if (w->f)
            fclose(w->f);
        free(w->path);
        free(w);
        return pb_err_set(err, PB_EINPUT, "cannot write samples CSV '%s': %s", path,
                          strerror(e));
    }
    *out = w;
    return PB_OK;
}

/* The row's identifying fields, once per row: strings through libcsv
 * (quoted), numbers bare, ending in a comma. */
static int put_prefix(char *buf, size_t len, const pb_result_t *r)
{
    const char *s[4] = {r->run_id, r->pattern, r->collective, r->group};
    size_t used = 0;
    for (int i = 0; i < 4; i++) {
        /* csv_write needs room for every character doubled plus quotes */
        if (used + 2 * strlen(s[i]) + 3 >= len)
            return -1;
        used += csv_write(buf + used, len - used, s[i], strlen(s[i]));
        buf[used++] = ',';
    }
    if (used + 2 * strlen(r->dtype) + 3 + 2 * strlen(r->mode) + 64 >= len)
        return -1;
    used += (size_t)snprintf(buf + used, len - used, "%" PRIu64 ",", r->bytes);
    used += csv_write(buf + used, len - used, r->dtype, strlen(r->dtype));
    used += (size_t)snprintf(buf + used, len - used, ",%d,", r->in_place);
    used += csv_write(buf + used, len - used, r->mode, strlen(r->mode));
    buf[used++] = ',';
    buf[used] = '\0';
    return 0;
}

int pb_samples_write(pb_samples_writer_t *w, const pb_result_t *row, const double *sec,
                     uint64_t nsamples, int nranks, pb_err_t *err)
{
    char prefix[8 * PB_RESULT_STR * 2];
    if (put_prefix(prefix, sizeof prefix, row) != 0)
        return pb_err_set(err, PB_ERUNTIME, "samples CSV: row fields too long");
    int bad = 0;
    for (uint64_t i = 0; i < nsamples && !bad; i++) {
        int slow = 0; /* the first rank holding the maximum, as MAXLOC picks it */
        for (int r = 1; r < nranks; r++)
            if (sec[(uint64_t)r * nsamples + i] > sec[(uint64_t)slow * nsamples + i])
                slow = r;
        for (int r = 0; r < nranks && !bad; r++)
            bad = fprintf(w->f, "%s%" PRIu64 ",%d,%.3f,%d\n", prefix, i, r,
                          sec[(uint64_t)r * nsamples + i] * 1e6, r == slow) < 0;
    }
    if (bad || fflush(w->f) != 0)
        return pb_err_set(err, PB_ERUNTIME, "writing samples CSV '%s' failed", w->path);
    return PB_OK;
}

void pb_samples_close(pb_samples_writer_t *w)
{
    if (w == NULL)
        return;
    fclose(w->f);
    free(w->path);
    free(w);
}
