/* pb_profile_print.h - parbench profile's findings as compact tables on
 * standard output, one per finding, in the order the HTML page has them
 * (jobprof/pb_jp_html.h reads the same input). */
#ifndef PB_PROFILE_PRINT_H
#define PB_PROFILE_PRINT_H

#include "../../jobprof/pb_jp_html.h"

void pb_profile_print(const pb_jp_html_in_t *in);

#endif
