/* pb_backend_list.h - every communication side built into this binary,
 * one line each, in "--backend auto" order: the first available on every
 * rank is taken, so a GPU library comes before MPI.  Included twice by
 * pb_backend_registry.c (declarations, then the table) with PB_BACKEND
 * defined; adding a backend is one line here, its file and its CMake
 * stanza (doc/BACKENDS.md). */
#ifdef PARBENCH_HAVE_NCCL
PB_BACKEND(pb_nccl_comm_ops)
#endif
PB_BACKEND(pb_mpi_comm_ops)
