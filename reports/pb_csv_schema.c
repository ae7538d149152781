#include "pb_csv_schema.h"

#include <stddef.h>

#define PB_CSV_COL(_name, _type) {#_name, _type, offsetof(pb_result_t, _name)}

/* Order is the stable file schema: new columns only ever go at the end. */
const pb_csv_col_t pb_csv_cols[] = {
    PB_CSV_COL(run_id, PB_CSV_STR),
    PB_CSV_COL(timestamp, PB_CSV_STR),
    PB_CSV_COL(host, PB_CSV_STR),
    PB_CSV_COL(nodes, PB_CSV_INT),
    PB_CSV_COL(world, PB_CSV_INT),
    PB_CSV_COL(backend, PB_CSV_STR),
    PB_CSV_COL(mode, PB_CSV_STR),
    PB_CSV_COL(pattern, PB_CSV_STR),
    PB_CSV_COL(collective, PB_CSV_STR),
    PB_CSV_COL(group, PB_CSV_STR),
    PB_CSV_COL(group_size, PB_CSV_INT),
    PB_CSV_COL(link_class, PB_CSV_STR),
    PB_CSV_COL(bytes, PB_CSV_U64),
    PB_CSV_COL(dtype, PB_CSV_STR),
    PB_CSV_COL(in_place, PB_CSV_INT),
    PB_CSV_COL(iters, PB_CSV_U64),
    PB_CSV_COL(time_us_min, PB_CSV_DBL),
    PB_CSV_COL(time_us_median, PB_CSV_DBL),
    PB_CSV_COL(time_us_p99, PB_CSV_DBL),
    PB_CSV_COL(time_us_max, PB_CSV_DBL),
    PB_CSV_COL(algbw_gbps, PB_CSV_DBL),
    PB_CSV_COL(busbw_gbps, PB_CSV_DBL),
    PB_CSV_COL(wrong, PB_CSV_WRONG),
    PB_CSV_COL(label, PB_CSV_STR),
    /* appended after the first schema: optional when reading, so files
     * written before they existed still load */
    PB_CSV_COL(redop, PB_CSV_STR),
    PB_CSV_COL(slowest_rank, PB_CSV_INT),
    PB_CSV_COL(flops, PB_CSV_U64),
    PB_CSV_COL(tflops, PB_CSV_DBL),
    PB_CSV_COL(expect_gbps, PB_CSV_DBL),
    PB_CSV_COL(verdict, PB_CSV_STR),
};

_Static_assert(sizeof pb_csv_cols / sizeof pb_csv_cols[0] == PB_CSV_NCOLS,
               "PB_CSV_NCOLS must match the column table");

int pb_csv_ncolumns(void)
{
    return PB_CSV_NCOLS;
}

const char *pb_csv_column(int i)
{
    if (i < 0 || i >= PB_CSV_NCOLS)
        return NULL;
    return pb_csv_cols[i].name;
}

pb_csv_type_t pb_csv_column_type(int i)
{
    return pb_csv_cols[i].type;
}

size_t pb_csv_column_offset(int i)
{
    return pb_csv_cols[i].offset;
}
