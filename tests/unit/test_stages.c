/* test_stages.c - patterns/pb_stages: the layers of each pipeline stage,
 * with the counts worked by hand from the published splits named below. */
#include "patterns/pb_stages.h"

#include <string.h>

#include "pb_test.h"

static pb_model_t model(uint64_t layers, uint64_t trim, uint64_t first, uint64_t last)
{
    pb_model_t m;
    memset(&m, 0, sizeof m);
    m.layers = layers;
    m.pp_trim = trim;
    m.pp_first = first;
    m.pp_last = last;
    return m;
}

static void split_is(const pb_model_t *m, int pp, int vp, uint64_t f, uint64_t mid, uint64_t l,
                     int line)
{
    pb_stages_t st;
    pb_err_t err;
    pb_err_clear(&err);
    if (pb_stages_split(m, pp, vp, &st, &err) != PB_OK) {
        fprintf(stderr, "line %d: refused: %s\n", line, err.msg);
        pb_test_failures++;
        return;
    }
    if (st.first != f || st.mid != mid || st.last != l) {
        fprintf(stderr, "line %d: %llu/%llu/%llu, want %llu/%llu/%llu\n", line,
                (unsigned long long)st.first, (unsigned long long)st.mid,
                (unsigned long long)st.last, (unsigned long long)f, (unsigned long long)mid,
                (unsigned long long)l);
        pb_test_failures++;
    }
}

static void refused(const pb_model_t *m, int pp, int vp, const char *want, int line)
{
    pb_stages_t st;
    pb_err_t err;
    pb_err_clear(&err);
    int rc = pb_stages_split(m, pp, vp, &st, &err);
    if (rc != PB_EINPUT || strstr(err.msg, want) == NULL) {
        fprintf(stderr, "line %d: want '%s', got rc %d '%s'\n", line, want, rc, err.msg);
        pb_test_failures++;
    }
}

int main(void)
{
    /* even: GPT-3 175B, 96 layers on 8 stages of 12 */
    pb_model_t m = model(96, 0, 0, 0);
    split_is(&m, 8, 1, 12, 12, 12, __LINE__);
    split_is(&m, 8, 3, 12, 12, 12, __LINE__); /* 4 layers per chunk */
    split_is(&m, 1, 1, 96, 96, 96, __LINE__);
    split_is(&m, 2, 1, 48, 0, 48, __LINE__); /* no stage between */
    /* Llama 3 405B (Dubey et al. 2024 Sec. 3.3.2): 126 layers, 16 stages,
     * one fewer on the first and the last: (126 + 2) / 16 = 8, 7 at the
     * ends; 7 + 14 x 8 + 7 = 126.  Interleaved by 4 the trim is a chunk's:
     * 128 / 64 = 2 per chunk. */
    m = model(126, 2, 0, 0);
    split_is(&m, 16, 1, 7, 8, 7, __LINE__);
    split_is(&m, 16, 4, 7, 8, 7, __LINE__);
    /* by 3 neither: 126 + 2 = 128 slots are not 48 chunks' multiple, and
     * without the trim 126 is not either; the depths that keep the trim
     * are 96 - 2 = 94 and 144 - 2 = 142 (issue 50: the real numbers) */
    refused(&m, 16, 3,
            "126 layers + 2 (pp_trim: end stages lighter, the embedding and the loss counted "
            "as layer slots) = 128 are not divisible by pp x vp = 48: --layers 94 or 142 keeps "
            "the lighter ends",
            __LINE__);
    split_is(&m, 1, 1, 126, 126, 126, __LINE__); /* no pipeline: the trim means nothing */
    /* an odd trim: ceil on the first (the embedding alone counted, as
     * Megatron's --account-for-embedding-in-pipeline-split): 31 + 1 = 32
     * over 4 stages of 8, the first 7 */
    m = model(31, 1, 0, 0);
    split_is(&m, 4, 1, 7, 8, 8, __LINE__);
    /* Megatron's --decoder-first/last-pipeline-num-layers: 30 layers on 4
     * stages, 6 first and 6 last leave 18 for 2 stages of 9 */
    m = model(30, 0, 6, 6);
    split_is(&m, 4, 1, 6, 9, 6, __LINE__);
    refused(&m, 4, 2, "stages of 6, 9 and 6 layers (first, middle, last) are not divisible by vp 2",
            __LINE__);
    /* only the last given: 94 - 10 = 84 over 7 stages of 12 (the first
     * is one of them) */
    m = model(94, 0, 0, 10);
    split_is(&m, 8, 1, 12, 12, 10, __LINE__);
    split_is(&m, 8, 2, 12, 12, 10, __LINE__);
    /* two stages, both given: they must be the whole model */
    m = model(30, 0, 14, 16);
    split_is(&m, 2, 1, 14, 0, 16, __LINE__);
    m = model(30, 0, 14, 15);
    refused(&m, 2, 1, "pp_first 14 + pp_last 15 are not the 30 layers of 2 stages", __LINE__);
    m = model(30, 0, 7, 0);
    refused(&m, 4, 1, "the 23 layers pp_first/pp_last leave do not split evenly over 3 stages",
            __LINE__);
    refused(&m, 1, 1, "pp_first/pp_last need --pp above 1", __LINE__);
    m = model(30, 0, 20, 10);
    refused(&m, 4, 1, "leave none of the 30 layers", __LINE__);
    m = model(30, 2, 7, 0);
    refused(&m, 4, 1, "give pp_trim or pp_first/pp_last, not both", __LINE__);
    m = model(6, 4, 0, 0); /* (6 + 4) / 5 = 2 per stage, 2 cut from the first */
    refused(&m, 5, 1, "pp_trim 4 leaves no layer on the first stage", __LINE__);
    /* the busiest stage's count */
    pb_stages_t st = {4, 7, 8, 9};
    CHECK(pb_stages_max(&st) == 9);
    CHECK(pb_stages_layers(&st, 0) == 7 && pb_stages_layers(&st, 2) == 8 &&
          pb_stages_layers(&st, 3) == 9);
    PB_TEST_END("unit_stages");
}
