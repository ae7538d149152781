/* pb_place.h - which link each group of a layout crosses.
 *
 * A minimal rank layout in Megatron order (tp fastest, then cp, ep, dp,
 * pp: rank = tp + TP*(cp + CP*(ep + EP*(dp + DP*pp)))), enough to place
 * groups until patterns/ owns the layout; a group of kind K holds the
 * ranks that differ only in their K coordinate.  Each group kind gets the
 * slowest link among all pairs of all its groups. */
#ifndef PB_PLACE_H
#define PB_PLACE_H

#include "../util/pb_err.h"
#include "../core/pb_link.h"

typedef enum pb_group_kind { PB_PK_TP, PB_PK_CP, PB_PK_EP, PB_PK_DP, PB_PK_PP, PB_PK_COUNT } pb_group_kind_t;

typedef struct pb_place_layout {
    int size[PB_PK_COUNT]; /* 0 = not given (dp: fills the world; others 1) */
} pb_place_layout_t;

const char *pb_group_kind_name(pb_group_kind_t k);

/* Completes a layout for `world` ranks: missing sizes become 1, a missing
 * dp takes what is left.  PB_EINPUT when the sizes do not multiply to the
 * world. */
int pb_place_layout_fit(pb_place_layout_t *l, int world, pb_err_t *err);

/* Distance in ranks between neighbours of a kind. */
int pb_place_stride(const pb_place_layout_t *l, pb_group_kind_t k);

/* The link between two world ranks. */
typedef pb_link_t (*pb_pair_link_fn)(const void *ctx, int a, int b);

/* The slowest link of any pair inside any group of kind k (X for groups
 * of one rank). */
pb_link_t pb_place_slowest(const pb_place_layout_t *l, int world, pb_group_kind_t k,
                           pb_pair_link_fn f, const void *ctx);

#endif
