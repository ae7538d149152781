/* pb_libxml.h - libxml2, opened when an NCCL topology file is read.
 *
 * Why not linked: every library linked is mapped into every rank of
 * every command, and libxml2 brings ICU (a 30 MB data library) and the
 * C++ runtime with it.  Measured (2 ranks, vader, 150 alternating
 * launches, median of per-pair ratios): the plain MPI loop of
 * bench/perf/ref_allreduce.c, with libxml2 merely preloaded and never
 * called, takes 1.027x as long per 1 KiB all-reduce (ICU alone 1.023x,
 * libstdc++ alone 1.010x); a benchmark must not carry that for a file
 * format only `parbench topo --nccl-topo` reads.  Kept loaded once
 * opened (RTLD_NODELETE): ICU and the C++ runtime register exit
 * handlers that must outlive any one reader. */
#ifndef PB_LIBXML_H
#define PB_LIBXML_H

#include <libxml/parser.h>
#include <libxml/tree.h>

#include "pb_err.h"

/* the entry points parbench uses, with libxml2's signatures */
typedef struct pb_libxml {
    void *lib;
    xmlDoc *(*read_file)(const char *path, const char *encoding, int options);
    const xmlError *(*last_error)(void);
    xmlNode *(*root)(const xmlDoc *doc);
    xmlChar *(*get_prop)(const xmlNode *node, const xmlChar *name);
    void (*free_doc)(xmlDoc *doc);
    xmlFreeFunc free; /* the value of libxml2's xmlFree: how it frees */
} pb_libxml_t;

/* Opens libxml2 (the library the build found, by its soname); a clear
 * PB_ERUNTIME naming it when it is missing or lacks an entry point. */
int pb_libxml_open(pb_libxml_t *x, pb_err_t *err);
void pb_libxml_close(pb_libxml_t *x);

#endif
