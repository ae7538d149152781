/* Command-line parsing against the command table (cmd/pb_cmd_registry.c):
 * one loop, no getopt (whose state is global).  Accepted forms: --name
 * value, --name=value, -x value, -xvalue.  An option is looked up in the
 * typed command's groups only; one that another command has is refused
 * with that command's line, one that none has as unknown. */
#include <stdio.h>
#include <string.h>

#include "pb_cmd_table.h"

/* ---- lookup ------------------------------------------------------- */

typedef struct found {
    const pb_opt_spec_t *spec;
    const pb_opt_group_t *group;
} found_t;

static int spec_is(const pb_opt_spec_t *s, const char *lng, size_t len, char shrt)
{
    if (lng)
        return s->lng[0] && strlen(s->lng) == len && strncmp(s->lng, lng, len) == 0;
    return s->shrt == shrt;
}

/* In one command's groups; lng NULL: by the short letter. */
static found_t find_in(const pb_cmd_desc_t *c, const char *lng, size_t len, char shrt)
{
    found_t f = {NULL, NULL};
    for (int k = 0; k < PB_CMD_SECTIONS && c->sections[k].group; k++) {
        const pb_opt_group_t *g = c->sections[k].group;
        for (size_t i = 0; i < g->n; i++)
            if (spec_is(&g->specs[i], lng, len, shrt)) {
                f.spec = &g->specs[i];
                f.group = g;
                return f;
            }
    }
    return f;
}

/* An option this command lacks: the line that says whose it is, or an
 * unknown option when no command has it. */
static int refuse(const pb_cmd_desc_t *c, const char *lng, size_t len, char shrt,
                  const char *shown, const char *typed, pb_err_t *err)
{
    found_t f = {NULL, NULL};
    for (size_t i = 0; i < pb_ncommands && !f.spec; i++)
        f = find_in(pb_commands[i], lng, len, shrt);
    if (f.spec == NULL)
        return pb_err_set(err, PB_EINPUT, "unknown option '%s' (see parbench --help)", typed);
    const char *line = c->foreign ? c->foreign(f.spec, f.group) : NULL;
    if (line == NULL)
        line = f.spec->elsewhere ? f.spec->elsewhere : f.group->elsewhere;
    if (line && line[0])
        return pb_err_set(err, PB_EINPUT, "%s", line);
    if (c->name[0])
        return pb_err_set(err, PB_EINPUT, "%s is not an option of parbench %s", shown, c->name);
    return pb_err_set(err, PB_EINPUT, "%s is not an option of the main job", shown);
}

static int positional(pb_options_t *o, const pb_cmd_desc_t *c, const char *a, pb_err_t *err)
{
    if (o->cmd == PB_CMD_IMPORT && a[0] != '-') {
        if (o->import.ninputs == PB_MAX_INPUTS)
            return pb_err_set(err, PB_EINPUT, "at most %d log files", PB_MAX_INPUTS);
        o->import.inputs[o->import.ninputs++] = a;
        return PB_OK;
    }
    if (o->cmd == PB_CMD_REPLAY && a[0] != '-') {
        if (o->replay.ninputs == PB_MAX_INPUTS)
            return pb_err_set(err, PB_EINPUT, "at most %d recording paths", PB_MAX_INPUTS);
        o->replay.inputs[o->replay.ninputs++] = a;
        return PB_OK;
    }
    if (o->cmd == PB_CMD_PROFILE && a[0] != '-') {
        if (o->profile.ninputs == PB_MAX_INPUTS)
            return pb_err_set(err, PB_EINPUT, "at most %d recording paths", PB_MAX_INPUTS);
        o->profile.inputs[o->profile.ninputs++] = a;
        return PB_OK;
    }
    if (o->cmd == PB_CMD_CALIBRATE && a[0] != '-') {
        if (o->calibrate.ninputs == PB_MAX_INPUTS)
            return pb_err_set(err, PB_EINPUT, "at most %d results files", PB_MAX_INPUTS);
        o->calibrate.inputs[o->calibrate.ninputs++] = a;
        return PB_OK;
    }
    /* report and compare only: import's, replay's, profile's and
     * calibrate's lists are above (an argument of theirs starting with
     * '-' must not land here) */
    int room = (int)(sizeof o->files.args / sizeof o->files.args[0]);
    int listed = o->cmd == PB_CMD_CALIBRATE || o->cmd == PB_CMD_IMPORT || o->cmd == PB_CMD_REPLAY ||
                 o->cmd == PB_CMD_PROFILE;
    if (!listed && c->positional > o->files.nargs && o->files.nargs < room) {
        o->files.args[o->files.nargs++] = a; /* report and compare: the files to read */
        return PB_OK;
    }
    return pb_err_set(err, PB_EINPUT, "unexpected argument '%s' (see parbench --help)", a);
}

/* One argument (and the next, when it is the value): stored or refused. */
static int one_arg(pb_options_t *o, const pb_cmd_desc_t *c, int argc, char **argv, int *i,
                   pb_err_t *err)
{
    const char *a = argv[*i], *val = NULL, *lng = NULL;
    size_t len = 0;
    char shown[64];
    found_t f;
    if (a[0] == '-' && a[1] == '-' && a[2] != '\0') {
        const char *eq = strchr(a + 2, '=');
        lng = a + 2;
        len = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
        f = find_in(c, lng, len, 0);
        snprintf(shown, sizeof shown, "--%.*s", (int)(len < 40 ? len : 40), a + 2);
        if (f.spec && eq) {
            if (!f.spec->arg)
                return pb_err_set(err, PB_EINPUT, "option %s takes no value", shown);
            val = eq + 1;
        }
    } else if (a[0] == '-' && a[1] != '\0' && a[1] != '-') {
        f = find_in(c, NULL, 0, a[1]);
        snprintf(shown, sizeof shown, "-%c", a[1]);
        if (f.spec && a[2] != '\0') {
            if (!f.spec->arg)
                return pb_err_set(err, PB_EINPUT, "unknown option '%s' (see parbench --help)", a);
            val = a + 2;
        }
    } else {
        return positional(o, c, a, err);
    }
    if (f.spec == NULL)
        return refuse(c, lng, len, lng ? 0 : a[1], shown, a, err);
    if (f.spec->arg && val == NULL) {
        if (*i + 1 >= argc)
            return pb_err_set(err, PB_EINPUT, "option %s needs a value", shown);
        val = argv[++*i];
    }
    return f.spec->set(o, f.spec, val, shown, err);
}

static int find_command(const char *name, pb_options_t *o, pb_err_t *err)
{
    if (strcmp(name, "help") == 0) {
        o->cmd = PB_CMD_HELP;
        return PB_OK;
    }
    for (size_t i = 0; i < pb_ncommands; i++)
        if (pb_commands[i]->name[0] && strcmp(pb_commands[i]->name, name) == 0) {
            o->cmd = pb_commands[i]->id;
            return PB_OK;
        }
    return pb_err_set(err, PB_EINPUT, "unknown command '%s' (see parbench --help)", name);
}

int pb_cli_parse(int argc, char **argv, pb_options_t *o, pb_err_t *err)
{
    memset(o, 0, sizeof *o);
    pb_err_clear(err);
    o->cmd = PB_CMD_MAIN;
    int i = 1;
    if (argc > 1 && argv[1][0] != '-') {
        if (find_command(argv[1], o, err) != PB_OK)
            return err->code;
        i = 2;
    }
    /* `parbench help ARGS`: the main job's table, as before */
    const pb_cmd_desc_t *c = pb_cmd_find(o->cmd == PB_CMD_HELP ? PB_CMD_MAIN : o->cmd);
    if (c->defaults)
        c->defaults(o);
    for (; i < argc; i++)
        if (one_arg(o, c, argc, argv, &i, err) != PB_OK)
            return err->code;
    if (o->help) {
        o->help_for = o->cmd == PB_CMD_HELP ? PB_CMD_MAIN : o->cmd;
        o->cmd = PB_CMD_HELP;
    }
    if (o->cmd == PB_CMD_HELP || o->cmd == PB_CMD_VERSION)
        return PB_OK;
    return c->finish ? c->finish(o, err) : PB_OK;
}
