/* The command table: every command's descriptor (pb_cmd_list.def), in
 * the order --help lists them.
 *
 * A command is one file, pb_cmd_NAME.c: its pb_cmd_desc_t (its name, the
 * one-line summary `parbench --help` lists, its help text around the
 * options, the option groups it takes in the order its --help shows them,
 * its defaults, its finish - the checks and defaults that need the whole
 * command line - and what it runs: run_alone without MPI, run_ranks on
 * the launched ranks), its own option group beside it, and that code.
 * An option is one pb_opt_spec_t: its long and short name, the name of
 * its value, the setter that stores it (the plain ones of
 * cli/pb_opt_set.h take the field's offset), its help, the words that
 * complete its value, and the line a command without it prints.
 *
 * To add an option to one command: a line in that command's own group
 * (and its field in that command's struct in cli/pb_options.h).  To add
 * an option several commands share: a line in the group in
 * cli/pb_opt_groups.c or cli/pb_opt_model.c.  To add a command: an id
 * and a struct in cli/pb_options.h, its file here, and its line in
 * pb_cmd_list.def.  Help, the man page's OPTIONS and the bash completion
 * follow from the table (doc/pb_docgen.c); `cmake --build build --target
 * docs` rewrites doc/, and the cli_docs_agree test fails until that was
 * done.
 *
 * For example: `model --against FILE` is a line in pb_cmd_model.c's
 * model_own_specs (pb_opt_str into a new field of pb_options_t);
 * `--hf-config FILE` for every command that takes a model is a line in
 * cli/pb_opt_model.c's model_specs (into pb_model_opts_t, read by
 * glue/pb_pattern_plan.c); `validate --budget S` is a line in
 * pb_cmd_validate.c's validate_specs; an `import` command is
 * pb_cmd_import.c, with its own group, defaults, finish and run_alone,
 * and its line in pb_cmd_list.def. */
#include "../cli/pb_cmd_table.h"

#define PB_COMMAND(desc) extern const pb_cmd_desc_t desc;
#include "pb_cmd_list.def"
#undef PB_COMMAND

const pb_cmd_desc_t *const pb_commands[] = {
#define PB_COMMAND(desc) &desc,
#include "pb_cmd_list.def"
#undef PB_COMMAND
};
const size_t pb_ncommands = sizeof pb_commands / sizeof pb_commands[0];

const pb_cmd_desc_t *pb_cmd_find(pb_command_t id)
{
    if (id == PB_CMD_PATTERN)
        id = PB_CMD_MAIN;
    for (size_t i = 0; i < pb_ncommands; i++)
        if (pb_commands[i]->id == id)
            return pb_commands[i];
    return pb_commands[0]; /* the main job's */
}
