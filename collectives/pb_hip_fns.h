/* pb_hip_fns.h - the libamdhip64 entry points pb_gpurt_hip.c resolves
 * with dlsym, as typed pointers.
 *
 * The types come from <hip/hip_runtime_api.h> (it compiles as C with
 * __HIP_PLATFORM_AMD__): __typeof__ of a declaration is type-checked but
 * references nothing, so nothing of HIP is linked.  None of these
 * functions passes hipDeviceProp_t, whose layout changed in ROCm 6
 * (hipGetDevicePropertiesR0600): the device's scalars come from
 * hipDeviceGetAttribute and its siblings instead (pb_gpurt_hip.c). */
#ifndef PB_HIP_FNS_H
#define PB_HIP_FNS_H

#ifndef __HIP_PLATFORM_AMD__
#define __HIP_PLATFORM_AMD__ 1
#endif
#include <hip/hip_runtime_api.h>

/* X(member, symbol): every entry point, all required. */
#define PB_HIP_FNS(X)                                                                              \
    X(GetErrorString, hipGetErrorString)                                                           \
    X(GetLastError, hipGetLastError)                                                               \
    X(DriverGetVersion, hipDriverGetVersion)                                                       \
    X(RuntimeGetVersion, hipRuntimeGetVersion)                                                     \
    X(GetDeviceCount, hipGetDeviceCount)                                                           \
    X(SetDevice, hipSetDevice)                                                                     \
    X(GetDevice, hipGetDevice)                                                                     \
    X(DeviceGetName, hipDeviceGetName)                                                             \
    X(DeviceGetPCIBusId, hipDeviceGetPCIBusId)                                                     \
    X(DeviceTotalMem, hipDeviceTotalMem)                                                           \
    X(DeviceGetAttribute, hipDeviceGetAttribute)                                                   \
    X(DeviceSynchronize, hipDeviceSynchronize)                                                     \
    X(MemGetInfo, hipMemGetInfo)                                                                   \
    X(Malloc, hipMalloc)                                                                           \
    X(Free, hipFree)                                                                               \
    X(HostMalloc, hipHostMalloc)                                                                   \
    X(HostFree, hipHostFree)                                                                       \
    X(HostGetDevicePointer, hipHostGetDevicePointer)                                               \
    X(Memcpy, hipMemcpy)                                                                           \
    X(MemcpyAsync, hipMemcpyAsync)                                                                 \
    X(MemsetAsync, hipMemsetAsync)                                                                 \
    X(StreamCreateWithFlags, hipStreamCreateWithFlags)                                             \
    X(StreamDestroy, hipStreamDestroy)                                                             \
    X(StreamSynchronize, hipStreamSynchronize)                                                     \
    X(StreamQuery, hipStreamQuery)                                                                 \
    X(EventCreate, hipEventCreate)                                                                 \
    X(EventDestroy, hipEventDestroy)                                                               \
    X(EventRecord, hipEventRecord)                                                                 \
    X(EventQuery, hipEventQuery)                                                                   \
    X(EventSynchronize, hipEventSynchronize)                                                       \
    X(EventElapsedTime, hipEventElapsedTime)                                                       \
    X(StreamBeginCapture, hipStreamBeginCapture)                                                   \
    X(StreamEndCapture, hipStreamEndCapture)                                                       \
    X(GraphInstantiate, hipGraphInstantiate)                                                       \
    X(GraphLaunch, hipGraphLaunch)                                                                 \
    X(GraphDestroy, hipGraphDestroy)                                                               \
    X(GraphExecDestroy, hipGraphExecDestroy)

#define PB_HIP_MEMBER(member, sym) __typeof__(sym) *member;

typedef struct pb_hip_fns {
    PB_HIP_FNS(PB_HIP_MEMBER)
} pb_hip_fns_t;

#endif
