/* pb_jp_load.c - files and directories to one recorded job: each file's
 * kind told from its content, never from its name alone, gzip included. */
#include "pb_jobprof.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../util/pb_grow.h"
#include "pb_jp_csv.h"
#include "pb_jp_gz.h"
#include "pb_jp_kineto.h"
#include "pb_jp_plugin.h"

/* What a file holds: a record file from the plugin, a PyTorch trace, the
 * ops CSV. */
enum { K_PLUGIN, K_KINETO, K_CSV, K_N };
static const char *const kind_what[K_N] = {"profiler record files", "PyTorch traces",
                                           "parbench ops CSV"};

typedef struct load {
    pb_jobprof_t *jp;
    pb_jp_plugin_t pl;
    int seen[K_N];
    size_t files;
} load_t;

/* strict: a file named by the user must be a recording; in a directory,
 * a file that is none (a calib.csv, a results file beside the records) is
 * left alone. */
static int load_file(load_t *ld, const char *path, int strict, pb_err_t *err)
{
    char *text = NULL;
    size_t len = 0;
    /* gunzipped when it is gzip (pb_jp_gz.h): *.pt.trace.json.gz */
    int code = pb_jp_read_file(path, &text, &len, err);
    if (code != PB_OK)
        return code;
    int k = pb_jp_is_plugin(text, len) ? K_PLUGIN
            : pb_jp_is_kineto(text, len) ? K_KINETO
            : pb_jp_is_csv(text, len)    ? K_CSV
                                         : K_N;
    if (k == K_N && !strict) {
        free(text);
        return PB_OK;
    }
    if (k == K_N)
        code = pb_err_set(err, PB_EINPUT, "%s: neither a parbench profiler record file, a "
                          "PyTorch profiler trace nor a parbench ops CSV", path);
    for (int o = 0; o < K_N && code == PB_OK; o++)
        if (o != k && ld->seen[o])
            code = pb_err_set(err, PB_EINPUT, "%s: one of the %s among %s: give one recording",
                              path, kind_what[k], kind_what[o]);
    if (code == PB_OK && k == K_PLUGIN)
        code = pb_jp_plugin_read(&ld->pl, path, text, len, err);
    else if (code == PB_OK && k == K_KINETO)
        code = pb_jp_kineto(path, text, len, ld->jp, err);
    else if (code == PB_OK)
        code = pb_jp_csv_read_text(path, text, len, ld->jp, err);
    if (code == PB_OK) {
        ld->seen[k] = 1;
        ld->files++;
    }
    free(text);
    return code;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A directory's recordings: parbench-prof-*.bin, *.json and *.csv files
 * that hold one, each perhaps gzipped and named so (*.json.gz: torch.
 * profiler's *.pt.trace.json.gz); anything else, a README, a log, a
 * calibration, is left alone.  In name order. */
static int wanted(const char *name)
{
    size_t n = strlen(name);
    if (n > 3 && strcmp(name + n - 3, ".gz") == 0)
        n -= 3; /* what it holds is told by content (load_file) */
    return (strncmp(name, "parbench-prof-", 14) == 0 && n > 4 &&
            strncmp(name + n - 4, ".bin", 4) == 0) ||
           (n > 5 && strncmp(name + n - 5, ".json", 5) == 0) ||
           (n > 4 && strncmp(name + n - 4, ".csv", 4) == 0);
}

static int load_dir(load_t *ld, const char *path, pb_err_t *err)
{
    DIR *d = opendir(path);
    if (d == NULL)
        return pb_err_set(err, PB_EINPUT, "cannot read directory '%s': %s", path, strerror(errno));
    char **names = NULL;
    size_t n = 0, cap = 0, before = ld->files;
    int code = PB_OK;
    for (struct dirent *e; code == PB_OK && (e = readdir(d)) != NULL;) {
        if (!wanted(e->d_name))
            continue;
        if (pb_grow((void **)&names, &cap, n + 1, sizeof *names, 64) != 0) {
            code = pb_err_set(err, PB_ERUNTIME, "out of memory listing '%s'", path);
            break;
        }
        size_t len = strlen(path) + strlen(e->d_name) + 2;
        if ((names[n] = malloc(len)) == NULL)
            code = pb_err_set(err, PB_ERUNTIME, "out of memory listing '%s'", path);
        else
            snprintf(names[n++], len, "%s/%s", path, e->d_name);
    }
    closedir(d);
    if (names)
        qsort(names, n, sizeof *names, by_name);
    for (size_t i = 0; i < n && code == PB_OK; i++)
        code = load_file(ld, names[i], 0, err);
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    if (code == PB_OK && ld->files == before)
        code = pb_err_set(err, PB_EINPUT, "%s: no recording in it (parbench-prof-*.bin, *.json "
                          "or *.csv files, gzipped or not)", path);
    return code;
}

int pb_jp_load(const char *const *paths, size_t npaths, pb_jobprof_t *jp, pb_err_t *err)
{
    load_t ld;
    memset(&ld, 0, sizeof ld);
    ld.jp = jp;
    int code = npaths ? PB_OK : pb_err_set(err, PB_EINPUT, "no recording given");
    for (size_t i = 0; i < npaths && code == PB_OK; i++) {
        struct stat st;
        if (stat(paths[i], &st) != 0)
            code = pb_err_set(err, PB_EINPUT, "cannot read '%s': %s", paths[i], strerror(errno));
        else if (S_ISDIR(st.st_mode))
            code = load_dir(&ld, paths[i], err);
        else
            code = load_file(&ld, paths[i], 1, err);
    }
    if (code == PB_OK && ld.seen[K_PLUGIN])
        code = pb_jp_plugin_join(&ld.pl, jp, err);
    pb_jp_plugin_free(&ld.pl);
    if (code == PB_OK && jp->nops == 0)
        code = pb_err_set(err, PB_EINPUT, "the recording holds no operation");
    return code;
}
