#include "pb_share.h"

#include <string.h>

int pb_share(void *buf, int bytes, int root, MPI_Comm c)
{
    int rank = 0;
    int rc = MPI_Comm_rank(c, &rank);
    if (rc != MPI_SUCCESS)
        return rc;
    if (rank != root)
        memset(buf, 0, (size_t)bytes);
    return MPI_Allreduce(MPI_IN_PLACE, buf, bytes, MPI_BYTE, MPI_BOR, c);
}
