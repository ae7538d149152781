/* pb_linkrate.h - the line rates the kernel states for a node's links:
 * a PCIe device's maximum link (speed and width) and a NIC's port rate,
 * read from sysfs.  hwloc keeps only the PCIe link's *current* speed,
 * which a GPU lowers while idle (to Gen1 in power saving), so an
 * expectation taken from it would be a fraction of the link; the maximum
 * is what the link trained for is judged against.
 *
 * root is the sysfs mount ("/sys"; tests give a directory of fixture
 * files, as hwloc's HWLOC_FSROOT does).  Every reader returns 0 for
 * "unknown": a missing file, a virtual device, an unparsable value. */
#ifndef PB_LINKRATE_H
#define PB_LINKRATE_H

/* PCIe link rate per direction, 10^9 B/s, from GT/s and lanes (0 when
 * either is not positive): 8b/10b encoding up to 5 GT/s (Gen1, Gen2),
 * 128b/130b from 8 GT/s (Gen3 on; PCI-SIG): Gen4 x16 31.5, Gen5 x16
 * 63.0 GB/s. */
double pb_linkrate_pcie_gbps(double gts, int lanes);

/* The PCIe device at bus id "dddd:bb:dd.f": max_link_speed ("32.0 GT/s
 * PCIe") and max_link_width ("16") as 10^9 B/s per direction. */
double pb_linkrate_pcie(const char *root, const char *busid);

/* A NIC by the name hwloc gives it: an InfiniBand/RoCE device (mlx5_0:
 * class/infiniband/NAME/ports/1/rate, "400 Gb/sec (4X NDR)") or a network
 * interface (eth0: class/net/NAME/speed, Mb/s), as 10^9 B/s. */
double pb_linkrate_nic(const char *root, const char *name);

#endif
