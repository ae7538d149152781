/* pb_megatron_priv.h - the script reader's shell state, shared by
 * pb_megatron_sh.c (words and variables) and pb_megatron.c (arguments). */
#ifndef PB_MEGATRON_PRIV_H
#define PB_MEGATRON_PRIV_H

#include <stddef.h>

#include "pb_megatron.h"

#define PB_MEG_VARS 128
#define PB_MEG_VALLEN 2048
#define PB_MEG_WORDS 1024
#define PB_MEG_WORDLEN 256

typedef struct pb_meg_sh {
    char name[PB_MEG_VARS][64];
    char val[PB_MEG_VARS][PB_MEG_VALLEN];
    int nvars;
    pb_megatron_t *out;
} pb_meg_sh_t;

void pb_meg_set_var(pb_meg_sh_t *sh, const char *name, size_t len, const char *value);
/* One logical line's words (at most max), variables expanded. */
int pb_meg_split(pb_meg_sh_t *sh, const char *line, char (*out)[PB_MEG_WORDLEN], int max);

#endif
