/* pb_import_lines.c - a log's text as the parsers read it: numbered lines,
 * none cut short, the launcher's prefix taken off; and which tool wrote it.
 *
 * Logs come off clusters through a launcher that may prefix every line of
 * a process's output (the forms below, from each launcher's source):
 *   Open MPI 4 (ORTE) --tag-output    "[1,0]<stdout>:" then the line, and
 *       with --timestamp-output a ctime before it: "Wed Dec  2 05:14:13
 *       2026[1,0]<stdout>:" (orte/mca/iof/base/iof_base_output.c; both seen
 *       from mpirun 4.1.4);
 *   Open MPI 5 (PMIx) --output tag    "[1,0]<stdout>: ", tag-detailed
 *       "[1,0][host:pid]<stdout>: ", tag-fullname "[nspace,0]<stdout>: ",
 *       rank "[0]<stdout>: ", a timestamp as "[ctime]" before them
 *       (openpmix src/common/pmix_iof.c);
 *   Slurm srun --label                "%*d: ", the task id right-aligned
 *       to the width of the largest ("0: ", " 7: ", "12: "), "P1 0: " in
 *       a heterogeneous job (src/common/write_labelled_message.c).
 * <stderr> and <stddiag> stand where <stdout> does.  A form is taken off
 * only when the log's own '#' lines (every tool's banner and table header
 * starts with '#') carry it more often than they carry no prefix, so an
 * unprefixed log keeps every line as written, and a labelled one keeps
 * its unlabelled lines (srun's own) whole; no row of the three tools
 * starts "digits: " (their rows start with a size and blanks). */
#include "pb_import_priv.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

enum form { F_NONE, F_OMPI, F_SLURM, F_COUNT };

/* "Wed Dec  2 05:14:13 2026": ctime's 24 characters */
static int is_ctime(const char *p)
{
    static const char shape[] = "aaa aaa #d dd:dd:dd dddd";
    if (strnlen(p, 24) < 24)
        return 0;
    for (int i = 0; i < 24; i++) {
        char c = shape[i];
        unsigned char x = (unsigned char)p[i];
        int ok = c == 'a' ? isalpha(x) : c == 'd' ? isdigit(x) : c == '#' ? x == ' ' || isdigit(x)
                                                                          : x == (unsigned char)c;
        if (!ok)
            return 0;
    }
    return 1;
}

/* The length of an Open MPI tag at p (and the one blank after it), or 0. */
static size_t ompi_tag(const char *p)
{
    static const char *const streams[] = {"<stdout>:", "<stderr>:", "<stddiag>:"};
    const char *q = is_ctime(p) ? p + 24 : p;
    int groups = 0;
    /* [job,rank], [ctime], [host:pid]: at most three, none nested */
    while (*q == '[' && groups < 3) {
        size_t n = strcspn(q + 1, "[]");
        if (q[1 + n] != ']' || n == 0)
            return 0;
        q += n + 2;
        groups++;
    }
    if (groups == 0)
        return 0;
    for (size_t i = 0; i < sizeof streams / sizeof streams[0]; i++)
        if (pb_imp_starts(q, streams[i])) {
            q += strlen(streams[i]);
            return (size_t)(q - p) + (*q == ' ');
        }
    return 0;
}

/* The length of a Slurm label at p ("12: ", " 0: ", "P1 3: "), or 0. */
static size_t slurm_label(const char *p)
{
    const char *q = p;
    if (q[0] == 'P' && isdigit((unsigned char)q[1])) { /* heterogeneous job component */
        q++;
        while (isdigit((unsigned char)*q))
            q++;
        if (*q++ != ' ')
            return 0;
    }
    int pad = 0, digits = 0;
    while (*q == ' ' && pad < 10)
        q++, pad++;
    while (isdigit((unsigned char)*q) && digits < 11)
        q++, digits++;
    if (digits == 0 || *q != ':')
        return 0;
    q++;
    /* "0: " then the line; an empty line may have lost its blank */
    if (*q == ' ')
        return (size_t)(q + 1 - p);
    return *q == '\0' ? (size_t)(q - p) : 0;
}

static enum form prefix(const char *line, size_t *len)
{
    if ((*len = ompi_tag(line)) > 0)
        return F_OMPI;
    if ((*len = slurm_label(line)) > 0)
        return F_SLURM;
    return F_NONE;
}

/* A line a tool's banner or table could be: "#" alone, "# ...", "#---"
 * (IMB's rules), "#bytes"; not "#SBATCH" or "#!/bin/bash" of a job script
 * printed into the log. */
static int tool_comment(const char *rest)
{
    rest += strspn(rest, " \t");
    return rest[0] == '#' && (rest[1] == '\0' || rest[1] == ' ' || rest[1] == '\t' ||
                              rest[1] == '-' || pb_imp_starts(rest, "#bytes"));
}

static void strip_launcher(pb_imp_src_t *s)
{
    size_t votes[F_COUNT] = {0}, n;
    for (size_t i = 0; i < s->nlines; i++) {
        enum form f = prefix(s->lines[i], &n);
        votes[f] += (size_t)tool_comment(s->lines[i] + n);
    }
    enum form best = F_NONE;
    for (int f = F_NONE + 1; f < F_COUNT; f++)
        if (votes[f] > votes[best])
            best = (enum form)f;
    if (best == F_NONE)
        return;
    for (size_t i = 0; i < s->nlines; i++)
        if (prefix(s->lines[i], &n) == best)
            s->lines[i] += n;
}

/* One line, start[0, n), ends: its checks.  start[n] is writable. */
static int end_line(pb_imp_src_t *s, char *start, size_t n, size_t *longest, pb_err_t *err)
{
    if (n && start[n - 1] == '\r')
        n--;
    start[n] = '\0';
    s->lines[s->nlines++] = start;
    /* a C string would end at the NUL: the rest of the line lost unseen */
    int binary = memchr(start, '\0', n) != NULL, longer = n > PB_IMP_MAX_LINE;
    if (!binary && !longer) {
        *longest = n > *longest ? n : *longest;
        return PB_OK;
    }
    start[0] = '\0'; /* --partial: the line is skipped, and counted here */
    if (binary)
        return pb_imp_bad(s, s->nlines - 1, err, "a NUL byte in the line (not a text log?)");
    return pb_imp_bad(s, s->nlines - 1, err, "line longer than %u characters", PB_IMP_MAX_LINE);
}

int pb_imp_lines_load(pb_imp_src_t *s, char *text, size_t len, pb_err_t *err)
{
    size_t cap = 1, longest = 0;
    for (size_t i = 0; i < len; i++)
        cap += text[i] == '\n';
    s->nlines = 0;
    s->lines = malloc(cap * sizeof *s->lines);
    if (s->lines == NULL)
        return pb_err_set(err, PB_ERUNTIME, "out of memory reading %s", s->name);
    text[len] = '\0';
    size_t start = 0;
    for (size_t i = 0; i <= len; i++) {
        if (i < len && text[i] != '\n')
            continue;
        if (i == len && start == len) /* nothing after the last newline */
            break;
        int code = end_line(s, text + start, i - start, &longest, err);
        if (code != PB_OK)
            return code;
        start = i + 1;
    }
    s->tokcap = longest + 1;
    s->tokbuf = malloc(s->tokcap);
    if (s->tokbuf == NULL)
        return pb_err_set(err, PB_ERUNTIME, "out of memory reading %s", s->name);
    strip_launcher(s);
    return PB_OK;
}

void pb_imp_lines_free(pb_imp_src_t *s)
{
    free(s->lines);
    free(s->tokbuf);
    s->lines = NULL;
    s->tokbuf = NULL;
    s->nlines = s->tokcap = 0;
}

static int has_tok(char **tok, int n, const char *word)
{
    for (int i = 1; i < n; i++)
        if (strcmp(tok[i], word) == 0)
            return 1;
    return 0;
}

/* A table header: nccl-tests' "#  size  count  type ... time  algbw
 * busbw" (the first version's "#  bytes  N  type  op  time ..."), OSU's
 * "# Size  Avg Latency(us)" / "Latency (us)" / "Bandwidth (MB/s)", IMB's
 * "#bytes #repetitions ...". */
static pb_import_tool_t header_tool(char **tok, int n)
{
    if (n >= 2 && strcmp(tok[0], "#bytes") == 0 && strcmp(tok[1], "#repetitions") == 0)
        return PB_IMPORT_IMB;
    if (strcmp(tok[0], "#") != 0)
        return PB_IMPORT_AUTO;
    if ((has_tok(tok, n, "size") || has_tok(tok, n, "bytes")) &&
        (has_tok(tok, n, "count") || has_tok(tok, n, "N")) && has_tok(tok, n, "type") &&
        (has_tok(tok, n, "time") || has_tok(tok, n, "cputime")) && has_tok(tok, n, "busbw"))
        return PB_IMPORT_NCCL;
    if (n >= 3 && strcmp(tok[1], "Size") == 0)
        for (int i = 2; i < n; i++)
            if (pb_imp_starts(tok[i], "Latency") || strcmp(tok[i], "Bandwidth") == 0 ||
                strcmp(tok[i], "MB/s") == 0)
                return PB_IMPORT_OSU;
    return PB_IMPORT_AUTO;
}

pb_import_tool_t pb_imp_detect(pb_imp_src_t *s)
{
    static const struct {
        const char *sig;
        pb_import_tool_t tool;
    } banners[] = {
        {"# nccl-tests version", PB_IMPORT_NCCL}, {"# Collective test starting", PB_IMPORT_NCCL},
        {"# nThread ", PB_IMPORT_NCCL},           {"# OSU ", PB_IMPORT_OSU},
        {"# Benchmarking ", PB_IMPORT_IMB},
    };
    char *tok[PB_IMP_MAXTOK];
    for (size_t i = 0; i < s->nlines; i++) {
        const char *line = s->lines[i] + strspn(s->lines[i], " \t");
        /* the first nccl-tests printed its nThread line without '#' */
        if (pb_imp_starts(line, "nThread ") && strstr(line, " nGpus ") != NULL)
            return PB_IMPORT_NCCL;
        if (line[0] != '#')
            continue;
        for (size_t b = 0; b < sizeof banners / sizeof banners[0]; b++)
            if (pb_imp_starts(line, banners[b].sig))
                return banners[b].tool;
        /* IMB's banner: "Intel(R) MPI Benchmarks 2021.3", "Intel (R) MPI
         * Benchmark Suite V3.2.4" */
        if (strstr(line, "MPI Benchmark") != NULL && strstr(line, "Intel") != NULL)
            return PB_IMPORT_IMB;
        int n = pb_imp_tokens(s, line, tok, PB_IMP_MAXTOK);
        pb_import_tool_t t = n > 0 ? header_tool(tok, n) : PB_IMPORT_AUTO;
        if (t != PB_IMPORT_AUTO)
            return t;
    }
    return PB_IMPORT_AUTO;
}
