/* pb_megatron_script.c - a launch script's lines to the words of its
 * pretrain_*.py command: arrays and assignments are set as the shell
 * would, torchrun's options before the command give the GPU count
 * (pb_megatron_priv.h).  What the words mean is pb_megatron.c's job. */
#include "pb_megatron_priv.h"
#include "pb_megatron.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int is_name(const char *s, size_t n)
{
    if (n == 0 || !(isalpha((unsigned char)s[0]) || s[0] == '_'))
        return 0;
    for (size_t i = 1; i < n; i++)
        if (!(isalnum((unsigned char)s[i]) || s[i] == '_'))
            return 0;
    return 1;
}

/* "NAME=( ..." : the array's words, up to its ')', possibly lines later;
 * returns the number of lines consumed, 0 when the line is no array */
static size_t array_def(pb_meg_sh_t *sh, char **lines, size_t nl, size_t l,
                        char (*w)[PB_MEG_WORDLEN])
{
    const char *p = lines[l];
    while (isspace((unsigned char)*p))
        p++;
    static const char exported[] = "export ", declared[] = "declare -a ";
    if (strncmp(p, exported, sizeof exported - 1) == 0)
        p += sizeof exported - 1;
    else if (strncmp(p, declared, sizeof declared - 1) == 0)
        p += sizeof declared - 1;
    const char *eq = strchr(p, '=');
    if (eq == NULL || eq[1] != '(' || !is_name(p, (size_t)(eq - p)))
        return 0;
    char body[PB_MEG_VALLEN] = "";
    size_t used = 0, k = l;
    const char *from = eq + 2;
    for (;;) {
        const char *close = strchr(from, ')');
        size_t len = close ? (size_t)(close - from) : strlen(from);
        used += (size_t)snprintf(body + used, used < sizeof body ? sizeof body - used : 0,
                                 "%.*s ", (int)len, from);
        if (used >= sizeof body)
            used = sizeof body - 1;
        if (close || k + 1 >= nl)
            break;
        from = lines[++k];
    }
    int n = pb_meg_split(sh, body, w, PB_MEG_WORDS);
    char val[PB_MEG_VALLEN] = "";
    size_t vl = 0;
    for (int i = 0; i < n && vl < sizeof val; i++)
        vl += (size_t)snprintf(val + vl, sizeof val - vl, "%s%s", i ? " " : "", w[i]);
    pb_meg_set_var(sh, p, (size_t)(eq - p), val);
    return k - l + 1;
}

/* The value of launcher flag `name` at word i: name=V or name V. */
static const char *flag_value(char (*w)[PB_MEG_WORDLEN], int i, int n, const char *name)
{
    size_t k = strlen(name);
    const char *a = w[i];
    if (strncmp(a, name, k) != 0)
        return NULL;
    return a[k] == '=' ? a + k + 1 : a[k] == '\0' && i + 1 < n ? w[i + 1] : NULL;
}

/* torchrun / python -m torch.distributed.run options before the script */
static void launcher(pb_megatron_t *m, char (*w)[PB_MEG_WORDLEN], int n)
{
    int nodes = 0, per = 0;
    for (int i = 0; i < n; i++) {
        const char *v = NULL;
        int *dst = NULL;
        if ((v = flag_value(w, i, n, "--nnodes")) != NULL)
            dst = &nodes;
        else if ((v = flag_value(w, i, n, "--nproc_per_node")) != NULL ||
                 (v = flag_value(w, i, n, "--nproc-per-node")) != NULL)
            dst = &per;
        if (dst && v && isdigit((unsigned char)v[0]))
            *dst = atoi(v);
    }
    if (per > 0) {
        m->gpus_per_node = per;
        m->gpus = per * (nodes > 0 ? nodes : 1);
    }
}

/* Leading NAME=value words (after export/declare): set, and skipped. */
static int assignments(pb_meg_sh_t *sh, char (*w)[PB_MEG_WORDLEN], int n)
{
    int i = 0;
    while (i < n && (strcmp(w[i], "export") == 0 || strcmp(w[i], "declare") == 0 ||
                     strcmp(w[i], "local") == 0 || strcmp(w[i], "readonly") == 0))
        i++;
    for (; i < n; i++) {
        const char *eq = strchr(w[i], '=');
        if (eq == NULL || !is_name(w[i], (size_t)(eq - w[i])))
            break;
        pb_meg_set_var(sh, w[i], (size_t)(eq - w[i]), eq + 1);
    }
    return i;
}

static int is_pretrain(const char *word)
{
    const char *base = strrchr(word, '/');
    base = base ? base + 1 : word;
    static const char prefix[] = "pretrain_", ext[] = ".py";
    size_t n = strlen(base), e = sizeof ext - 1;
    return strncmp(base, prefix, sizeof prefix - 1) == 0 && n > e && strcmp(base + n - e, ext) == 0;
}

void pb_meg_walk(pb_meg_sh_t *sh, char **lines, size_t nl, char (*w)[PB_MEG_WORDLEN],
                 char (*argv)[PB_MEG_WORDLEN], int *argc)
{
    for (size_t l = 0; l < nl; l++) {
        size_t used = array_def(sh, lines, nl, l, w);
        if (used) {
            l += used - 1;
            continue;
        }
        int n = pb_meg_split(sh, lines[l], w, PB_MEG_WORDS);
        int i = assignments(sh, w, n), from = -1;
        for (int k = i; k < n && from < 0 && !sh->out->found_cmd; k++)
            if (is_pretrain(w[k])) {
                from = k + 1;
                sh->out->found_cmd = 1;
                *argc = 0; /* the loose words seen so far were not its */
                launcher(sh->out, w + i, k - i);
            }
        if (from < 0 && !sh->out->found_cmd)
            for (int k = i; k < n && from < 0; k++)
                if (strncmp(w[k], "--", 2) == 0)
                    from = k;
        for (int k = from < 0 ? n : from; k < n && *argc < PB_MEG_WORDS; k++)
            memcpy(argv[(*argc)++], w[k], PB_MEG_WORDLEN);
    }
}
