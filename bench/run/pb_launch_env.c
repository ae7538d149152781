/* What the launcher said in the environment (pb_launch_env.h). */
#include "pb_launch_env.h"

#include <stdlib.h>

/* Variables every common launcher sets in its children: Open MPI's
 * mpirun, PMIx and PMI-1/2 (MPICH, Slurm's srun --mpi=pmi2/pmix). */
static const char *const rank_vars[] = {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK",
                                        "SLURM_PROCID"};

int pb_launch_under_launcher(void)
{
    for (size_t i = 0; i < sizeof rank_vars / sizeof rank_vars[0]; i++)
        if (getenv(rank_vars[i]) != NULL)
            return 1;
    /* set by our own re-execution, in case a launcher sets none of these */
    return getenv("PARBENCH_LAUNCHED") != NULL;
}

int pb_launch_rank_hint(void)
{
    for (size_t i = 0; i < sizeof rank_vars / sizeof rank_vars[0]; i++) {
        const char *v = getenv(rank_vars[i]);
        if (v != NULL)
            return atoi(v);
    }
    return 0;
}
