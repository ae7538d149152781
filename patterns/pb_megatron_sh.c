/* pb_megatron_sh.c - the little of a shell that a launch script needs:
 * continuations, comments, quotes, variables and arrays, and the words of
 * the pretrain_*.py command (pb_megatron_priv.h). */
#include "pb_megatron_priv.h"
#include "pb_megatron.h"
#include "../util/pb_list.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *lookup(const pb_meg_sh_t *sh, const char *name, size_t len)
{
    for (int i = sh->nvars - 1; i >= 0; i--)
        if (strlen(sh->name[i]) == len && strncmp(sh->name[i], name, len) == 0)
            return sh->val[i];
    return NULL;
}

void pb_meg_set_var(pb_meg_sh_t *sh, const char *name, size_t len, const char *value)
{
    if (len >= sizeof sh->name[0])
        return;
    int i = sh->nvars;
    for (int k = 0; k < sh->nvars; k++)
        if (strlen(sh->name[k]) == len && strncmp(sh->name[k], name, len) == 0)
            i = k;
    if (i == PB_MEG_VARS)
        return;
    snprintf(sh->name[i], sizeof sh->name[i], "%.*s", (int)len, name);
    snprintf(sh->val[i], sizeof sh->val[i], "%s", value);
    if (i == sh->nvars)
        sh->nvars++;
}

/* Each unset variable once, by its whole name: a substring test took
 * $TP for listed once $TP_SIZE was (var_ref ends a name at the first
 * character that cannot be in one, so the list's items are whole names) */
static void note_unresolved(pb_meg_sh_t *sh, const char *name, size_t len)
{
    char item[PB_MEG_SH_NAME_MAX + 8];
    snprintf(item, sizeof item, "$%.*s",
             (int)(len < PB_MEG_SH_NAME_MAX ? len : PB_MEG_SH_NAME_MAX), name);
    pb_list_add(sh->out->unresolved, sizeof sh->out->unresolved, item, ", ");
}

/* word assembly: chars go to the current word; a split starts a new one */
typedef struct words {
    char (*w)[PB_MEG_WORDLEN];
    int n, max, open;
} words_t;

static void put_char(words_t *ws, char c)
{
    if (!ws->open) {
        if (ws->n == ws->max)
            return;
        ws->w[ws->n++][0] = '\0';
        ws->open = 1;
    }
    char *w = ws->w[ws->n - 1];
    size_t len = strlen(w);
    if (len + 1 < PB_MEG_WORDLEN) {
        w[len] = c;
        w[len + 1] = '\0';
    }
}

static void end_word(words_t *ws)
{
    ws->open = 0;
}

/* $NAME, ${NAME}, ${NAME:-default}, ${NAME[@]}: returns the characters
 * consumed after the '$' and the value (NULL: keep the text itself) */
static size_t var_ref(pb_meg_sh_t *sh, const char *p, const char **val, char *dflt, size_t dlen)
{
    *val = NULL;
    dflt[0] = '\0';
    if (p[0] == '{') {
        const char *close = strchr(p, '}');
        if (close == NULL)
            return 0;
        size_t n = 1;
        while (isalnum((unsigned char)p[n]) || p[n] == '_')
            n++;
        *val = lookup(sh, p + 1, n - 1);
        if (strncmp(p + n, ":-", 2) == 0 && *val == NULL) {
            snprintf(dflt, dlen, "%.*s", (int)(close - p - n - 2), p + n + 2);
            *val = dflt;
        }
        if (*val == NULL && n > 1)
            note_unresolved(sh, p + 1, n - 1);
        return (size_t)(close - p) + 1;
    }
    size_t n = 0;
    while (isalnum((unsigned char)p[n]) || p[n] == '_')
        n++;
    if (n == 0)
        return 0;
    *val = lookup(sh, p, n);
    if (*val == NULL)
        note_unresolved(sh, p, n);
    return n;
}

/* Splits one logical line into words as the shell would, expanding the
 * variables the script set; stops at a comment. */
int pb_meg_split(pb_meg_sh_t *sh, const char *line, char (*out)[PB_MEG_WORDLEN], int max)
{
    words_t ws = {out, 0, max, 0};
    char quote = 0, dflt[PB_MEG_WORDLEN];
    for (const char *p = line; *p; p++) {
        if (!quote && isspace((unsigned char)*p)) {
            end_word(&ws);
        } else if (!quote && *p == '#' && !ws.open) {
            break;
        } else if (quote != '\'' && *p == '\\' && p[1]) {
            put_char(&ws, *++p);
        } else if ((*p == '\'' || *p == '"') && (!quote || quote == *p)) {
            quote = quote ? 0 : *p;
            if (!ws.open) /* "" is a word */
                put_char(&ws, '\0');
        } else if (quote != '\'' && *p == '$') {
            const char *val;
            size_t used = var_ref(sh, p + 1, &val, dflt, sizeof dflt);
            if (used == 0 || val == NULL) { /* keep the text: "$X" stays visible */
                for (size_t i = 0; i <= used && p[i]; i++)
                    put_char(&ws, p[i]);
                p += used;
                continue;
            }
            for (const char *v = val; *v; v++) {
                if (!quote && isspace((unsigned char)*v))
                    end_word(&ws); /* unquoted: split on blanks */
                else
                    put_char(&ws, *v);
            }
            p += used;
        } else {
            put_char(&ws, *p);
        }
    }
    return ws.n;
}
