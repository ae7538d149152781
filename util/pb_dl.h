/* pb_dl.h - one entry point of a library parbench opens with dlopen
 * (NVML, libxml2, NCCL, cuBLAS): loaded only where a command needs it,
 * so a run that does not carries none of it. */
#ifndef PB_DL_H
#define PB_DL_H

/* *fp = the address of `name` in `lib`; returns 1 when found, 0 when not
 * (and *fp = NULL).  POSIX guarantees that a dlsym result converts to a
 * function pointer; the copy says so to ISO C. */
int pb_dl_sym(void *lib, const char *name, void *fp);

#endif
