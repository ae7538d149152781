/* tune_rules_probe.c - which all-reduce algorithm Open MPI ran, for
 * tune_rules_check.sh (issue 49: tune's rules file holds an algorithm to
 * the communicator and message sizes it was measured on).
 *
 *   tune_rules_probe write FILE   writes a rules file with tune/pb_trules
 *                                 (no MPI): ring (4) on 8 ranks at 65536 B
 *                                 and on 4 ranks at 1024 B, nothing else
 *   tune_rules_probe BYTES...     (under mpirun) one all-reduce of doubles
 *                                 per size; rank 0 prints "BYTES: SUM" of
 *                                 element 0 in hex
 *
 * The sum tells the algorithm: rank r adds v[r mod 8] of 1e16, 1, -1e16,
 * 1, 3, 1e16, -1e16, 0.5, where 1e16 + 1 rounds back to 1e16 (its ulp is
 * 2), so the order of the additions - the algorithm - shows in the
 * result.  The script compares with runs that force ring and that force
 * nothing, so it needs no order worked out for any algorithm. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tune/pb_trules.h"

static int write_rules(const char *path)
{
    pb_trule_t r[2];
    memset(r, 0, sizeof r);
    r[0] = (pb_trule_t){2, 8, 65536, 4, "ring on 8 ranks at 65536 B only"};
    r[1] = (pb_trule_t){2, 4, 1024, 4, "ring on 4 ranks at 1024 B only"};
    FILE *f = fopen(path, "w");
    pb_err_t err;
    memset(&err, 0, sizeof err);
    if (f == NULL || pb_trules_write(f, "tune_rules_probe", r, 2, &err) != PB_OK) {
        fprintf(stderr, "tune_rules_probe: cannot write %s %s\n", path, err.msg);
        return 1;
    }
    return fclose(f) == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "write") == 0)
        return write_rules(argv[2]);
    static const double v[8] = {1e16, 1.0, -1e16, 1.0, 3.0, 1e16, -1e16, 0.5};
    MPI_Init(&argc, &argv);
    int rank = 0, rc = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int a = 1; a < argc && rc == 0; a++) {
        long n = atol(argv[a]) / (long)sizeof(double);
        double *s = malloc((size_t)(n > 0 ? n : 1) * sizeof *s);
        double *r = malloc((size_t)(n > 0 ? n : 1) * sizeof *r);
        if (n <= 0 || s == NULL || r == NULL) {
            rc = 1;
        } else {
            for (long i = 0; i < n; i++)
                s[i] = v[rank % 8];
            rc = MPI_Allreduce(s, r, (int)n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD) != MPI_SUCCESS;
            if (rank == 0 && rc == 0)
                printf("%s: %a\n", argv[a], r[0]);
        }
        free(s);
        free(r);
    }
    MPI_Finalize();
    return rc;
}
