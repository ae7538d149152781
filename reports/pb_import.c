/* pb_import.c - the importers' shared part: which tool, lines, tokens,
 * numbers, rows, and the bad-line rule.  Each tool's table is read in its
 * own file (pb_import_nccl.c, pb_import_osu.c, pb_import_imb.c). */
#include "pb_import.h"
#include "pb_import_priv.h"

#include "../core/pb_coll.h"
#include "../util/pb_num.h"
#include "../util/pb_list.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* a log larger than this is not a benchmark log */
#define PB_IMP_MAX_FILE (UINT64_C(256) << 20)

static const char *const tool_names[] = {"auto", "nccl-tests", "osu", "imb"};

int pb_import_tool_parse(const char *s, pb_import_tool_t *out)
{
    for (int i = 0; i < 4; i++)
        if (strcmp(s, tool_names[i]) == 0) {
            *out = (pb_import_tool_t)i;
            return 0;
        }
    return -1;
}

const char *pb_import_tool_name(pb_import_tool_t t)
{
    return (unsigned)t < 4 ? tool_names[t] : "?";
}

int pb_imp_tokens(pb_imp_src_t *s, const char *line, char **tok, int max)
{
    /* tokcap is the longest line's length + 1 (pb_imp_lines_load) */
    size_t len = strnlen(line, s->tokcap);
    if (len == s->tokcap)
        return 0; /* cannot happen: every line was measured */
    memcpy(s->tokbuf, line, len + 1);
    int n = 0;
    char *save = NULL;
    for (char *t = strtok_r(s->tokbuf, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
        if (n == max) /* more than any table has: the caller refuses it */
            return max;
        tok[n++] = t;
    }
    return n;
}

int pb_imp_next(pb_imp_src_t *s, pb_imp_line_t *ln)
{
    while (ln->next < s->nlines) {
        ln->no = ln->next++;
        ln->text = s->lines[ln->no] + strspn(s->lines[ln->no], " \t");
        ln->n = pb_imp_tokens(s, ln->text, ln->tok, PB_IMP_MAXTOK);
        if (ln->n > 0)
            return 1;
    }
    return 0;
}

int pb_imp_u64(const char *s, uint64_t *v)
{
    uint64_t x;
    if (pb_num_u64(s, 0, UINT64_MAX, &x) != PB_NUM_OK)
        return -1;
    *v = x;
    return 0;
}

int pb_imp_dbl(const char *s, double *v)
{
    char *end;
    errno = 0;
    double x = strtod(s, &end);
    if (end == s || *end || errno == ERANGE || !isfinite(x))
        return -1;
    *v = x;
    return 0;
}

int pb_imp_starts(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

int pb_imp_has(const char *s, const char *needle)
{
    size_t n = strlen(needle);
    for (; *s; s++) {
        size_t i = 0;
        while (i < n && s[i] && tolower((unsigned char)s[i]) == tolower((unsigned char)needle[i]))
            i++;
        if (i == n)
            return 1;
    }
    return 0;
}

int pb_imp_bad(pb_imp_src_t *s, size_t line, pb_err_t *err, const char *fmt, ...)
{
    char why[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    if (!s->o->partial)
        return pb_imp_need(s, line, err, "%s", why);
    if (s->out->skipped++ == 0)
        snprintf(s->out->first_skip, sizeof s->out->first_skip, "%s:%zu: %s", s->name, line + 1,
                 why);
    return PB_OK;
}

int pb_imp_need(pb_imp_src_t *s, size_t line, pb_err_t *err, const char *fmt, ...)
{
    char why[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    return pb_err_set(err, PB_EINPUT, "%s:%zu: %s", s->name, line + 1, why);
}

int pb_imp_op_agrees(pb_imp_src_t *s, size_t line, const char *logs, pb_err_t *err)
{
    if (s->o->coll == NULL || logs[0] == '\0' || strcmp(s->o->coll, logs) == 0)
        return PB_OK;
    return pb_imp_need(s, line, err, "the log names %s, --op %s", logs[0] == '?' ?
                       "a collective parbench has no model of" : logs, s->o->coll);
}

/* The nodes --nodes or --per-node give a table of `world` processes (0:
 * none given), or -1 with err set when they do not fit it. */
static int option_nodes(pb_imp_src_t *s, int world, size_t line, pb_err_t *err)
{
    const pb_import_opts_t *o = s->o;
    int from_pn = o->per_node > 0 ? (world + o->per_node - 1) / o->per_node : 0;
    if (o->nodes <= 0)
        return from_pn;
    if (o->nodes > world) {
        pb_imp_need(s, line, err, "--nodes %d: more nodes than the table's %d processes%s",
                    o->nodes, world, o->per_node > 0 ? "" : " (--per-node G places them)");
        return -1;
    }
    if (from_pn && from_pn != o->nodes) {
        pb_imp_need(s, line, err, "--nodes %d and --per-node %d do not place %d processes",
                    o->nodes, o->per_node, world);
        return -1;
    }
    return o->nodes;
}

int pb_imp_place(pb_imp_src_t *s, pb_result_t *r, int spread, size_t line, pb_err_t *err)
{
    int given = option_nodes(s, r->world, line, err);
    if (given < 0)
        return err->code;
    if (given > 0 && r->nodes > 0 && given != r->nodes)
        return pb_imp_need(s, line, err, "the log's rank lines put its %d ranks on %d node%s, "
                           "--nodes or --per-node on %d", r->world, r->nodes,
                           r->nodes == 1 ? "" : "s", given);
    if (r->nodes <= 0)
        r->nodes = given;
    /* a log names no link: a group within one node stays there, one
     * spread over nodes crosses the network, and of one whose placement
     * nobody said nothing is known */
    const char *link = PB_IMPORT_LINK_UNKNOWN;
    if (r->nodes == 1)
        link = "";
    else if (r->nodes > 1 && r->group_size >= r->world)
        link = "NET";
    else if (r->nodes > 1)
        link = spread == PB_IMP_ACROSS ? "NET" : spread == PB_IMP_WITHIN ? "" : link;
    snprintf(r->link_class, sizeof r->link_class, "%s", link);
    return PB_OK;
}

void pb_imp_ignore(pb_imp_src_t *s, const char *bench)
{
    pb_list_add(s->out->ignored, sizeof s->out->ignored, bench, ", ");
}

pb_result_t *pb_imp_row(pb_imp_src_t *s, const char *backend, const char *mode,
                        const pb_imp_where_t *w, size_t line, pb_err_t *err)
{
    pb_import_out_t *o = s->out;
    if (o->n == o->cap) {
        size_t cap = o->cap ? 2 * o->cap : 64;
        pb_result_t *r = realloc(o->rows, cap * sizeof *r);
        if (r == NULL) {
            pb_err_set(err, PB_ERUNTIME, "out of memory importing %s", s->name);
            return NULL;
        }
        o->rows = r;
        o->cap = cap;
    }
    pb_result_t *r = &o->rows[o->n++];
    memset(r, 0, sizeof *r);
    snprintf(r->run_id, sizeof r->run_id, "import:%.56s", s->name);
    snprintf(r->backend, sizeof r->backend, "%s", backend);
    snprintf(r->mode, sizeof r->mode, "%s", mode);
    snprintf(r->pattern, sizeof r->pattern, "coll");
    snprintf(r->group, sizeof r->group, "world");
    snprintf(r->label, sizeof r->label, "%.63s", s->name);
    snprintf(r->host, sizeof r->host, "%s", w->host);
    r->world = w->world;
    r->nodes = w->nodes;
    r->group_size = w->group_size;
    r->wrong = PB_RESULT_WRONG_UNCHECKED;
    r->slowest_rank = -1;
    /* a world still unknown (nccl-tests' inferred at the table's end) is
     * placed then */
    if (w->world > 0 && pb_imp_place(s, r, w->spread, line, err) != PB_OK) {
        o->n--;
        return NULL;
    }
    return r;
}

double pb_imp_bus_factor(const char *coll, int n)
{
    pb_coll_t c;
    return n >= 1 && pb_coll_parse(coll, &c) == 0 ? pb_busbw_factor(c, n) : 0.0;
}

int pb_imp_reduces(const char *coll)
{
    pb_coll_t c;
    return pb_coll_parse(coll, &c) == 0 && pb_coll_reduces(c);
}

void pb_imp_bandwidth(pb_result_t *r)
{
    if (!(r->time_us_median > 0))
        return;
    /* bytes / (t us) = bytes / t * 1e6 B/s = bytes / t / 1e3 GB/s */
    r->algbw_gbps = (double)r->bytes / r->time_us_median / 1e3;
    r->busbw_gbps = r->algbw_gbps * pb_imp_bus_factor(r->collective, r->group_size);
}

int pb_import_buffer(const char *name, const char *text, size_t len, const pb_import_opts_t *o,
                     pb_import_out_t *out, pb_err_t *err)
{
    char *copy = malloc(len + 1);
    if (copy == NULL)
        return pb_err_set(err, PB_ERUNTIME, "out of memory reading %s", name);
    memcpy(copy, text, len);
    pb_imp_src_t s = {name, NULL, 0, NULL, 0, o, out};
    size_t before = out->n;
    int code = pb_imp_lines_load(&s, copy, len, err);
    pb_import_tool_t tool = o->tool;
    if (code == PB_OK && tool == PB_IMPORT_AUTO)
        tool = pb_imp_detect(&s);
    if (code == PB_OK && tool == PB_IMPORT_AUTO)
        code = pb_err_set(err, PB_EINPUT,
                          "%s: not a log of nccl-tests, OSU or IMB (no banner or table header "
                          "of theirs; --tool names one)", name);
    if (code == PB_OK)
        code = tool == PB_IMPORT_NCCL  ? pb_import_nccl(&s, err)
               : tool == PB_IMPORT_OSU ? pb_import_osu(&s, err)
                                       : pb_import_imb(&s, err);
    pb_imp_lines_free(&s);
    free(copy);
    /* --partial skipped every row: its first reason is the answer */
    const char *skip = out->skipped ? "; lines skipped (--partial), the first: " : "";
    if (code == PB_OK && out->n == before)
        code = pb_err_set(err, PB_EINPUT, "%s: no result rows found in this %s log%s%s%s%s%s%s",
                          name, pb_import_tool_name(tool),
                          out->ignored[0] ? "; without a parbench counterpart: " : "",
                          out->ignored, out->failure[0] ? "; the run failed: " : "",
                          out->failure, skip, out->skipped ? out->first_skip : "");
    return code;
}

int pb_import_file(const char *path, const pb_import_opts_t *o, pb_import_out_t *out,
                   pb_err_t *err)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return pb_err_set(err, PB_EINPUT, "cannot read '%s': %s", path, strerror(errno));
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    int code = buf ? PB_OK : pb_err_set(err, PB_ERUNTIME, "out of memory reading %s", path);
    while (code == PB_OK) {
        if (len == cap) {
            char *b = cap >= PB_IMP_MAX_FILE ? NULL : realloc(buf, 2 * cap);
            if (b == NULL) {
                code = pb_err_set(err, PB_EINPUT, "%s: larger than a benchmark log can be",
                                  path);
                break;
            }
            buf = b;
            cap *= 2;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0) {
            if (ferror(f))
                code = pb_err_set(err, PB_EINPUT, "cannot read '%s'", path);
            break;
        }
    }
    fclose(f);
    if (code == PB_OK) {
        const char *base = strrchr(path, '/');
        code = pb_import_buffer(base ? base + 1 : path, buf, len, o, out, err);
    }
    free(buf);
    return code;
}

void pb_import_out_free(pb_import_out_t *out)
{
    free(out->rows);
    memset(out, 0, sizeof *out);
}
