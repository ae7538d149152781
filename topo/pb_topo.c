#include "pb_topo.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pb_kfd.h"
#include "pb_nvlink.h"
#include "pb_pci_path.h"

void pb_topo_skip_plugins(void)
{
    setenv("HWLOC_PLUGINS_BLACKLIST", PB_TOPO_SKIPPED_PLUGINS, 0);
}

static int is_gpu(hwloc_obj_t o)
{
    unsigned cls = o->attr->pcidev.class_id, ven = o->attr->pcidev.vendor_id;
    if (ven == 0x10de) /* NVIDIA: 3D controller or VGA (NVSwitches are 0x0680) */
        return cls == 0x0302 || cls == 0x0300;
    if (ven == 0x1002) /* AMD: any display controller */
        return (cls >> 8) == 0x03;
    return 0;
}

static int is_nic(hwloc_obj_t o)
{
    return (o->attr->pcidev.class_id >> 8) == 0x02; /* Ethernet, InfiniBand, ... */
}

/* OS devices below a PCI device name it: the GPU model, the NIC name
 * (an OpenFabrics device such as mlx5_0 before a network interface). */
static void describe(hwloc_obj_t pci, pb_topo_dev_t *d, int nic, int index)
{
    const char *ofed = NULL, *net = NULL;
    for (hwloc_obj_t c = pci->io_first_child; c != NULL; c = c->next_sibling) {
        if (c->type != HWLOC_OBJ_OS_DEVICE)
            continue;
        const char *m = hwloc_obj_get_info_by_name(c, "GPUModel");
        if (m != NULL && d->model[0] == '\0')
            snprintf(d->model, sizeof d->model, "%s", m);
        if (c->attr->osdev.type == HWLOC_OBJ_OSDEV_OPENFABRICS && ofed == NULL)
            ofed = c->name;
        if (c->attr->osdev.type == HWLOC_OBJ_OSDEV_NETWORK && net == NULL)
            net = c->name;
    }
    if (!nic)
        snprintf(d->name, sizeof d->name, "GPU%d", index);
    else
        snprintf(d->name, sizeof d->name, "%s",
                 ofed ? ofed : net ? net : "NIC");
    if (nic && !ofed && !net)
        snprintf(d->name, sizeof d->name, "NIC%d", index);
    const struct hwloc_pcidev_attr_s *p = &pci->attr->pcidev;
    snprintf(d->busid, sizeof d->busid, "%04x:%02x:%02x.%x", p->domain, p->bus, p->dev, p->func);
    d->pci = pci;
}

static int list_devices(pb_topo_t *tp, pb_err_t *err)
{
    int ng = 0, nn = 0;
    for (hwloc_obj_t o = NULL; (o = hwloc_get_next_pcidev(tp->t, o)) != NULL;) {
        ng += is_gpu(o);
        nn += is_nic(o);
    }
    tp->gpus = calloc((size_t)ng + 1, sizeof *tp->gpus);
    tp->nics = calloc((size_t)nn + 1, sizeof *tp->nics);
    tp->nvlinks = calloc((size_t)ng * (size_t)ng + 1, sizeof *tp->nvlinks);
    tp->xgmi = calloc((size_t)ng * (size_t)ng + 1, sizeof *tp->xgmi);
    if (tp->gpus == NULL || tp->nics == NULL || tp->nvlinks == NULL || tp->xgmi == NULL)
        return pb_err_set(err, PB_ERUNTIME, "out of memory listing PCI devices");
    /* hwloc lists PCI devices in bus order: GPU numbers follow it, as
     * nvidia-smi and CUDA_DEVICE_ORDER=PCI_BUS_ID do */
    for (hwloc_obj_t o = NULL; (o = hwloc_get_next_pcidev(tp->t, o)) != NULL;) {
        if (is_gpu(o)) {
            describe(o, &tp->gpus[tp->ngpus], 0, tp->ngpus);
            tp->ngpus++;
        } else if (is_nic(o)) {
            describe(o, &tp->nics[tp->nnics], 1, tp->nnics);
            tp->nnics++;
        }
    }
    return PB_OK;
}

/* The live machine (no path, no buffer), an XML file, or XML in memory. */
static int load(pb_topo_t *tp, const char *xml_path, const char *buf, size_t len, int with_io,
                pb_err_t *err)
{
    memset(tp, 0, sizeof *tp);
    if (xml_path != NULL && access(xml_path, R_OK) != 0)
        return pb_err_set(err, PB_EINPUT, "cannot read topology '%s': %s", xml_path,
                          strerror(errno));
    if (buf != NULL && (len == 0 || len > (size_t)INT_MAX - 1))
        return pb_err_set(err, PB_EINPUT, "topology XML of %zu bytes: empty or too large", len);
    if (hwloc_topology_init(&tp->t) != 0)
        return pb_err_set(err, PB_ERUNTIME, "hwloc_topology_init failed");
    int rc = 0;
    if (xml_path != NULL)
        rc = hwloc_topology_set_xml(tp->t, xml_path);
    else if (buf != NULL) /* hwloc wants the terminating NUL counted */
        rc = hwloc_topology_set_xmlbuffer(tp->t, buf, (int)len + 1);
    if (buf != NULL)
        xml_path = "(memory)";
    if (rc == 0 && with_io) /* without this no PCI device is loaded */
        rc = hwloc_topology_set_io_types_filter(tp->t, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
    if (rc == 0)
        rc = hwloc_topology_load(tp->t);
    if (rc != 0) {
        hwloc_topology_destroy(tp->t);
        tp->t = NULL;
        if (xml_path != NULL)
            return pb_err_set(err, PB_EINPUT, "cannot load topology '%s': not a valid hwloc XML file",
                              xml_path);
        return pb_err_set(err, PB_ERUNTIME, "hwloc cannot discover this machine");
    }
    if (!with_io)
        return PB_OK;
    int code = list_devices(tp, err);
    if (code == PB_OK)
        code = xml_path != NULL ? pb_nvlink_from_distances(tp, err) : pb_nvlink_from_nvml(tp, err);
    if (code == PB_OK && xml_path == NULL) /* AMD GPUs of the live machine */
        code = pb_kfd_topo(tp, pb_kfd_sysfs_root(), err);
    if (code != PB_OK)
        pb_topo_free(tp);
    return code;
}

/* The child's exit code when the document loads, or is refused cleanly. */
#define PROBE_LOADS 0
#define PROBE_REFUSED 10

/* hwloc 2.9 dereferences NULL inside hwloc_topology_load on some
 * malformed documents (fuzzing found them: tests/fuzz/hwloc-crashes), and
 * no check of ours can tell those documents in advance: parsing them is
 * hwloc's job.  A file from the user must never crash parbench, so a
 * document is read first in a child process, silenced; if the child dies
 * (a signal, or a sanitizer's exit) the document is refused as bad input
 * and the parent never touches it.  Loading the live machine needs no
 * probe.  If the child cannot be made, the document is read directly. */
static int probe(const char *xml_path, const char *buf, size_t len, int with_io, pb_err_t *err)
{
    fflush(NULL); /* nothing buffered is written twice */
    pid_t pid = fork();
    if (pid < 0)
        return PB_OK;
    if (pid == 0) {
        int fd = open("/dev/null", O_WRONLY);
        if (fd >= 0) { /* hwloc's complaints, or a sanitizer's report */
            dup2(fd, STDOUT_FILENO);
            dup2(fd, STDERR_FILENO);
        }
        pb_topo_t tp;
        pb_err_t e;
        pb_err_clear(&e);
        _exit(load(&tp, xml_path, buf, len, with_io, &e) == PB_OK ? PROBE_LOADS : PROBE_REFUSED);
    }
    int st = 0;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return PB_OK;
    if (WIFEXITED(st) && (WEXITSTATUS(st) == PROBE_LOADS || WEXITSTATUS(st) == PROBE_REFUSED))
        return PB_OK; /* the real load says which */
    const char *name = xml_path != NULL ? xml_path : "(memory)";
    if (WIFSIGNALED(st))
        return pb_err_set(err, PB_EINPUT, "cannot load topology '%s': hwloc crashed reading it "
                          "(signal %d): the file is malformed", name, WTERMSIG(st));
    return pb_err_set(err, PB_EINPUT, "cannot load topology '%s': hwloc failed reading it "
                      "(exit %d): the file is malformed", name, WEXITSTATUS(st));
}

int pb_topo_load(pb_topo_t *tp, const char *xml_path, int with_io, pb_err_t *err)
{
    memset(tp, 0, sizeof *tp);
    if (xml_path != NULL && probe(xml_path, NULL, 0, with_io, err) != PB_OK)
        return err->code;
    return load(tp, xml_path, NULL, 0, with_io, err);
}

int pb_topo_load_xmlbuffer(pb_topo_t *tp, const char *xml, size_t len, int with_io,
                           pb_err_t *err)
{
    memset(tp, 0, sizeof *tp);
    if (xml != NULL && probe(NULL, xml, len, with_io, err) != PB_OK)
        return err->code;
    return load(tp, NULL, xml, len, with_io, err);
}

void pb_topo_free(pb_topo_t *tp)
{
    if (tp->t != NULL)
        hwloc_topology_destroy(tp->t);
    free(tp->gpus);
    free(tp->nics);
    free(tp->nvlinks);
    free(tp->xgmi);
    memset(tp, 0, sizeof *tp);
}

pb_link_t pb_topo_gpu_gpu(const pb_topo_t *tp, int a, int b)
{
    pb_link_t l = {PB_LINK_SELF, 0};
    if (a == b)
        return l;
    int x = tp->xgmi != NULL ? tp->xgmi[a * tp->ngpus + b] : 0;
    if (x > 0) {
        l.cls = PB_LINK_XGMI;
        l.nvlinks = x;
        return l;
    }
    int n = tp->nvlinks[a * tp->ngpus + b];
    if (n > 0) {
        l.cls = PB_LINK_NV;
        l.nvlinks = n;
        return l;
    }
    l.cls = pb_pci_path_class(tp->gpus[a].pci, tp->gpus[b].pci);
    return l;
}

pb_link_t pb_topo_gpu_nic(const pb_topo_t *tp, int g, int n)
{
    pb_link_t l = {pb_pci_path_class(tp->gpus[g].pci, tp->nics[n].pci), 0};
    return l;
}

int pb_topo_nearest_nic(const pb_topo_t *tp, int g)
{
    int best = -1, best_rank = 0;
    for (int n = 0; n < tp->nnics; n++) {
        int r = pb_link_rank(pb_topo_gpu_nic(tp, g, n));
        if (best < 0 || r < best_rank) {
            best = n;
            best_rank = r;
        }
    }
    return best;
}

void pb_topo_affinity(const pb_topo_t *tp, hwloc_obj_t pci, char *cpus, size_t clen, char *numa,
                      size_t nlen)
{
    hwloc_obj_t o = hwloc_get_non_io_ancestor_obj(tp->t, pci);
    if (o == NULL || o->cpuset == NULL) {
        snprintf(cpus, clen, "N/A");
        snprintf(numa, nlen, "N/A");
        return;
    }
    if (hwloc_bitmap_list_snprintf(cpus, clen, o->cpuset) < 0)
        snprintf(cpus, clen, "?");
    if (o->nodeset == NULL || hwloc_bitmap_list_snprintf(numa, nlen, o->nodeset) < 0)
        snprintf(numa, nlen, "N/A");
}

int pb_topo_ncores(const pb_topo_t *tp)
{
    int n = hwloc_get_nbobjs_by_type(tp->t, HWLOC_OBJ_CORE);
    return n > 0 ? n : hwloc_get_nbobjs_by_type(tp->t, HWLOC_OBJ_PU);
}
