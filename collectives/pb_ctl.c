#include "pb_ctl.h"

#include <stdlib.h>

void pb_ctl_abort(pb_ctl_t *c, int code)
{
    c->ops->abort(c, code);
    exit(code); /* not reached: every abort ends the process */
}
