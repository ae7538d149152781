/* pb_megatron_priv.h - the script reader's shell state, shared by
 * pb_megatron_sh.c (words and variables), pb_megatron_script.c (lines
 * to the command's words) and pb_megatron.c (arguments).  It names the
 * result only as a struct: pb_megatron.c includes this header, and this
 * header including pb_megatron.h back would tie the two in a circle. */
#ifndef PB_MEGATRON_PRIV_H
#define PB_MEGATRON_PRIV_H

#include <stddef.h>

struct pb_megatron;

#define PB_MEG_VARS 128
#define PB_MEG_VALLEN 2048
#define PB_MEG_WORDS 1024
#define PB_MEG_WORDLEN 256
/* storage: the longest unset variable name listed as unresolved */
#define PB_MEG_SH_NAME_MAX 64
/* Megatron-LM arguments.py without --ffn-hidden-size: 4 x hidden, and
 * with --swiglu int((4 x hidden x 2 / 3) / 64) x 64 */
#define PB_MEG_FFN_X_H 4
#define PB_MEG_SWIGLU_DIV 3
#define PB_MEG_SWIGLU_ROUND 64

typedef struct pb_meg_sh {
    char name[PB_MEG_VARS][64];
    char val[PB_MEG_VARS][PB_MEG_VALLEN];
    int nvars;
    struct pb_megatron *out; /* pb_megatron.h */
} pb_meg_sh_t;

void pb_meg_set_var(pb_meg_sh_t *sh, const char *name, size_t len, const char *value);
/* One logical line's words (at most max), variables expanded. */
int pb_meg_split(pb_meg_sh_t *sh, const char *line, char (*out)[PB_MEG_WORDLEN], int max);
/* Every logical line (continuations joined): arrays, assignments, then
 * the command's words into argv[0..*argc) (or, without a pretrain_*.py
 * line, every word from a "--" on); w is scratch for PB_MEG_WORDS words. */
void pb_meg_walk(pb_meg_sh_t *sh, char **lines, size_t nl, char (*w)[PB_MEG_WORDLEN],
                 char (*argv)[PB_MEG_WORDLEN], int *argc);

#endif
