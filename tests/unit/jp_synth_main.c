/* jp_synth_main.c - pb_jp_synth DIR TP CP DP PP [STRAGGLER_RANK
 * STRAGGLER_US [ends]]: jp_synth.h's job written into DIR (which must
 * exist), for the shell tests of profile and replay; "ends" adds the TP
 * traffic outside the layers (jp_synth.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jp_synth.h"

int main(int argc, char **argv)
{
    if (argc != 6 && argc != 8 && !(argc == 9 && strcmp(argv[8], "ends") == 0)) {
        fprintf(stderr,
                "usage: pb_jp_synth DIR TP CP DP PP [STRAGGLER_RANK STRAGGLER_US [ends]]\n");
        return 2;
    }
    jp_synth_t s;
    jp_synth_defaults(&s);
    s.tp = atoi(argv[2]);
    s.cp = atoi(argv[3]);
    s.dp = atoi(argv[4]);
    s.pp = atoi(argv[5]);
    if (argc >= 8) {
        s.straggler = atoi(argv[6]);
        s.straggler_ns = atoll(argv[7]) * 1000;
    }
    s.ends = argc == 9;
    if (s.tp < 1 || s.cp < 1 || s.dp < 1 || s.pp < 1 || s.tp * s.cp * s.dp * s.pp > 4096) {
        fprintf(stderr, "pb_jp_synth: TP CP DP PP must be >= 1, at most 4096 ranks\n");
        return 2;
    }
    if (jp_synth_write(argv[1], &s) != 0) {
        perror("pb_jp_synth");
        return 1;
    }
    return 0;
}
