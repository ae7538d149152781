/* pb_cli_help.h - the command table written out as text: each command's
 * --help, the man page's OPTIONS section, the bash completion.
 *
 * doc/pb_docgen.c runs these at build time: the help strings become
 * pb_usage_gen.c (so pb_cli_usage returns constants, no state), and
 * tests/cli/docs_agree.sh checks that doc/parbench.1 and
 * doc/parbench.bash-completion hold exactly what they write. */
#ifndef PB_CLI_HELP_H
#define PB_CLI_HELP_H

#include <stdio.h>

#include "pb_cmd_table.h"

void pb_cli_write_usage(FILE *f, const pb_cmd_desc_t *c);
void pb_cli_write_man_options(FILE *f);
void pb_cli_write_completion(FILE *f);

#endif
