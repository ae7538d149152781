/* The command table as help, man page and completion (pb_cli_help.h). */
#include "pb_cli_help.h"

#include <string.h>

#define HELP_COL 20 /* where an option's help starts */

void pb_opt_name(const pb_opt_spec_t *s, char *buf, size_t len)
{
    if (s->lng[0])
        snprintf(buf, len, "--%s", s->lng);
    else
        snprintf(buf, len, "-%c", s->shrt);
}

static int spec_synopsis(const pb_opt_spec_t *s, char *buf, size_t n)
{
    int k = snprintf(buf, n, "  ");
    if (s->shrt)
        k += snprintf(buf + k, n - (size_t)k, "-%c%s", s->shrt, s->lng[0] ? ", " : "");
    if (s->lng[0])
        k += snprintf(buf + k, n - (size_t)k, "--%s", s->lng);
    if (s->arg)
        k += snprintf(buf + k, n - (size_t)k, " %s", s->arg);
    return k;
}

/* "  --op LIST         first line\n" + continuation lines under it */
static void write_spec(FILE *f, const pb_opt_spec_t *s)
{
    char syn[96];
    int k = spec_synopsis(s, syn, sizeof syn);
    fputs(syn, f);
    fprintf(f, "%*s", k <= HELP_COL - 2 ? HELP_COL - k : 2, "");
    for (const char *p = s->help; *p; p++) {
        fputc(*p, f);
        if (*p == '\n' && p[1])
            fprintf(f, "%*s", HELP_COL, "");
    }
    fputc('\n', f);
}

/* "  lead: --a, --b, -c (see ...)" wrapped under its lead */
static void write_brief(FILE *f, const pb_cmd_section_t *sec)
{
    int col = fprintf(f, "  %s:", sec->brief);
    const pb_opt_group_t *g = sec->group;
    for (size_t i = 0; i < g->n; i++) {
        const pb_opt_spec_t *s = &g->specs[i];
        if (s->help == NULL)
            continue;
        char name[48];
        pb_opt_name(s, name, sizeof name);
        if (col + (int)strlen(name) + 2 > 78) {
            fprintf(f, "\n%*s", 8, "");
            col = 8;
        }
        col += fprintf(f, " %s%s", name, i + 1 < g->n ? "," : "");
    }
    fputc('\n', f);
}

void pb_cli_write_usage(FILE *f, const pb_cmd_desc_t *c)
{
    fputs(c->head, f);
    if (c->id == PB_CMD_MAIN) { /* the commands, from the table */
        fputs("\ncommands:\n", f);
        for (size_t i = 0; i < pb_ncommands; i++) {
            const pb_cmd_desc_t *d = pb_commands[i];
            fprintf(f, "  %-8s %s\n", d->name[0] ? d->name : "(none)", d->summary);
        }
    }
    for (int k = 0; k < PB_CMD_SECTIONS && c->sections[k].group; k++) {
        const pb_cmd_section_t *sec = &c->sections[k];
        if (sec->brief) {
            if (k == 0 || !c->sections[k - 1].brief)
                fputc('\n', f);
            write_brief(f, sec);
            continue;
        }
        fputc('\n', f);
        if (sec->group->title[0])
            fprintf(f, "%s\n", sec->group->title);
        for (size_t i = 0; i < sec->group->n; i++)
            if (sec->group->specs[i].help)
                write_spec(f, &sec->group->specs[i]);
    }
    if (c->tail[0])
        fprintf(f, "\n%s", c->tail);
}

/* ---- man page ----------------------------------------------------- */

static void man_text(FILE *f, const char *t)
{
    for (; *t; t++) {
        if (*t == '-' || *t == '\\')
            fputc('\\', f);
        if (*t == '\n')
            fputs(t[1] == '.' ? "\n\\&" : "\n", f);
        else
            fputc(*t, f);
    }
}

/* The commands that take group g, as "parbench coll, the main job". */
static void man_takers(FILE *f, const pb_opt_group_t *g)
{
    int n = 0;
    for (size_t i = 0; i < pb_ncommands; i++) {
        const pb_cmd_desc_t *c = pb_commands[i];
        for (int k = 0; k < PB_CMD_SECTIONS && c->sections[k].group; k++)
            if (c->sections[k].group == g) {
                fputs(n++ ? ", " : "", f);
                if (c->name[0])
                    fprintf(f, "\\fBparbench %s\\fR", c->name);
                else
                    fputs("the main job", f);
                break;
            }
    }
}

static int group_seen(const pb_opt_group_t *g, size_t upto_cmd, int upto_sec)
{
    for (size_t i = 0; i <= upto_cmd; i++) {
        const pb_cmd_desc_t *c = pb_commands[i];
        for (int k = 0; k < PB_CMD_SECTIONS && c->sections[k].group; k++) {
            if (i == upto_cmd && k >= upto_sec)
                return 0;
            if (c->sections[k].group == g)
                return 1;
        }
    }
    return 0;
}

static void man_group(FILE *f, const pb_opt_group_t *g, const pb_cmd_desc_t *owner)
{
    char title[80];
    snprintf(title, sizeof title, "%s", g->title);
    size_t len = strlen(title);
    if (len && title[len - 1] == ':')
        title[len - 1] = '\0';
    fputs(".SS ", f);
    if (title[0])
        man_text(f, title);
    else if (owner->name[0])
        fprintf(f, "parbench %s", owner->name);
    else
        fputs("parbench (the main job)", f);
    fputs("\nfor ", f);
    man_takers(f, g);
    fputs(".\n", f);
    for (size_t i = 0; i < g->n; i++) {
        const pb_opt_spec_t *s = &g->specs[i];
        fputs(".TP\n", f);
        if (s->shrt)
            fprintf(f, "\\fB\\-%c\\fR%s", s->shrt, s->lng[0] ? ", " : "");
        if (s->lng[0]) {
            fputs("\\fB", f);
            man_text(f, "--");
            man_text(f, s->lng);
            fputs("\\fR", f);
        }
        if (s->arg) {
            fputs(" \\fI", f);
            man_text(f, s->arg);
            fputs("\\fR", f);
        }
        fputc('\n', f);
        man_text(f, s->help ? s->help : "(a test switch; not in --help)");
        fputc('\n', f);
    }
}

/* Every group once, under the first command that takes it. */
void pb_cli_write_man_options(FILE *f)
{
    fputs(".\\\" generated from the command table by pb_docgen: edit bench/cmd/pb_cmd_NAME.c\n", f);
    for (size_t i = 0; i < pb_ncommands; i++) {
        const pb_cmd_desc_t *c = pb_commands[i];
        for (int k = 0; k < PB_CMD_SECTIONS && c->sections[k].group; k++)
            if (!group_seen(c->sections[k].group, i, k))
                man_group(f, c->sections[k].group, c);
    }
}

/* ---- bash completion ---------------------------------------------- */

static void comp_options(FILE *f, const pb_cmd_desc_t *c)
{
    int n = 0;
    for (int k = 0; k < PB_CMD_SECTIONS && c->sections[k].group; k++) {
        const pb_opt_group_t *g = c->sections[k].group;
        for (size_t i = 0; i < g->n; i++)
            if (g->specs[i].lng[0])
                fprintf(f, "%s--%s", n++ ? " " : "", g->specs[i].lng);
    }
}

static void comp_words(FILE *f, const char *w)
{
    if (strcmp(w, "@file") == 0)
        fputs("_filedir; return ;;\n", f);
    else if (strcmp(w, "@dir") == 0)
        fputs("_filedir -d; return ;;\n", f);
    else
        fprintf(f, "COMPREPLY=($(compgen -W \"%s\" -- \"$cur\")); return ;;\n", w);
}

/* The value completion of one option name: the same for every command
 * that takes it, or chosen by the command (-o: a folder or a file). */
static void comp_value(FILE *f, const pb_opt_spec_t *s)
{
    const char *first = NULL;
    int differ = 0, plain = 0;
    for (size_t i = 0; i < pb_ncommands; i++) {
        const pb_cmd_desc_t *c = pb_commands[i];
        for (int k = 0; k < PB_CMD_SECTIONS && c->sections[k].group; k++) {
            const pb_opt_group_t *g = c->sections[k].group;
            for (size_t j = 0; j < g->n; j++) {
                if (strcmp(g->specs[j].lng, s->lng) != 0)
                    continue;
                /* a command whose option of this name takes a plain value
                 * (tune --pairs N beside validate --pairs MODE) gets none */
                if (!g->specs[j].words) {
                    plain = 1;
                    continue;
                }
                if (first && strcmp(first, g->specs[j].words) != 0)
                    differ = 1;
                if (!first)
                    first = g->specs[j].words;
            }
        }
    }
    if (s->shrt)
        fprintf(f, "        -%c|--%s)\n", s->shrt, s->lng);
    else
        fprintf(f, "        --%s)\n", s->lng);
    if (!differ && !plain) {
        fputs("            ", f);
        comp_words(f, first);
        return;
    }
    fputs("            case ${words[1]} in\n", f);
    for (size_t i = 0; i < pb_ncommands; i++) {
        const pb_cmd_desc_t *c = pb_commands[i];
        for (int k = 0; k < PB_CMD_SECTIONS && c->sections[k].group; k++) {
            const pb_opt_group_t *g = c->sections[k].group;
            for (size_t j = 0; j < g->n; j++)
                if (c->name[0] && strcmp(g->specs[j].lng, s->lng) == 0) {
                    fprintf(f, "                %s) ", c->name);
                    if (g->specs[j].words)
                        comp_words(f, g->specs[j].words);
                    else
                        fputs("return ;;\n", f);
                }
        }
    }
    fputs("                *) ", f);
    comp_words(f, first);
    fputs("            esac ;;\n", f);
}

/* Whether an option name with value words was written already. */
static int comp_seen(const char *lng, size_t upto_cmd, int upto_sec, size_t upto_i)
{
    for (size_t i = 0; i <= upto_cmd; i++) {
        const pb_cmd_desc_t *c = pb_commands[i];
        for (int k = 0; k < PB_CMD_SECTIONS && c->sections[k].group; k++) {
            const pb_opt_group_t *g = c->sections[k].group;
            for (size_t j = 0; j < g->n; j++) {
                if (i == upto_cmd && k == upto_sec && j == upto_i)
                    return 0;
                if (g->specs[j].words && strcmp(g->specs[j].lng, lng) == 0)
                    return 1;
            }
        }
    }
    return 0;
}

void pb_cli_write_completion(FILE *f)
{
    fputs("# bash completion for parbench\n"
          "# generated from the command table by pb_docgen: edit bench/cmd/pb_cmd_NAME.c\n"
          "_parbench()\n{\n    local cur prev words cword\n    _init_completion || return\n"
          "    local cmds=\"",
          f);
    for (size_t i = 0; i < pb_ncommands; i++)
        if (pb_commands[i]->name[0])
            fprintf(f, "%s ", pb_commands[i]->name);
    fputs("help\"\n    case $prev in\n", f);
    for (size_t i = 0; i < pb_ncommands; i++) {
        const pb_cmd_desc_t *c = pb_commands[i];
        for (int k = 0; k < PB_CMD_SECTIONS && c->sections[k].group; k++) {
            const pb_opt_group_t *g = c->sections[k].group;
            for (size_t j = 0; j < g->n; j++)
                if (g->specs[j].words && !comp_seen(g->specs[j].lng, i, k, j))
                    comp_value(f, &g->specs[j]);
        }
    }
    fputs("    esac\n    local cmd=\"\"\n    [[ $cword -gt 1 ]] && cmd=${words[1]}\n"
          "    if [[ $cword -eq 1 && $cur != -* ]]; then\n"
          "        COMPREPLY=($(compgen -W \"$cmds\" -- \"$cur\")); return\n    fi\n"
          "    case $cmd in\n",
          f);
    for (size_t i = 1; i <= pb_ncommands; i++) {
        const pb_cmd_desc_t *c = pb_commands[i % pb_ncommands]; /* the main job last */
        fprintf(f, "        %s)\n            ", c->name[0] ? c->name : "*");
        if (c->positional)
            fputs("if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W \"", f);
        else
            fputs("COMPREPLY=($(compgen -W \"", f);
        comp_options(f, c);
        fputs(c->positional ? "\" -- \"$cur\")); else _filedir csv; fi ;;\n"
                            : "\" -- \"$cur\")) ;;\n",
              f);
    }
    fputs("    esac\n} && complete -F _parbench parbench\n", f);
}
