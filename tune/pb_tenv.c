#include "pb_tenv.h"

#include <string.h>

/* "NAME=VALUE" of a knob's prerequisite, exported once. */
static void export_needs(FILE *f, const pb_knob_t *k, const pb_tenv_item_t *items, size_t upto)
{
    char name[96], env[128];
    const char *value = pb_knob_need(k, name, sizeof name);
    if (value == NULL)
        return;
    for (size_t j = 0; j < upto; j++)
        if (items[j].knob->needs != NULL && strcmp(items[j].knob->needs, k->needs) == 0)
            return; /* already exported for an earlier knob */
    pb_knob_env_name(k, name, env, sizeof env);
    fprintf(f, "export %s=%s\n", env, value);
}

int pb_tenv_write(FILE *f, const char *header, const pb_tenv_item_t *items, size_t n,
                  pb_err_t *err)
{
    fprintf(f, "# %s\n", header);
    if (n == 0)
        fprintf(f, "# no setting was measured faster than the default: nothing to set\n");
    for (size_t i = 0; i < n; i++) {
        const pb_knob_t *k = items[i].knob;
        char v[64], label[64], env[128];
        pb_knob_value(k, (size_t)items[i].value, v, sizeof v);
        pb_knob_label(k, (size_t)items[i].value, label, sizeof label);
        pb_knob_env_name(k, k->name, env, sizeof env);
        fprintf(f, "# %s = %s: %s\n", k->name, label, items[i].why);
        export_needs(f, k, items, i);
        fprintf(f, "export %s=%s\n", env, v);
    }
    if (fflush(f) != 0 || ferror(f))
        return pb_err_set(err, PB_ERUNTIME, "writing the env file failed");
    return PB_OK;
}
