#include "pb_launch.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

int pb_launch_local_gpus(void)
{
    /* one directory per GPU the NVIDIA kernel driver manages; reading it
     * needs no CUDA and cannot hang on a broken device */
    DIR *d = opendir("/proc/driver/nvidia/gpus");
    if (d == NULL)
        return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (e->d_name[0] != '.')
            n++;
    closedir(d);
    return n;
}

int pb_launch_exec(int argc, char **argv, const pb_options_t *opt, pb_err_t *err)
{
    int gpus = pb_launch_local_gpus();
    int np = opt->np ? opt->np : gpus > 0 ? gpus : 2;
    const char *mpirun = getenv("PARBENCH_MPIRUN");
    if (mpirun == NULL || *mpirun == '\0')
        mpirun = "mpirun";
    char self[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len <= 0)
        return pb_err_set(err, PB_ERUNTIME, "cannot find my own executable: %s", strerror(errno));
    self[len] = '\0';

    char npbuf[16];
    snprintf(npbuf, sizeof npbuf, "%d", np);
    char **av = calloc((size_t)argc + 8, sizeof *av);
    if (av == NULL)
        return pb_err_set(err, PB_ERUNTIME, "out of memory");
    int k = 0;
    av[k++] = (char *)mpirun;
    av[k++] = "-np";
    av[k++] = npbuf;
    /* Open MPI refuses root without this, and more ranks than cores
     * without the other: the user asked for these ranks explicitly */
    if (geteuid() == 0)
        av[k++] = "--allow-run-as-root";
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    if (cores > 0 && np > cores)
        av[k++] = "--oversubscribe";
    av[k++] = self;
    for (int i = 1; i < argc; i++)
        av[k++] = argv[i];
    av[k] = NULL;

    printf("# parbench: not started by a launcher; running:");
    for (int i = 0; i < k; i++)
        printf(" %s", av[i]);
    printf("\n");
    fflush(stdout);
    setenv("PARBENCH_LAUNCHED", "1", 1);
    /* the ranks' stderr will be a pipe to mpirun: tell rank 0 whether the
     * person's terminal is at the other end (the progress line) */
    if (isatty(STDERR_FILENO) && getenv("PARBENCH_PROGRESS") == NULL)
        setenv("PARBENCH_PROGRESS", "1", 1);
    execvp(mpirun, av);
    int e = errno;
    free(av);
    return pb_err_set(err, PB_ERUNTIME,
                      "cannot run '%s': %s (install Open MPI, set PARBENCH_MPIRUN, or use --no-launch)",
                      mpirun, strerror(e));
}
