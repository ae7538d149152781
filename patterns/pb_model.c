#include "pb_model.h"

#include "../util/pb_num.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Presets.  Each cites where its numbers are published; where a training
 * setting is not published the comment says what was chosen. */
static const pb_model_t presets[] = {
    /* Brown et al. 2020, "Language Models are Few-Shot Learners", Table
     * 2.1: 96 layers, d_model 12288, 96 heads of 128, d_ff = 4 d_model,
     * context 2048, batch 3.2M tokens = 1536 sequences; GPT-2 BPE vocab
     * 50257; trained in fp16 (Sec. 2.3). */
    {"gpt3-175b", 96, 12288, 96, 96, 49152, 50257, 2048, 1, 1536, PB_F16, 0, 0, 0, 1, 0,
     0, 0, 0, 0, 0, 0},
    /* Touvron et al. 2023, "Llama 2", Table 1 and the released config.json:
     * 32 layers, 4096, 32 heads, FFN 11008 (SwiGLU), vocab 32000, context
     * 4096, batch 4M tokens = 1024 sequences. */
    {"llama2-7b", 32, 4096, 32, 32, 11008, 32000, 4096, 1, 1024, PB_BF16, 1, 0, 0, 1, 0,
     0, 0, 0, 0, 0, 0},
    /* Llama 2 70B: 80 layers, 8192, 64 heads, 8 KV heads (GQA), FFN 28672. */
    {"llama2-70b", 80, 8192, 64, 8, 28672, 32000, 4096, 1, 1024, PB_BF16, 1, 0, 0, 1, 0,
     0, 0, 0, 0, 0, 0},
    /* Dubey et al. 2024, "The Llama 3 Herd of Models", Table 3: 8B has 32
     * layers, 4096, 32 heads, 8 KV heads, FFN 14336, vocab 128256; 70B has
     * 80 layers, 8192, 64 heads, 8 KV heads, FFN 28672; 405B has 126
     * layers, 16384, 128 heads, 8 KV heads, FFN 53248.  Sequence 8192 and
     * batch 16M tokens = 2048 sequences are the 405B's final settings
     * (Sec. 3.4.1); the 8B and 70B batches are not published, 2048 is
     * assumed.  Sec. 3.3.2: the 405B pipeline has one layer fewer on its
     * first and last stage (pp_trim 2). */
    {"llama3-8b", 32, 4096, 32, 8, 14336, 128256, 8192, 1, 2048, PB_BF16, 1, 0, 0, 1, 0,
     0, 0, 0, 0, 0, 0},
    {"llama3-70b", 80, 8192, 64, 8, 28672, 128256, 8192, 1, 2048, PB_BF16, 1, 0, 0, 1, 0,
     0, 0, 0, 0, 0, 0},
    {"llama3-405b", 126, 16384, 128, 8, 53248, 128256, 8192, 1, 2048, PB_BF16, 1, 0, 0, 1, 0,
     2, 0, 0, 0, 0, 0},
    /* Jiang et al. 2024, "Mixtral of Experts", Table 1: 32 layers, 4096,
     * 32 heads, 8 KV heads, expert FFN 14336, vocab 32000, 8 experts, top
     * 2, every layer MoE.  Training sequence and batch are not published:
     * 4096 and 1024 are assumed. */
    {"mixtral-8x7b", 32, 4096, 32, 8, 14336, 32000, 4096, 1, 1024, PB_BF16, 1, 8, 2, 1, 0,
     0, 0, 0, 0, 0, 0},
    /* DeepSeek-AI 2024, "DeepSeek-V3 Technical Report", Sec. 4.2: 61
     * layers, hidden 7168, 128 heads, dense FFN 18432, 256 routed experts
     * of 2048, top 8, vocab 129280, sequence 4096, batch up to 15360.
     * One shared expert of 2048 and the first 3 layers dense (Sec. 4.2:
     * "all FFNs except for the first three layers" are MoE, "1 shared
     * expert"; config.json n_shared_experts 1, first_k_dense_replace 3).
     * "Style": MLA is modelled as plain attention with 128 KV heads. */
    {"deepseek-v3", 61, 7168, 128, 128, 18432, 129280, 4096, 1, 15360, PB_BF16, 1, 256, 8, 1,
     2048, 0, 0, 0, 0, 2048, 3},
    /* A 70B worked example (parbench's first design notes): 80 layers, hidden 8192, sequence 4096;
     * heads, FFN and vocab as Llama 2 70B; batch 1024 as Llama 2. */
    {"example-70b", 80, 8192, 64, 8, 28672, 32000, 4096, 1, 1024, PB_BF16, 1, 0, 0, 1, 0,
     0, 0, 0, 0, 0, 0},
    /* A small model for runs on a few ranks (the default): GPT-style, 4
     * layers of 1024, sequence 512, vocab 32000. */
    {"tiny", 4, 1024, 16, 16, 4096, 32000, 512, 1, 0, PB_BF16, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0},
};
#define NPRESETS (sizeof presets / sizeof presets[0])

const char *pb_model_preset_name(int i)
{
    return i >= 0 && (size_t)i < NPRESETS ? presets[i].name : NULL;
}

int pb_model_preset(const char *name, pb_model_t *out, pb_err_t *err)
{
    for (size_t i = 0; i < NPRESETS; i++)
        if (strcmp(presets[i].name, name) == 0) {
            *out = presets[i];
            return PB_OK;
        }
    char list[256] = "";
    size_t at = 0;
    for (size_t i = 0; i < NPRESETS && at + sizeof presets[i].name + 2 < sizeof list; i++) {
        size_t n = strlen(presets[i].name);
        if (i)
            list[at++] = ',', list[at++] = ' ';
        memcpy(list + at, presets[i].name, n + 1);
        at += n;
    }
    return pb_err_set(err, PB_EINPUT, "unknown model preset '%s' (known: %s)", name, list);
}

static uint64_t gcd_u64(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

int pb_model_family_llama(uint64_t hidden, uint64_t heads, pb_model_t *out, pb_err_t *err)
{
    /* hidden's bound (the fields table below), before 7 x hidden is formed */
    if (hidden == 0 || hidden > UINT64_C(1) << 20)
        return pb_err_set(err, PB_EINPUT, "hidden %llu is outside 1..1048576",
                          (unsigned long long)hidden);
    if (heads == 0 && hidden % PB_FAMILY_HEAD_DIM != 0)
        return pb_err_set(err, PB_EINPUT, "hidden %llu is not a multiple of the head size %d",
                          (unsigned long long)hidden, PB_FAMILY_HEAD_DIM);
    if (heads == 0)
        heads = hidden / PB_FAMILY_HEAD_DIM;
    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "llama-style");
    out->layers = PB_FAMILY_LAYERS;
    out->hidden = hidden;
    out->heads = heads;
    out->kv_heads = gcd_u64(heads, PB_FAMILY_KV_HEADS);
    /* 3.5 H = 7H / 2, rounded up to 256: (7H + 511) / 512 x 256 */
    out->ffn = (PB_FAMILY_FFN_X2 * hidden + 2 * PB_FAMILY_FFN_ROUND - 1) / (2 * PB_FAMILY_FFN_ROUND) *
               PB_FAMILY_FFN_ROUND;
    out->vocab = PB_FAMILY_VOCAB;
    out->seq = PB_FAMILY_SEQ;
    out->mbs = 1;
    out->dtype = PB_BF16;
    out->gated = 1;
    out->moe_every = 1; /* as every preset: unused while experts is 0 */
    return PB_OK;
}

uint64_t pb_model_family_llama_layers(uint64_t hidden, const char **name)
{
    /* Dubey et al. 2024, Table 3 (and the presets above) */
    static const struct {
        uint64_t hidden, layers;
        const char *name;
    } real[] = {{4096, 32, "Llama 3 8B"}, {8192, 80, "Llama 3 70B"}, {16384, 126, "Llama 3 405B"}};
    for (size_t i = 0; i < sizeof real / sizeof real[0]; i++)
        if (real[i].hidden == hidden) {
            *name = real[i].name;
            return real[i].layers;
        }
    *name = NULL;
    return 0;
}

static int parse_u64(const char *key, const char *v, uint64_t lo, uint64_t hi, const char *why,
                     uint64_t *out, pb_err_t *err)
{
    uint64_t x = 0;
    int rc = pb_num_u64(v, lo, hi, &x);
    if (rc == PB_NUM_NAN || (rc == PB_NUM_RANGE && x < lo))
        return pb_err_set(err, PB_EINPUT, "bad value '%s' for %s: a whole number of at least %llu",
                          v, key, (unsigned long long)lo);
    /* the rest of PB_NUM_RANGE: above hi, or past 2^64 - 1 (above every bound too) */
    if (rc != PB_NUM_OK)
        return pb_err_set(err, PB_EINPUT, "%s %s is above the bound %llu (%s)", key, v,
                          (unsigned long long)hi, why);
    *out = x;
    return PB_OK;
}

/* '-' and '_' are the same in keys, so a flag (--kv-heads) and a model
 * file line (kv_heads = 8) name the same field */
static int key_eq(const char *a, const char *b)
{
    for (; *a && *b; a++, b++)
        if (*a != *b && !((*a == '-' || *a == '_') && (*b == '-' || *b == '_')))
            return 0;
    return *a == *b;
}

/* Every size field with its bounds.  Lower: 0 where 0 means "none" or
 * "automatic".  Upper: far above the largest real model known (the reason
 * says which), and low enough that the 64-bit products the patterns and
 * the step model form cannot wrap: pb_model_params (pb_model_check bounds
 * the total), a micro-batch's message bytes mbs x seq x hidden x topk x 4
 * (<= 2^27 tokens: MAX_MB_TOKENS times the plan's 8 sequences, x 2^10 x
 * 2^20 x 4 = 2^59) and the K/V of context parallelism (2^27 x 2^20 query
 * width x 8 bytes = 2^50).  The step model's FLOPs, times and memory are
 * doubles, finite far beyond these. */
#define P2(n) (UINT64_C(1) << (n))
static const struct field {
    const char *key;
    size_t off;
    uint64_t lo, hi;
    const char *why;
} fields[] = {
    {"layers", offsetof(pb_model_t, layers), 1, P2(16),
     "2^16; the deepest real models: Llama 3 405B 126, PaLM 540B 118"},
    {"hidden", offsetof(pb_model_t, hidden), 1, P2(20),
     "2^20; the widest real models: PaLM 540B 18432, Llama 3 405B 16384"},
    {"heads", offsetof(pb_model_t, heads), 1, P2(16), "2^16; Llama 3 405B and DeepSeek-V3: 128"},
    {"kv_heads", offsetof(pb_model_t, kv_heads), 1, P2(16), "2^16; at most the heads"},
    {"ffn", offsetof(pb_model_t, ffn), 1, P2(22), "2^22; PaLM 540B 73728, Llama 3 405B 53248"},
    {"vocab", offsetof(pb_model_t, vocab), 1, P2(24), "2^24; Gemma 3 262144"},
    {"seq", offsetof(pb_model_t, seq), 1, P2(24),
     "2^24 = 16M tokens; the longest real context: Llama 4 Scout's 10M"},
    {"mbs", offsetof(pb_model_t, mbs), 1, P2(16), "2^16 sequences; real micro-batches: 1 to 64"},
    {"gbs", offsetof(pb_model_t, gbs), 0, P2(24),
     "2^24 sequences; DeepSeek-V3 15360, GPT-3 1536"},
    {"experts", offsetof(pb_model_t, experts), 0, P2(16), "2^16; DeepSeek-V3 256, Qwen3 128"},
    {"topk", offsetof(pb_model_t, topk), 0, P2(10), "2^10; DeepSeek-V3 and Qwen3 route to 8"},
    {"moe_every", offsetof(pb_model_t, moe_every), 1, P2(16), "2^16, as layers"},
    {"moe_ffn", offsetof(pb_model_t, moe_ffn), 0, P2(22), "2^22, as ffn; DeepSeek-V3 2048"},
    {"pp_trim", offsetof(pb_model_t, pp_trim), 0, P2(16), "2^16, as layers"},
    {"head_dim", offsetof(pb_model_t, head_dim), 0, P2(16), "2^16; Gemma 256"},
    {"pp_first", offsetof(pb_model_t, pp_first), 0, P2(16), "2^16, as layers"},
    {"pp_last", offsetof(pb_model_t, pp_last), 0, P2(16), "2^16, as layers"},
    {"shared_ffn", offsetof(pb_model_t, shared_ffn), 0, P2(22),
     "2^22, as ffn; DeepSeek-V3 2048, Qwen2-57B-A14B 20480"},
    {"dense_first", offsetof(pb_model_t, dense_first), 0, P2(16), "2^16, as layers"},
};
#define NFIELDS (sizeof fields / sizeof fields[0])

static uint64_t field_get(const pb_model_t *m, const struct field *f)
{
    uint64_t v;
    memcpy(&v, (const char *)m + f->off, sizeof v);
    return v;
}

int pb_model_set(pb_model_t *m, const char *key, const char *v, pb_err_t *err)
{
    if (key_eq(key, "dtype")) {
        if (pb_pat_dtype_parse(v, &m->dtype) != 0)
            return pb_err_set(err, PB_EINPUT, "bad value '%s' for dtype: bf16, fp16 or fp32", v);
        return PB_OK;
    }
    if (key_eq(key, "gated")) {
        if (strcmp(v, "0") != 0 && strcmp(v, "1") != 0)
            return pb_err_set(err, PB_EINPUT, "bad value '%s' for gated: 0 or 1", v);
        m->gated = v[0] == '1';
        return PB_OK;
    }
    /* "size" is hidden's other name */
    const char *k = key_eq(key, "size") ? "hidden" : key;
    for (size_t i = 0; i < NFIELDS; i++)
        if (key_eq(k, fields[i].key)) {
            uint64_t x = 0;
            if (parse_u64(key, v, fields[i].lo, fields[i].hi, fields[i].why, &x, err))
                return err->code;
            memcpy((char *)m + fields[i].off, &x, sizeof x);
            return PB_OK;
        }
    return pb_err_set(err, PB_EINPUT, "unknown key '%s'", key);
}

/* Products single bounds cannot keep small, each far above real models:
 * - tokens of one micro-batch, mbs x seq: 2^26 (four sequences of the
 *   longest context; real runs: 1 x 8192 to 16 x 4096);
 * - the query width heads x head_dim: hidden's bound (Qwen3 235B-A22B's
 *   8192 is the widest known);
 * - parameters: 2^50 = 1.1e15, 700 times Switch-C's 1.6e12, the largest
 *   published; pb_model_params' uint64 sums then stay exact (and exact in
 *   a double, 2^53), and x 18 bytes of training state fits 64 bits. */
#define MAX_MB_TOKENS P2(26)
#define MAX_Q_WIDTH P2(20)
#define MAX_PARAMS P2(50)

/* pb_model_params in long double, so that a model past the bound is
 * measured without wrapping */
static long double params_ld(const pb_model_t *m)
{
    long double h = (long double)m->hidden;
    long double hd = m->head_dim ? (long double)m->head_dim : (long double)(m->hidden / m->heads);
    long double attn = 2.0L * h * (long double)m->heads * hd + 2.0L * h * (long double)m->kv_heads * hd;
    long double mats = m->gated ? PB_MODEL_GATED_MATS : 2.0L;
    long double moe = (long double)pb_model_moe_layers(m), dense = (long double)m->layers - moe;
    long double eff = (long double)(m->moe_ffn ? m->moe_ffn : m->ffn);
    long double moe_layer = attn + (long double)m->experts * mats * h * eff +
                            mats * h * (long double)m->shared_ffn + h * (long double)m->experts +
                            2.0L * h;
    return dense * (attn + mats * h * (long double)m->ffn + 2.0L * h) + moe * moe_layer +
           2.0L * (long double)m->vocab * h + h;
}

int pb_model_check(const pb_model_t *m, pb_err_t *err)
{
    /* again here: presets, the --size rule, derived sizes (--size with a
     * preset keeps its ratios) and tests set fields directly */
    for (size_t i = 0; i < NFIELDS; i++) {
        uint64_t x = field_get(m, &fields[i]);
        if (x < fields[i].lo || x > fields[i].hi)
            return pb_err_set(err, PB_EINPUT, "%s %llu is outside %llu..%llu (%s)", fields[i].key,
                              (unsigned long long)x, (unsigned long long)fields[i].lo,
                              (unsigned long long)fields[i].hi, fields[i].why);
    }
    if (m->mbs * m->seq > MAX_MB_TOKENS) /* each <= 2^24: no wrap */
        return pb_err_set(err, PB_EINPUT,
                          "a micro-batch of mbs %llu x seq %llu = %llu tokens is above the bound "
                          "%llu (2^26: four sequences of 16M tokens)",
                          (unsigned long long)m->mbs, (unsigned long long)m->seq,
                          (unsigned long long)(m->mbs * m->seq),
                          (unsigned long long)MAX_MB_TOKENS);
    if (m->head_dim && m->heads * m->head_dim > MAX_Q_WIDTH) /* each <= 2^16 */
        return pb_err_set(err, PB_EINPUT,
                          "heads %llu x head_dim %llu = %llu is above the bound %llu (2^20, as "
                          "hidden; Qwen3 235B: 64 x 128)",
                          (unsigned long long)m->heads, (unsigned long long)m->head_dim,
                          (unsigned long long)(m->heads * m->head_dim),
                          (unsigned long long)MAX_Q_WIDTH);
    if (m->head_dim == 0 && m->hidden % m->heads != 0)
        return pb_err_set(err, PB_EINPUT, "hidden %llu is not divisible by heads %llu",
                          (unsigned long long)m->hidden, (unsigned long long)m->heads);
    if (m->heads % m->kv_heads != 0)
        return pb_err_set(err, PB_EINPUT, "heads %llu is not divisible by kv_heads %llu",
                          (unsigned long long)m->heads, (unsigned long long)m->kv_heads);
    if (m->experts > 0 && (m->topk == 0 || m->topk > m->experts))
        return pb_err_set(err, PB_EINPUT, "topk %llu must be between 1 and experts %llu",
                          (unsigned long long)m->topk, (unsigned long long)m->experts);
    if (m->experts == 0 && m->topk > 0)
        return pb_err_set(err, PB_EINPUT, "topk %llu given for a dense model (experts 0)",
                          (unsigned long long)m->topk);
    if (m->experts > 0 && m->moe_every == 0)
        return pb_err_set(err, PB_EINPUT, "moe_every must be at least 1");
    if (m->experts == 0 && (m->shared_ffn > 0 || m->dense_first > 0))
        return pb_err_set(err, PB_EINPUT, "%s %llu given for a dense model (experts 0)",
                          m->shared_ffn ? "shared_ffn" : "dense_first",
                          (unsigned long long)(m->shared_ffn ? m->shared_ffn : m->dense_first));
    if (m->dense_first > m->layers)
        return pb_err_set(err, PB_EINPUT, "dense_first %llu is above layers %llu",
                          (unsigned long long)m->dense_first, (unsigned long long)m->layers);
    long double n = params_ld(m);
    if (n > (long double)MAX_PARAMS)
        return pb_err_set(err, PB_EINPUT,
                          "%.3Lg parameters are above the bound %llu (2^50: 700 x the largest "
                          "published model, Switch-C's 1.6e12)",
                          n, (unsigned long long)MAX_PARAMS);
    return PB_OK;
}

uint64_t pb_model_head_dim(const pb_model_t *m)
{
    return m->head_dim ? m->head_dim : m->hidden / m->heads;
}

uint64_t pb_model_attn_params(const pb_model_t *m)
{
    /* Q and O: hidden x heads*head_dim each; K and V: hidden x kv_heads*head_dim */
    uint64_t q_dim = m->heads * pb_model_head_dim(m);
    uint64_t kv_dim = m->kv_heads * pb_model_head_dim(m);
    return 2 * m->hidden * q_dim + 2 * m->hidden * kv_dim;
}

static uint64_t mlp(const pb_model_t *m, uint64_t ffn)
{
    return (m->gated ? PB_MODEL_GATED_MATS : 2u) * m->hidden * ffn;
}

uint64_t pb_model_dense_layer_params(const pb_model_t *m)
{
    return pb_model_attn_params(m) + mlp(m, m->ffn) + 2 * m->hidden;
}

uint64_t pb_model_expert_params(const pb_model_t *m)
{
    return m->experts * mlp(m, m->moe_ffn ? m->moe_ffn : m->ffn);
}

uint64_t pb_model_shared_params(const pb_model_t *m)
{
    return mlp(m, m->shared_ffn);
}

int pb_model_is_moe_layer(const pb_model_t *m, uint64_t layer)
{
    return m->experts > 0 && m->moe_every > 0 && layer >= m->dense_first &&
           layer % m->moe_every == 0;
}

/* multiples of k below n: ceil(n / k) */
static uint64_t multiples_below(uint64_t n, uint64_t k)
{
    return (n + k - 1) / k;
}

uint64_t pb_model_moe_layers(const pb_model_t *m)
{
    if (m->experts == 0 || m->moe_every == 0)
        return 0;
    /* the layers l % moe_every == 0 in [dense_first, layers) */
    uint64_t first = m->dense_first < m->layers ? m->dense_first : m->layers;
    return multiples_below(m->layers, m->moe_every) - multiples_below(first, m->moe_every);
}

uint64_t pb_model_params(const pb_model_t *m)
{
    uint64_t moe = pb_model_moe_layers(m), dense = m->layers - moe;
    uint64_t moe_layer = pb_model_attn_params(m) + pb_model_expert_params(m) +
                         pb_model_shared_params(m) + m->hidden * m->experts + 2 * m->hidden;
    return dense * pb_model_dense_layer_params(m) + moe * moe_layer + 2 * m->vocab * m->hidden +
           m->hidden;
}
