/* pb_launch_status.h - a self-launch's exit code, handed from the ranks
 * to the launching process through a file instead of through mpirun.
 *
 * Why: Open MPI 4.1's mpirun answers any rank that exits non-zero with
 * its ten-line banner ("Primary job  terminated normally, but 1 process
 * returned a non-zero exit code", "mpirun detected that one or more
 * processes exited with non-zero status"), even when every rank agreed
 * on the code and finalized cleanly, so a refusal (exit 2) or a verdict
 * (exit 1) drowned its one line.  Measured with Open MPI 4.1.4: `mpirun
 * -q` hides that banner and keeps the code, but it also hides mpirun's
 * line about a rank killed by a signal ("exited on signal 11"), and it is
 * Open MPI's alone (PARBENCH_MPIRUN may name another launcher).  A pipe
 * cannot carry the code either: Open MPI hands its ranks descriptors 0-2
 * only.  So:
 *
 *   the launching process makes an empty file and names it in
 *   PARBENCH_STATUS_FILE; the ranks agree on the code (the largest),
 *   finalize, then rank 0 writes it there and every rank exits 0; the
 *   launching process exits with what the file says.
 *
 * Whatever goes wrong stays loud: a rank that crashes, aborts or is
 * killed exits non-zero and mpirun's own report of it stands (the file is
 * then ignored); a rank 0 that cannot write the file (on another host
 * than the launching process) exits with the code itself, banner and
 * all.  Under a person's own mpirun or srun nothing changes: there is no
 * file, each rank exits with the code (`mpirun -q` silences Open MPI). */
#ifndef PB_LAUNCH_STATUS_H
#define PB_LAUNCH_STATUS_H

#include <stddef.h>

#include "../../util/pb_err.h"

#define PB_LAUNCH_STATUS_ENV "PARBENCH_STATUS_FILE"

/* Launching side, before mpirun starts: an empty private file in $TMPDIR
 * (else /tmp), its path in path[len] and in PARBENCH_STATUS_FILE.
 * PB_ERUNTIME when it cannot be made. */
int pb_launch_status_make(char *path, size_t len, pb_err_t *err);

/* Launching side, after mpirun: the exit code of the run.  mpirun's own
 * when it is not 0 (a rank failed on its own: its report stands), else
 * the code rank 0 wrote (0 when none).  The file is removed. */
int pb_launch_status_take(const char *path, int mpirun_rc);

/* Rank side, after MPI_Finalize, with the code every rank agreed on: the
 * process's exit status.  Without PARBENCH_STATUS_FILE (and the
 * PARBENCH_LAUNCHED a self-launch sets beside it), `code` itself; with
 * it, 0 on every rank once rank 0 has written the code (a rank 0 that
 * cannot write returns `code`, so the code still reaches the shell). */
int pb_launch_status_report(int rank, int code);

#endif
