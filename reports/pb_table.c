#include "pb_table.h"

#include <inttypes.h>

static const char block_head[] = " %9s %9s %7s %7s %7s %7s";

void pb_table_header(FILE *f)
{
    /* the row prefix is 51 columns wide, each block 52: centre the titles */
    fprintf(f, "#%50s%20s%-32s%22s%s\n", "", "", "out-of-place", "", "in-place");
    fprintf(f, "# %13s %12s %9s %6s %5s", "size", "count", "type", "redop", "root");
    fprintf(f, block_head, "time", "p99", "algbw", "busbw", "#wrong", "iters");
    fprintf(f, block_head, "time", "p99", "algbw", "busbw", "#wrong", "iters");
    fputc('\n', f);
    fprintf(f, "# %13s %12s %9s %6s %5s", "(B)", "(elements)", "", "", "");
    fprintf(f, block_head, "(us)", "(us)", "(GB/s)", "(GB/s)", "", "");
    fprintf(f, block_head, "(us)", "(us)", "(GB/s)", "(GB/s)", "", "");
    fputc('\n', f);
}

static void block(FILE *f, const pb_result_t *r)
{
    if (r == NULL) {
        fprintf(f, " %9s %9s %7s %7s %7s %7s", "-", "-", "-", "-", "-", "-");
        return;
    }
    char wrong[24];
    if (r->wrong == PB_RESULT_WRONG_UNCHECKED)
        snprintf(wrong, sizeof wrong, "%s", PB_RESULT_WRONG_NA);
    else
        snprintf(wrong, sizeof wrong, "%" PRId64, r->wrong);
    fprintf(f, " %9.2f %9.2f %7.2f %7.2f %7s %7" PRIu64, r->time_us_median, r->time_us_p99,
            r->algbw_gbps, r->busbw_gbps, wrong, r->iters);
}

void pb_table_line(FILE *f, const pb_table_line_t *l)
{
    fprintf(f, "  %13" PRIu64 " %12" PRIu64 " %9s %6s %5d", l->bytes, l->count, l->dtype,
            l->redop, l->root);
    block(f, l->out_of_place);
    block(f, l->in_place);
    fputc('\n', f);
    fflush(f);
}

void pb_table_account(pb_table_summary_t *s, const pb_result_t *r)
{
    s->busbw_sum += r->busbw_gbps;
    s->n++;
    if (r->wrong != PB_RESULT_WRONG_UNCHECKED) {
        s->checked = 1;
        s->wrong += r->wrong;
    }
}

void pb_table_footer(FILE *f, const pb_table_summary_t *s)
{
    if (s->checked)
        fprintf(f, "# Wrong elements       : %" PRId64 " %s\n", s->wrong, s->wrong ? "FAILED" : "OK");
    fprintf(f, "# Avg bus bandwidth    : %g GB/s\n", s->n ? s->busbw_sum / s->n : 0.0);
}
