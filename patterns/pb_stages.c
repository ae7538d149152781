#include "pb_stages.h"

#include <stdio.h>
#include <string.h>

#define ULL(x) ((unsigned long long)(x))

/* pp_first / pp_last given: the rest evenly over the stages between */
static int explicit_split(const pb_model_t *m, int pp, pb_stages_t *out, pb_err_t *err)
{
    uint64_t ends = (m->pp_first ? 1 : 0) + (m->pp_last ? 1 : 0);
    uint64_t fixed = m->pp_first + m->pp_last, between = (uint64_t)pp - ends;
    if (between == 0) { /* pp 2, both ends given: they are the whole model */
        if (fixed != m->layers)
            return pb_err_set(err, PB_EINPUT,
                              "pp_first %llu + pp_last %llu are not the %llu layers of 2 stages",
                              ULL(m->pp_first), ULL(m->pp_last), ULL(m->layers));
        out->first = m->pp_first, out->last = m->pp_last, out->mid = 0;
        return PB_OK;
    }
    if (fixed >= m->layers)
        return pb_err_set(err, PB_EINPUT,
                          "pp_first %llu + pp_last %llu leave none of the %llu layers to the "
                          "other stages",
                          ULL(m->pp_first), ULL(m->pp_last), ULL(m->layers));
    uint64_t rest = m->layers - fixed;
    if (rest % between != 0)
        return pb_err_set(err, PB_EINPUT,
                          "the %llu layers pp_first/pp_last leave do not split evenly over %llu "
                          "stages",
                          ULL(rest), ULL(between));
    out->mid = rest / between;
    out->first = m->pp_first ? m->pp_first : out->mid;
    out->last = m->pp_last ? m->pp_last : out->mid;
    if (pp == 2)
        out->mid = 0;
    return PB_OK;
}

/* End stages of their own that split m's layers over pp stages of vp
 * chunks (Megatron's --decoder-first/last-pipeline-num-layers): the
 * stages between as light as an even share allows (ceil(layers / pp),
 * rounded up to vp), the rest to the ends, the first one the lighter (it
 * also holds the embedding, as pp_trim's rounding).  0: none found; each
 * candidate is checked by the split itself. */
static int uneven_ends(const pb_model_t *m, int pp, int vp, pb_stages_t *out)
{
    uint64_t v = (uint64_t)(vp > 1 ? vp : 1), n = (uint64_t)pp, between = n - 2;
    uint64_t mid = (m->layers + n - 1) / n;
    mid = (mid + v - 1) / v * v;
    for (; pp > 2 && between * mid < m->layers; mid += v) {
        uint64_t rest = m->layers - between * mid, first = rest / 2 / v * v;
        pb_model_t t = *m;
        t.pp_trim = 0, t.pp_first = first, t.pp_last = rest - first;
        pb_err_t e;
        if (first > 0 && t.pp_last > 0 && pb_stages_split(&t, pp, vp, out, &e) == PB_OK)
            return 1;
    }
    if (pp == 2 && m->layers >= 2 * v) { /* no stage between: the ends are the model */
        pb_model_t t = *m;
        t.pp_trim = 0, t.pp_first = m->layers / 2 / v * v, t.pp_last = m->layers - t.pp_first;
        pb_err_t e;
        return pb_stages_split(&t, pp, vp, out, &e) == PB_OK;
    }
    return 0;
}

/* The refusal of layers + trim that pp x vp chunks do not divide, with
 * the real numbers and what would split them: without the trim, another
 * depth that keeps it, or end stages of their own. */
static int not_divisible(const pb_model_t *m, int pp, int vp, uint64_t chunks, pb_err_t *err)
{
    char how[200] = "";
    pb_stages_t st;
    pb_model_t t = *m;
    t.pp_trim = 0;
    if (m->pp_trim && m->layers % chunks == 0)
        snprintf(how, sizeof how, ": --pp-trim 0 splits the %llu evenly (%llu a stage)",
                 ULL(m->layers), ULL(m->layers / (uint64_t)pp));
    else if (uneven_ends(&t, pp, vp, &st)) {
        char mid[48] = "";
        if (pp > 2)
            snprintf(mid, sizeof mid, " (%llu on %s)", ULL(st.mid),
                     pp - 2 > 1 ? "each stage between" : "the stage between");
        snprintf(how, sizeof how,
                 ": give the end stages their own counts, e.g. %s--pp-first %llu --pp-last "
                 "%llu%s",
                 m->pp_trim ? "--pp-trim 0 " : "", ULL(st.first), ULL(st.last), mid);
    }
    uint64_t all = m->layers + m->pp_trim, below = all / chunks * chunks;
    if (m->pp_trim) { /* the depths that keep the trim: (layers + trim) a multiple */
        size_t at = strlen(how);
        if (below > m->pp_trim)
            snprintf(how + at, sizeof how - at, "%s--layers %llu or %llu keeps the lighter ends",
                     at ? "; " : ": ", ULL(below - m->pp_trim), ULL(below + chunks - m->pp_trim));
        else
            snprintf(how + at, sizeof how - at, "%s--layers %llu keeps the lighter ends",
                     at ? "; " : ": ", ULL(below + chunks - m->pp_trim));
        return pb_err_set(err, PB_EINPUT,
                          "%llu layers + %llu (pp_trim: end stages lighter, the embedding and the "
                          "loss counted as layer slots) = %llu are not divisible by pp x vp = "
                          "%llu%s",
                          ULL(m->layers), ULL(m->pp_trim), ULL(all), ULL(chunks), how);
    }
    return pb_err_set(err, PB_EINPUT, "layers %llu are not divisible by pp x vp = %llu%s",
                      ULL(m->layers), ULL(chunks), how);
}

/* pp_trim (0: the even split): (layers + trim) / pp per stage, the trim
 * taken from the two ends */
static int trimmed_split(const pb_model_t *m, int pp, int vp, pb_stages_t *out, pb_err_t *err)
{
    uint64_t all = m->layers + m->pp_trim, chunks = (uint64_t)pp * (uint64_t)(vp > 1 ? vp : 1);
    if (all % chunks != 0)
        return not_divisible(m, pp, vp, chunks, err);
    uint64_t per = all / (uint64_t)pp;
    uint64_t cut_first = (m->pp_trim + 1) / 2, cut_last = m->pp_trim / 2;
    if (cut_first >= per)
        return pb_err_set(err, PB_EINPUT, "pp_trim %llu leaves no layer on the first stage",
                          ULL(m->pp_trim));
    out->first = per - cut_first;
    out->last = per - cut_last;
    out->mid = pp > 2 ? per : 0;
    return PB_OK;
}

int pb_stages_split(const pb_model_t *m, int pp, int vp, pb_stages_t *out, pb_err_t *err)
{
    out->pp = pp;
    if (pp <= 1) {
        if (m->pp_first || m->pp_last)
            return pb_err_set(err, PB_EINPUT, "pp_first/pp_last need --pp above 1");
        out->first = out->mid = out->last = m->layers;
        return PB_OK;
    }
    if ((m->pp_first || m->pp_last) && m->pp_trim)
        return pb_err_set(err, PB_EINPUT,
                          "give pp_trim or pp_first/pp_last, not both (pp_trim is one case of them)");
    int given = m->pp_first || m->pp_last;
    /* interleaved: a trim comes off the first and the last model chunk, so
     * the untrimmed chunks must be whole (trimmed_split); with the ends
     * given Megatron wants every stage's count divisible by vp */
    int code = given ? explicit_split(m, pp, out, err) : trimmed_split(m, pp, vp, out, err);
    uint64_t v = (uint64_t)vp;
    if (code == PB_OK && given && vp > 1 && (out->first % v || out->mid % v || out->last % v))
        return pb_err_set(err, PB_EINPUT,
                          "stages of %llu, %llu and %llu layers (first, middle, last) are not "
                          "divisible by vp %d",
                          ULL(out->first), ULL(out->mid), ULL(out->last), vp);
    return code;
}

void pb_stages_of(const pb_model_t *m, int pp, pb_stages_t *out)
{
    pb_err_t ignore;
    if (pb_stages_split(m, pp, 1, out, &ignore) != PB_OK) {
        out->pp = pp;
        out->first = out->mid = out->last = m->layers / (uint64_t)(pp > 1 ? pp : 1);
    }
}

uint64_t pb_stages_layers(const pb_stages_t *st, int s)
{
    if (st->pp <= 1)
        return st->first;
    return s == 0 ? st->first : s == st->pp - 1 ? st->last : st->mid;
}

uint64_t pb_stages_max(const pb_stages_t *st)
{
    uint64_t m = st->first > st->last ? st->first : st->last;
    return st->mid > m ? st->mid : m;
}
