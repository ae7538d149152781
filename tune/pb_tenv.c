#include "pb_tenv.h"

#include <string.h>

void pb_tenv_knob(pb_tenv_item_t *it, const pb_knob_t *k, const char *value, const char *why)
{
    pb_knob_env_name(k, k->name, it->name, sizeof it->name);
    snprintf(it->value, sizeof it->value, "%s", value);
    snprintf(it->why, sizeof it->why, "%s", why);
}

/* The value as the shell reads it back: bare when it holds only
 * characters the shell takes literally, else in single quotes (a quote
 * inside as '\'').  NCCL's per-collective values hold ';', a path may
 * hold anything. */
static void put_value(FILE *f, const char *v)
{
    static const char plain[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                "0123456789_./:,+=@%-";
    if (v[0] != '\0' && strspn(v, plain) == strlen(v)) {
        fputs(v, f);
        return;
    }
    fputc('\'', f);
    for (const char *p = v; *p; p++) {
        if (*p == '\'')
            fputs("'\\''", f);
        else
            fputc(*p, f);
    }
    fputc('\'', f);
}

int pb_tenv_write(FILE *f, const char *header, const pb_tenv_item_t *items, size_t n,
                  const char *none, pb_err_t *err)
{
    size_t exports = 0;
    for (size_t i = 0; i < n; i++)
        exports += items[i].name[0] != '\0';
    fprintf(f, "# %s\n", header);
    if (exports == 0)
        fprintf(f, "# %s\n", none ? none : "no setting was measured faster than the default: "
                                           "nothing to set");
    for (size_t i = 0; i < n; i++) {
        if (items[i].why[0])
            fprintf(f, "# %s\n", items[i].why);
        if (items[i].name[0] == '\0')
            continue;
        fprintf(f, "export %s=", items[i].name);
        put_value(f, items[i].value);
        fputc('\n', f);
    }
    if (fflush(f) != 0 || ferror(f))
        return pb_err_set(err, PB_ERUNTIME, "writing the env file failed");
    return PB_OK;
}
