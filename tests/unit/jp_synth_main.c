/* jp_synth_main.c - pb_jp_synth DIR TP CP DP PP [STRAGGLER_RANK
 * STRAGGLER_US [WORD...]]: jp_synth.h's job written into DIR (which must
 * exist), for the shell tests of profile and replay.  Words: "ends" adds
 * the TP traffic outside the layers; "per-proc=N" puts N ranks (GPUs) in
 * each process; "no-world" leaves the world communicator out (jp_synth.h;
 * a STRAGGLER_RANK of -1 makes none late). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jp_synth.h"

/* One of the words; 0, or -1 for one not known. */
static int word(jp_synth_t *s, const char *w)
{
    char *end;
    if (strcmp(w, "ends") == 0)
        s->ends = 1;
    else if (strcmp(w, "no-world") == 0)
        s->no_world = 1;
    else if (strncmp(w, "per-proc=", 9) == 0)
        s->per_proc = (int)strtol(w + 9, &end, 10);
    else
        return -1;
    return strncmp(w, "per-proc=", 9) != 0 || (*end == '\0' && s->per_proc >= 1) ? 0 : -1;
}

int main(int argc, char **argv)
{
    jp_synth_t s;
    jp_synth_defaults(&s);
    int bad = argc != 6 && argc < 8;
    for (int i = 8; i < argc && !bad; i++)
        bad = word(&s, argv[i]) != 0;
    if (bad) {
        fprintf(stderr, "usage: pb_jp_synth DIR TP CP DP PP [STRAGGLER_RANK STRAGGLER_US "
                        "[ends] [per-proc=N] [no-world]]\n");
        return 2;
    }
    s.tp = atoi(argv[2]);
    s.cp = atoi(argv[3]);
    s.dp = atoi(argv[4]);
    s.pp = atoi(argv[5]);
    if (argc >= 8) {
        s.straggler = atoi(argv[6]);
        s.straggler_ns = atoll(argv[7]) * 1000;
    }
    if (s.tp < 1 || s.cp < 1 || s.dp < 1 || s.pp < 1 || s.tp * s.cp * s.dp * s.pp > 4096 ||
        (s.tp * s.cp * s.dp * s.pp) % s.per_proc != 0) {
        fprintf(stderr, "pb_jp_synth: TP CP DP PP must be >= 1, at most 4096 ranks, a multiple "
                        "of per-proc\n");
        return 2;
    }
    if (jp_synth_write(argv[1], &s) != 0) {
        perror("pb_jp_synth");
        return 1;
    }
    return 0;
}
