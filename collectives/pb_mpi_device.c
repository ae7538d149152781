/* Is this MPI CUDA-aware?  The MPI communication side asks before it
 * accepts device buffers (--memory device): an MPI without that support
 * would fault on the first device pointer.  The buffers themselves are
 * the CUDA memory side's (pb_cuda_mem.c); MPI on device memory is the
 * MPI side composed with it, nothing more. */
#include <mpi.h>
#include <mpi-ext.h> /* Open MPI's extensions: after mpi.h, which it needs */
#include <stdio.h>

#include "pb_mpi_priv.h"

int pb_mpi_device_supported(char *why, size_t len)
{
#if defined(MPIX_CUDA_AWARE_SUPPORT)
    if (MPIX_Query_cuda_support())
        return 1;
    snprintf(why, len, "--memory device needs a CUDA-aware MPI; this one says it is not "
                       "(MPIX_Query_cuda_support() = 0)");
#else
    snprintf(why, len, "--memory device needs a CUDA-aware MPI; this MPI has no "
                       "MPIX_Query_cuda_support to say so");
#endif
    return 0;
}
