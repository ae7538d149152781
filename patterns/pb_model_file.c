/* pb_model_file.c - `key = value` model files, parsed by hand: the format
 * is lines, not CSV, and every error must name its file and line. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "pb_model.h"

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n > 0 && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
    return s;
}

int pb_model_load(const char *path, pb_model_t *m, pb_err_t *err)
{
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return pb_err_set(err, PB_EINPUT, "cannot read model file '%s': %s", path, strerror(errno));
    char line[1024];
    unsigned long lineno = 0;
    int code = PB_OK;
    while (code == PB_OK && fgets(line, sizeof line, f) != NULL) {
        lineno++;
        size_t len = strlen(line);
        if (len == sizeof line - 1 && line[len - 1] != '\n' && !feof(f)) {
            code = pb_err_set(err, PB_EINPUT, "%s:%lu: line longer than %zu characters", path,
                              lineno, sizeof line - 2);
            break;
        }
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        char *s = trim(line);
        if (*s == '\0')
            continue;
        char *eq = strchr(s, '=');
        if (eq == NULL) {
            code = pb_err_set(err, PB_EINPUT, "%s:%lu: expected 'key = value', got '%.60s'", path,
                              lineno, s);
            break;
        }
        *eq = '\0';
        char *key = trim(s), *val = trim(eq + 1);
        if (*key == '\0' || *val == '\0') {
            code = pb_err_set(err, PB_EINPUT, "%s:%lu: expected 'key = value'", path, lineno);
            break;
        }
        pb_err_t e;
        pb_err_clear(&e);
        if (pb_model_set(m, key, val, &e) != PB_OK)
            code = pb_err_set(err, PB_EINPUT, "%s:%lu: %s", path, lineno, e.msg);
    }
    if (code == PB_OK && ferror(f))
        code = pb_err_set(err, PB_EINPUT, "cannot read model file '%s'", path);
    fclose(f);
    return code;
}
