/* pb_megatron_opts.h - --megatron-args merged into the options: what the
 * script says fills what the command line left unsaid (explicit flags
 * win), so --pattern, model, plan and step all see one set of options. */
#ifndef PB_MEGATRON_OPTS_H
#define PB_MEGATRON_OPTS_H

#include "../cli/pb_options.h"

/* Reads o->megatron_args (a file, or "-" for stdin) and merges it; rank0
 * prints the script's unknown arguments, those without a counterpart and
 * its unresolved variables on stderr, one line each. */
int pb_megatron_merge(pb_options_t *o, int rank0, pb_err_t *err);

#endif
