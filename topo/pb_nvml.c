/* NVLink on a live machine through NVML, loaded with dlopen so parbench
 * builds and runs where no NVIDIA driver exists.  Only the handful of
 * entry points needed are declared, with NVML's documented signatures. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb_dl.h"
#include "pb_nvlink.h"

typedef void *nvml_dev_t;
/* nvmlPciInfo_t as of NVML's v2/v3 PCI queries (nvml.h) */
typedef struct {
    char bus_id_legacy[16];
    unsigned domain, bus, device, pci_device_id, pci_subsystem_id;
    char bus_id[32];
} nvml_pci_t;

#define PB_NVML_MAX_LINKS 18 /* NVML_NVLINK_MAX_LINKS */

typedef struct nvml_api {
    int (*init)(void);
    int (*shutdown)(void);
    int (*count)(unsigned *);
    int (*handle)(unsigned, nvml_dev_t *);
    int (*pci)(nvml_dev_t, nvml_pci_t *);
    int (*state)(nvml_dev_t, unsigned, int *);
    int (*remote)(nvml_dev_t, unsigned, nvml_pci_t *);
} nvml_api_t;

static int count_links(pb_topo_t *tp, const nvml_api_t *api, pb_err_t *err)
{
    int n = tp->ngpus;
    double *direct = calloc((size_t)n * (size_t)n + 1, sizeof *direct);
    double *sw = calloc((size_t)n + 1, sizeof *sw);
    if (direct == NULL || sw == NULL) {
        free(direct);
        free(sw);
        return pb_err_set(err, PB_ERUNTIME, "out of memory counting NVLinks");
    }
    unsigned ndev = 0;
    if (api->count(&ndev) != 0)
        ndev = 0;
    for (unsigned i = 0; i < ndev; i++) {
        nvml_dev_t h;
        nvml_pci_t pi;
        if (api->handle(i, &h) != 0 || api->pci(h, &pi) != 0)
            continue;
        int a = pb_topo_gpu_by_busid(tp, pi.bus_id);
        if (a < 0)
            continue;
        for (unsigned l = 0; l < PB_NVML_MAX_LINKS; l++) {
            int active = 0;
            nvml_pci_t rp;
            if (api->state(h, l, &active) != 0 || !active || api->remote(h, l, &rp) != 0)
                continue;
            int b = pb_topo_gpu_by_busid(tp, rp.bus_id);
            if (b >= 0)
                direct[a * n + b] += 1.0;
            else
                sw[a] += 1.0; /* an NVSwitch (or a CPU: counted as fabric) */
        }
    }
    pb_nvlink_combine(tp, direct, sw);
    tp->nvlink_source = PB_NVLINK_NVML;
    free(direct);
    free(sw);
    return PB_OK;
}

int pb_nvlink_from_nvml(pb_topo_t *tp, pb_err_t *err)
{
    if (tp->ngpus == 0)
        return PB_OK;
    void *lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) {
        snprintf(tp->nvlink_note, sizeof tp->nvlink_note,
                 "NVML (libnvidia-ml.so.1) not found: no NVLink information");
        return PB_OK;
    }
    nvml_api_t api;
    int ok = pb_dl_sym(lib, "nvmlInit_v2", &api.init) &&
             pb_dl_sym(lib, "nvmlShutdown", &api.shutdown) &&
             pb_dl_sym(lib, "nvmlDeviceGetCount_v2", &api.count) &&
             pb_dl_sym(lib, "nvmlDeviceGetHandleByIndex_v2", &api.handle) &&
             pb_dl_sym(lib, "nvmlDeviceGetPciInfo_v3", &api.pci) &&
             pb_dl_sym(lib, "nvmlDeviceGetNvLinkState", &api.state) &&
             pb_dl_sym(lib, "nvmlDeviceGetNvLinkRemotePciInfo_v2", &api.remote);
    int code = PB_OK;
    if (!ok)
        snprintf(tp->nvlink_note, sizeof tp->nvlink_note,
                 "NVML lacks the NVLink queries: no NVLink information");
    else if (api.init() != 0)
        snprintf(tp->nvlink_note, sizeof tp->nvlink_note,
                 "NVML did not initialize (no driver?): no NVLink information");
    else {
        code = count_links(tp, &api, err);
        api.shutdown();
    }
    dlclose(lib);
    return code;
}
