/* pb_jp_bounds.h - the largest numbers a recording may hold, checked
 * where each is read (PyTorch traces, the ops CSV).  Every count, size and
 * time of a record is then at most 2^62, so the analysis and the replay
 * may add any two of them (an end as a start plus a duration) or subtract
 * them without leaving 64 signed bits, whatever the file said; a sum over
 * many records is checked where it is taken (pb_jp_stats.c).  A number
 * past these is a damaged or hand-edited file, refused with a line naming
 * the file and the number (issue 49). */
#ifndef PB_JP_BOUNDS_H
#define PB_JP_BOUNDS_H

#include <stdint.h>

/* Elements, or bytes, of one operation: 2^62 B is 4 EiB, a million times
 * any tensor a job sends. */
#define PB_JP_MAX_COUNT (INT64_C(1) << 62)
/* A time in ns since the epoch (2^62 ns: 2116-02-20), or a duration. */
#define PB_JP_MAX_TIME_NS (INT64_C(1) << 62)

#endif
