/* pb_launch.h - starting without a launcher.
 *
 * `parbench` typed in a plain shell re-executes itself under mpirun, so
 * the first experience is one command; under mpirun, srun or any PMI/PMIx
 * launcher it runs as it is. */
#ifndef PB_LAUNCH_H
#define PB_LAUNCH_H

#include "../cli/pb_options.h"
#include "pb_launch_env.h"

/* GPUs on this host: NVIDIA's as its driver lists them
 * (/proc/driver/nvidia/gpus) plus AMD's as the KFD topology lists them
 * (core/pb_kfd_node.h, under PB_SYSFS_ROOT when set, else /sys); 0
 * without either driver. */
int pb_launch_local_gpus(void);

/* The ranks to start without a launcher: --np, else a layout that fixes
 * the world (--dp given, or tp x cp x pp that the default does not
 * divide: that product), else one per local GPU, else 2.  For --pattern
 * and step the model and layout are built on that world first, so an
 * unknown preset or a layout that does not fit is refused (PB_EINPUT)
 * before anything is launched.  replay: the recording's world, read from
 * it (--np must be that).  Pure but for the GPU count and replay's
 * recording. */
int pb_launch_world(const pb_options_t *o, int *np, pb_err_t *err);

/* The ranks of --gpus N (or, in a build without MPI, of any command that
 * runs ranks): N threads of this process, one per local GPU.  N is --gpus,
 * else --np, else what pb_launch_world picks; the model and layout are
 * checked on that world as for a launch.  Refused (PB_EINPUT): under an
 * MPI launcher (start one rank per GPU there instead), --gpus and --np
 * naming different counts, more threads than pb_launch_local_gpus. */
int pb_launch_threads(const pb_options_t *o, int *n, pb_err_t *err);

/* NAME=VALUE (a command's launch_env) into this process's environment,
 * for the mpirun it starts next, unless NAME is set already (the
 * person's choice wins; the command checks it on the ranks).  NULL: none.
 * PB_ERUNTIME when setenv fails. */
int pb_launch_setenv(const char *name_value, pb_err_t *err);

/* Runs mpirun with `np` ranks of the same arguments and waits for it,
 * handing SIGINT/SIGTERM to the ranks (they stop with whole rows; mpirun
 * itself would kill them).  Returns the code the ranks agreed on, handed
 * back through a file so that mpirun prints no banner for it
 * (pb_launch_status.h), else mpirun's own exit code (a rank that failed
 * alone; 128 + signal after a stop), or PB_ERUNTIME with err filled when
 * it cannot start; err->msg is empty when mpirun ran. */
int pb_launch_exec(int argc, char **argv, int np, pb_err_t *err);

#endif
