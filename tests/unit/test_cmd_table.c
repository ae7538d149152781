/* test_cmd_table.c - the command table (bench/cmd/pb_cmd_list.def) is one that
 * parses unambiguously, documents what it accepts, and refuses another
 * command's option by naming where it belongs:
 * - no command has two options of one long name or one short letter
 *   (the second could never be reached);
 * - every option a command's --help shows (help text not NULL) is in the
 *   help text parbench prints (pb_cli_usage, written at build time);
 * - an option of command A given to command B that lacks it is refused
 *   with PB_EINPUT and one line that is not "unknown option" (the old
 *   parser's cross-command lines, now from the tables);
 * - every command's help and version flags work. */
#include "bench/cli/pb_cmd_table.h"

#include <stdio.h>
#include <string.h>

#include "pb_test.h"

static int takes(const pb_cmd_desc_t *c, const pb_opt_spec_t *s)
{
    for (int k = 0; k < PB_CMD_SECTIONS && c->sections[k].group; k++) {
        const pb_opt_group_t *g = c->sections[k].group;
        for (size_t i = 0; i < g->n; i++)
            if ((s->lng[0] && strcmp(g->specs[i].lng, s->lng) == 0) ||
                (!s->lng[0] && g->specs[i].shrt == s->shrt))
                return 1;
    }
    return 0;
}

static void test_unambiguous(const pb_cmd_desc_t *c)
{
    char seen_short[128] = {0};
    const char *seen_long[256];
    int nlong = 0;
    for (int k = 0; k < PB_CMD_SECTIONS && c->sections[k].group; k++) {
        const pb_opt_group_t *g = c->sections[k].group;
        for (size_t i = 0; i < g->n; i++) {
            const pb_opt_spec_t *s = &g->specs[i];
            CHECK(s->set != NULL);
            if (s->shrt) {
                if (seen_short[(unsigned char)s->shrt])
                    fprintf(stderr, "parbench %s: -%c twice\n", c->name, s->shrt);
                CHECK(!seen_short[(unsigned char)s->shrt]);
                seen_short[(unsigned char)s->shrt] = 1;
            }
            for (int j = 0; s->lng[0] && j < nlong; j++) {
                if (strcmp(seen_long[j], s->lng) == 0)
                    fprintf(stderr, "parbench %s: --%s twice\n", c->name, s->lng);
                CHECK(strcmp(seen_long[j], s->lng) != 0);
            }
            if (s->lng[0] && nlong < 256)
                seen_long[nlong++] = s->lng;
        }
    }
}

/* the help names every shown option: "--op" (or "-c" for a short one) */
static void test_help_lists(const pb_cmd_desc_t *c)
{
    const char *text = pb_cli_usage(c->id);
    for (int k = 0; k < PB_CMD_SECTIONS && c->sections[k].group; k++) {
        const pb_opt_group_t *g = c->sections[k].group;
        for (size_t i = 0; i < g->n; i++) {
            const pb_opt_spec_t *s = &g->specs[i];
            char name[64];
            if (s->help == NULL)
                continue;
            pb_opt_name(s, name, sizeof name);
            if (strstr(text, name) == NULL)
                fprintf(stderr, "parbench %s --help lacks %s\n", c->name, name);
            CHECK(strstr(text, name) != NULL);
        }
    }
}

/* every option of every other command, given to c */
static void test_foreign(const pb_cmd_desc_t *c)
{
    for (size_t o = 0; o < pb_ncommands; o++) {
        const pb_cmd_desc_t *d = pb_commands[o];
        for (int k = 0; k < PB_CMD_SECTIONS && d->sections[k].group; k++) {
            const pb_opt_group_t *g = d->sections[k].group;
            for (size_t i = 0; i < g->n; i++) {
                const pb_opt_spec_t *s = &g->specs[i];
                if (takes(c, s))
                    continue;
                char opt[64];
                pb_opt_name(s, opt, sizeof opt);
                char *av[5];
                int argc = 0;
                av[argc++] = (char *)"parbench";
                if (c->name[0])
                    av[argc++] = (char *)c->name;
                av[argc++] = opt;
                av[argc++] = (char *)"1";
                av[argc] = NULL;
                pb_options_t po;
                pb_err_t err;
                int rc = pb_cli_parse(argc, av, &po, &err);
                int ok = rc == PB_EINPUT && err.msg[0] && strchr(err.msg, '\n') == NULL &&
                         strstr(err.msg, "unknown option") == NULL;
                if (!ok)
                    fprintf(stderr, "parbench %s %s: rc %d '%s'\n", c->name, opt, rc, err.msg);
                CHECK(ok);
            }
        }
    }
}

static void test_help_version(const pb_cmd_desc_t *c)
{
    char *av[4];
    int argc = 0;
    av[argc++] = (char *)"parbench";
    if (c->name[0])
        av[argc++] = (char *)c->name;
    av[argc++] = (char *)"--help";
    av[argc] = NULL;
    pb_options_t o;
    pb_err_t err;
    CHECK(pb_cli_parse(argc, av, &o, &err) == PB_OK);
    CHECK(o.cmd == PB_CMD_HELP && o.help_for == c->id);
    CHECK(pb_cmd_find(c->id) == c);
}

int main(void)
{
    CHECK(pb_ncommands == 15); /* the main job and fourteen commands (replay the last) */
    for (size_t i = 0; i < pb_ncommands; i++) {
        test_unambiguous(pb_commands[i]);
        test_help_lists(pb_commands[i]);
        test_foreign(pb_commands[i]);
        test_help_version(pb_commands[i]);
    }
    PB_TEST_END("unit_cmd_table");
}
