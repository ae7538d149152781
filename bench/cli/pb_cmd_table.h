/* pb_cmd_table.h - the shape of the command table: options, groups of
 * options, commands.  The table itself is one file per command in cmd/
 * (pb_cmd_NAME.c: its descriptor and its own options), listed by
 * cmd/pb_cmd_list.def, and the groups several commands share
 * (pb_opt_groups.c, pb_opt_model.c); pb_cli.c parses argv against it,
 * pb_cli_help.c prints its help, and doc/pb_docgen.c writes the man
 * page's OPTIONS and the bash completion from it.  The setters a table
 * names are pb_opt_set.h's. */
#ifndef PB_CMD_TABLE_H
#define PB_CMD_TABLE_H

#include <stddef.h>

#include "pb_options.h"

typedef struct pb_opt_spec pb_opt_spec_t;
struct pb_ctx; /* pb_ctx.h: a run on the launched ranks */

/* run_alone's answer when this command line needs the ranks after all */
#define PB_RUN_RANKS (-1)

/* Stores one option's value (v is NULL for an option without one);
 * `shown` is the option as typed ("--iters", "-n"), for messages. */
typedef int (*pb_opt_set_fn)(pb_options_t *o, const pb_opt_spec_t *s, const char *v,
                             const char *shown, pb_err_t *err);

struct pb_opt_spec {
    const char *lng;   /* without dashes; "" for a short option alone */
    char shrt;         /* 0: none */
    const char *arg;   /* the value's name in help ("N", "LIST"); NULL: no value */
    pb_opt_set_fn set;
    size_t off;        /* the field, for the plain setters (offsetof pb_options_t) */
    long lo;           /* the plain number setters: smallest value */
    const char *help;  /* lines separated by '\n'; NULL: not shown by --help */
    const char *words; /* completion of the value: words, "@file" or "@dir" */
    const char *elsewhere; /* the line for a command without it (NULL: generic) */
};

typedef struct pb_opt_group {
    const char *title; /* help section ("timing:"); "" for none */
    const pb_opt_spec_t *specs;
    size_t n;
    const char *elsewhere; /* the line for a command without the group (NULL: the spec's) */
} pb_opt_group_t;

/* A group as one command shows it: in full, or on one line (`brief`)
 * that names its options and points at the command that explains them. */
typedef struct pb_cmd_section {
    const pb_opt_group_t *group;
    const char *brief; /* NULL: in full; else the line's lead ("timing and checking") */
} pb_cmd_section_t;

#define PB_CMD_SECTIONS 12

typedef struct pb_cmd_desc {
    pb_command_t id;
    const char *name;    /* "coll"; "" for the main job */
    const char *summary; /* parbench --help's list of commands, the man page */
    const char *head;    /* help before the options: usage line and description */
    pb_cmd_section_t sections[PB_CMD_SECTIONS]; /* ends at a NULL group */
    const char *tail;    /* help after the options */
    int positional;      /* arguments without a dash it takes (0: none) */
    void (*defaults)(pb_options_t *o);
    /* after the whole argv: the command's own defaults and checks */
    int (*finish)(pb_options_t *o, pb_err_t *err);
    /* the line for an option of another command (NULL, or returning NULL:
     * the option's or its group's `elsewhere`, else the generic line) */
    const char *(*foreign)(const pb_opt_spec_t *s, const pb_opt_group_t *g);
    /* what it runs: without MPI or a launch (run_alone; rank0: this
     * process prints; PB_RUN_RANKS: this command line needs the ranks),
     * then, unless that answered, on the launched ranks (run_ranks) */
    int (*run_alone)(const pb_options_t *o, int rank0, pb_err_t *err);
    int (*run_ranks)(struct pb_ctx *ctx, pb_err_t *err);
    int never_launches; /* started from a shell, runs as one process */
    /* NAME=VALUE the ranks need from their launch, set for the mpirun
     * parbench starts itself unless the environment already names NAME
     * (NULL: none); under someone else's launcher the command checks it */
    const char *launch_env;
} pb_cmd_desc_t;

/* The commands, in the order --help lists them (cmd/pb_cmd_registry.c). */
extern const pb_cmd_desc_t *const pb_commands[];
extern const size_t pb_ncommands;

/* The descriptor of a command id (PB_CMD_PATTERN: the main job's). */
const pb_cmd_desc_t *pb_cmd_find(pb_command_t id);

/* An option as a user types it: "--name", or "-c" for a short-only one. */
void pb_opt_name(const pb_opt_spec_t *s, char *buf, size_t len);

/* The shared groups (pb_opt_groups.c). */
extern const pb_opt_group_t pb_grp_launch, pb_grp_output, pb_grp_what, pb_grp_sizes,
    pb_grp_timing, pb_grp_check, pb_grp_model, pb_grp_layout, pb_grp_train, pb_grp_predict,
    pb_grp_predict_run, pb_grp_help;

/* The field of a plain setter. */
#define PB_FIELD(o, s, type) ((type *)(void *)((char *)(o) + (s)->off))

#endif
