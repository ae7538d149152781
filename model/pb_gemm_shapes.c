/* pb_gemm_shapes.c - see pb_gemm_shapes.h for the shapes and where they
 * come from. */
#include "pb_gemm_shapes.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static const char *const kind_names[PB_GEMM_KIND_COUNT] = {
    [PB_GEMM_QKV] = "qkv",
    [PB_GEMM_ATTN_OUT] = "attn_out",
    [PB_GEMM_MLP_UP] = "mlp_up",
    [PB_GEMM_MLP_DOWN] = "mlp_down",
};

static const char *const pass_suffix[PB_GEMM_PASS_COUNT] = {
    [PB_GEMM_FWD] = "", [PB_GEMM_DGRAD] = "_dgrad", [PB_GEMM_WGRAD] = "_wgrad"};

/* gemm's layer without flags: Llama 2 7B's width, heads and sequence
 * (patterns/pb_model.c, preset llama2-7b), GPT's f = 4h (Brown et al.
 * 2020, Table 2.1: d_ff = 4 d_model) */
#define PB_GEMM_DEF_HIDDEN 4096
#define PB_GEMM_DEF_HEADS 32
#define PB_GEMM_DEF_SEQ 4096
#define PB_GEMM_FFN_X_H 4
/* the widest GEMM's N in hidden widths: QKV, h + 2h with as many KV
 * heads as heads */
#define PB_GEMM_QKV_X_H 3

void pb_gemm_model_defaults(pb_gemm_model_t *m)
{
    memset(m, 0, sizeof *m);
    m->hidden = PB_GEMM_DEF_HIDDEN;
    m->seq = PB_GEMM_DEF_SEQ;
    m->mbs = 1;
    m->tp = 1;
    m->heads = PB_GEMM_DEF_HEADS;
}

void pb_gemm_model_resolve(pb_gemm_model_t *m)
{
    if (m->kv_heads == 0)
        m->kv_heads = m->heads;
    if (m->ffn == 0 && m->hidden <= UINT64_MAX / PB_GEMM_FFN_X_H)
        m->ffn = PB_GEMM_FFN_X_H * m->hidden;
}

/* a * b, or 0 when it does not fit 64 bits (no factor here is 0) */
static uint64_t mul_or_0(uint64_t a, uint64_t b)
{
    return (a != 0 && b > UINT64_MAX / a) ? 0 : a * b;
}

/* 2.M.N.K, or 0 on overflow */
static uint64_t flops_of(uint64_t m, uint64_t n, uint64_t k)
{
    return mul_or_0(mul_or_0(mul_or_0(2, m), n), k);
}

static int need_divides(uint64_t d, const char *dn, uint64_t x, const char *xn, pb_err_t *err)
{
    if (x % d != 0)
        return pb_err_set(err, PB_EINPUT, "%s %" PRIu64 " does not divide %s %" PRIu64, dn, d,
                          xn, x);
    return PB_OK;
}

int pb_gemm_model_check(const pb_gemm_model_t *m, pb_err_t *err)
{
    const struct {
        const char *name;
        uint64_t v;
    } all[] = {{"--hidden", m->hidden}, {"--seq", m->seq},         {"--mbs", m->mbs},
               {"--tp", m->tp},         {"--heads", m->heads},     {"--kv-heads", m->kv_heads},
               {"--ffn", m->ffn}};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (all[i].v == 0)
            return pb_err_set(err, PB_EINPUT, "%s must be above 0", all[i].name);
    if (need_divides(m->heads, "--heads", m->hidden, "--hidden", err) ||
        need_divides(m->kv_heads, "--kv-heads", m->heads, "--heads", err) ||
        need_divides(m->tp, "--tp", m->heads, "--heads", err) ||
        need_divides(m->tp, "--tp", m->kv_heads, "--kv-heads", err) ||
        need_divides(m->tp, "--tp", m->hidden, "--hidden", err) ||
        need_divides(m->tp, "--tp", m->ffn, "--ffn", err))
        return err->code;
    /* the largest operand sizes and FLOPs must fit 64 bits: T = b.s, the
     * widest N is 2f (gated) or h + 2h = 3h (qkv with g = a) */
    uint64_t tokens = mul_or_0(m->mbs, m->seq);
    uint64_t wide = m->hidden > m->ffn ? m->hidden : m->ffn;
    if (tokens == 0 || flops_of(tokens, mul_or_0(wide, PB_GEMM_QKV_X_H), wide) == 0)
        return pb_err_set(err, PB_EINPUT,
                          "layer too large: the FLOPs of one GEMM do not fit 64 bits");
    return PB_OK;
}

static void put(pb_gemm_shape_t *s, pb_gemm_kind_t kind, pb_gemm_pass_t pass, uint64_t m,
                uint64_t n, uint64_t k)
{
    s->kind = kind;
    s->pass = pass;
    snprintf(s->name, sizeof s->name, "gemm_%s%s", kind_names[kind], pass_suffix[pass]);
    s->m = m;
    s->n = n;
    s->k = k;
    s->flops = flops_of(m, n, k); /* cannot overflow: pb_gemm_model_check */
}

int pb_gemm_layer_shapes(const pb_gemm_model_t *m, int backward, pb_gemm_shape_t *out,
                         int *n, pb_err_t *err)
{
    *n = 0;
    if (pb_gemm_model_check(m, err) != PB_OK)
        return err->code;
    const uint64_t T = m->mbs * m->seq, h = m->hidden, t = m->tp;
    /* q: a heads of h/a; k and v: g groups of h/a each = h.g/a */
    const uint64_t kv = h / m->heads * m->kv_heads;
    const uint64_t fwd[PB_GEMM_KIND_COUNT][3] = {
        [PB_GEMM_QKV] = {T, (h + 2 * kv) / t, h},
        [PB_GEMM_ATTN_OUT] = {T, h, h / t},
        [PB_GEMM_MLP_UP] = {T, (m->gated ? 2 : 1) * (m->ffn / t), h},
        [PB_GEMM_MLP_DOWN] = {T, h, m->ffn / t},
    };
    for (int k = 0; k < PB_GEMM_KIND_COUNT; k++)
        put(&out[(*n)++], (pb_gemm_kind_t)k, PB_GEMM_FWD, fwd[k][0], fwd[k][1], fwd[k][2]);
    if (!backward)
        return PB_OK;
    for (int k = 0; k < PB_GEMM_KIND_COUNT; k++) {
        const uint64_t M = fwd[k][0], N = fwd[k][1], K = fwd[k][2];
        put(&out[(*n)++], (pb_gemm_kind_t)k, PB_GEMM_DGRAD, M, K, N);
        put(&out[(*n)++], (pb_gemm_kind_t)k, PB_GEMM_WGRAD, K, N, M);
    }
    return PB_OK;
}
