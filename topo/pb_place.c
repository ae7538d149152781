#include "pb_place.h"

static const char *const kind_names[PB_PK_COUNT] = {"tp", "cp", "ep", "dp", "pp"};

const char *pb_group_kind_name(pb_group_kind_t k)
{
    return (unsigned)k < PB_PK_COUNT ? kind_names[k] : "?";
}

int pb_place_layout_fit(pb_place_layout_t *l, int world, pb_err_t *err)
{
    long long prod = 1;
    for (int k = 0; k < PB_PK_COUNT; k++)
        if (k != PB_PK_DP) {
            if (l->size[k] == 0)
                l->size[k] = 1;
            prod *= l->size[k];
        }
    if (l->size[PB_PK_DP] == 0) {
        if (prod > world || world % prod != 0)
            return pb_err_set(err, PB_EINPUT,
                              "tp*cp*ep*pp = %lld does not divide the %d ranks", prod, world);
        l->size[PB_PK_DP] = (int)(world / prod);
    }
    prod *= l->size[PB_PK_DP];
    if (prod != world)
        return pb_err_set(err, PB_EINPUT, "tp*cp*ep*dp*pp = %lld, but the world has %d ranks",
                          prod, world);
    return PB_OK;
}

int pb_place_stride(const pb_place_layout_t *l, pb_group_kind_t k)
{
    int s = 1;
    for (int i = 0; i < (int)k; i++)
        s *= l->size[i];
    return s;
}

pb_link_t pb_place_slowest(const pb_place_layout_t *l, int world, pb_group_kind_t k,
                           pb_pair_link_fn f, const void *ctx)
{
    pb_link_t worst = {PB_LINK_SELF, 0};
    int n = l->size[k], stride = pb_place_stride(l, k);
    for (int r = 0; r < world; r++) {
        if ((r / stride) % n != 0) /* not the first member of its group */
            continue;
        for (int i = 0; i < n; i++)
            for (int j = i + 1; j < n; j++) {
                worst = pb_link_slower(worst, f(ctx, r + i * stride, r + j * stride));
                if (worst.cls == PB_LINK_NET) /* nothing is slower */
                    return worst;
            }
    }
    return worst;
}
