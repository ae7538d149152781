/* pb_hostlink.h - the class between two host ranks on one node, from
 * where each is bound (its CPU set): the smallest object holding both
 * bindings decides.  An unbound rank (empty set) counts as bound to the
 * whole node. */
#ifndef PB_HOSTLINK_H
#define PB_HOSTLINK_H

#include <hwloc.h>

#include "../core/pb_link.h"

/* CORE, L3, NODE (one NUMA node), SOCKET (one package) or SYS. */
pb_link_class_t pb_hostlink_class(hwloc_topology_t t, hwloc_const_cpuset_t a,
                                  hwloc_const_cpuset_t b);

#endif
