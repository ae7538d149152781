/* pb_jp_kineto_args.c - what a PyTorch trace's c10d:: and gloo: events say
 * in their args (recorded with record_shapes=True): the function's
 * family, each argument's elements ("Input Dims") and type ("Input
 * type"), a "Concrete Inputs" list's length; and the check, as the trace
 * is read, that no argument holds more elements than a count may
 * (pb_jp_bounds.h), so that what is worked out from them later cannot
 * overflow. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb_jp_bounds.h"
#include "pb_jp_kineto_priv.h"

void pb_kt_family(const char *name, char *out, size_t len)
{
    static const char *const fam[] = {"allreduce", "allgather", "reducescatter", "alltoall",
                                      "broadcast", "barrier",   "recvanysource", "recv",
                                      "send",      "reduce",    "gather",        "scatter"};
    const char *s = strchr(name, ':');
    s = s ? s + 1 + (s[1] == ':') : name;
    size_t n = 0;
    for (; *s && n + 1 < len; s++)
        if (*s != '_')
            out[n++] = (char)tolower((unsigned char)*s);
    out[n] = '\0';
    for (size_t i = 0; i < sizeof fam / sizeof fam[0]; i++)
        if (strncmp(out, fam[i], strlen(fam[i])) == 0) {
            snprintf(out, len, "%s", fam[i]);
            return;
        }
}

/* Elements of one "Input Dims" entry: a tensor's dims (their product; []
 * is a 0-d tensor, 1) or a list of such (their sum); -2 when a dimension
 * is negative (*neg set) or the count passes PB_JP_MAX_COUNT.  Each step
 * is checked before it is taken: the product and the sum stay in 64 bits
 * whatever the numbers. */
static int64_t dims_numel(const json_t *d, int *neg)
{
    int list = json_array_size(d) && json_is_array(json_array_get(d, 0));
    int64_t n = 1, sum = 0;
    for (size_t i = 0; i < json_array_size(d); i++) {
        const json_t *e = json_array_get(d, i);
        if (list && json_is_array(e)) {
            int64_t k = dims_numel(e, neg);
            if (k < 0 || k > PB_JP_MAX_COUNT - sum)
                return -2;
            sum += k;
        } else if (!list) {
            int64_t v = json_is_integer(e) ? (int64_t)json_integer_value(e) : 0;
            *neg |= v < 0;
            if (v < 0 || (v > 0 && n > PB_JP_MAX_COUNT / v))
                return -2;
            n *= v;
        }
    }
    return list ? sum : n;
}

int64_t pb_kt_arg_numel(const json_t *args, size_t i)
{
    const json_t *d = json_array_get(json_object_get(args, "Input Dims"), i);
    const char *t = json_string_value(json_array_get(json_object_get(args, "Input type"), i));
    if (!json_is_array(d) || t == NULL || t[0] == '\0' || strncmp(t, "Scalar", 6) == 0)
        return -1;
    int neg = 0;
    int64_t n = dims_numel(d, &neg);
    return n >= 0 ? n : -1; /* never: pb_kt_check_dims refused the trace */
}

const char *pb_kt_arg_type(const json_t *args, size_t i)
{
    const char *t = json_string_value(json_array_get(json_object_get(args, "Input type"), i));
    return t && t[0] && strstr(t, "List") == NULL && strncmp(t, "Scalar", 6) ? t : NULL;
}

int64_t pb_kt_list_len(const char *v)
{
    if (v == NULL || v[0] != '[')
        return 0;
    int64_t n = 0;
    for (const char *p = v + 1; *p && *p != ']'; p++)
        if (isdigit((unsigned char)*p) && (p[-1] == '[' || p[-1] == ' ' || p[-1] == ','))
            n++;
    return n;
}

int pb_kt_check_dims(const pb_kt_t *kt, const pb_kev_t *e, size_t at, pb_err_t *err)
{
    const json_t *dims = json_object_get(e->args, "Input Dims");
    for (size_t i = 0; i < json_array_size(dims); i++) {
        const json_t *d = json_array_get(dims, i);
        int neg = 0;
        if (dims_numel(d, &neg) >= 0)
            continue;
        /* as the trace has it, "[8, -2]" (without JSON_COMPACT: ", " between) */
        char *s = json_dumps(d, JSON_ENCODE_ANY);
        pb_err_set(err, PB_EINPUT, "%s: event %zu (%s): Input Dims entry %zu, %.80s, holds %s",
                   kt->name, at, e->name, i, s ? s : "?",
                   neg ? "a negative dimension" : "more than 2^62 elements");
        free(s);
        return err->code;
    }
    return PB_OK;
}
