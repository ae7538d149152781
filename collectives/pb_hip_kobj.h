/* pb_hip_kobj.h - the AMD code objects built into parbench: one per
 * target hipcc built (cmake/hip.cmake), embedded as bytes in a generated
 * file (cmake/pb_hip_embed.cmake), and which one a device takes.
 * Internal to pb_hip_kernels; the unit test reads the table too. */
#ifndef PB_HIP_KOBJ_H
#define PB_HIP_KOBJ_H

#include <stddef.h>

typedef struct pb_hip_kobj {
    const char *target;         /* "gfx90a" */
    const unsigned char *bytes; /* an AMDGPU ELF, as hipModuleLoadData takes it */
    size_t size;
} pb_hip_kobj_t;

/* pb_hip_kobj_count rows (the table has one empty row when there are none) */
extern const pb_hip_kobj_t pb_hip_kobjs[];
extern const size_t pb_hip_kobj_count;
extern const char pb_hip_kobj_names[]; /* "gfx908 gfx90a gfx940", or "" */

/* The device's target: `arch` (gcnArchName, "gfx90a:sramecc+:xnack-")
 * up to its first ':' into base (at most len - 1 characters).  Returns
 * the row of that target in pb_hip_kobjs, or -1 when none was built
 * (or the name does not fit: no target is that long). */
int pb_hip_kobj_pick(const char *arch, char *base, size_t len);

#endif
