/* pb_jp_ranks.c - the ranks a recording holds (pb_jp_ranks.h). */
#include "pb_jp_ranks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb_jp_infer.h"

void pb_jp_ranks_text(const unsigned char *flag, int n, char *buf, size_t len)
{
    size_t at = 0;
    if (len == 0)
        return;
    buf[0] = '\0';
    for (int r = 0; r < n;) {
        if (!flag[r]) {
            r++;
            continue;
        }
        int e = r;
        while (e + 1 < n && flag[e + 1])
            e++;
        char piece[32];
        if (e > r)
            snprintf(piece, sizeof piece, "%s%d-%d", at ? ", " : "", r, e);
        else
            snprintf(piece, sizeof piece, "%s%d", at ? ", " : "", r);
        size_t m = strlen(piece);
        if (at + m + 6 > len) { /* room for ", ..." and the NUL */
            snprintf(buf + at, len - at, "%s", at ? ", ..." : "...");
            return;
        }
        memcpy(buf + at, piece, m + 1);
        at += m;
        r = e + 1;
    }
}

int pb_jp_missing_ranks(const pb_jobprof_t *jp, char *buf, size_t len)
{
    int world = pb_jp_world(jp);
    if (len > 0)
        buf[0] = '\0';
    if (world <= 0)
        return 0;
    unsigned char *miss = malloc((size_t)world);
    if (miss == NULL)
        return -1;
    memset(miss, 1, (size_t)world);
    for (size_t i = 0; i < jp->nops; i++)
        if (jp->ops[i].rank >= 0 && jp->ops[i].rank < world)
            miss[jp->ops[i].rank] = 0;
    int n = 0;
    for (int r = 0; r < world; r++)
        n += miss[r];
    pb_jp_ranks_text(miss, world, buf, len);
    free(miss);
    return n;
}

int pb_jp_missing_warn(const pb_jobprof_t *jp, const char *then, FILE *out)
{
    char miss[160];
    int n = pb_jp_missing_ranks(jp, miss, sizeof miss);
    if (n > 0) /* three traces of a four-rank job pass for no whole job */
        fprintf(out, "parbench: warning: rank%s %s of the world's %d recorded no operation "
                "(%s file%s not given?): %s\n", n > 1 ? "s" : "", miss, pb_jp_world(jp),
                n > 1 ? "their" : "its", n > 1 ? "s" : "", then);
    return n;
}
