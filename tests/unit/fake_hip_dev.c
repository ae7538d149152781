/* fake_hip_dev.c - a stand-in for libamdhip64 that answers what the rccl
 * backend's available() asks before it looks for librccl: the device
 * count (FAKE_HIP_DEVICES, default 0), a device's name, memory, compute
 * units and PCI bus id.  Built as libamdhip64.so.6 in a folder of its
 * own and named with PARBENCH_HIP_LIB (tests/cli: cli_rccl_no_rccl).
 *
 * Every other entry point parbench resolves (pb_hip_fns.h, and the
 * kernel loader's, pb_hip_kern.c) exists so that the open succeeds, and
 * answers hipErrorNotSupported (801): nothing here runs work.  They are
 * declared without arguments, a fake's liberty: the caller's arguments
 * sit in registers the stub never reads. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FAKE_NOT_SUPPORTED 801 /* hipErrorNotSupported */

int hipGetDeviceCount(int *n);
int hipGetDeviceCount(int *n)
{
    const char *e = getenv("FAKE_HIP_DEVICES");
    *n = e != NULL ? atoi(e) : 0;
    return *n > 0 ? 0 : 100; /* hipErrorNoDevice, as the real one */
}

const char *hipGetErrorString(int rc);
const char *hipGetErrorString(int rc)
{
    return rc == 0 ? "hipSuccess" : rc == 100 ? "hipErrorNoDevice" : "hipErrorNotSupported";
}

int hipDeviceGetName(char *name, int len, int dev);
int hipDeviceGetName(char *name, int len, int dev)
{
    snprintf(name, (size_t)len, "Fake AMD GPU %d", dev);
    return 0;
}

int hipDeviceTotalMem(size_t *bytes, int dev);
int hipDeviceTotalMem(size_t *bytes, int dev)
{
    (void)dev;
    *bytes = (size_t)192 << 30; /* an MI300X's 192 GiB */
    return 0;
}

int hipDeviceGetAttribute(int *value, int attr, int dev);
int hipDeviceGetAttribute(int *value, int attr, int dev)
{
    (void)attr;
    (void)dev;
    *value = 304; /* an MI300X's compute units */
    return 0;
}

int hipDeviceGetPCIBusId(char *buf, int len, int dev);
int hipDeviceGetPCIBusId(char *buf, int len, int dev)
{
    snprintf(buf, (size_t)len, "0000:%02x:00.0", 0xc1 + dev);
    return 0;
}

int hipGetDevice(int *dev);
int hipGetDevice(int *dev)
{
    *dev = 0;
    return 0;
}

#define FAKE_STUB(name)                                                                            \
    int name(void);                                                                                \
    int name(void) { return FAKE_NOT_SUPPORTED; }

FAKE_STUB(hipGetLastError)
FAKE_STUB(hipDriverGetVersion)
FAKE_STUB(hipRuntimeGetVersion)
FAKE_STUB(hipSetDevice)
FAKE_STUB(hipDeviceSynchronize)
FAKE_STUB(hipMemGetInfo)
FAKE_STUB(hipMalloc)
FAKE_STUB(hipFree)
FAKE_STUB(hipHostMalloc)
FAKE_STUB(hipHostFree)
FAKE_STUB(hipHostGetDevicePointer)
FAKE_STUB(hipMemcpy)
FAKE_STUB(hipMemcpyAsync)
FAKE_STUB(hipMemsetAsync)
FAKE_STUB(hipStreamCreateWithFlags)
FAKE_STUB(hipStreamDestroy)
FAKE_STUB(hipStreamSynchronize)
FAKE_STUB(hipStreamQuery)
FAKE_STUB(hipEventCreate)
FAKE_STUB(hipEventDestroy)
FAKE_STUB(hipEventRecord)
FAKE_STUB(hipEventQuery)
FAKE_STUB(hipEventSynchronize)
FAKE_STUB(hipEventElapsedTime)
FAKE_STUB(hipStreamBeginCapture)
FAKE_STUB(hipStreamEndCapture)
FAKE_STUB(hipGraphInstantiate)
FAKE_STUB(hipGraphLaunch)
FAKE_STUB(hipGraphDestroy)
FAKE_STUB(hipGraphExecDestroy)
FAKE_STUB(hipModuleLoadData)
FAKE_STUB(hipModuleGetFunction)
FAKE_STUB(hipModuleLaunchKernel)
FAKE_STUB(hipModuleUnload)
FAKE_STUB(hipLaunchHostFunc)
