/* pb_opt_set.h - the value parsers and the plain setters an option table
 * names (pb_opt_spec_t.set): each stores one option's value at the field
 * the spec's offset names, or refuses it with one line. */
#ifndef PB_OPT_SET_H
#define PB_OPT_SET_H

#include <stddef.h>
#include <stdint.h>

#include "pb_cmd_table.h"

/* An option table's pieces: the field a plain setter fills, the length
 * of a spec array, and a group of one. */
#define PB_OFF(f) offsetof(pb_options_t, f)
#define PB_NSPECS(a) (sizeof(a) / sizeof((a)[0]))
#define PB_GROUP(title, specs, elsewhere) {title, specs, PB_NSPECS(specs), elsewhere}

/* The plain setters. */
int pb_opt_flag(pb_options_t *o, const pb_opt_spec_t *s, const char *v, const char *shown,
                pb_err_t *err);
int pb_opt_str(pb_options_t *o, const pb_opt_spec_t *s, const char *v, const char *shown,
               pb_err_t *err);
int pb_opt_file(pb_options_t *o, const pb_opt_spec_t *s, const char *v, const char *shown,
                pb_err_t *err);
int pb_opt_int(pb_options_t *o, const pb_opt_spec_t *s, const char *v, const char *shown,
               pb_err_t *err);
int pb_opt_u64(pb_options_t *o, const pb_opt_spec_t *s, const char *v, const char *shown,
               pb_err_t *err);
int pb_opt_pos(pb_options_t *o, const pb_opt_spec_t *s, const char *v, const char *shown,
               pb_err_t *err);
int pb_opt_percent(pb_options_t *o, const pb_opt_spec_t *s, const char *v, const char *shown,
                   pb_err_t *err);
int pb_opt_size(pb_options_t *o, const pb_opt_spec_t *s, const char *v, const char *shown,
                pb_err_t *err);
/* seconds from "90s", "2m", "1.5h" (util/pb_duration.h) */
int pb_opt_duration(pb_options_t *o, const pb_opt_spec_t *s, const char *v, const char *shown,
                    pb_err_t *err);

int pb_parse_u64(const char *name, const char *v, uint64_t lo, uint64_t *out, pb_err_t *err);
int pb_parse_int(const char *name, const char *v, int lo, int *out, pb_err_t *err);
int pb_parse_double(const char *name, const char *v, int percent_ok, double *out, pb_err_t *err);
/* "a,b,c" or "all" (and, for what == "mode", "both") into enum values */
typedef int (*pb_enum_parse_fn)(const char *s, int *out);
typedef const char *(*pb_enum_name_fn)(int);
int pb_parse_list(const char *what, const char *v, pb_enum_parse_fn fn, pb_enum_name_fn name,
                  int nall, int all_count, int *out, int *n, pb_err_t *err);

/* A list of data types ("bf16,fp32" or "all") into out[PB_DTYPE_COUNT]. */
int pb_parse_dtypes(const char *v, pb_dtype_t *out, int *n, pb_err_t *err);

#endif
