/* pb_prof_api.h - the NCCL profiler plugin API, as parbench's plugin
 * implements it: the structs NCCL passes, declared here from the
 * definitions NCCL publishes for plugin authors (plugins/profiler/
 * example/nccl/profiler_v3.h .. profiler_v5.h of the NCCL repository;
 * NCCL asks plugins to copy the versions they support rather than
 * include NCCL's headers, which a plugin build need not have).  Field
 * layouts must match NCCL's exactly: they are read as NCCL lays them out.
 *
 * NCCL looks up the symbols ncclProfiler_v6, _v5, ... in that order
 * (src/plugin/profiler.cc) and uses the first it finds.  The versions
 * and the NCCL releases that introduced them (the NCCL repository's
 * history): v1 2.23, v2 2.24, v3 2.26, v4 2.27, v5 2.28, v6 2.29 (which
 * still loads a v5 plugin).  What each version added that parbench reads:
 *  - v3: coll/p2p descriptors carry the communicator (name, commHash);
 *        init has no communicator argument; kernel channel events
 *        (ncclProfileKernelCh) exist, without GPU timestamps;
 *  - v4: init receives the communicator (name, hash, nodes, ranks,
 *        rank) and a logger; the communicator fields leave the
 *        descriptors; kernel channel events carry pTimer, the GPU's
 *        global timer at their start, and KernelChStop carries it at
 *        their end; coll nMaxChannels becomes nChannels; p2p gains
 *        nChannels;
 *  - v5: the descriptor's type widens to 64 bits; init takes the
 *        communicator id first; API-level events (GroupApi, CollApi,
 *        P2pApi, KernelLaunch) are added, and coll/p2p gain parentGroup.
 * ncclResult_t and the logger's enum arguments are C enums (int-sized):
 * declared here as int. */
#ifndef PB_PROF_API_H
#define PB_PROF_API_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef int pb_ncclResult_t; /* ncclSuccess = 0 */
#define PB_NCCL_SUCCESS 0
#define PB_NCCL_INTERNAL_ERROR 3

typedef void (*pb_nccl_logger_t)(int level, unsigned long flags, const char *file, int line,
                                 const char *fmt, ...);
#define PB_NCCL_LOG_WARN 2
#define PB_NCCL_LOG_INFO 3
#define PB_NCCL_PROFILE_SUBSYS 16384 /* NCCL_PROFILE */

/* Event types (the activation mask's bits) and the states parbench reads. */
enum {
    PB_NCCL_PROF_GROUP = 1 << 0,
    PB_NCCL_PROF_COLL = 1 << 1,
    PB_NCCL_PROF_P2P = 1 << 2,
    PB_NCCL_PROF_PROXY_OP = 1 << 3,
    PB_NCCL_PROF_PROXY_STEP = 1 << 4,
    PB_NCCL_PROF_PROXY_CTRL = 1 << 5,
    PB_NCCL_PROF_KERNEL_CH = 1 << 6,
    PB_NCCL_PROF_NET_PLUGIN = 1 << 7,
    PB_NCCL_PROF_GROUP_API = 1 << 8,   /* v5 */
    PB_NCCL_PROF_COLL_API = 1 << 9,    /* v5 */
    PB_NCCL_PROF_P2P_API = 1 << 10,    /* v5 */
    PB_NCCL_PROF_KERNEL_LAUNCH = 1 << 11 /* v5 */
};
#define PB_NCCL_PROF_KERNEL_CH_STOP 22 /* ncclProfilerKernelChStop (v4+) */

/* Descriptor members every version lays out alike (the kernel channel's
 * from v4 on), named once: the same layout as NCCL's anonymous structs. */
typedef struct {
    pid_t pid;
    uint8_t channelId;
    int peer;
    int nSteps;
    int chunkSize;
    int isSend;
} pb_nccl_proxy_op_t;

typedef struct {
    int step;
} pb_nccl_proxy_step_t;

typedef struct {
    int64_t id;
    void *data;
} pb_nccl_net_plugin_t;

typedef struct {
    uint8_t channelId;
    uint64_t pTimer; /* GPU globaltimer at the channel's start */
} pb_nccl_kernel_ch_t;

/* ---- v3 (NCCL 2.26) ---- */
typedef struct {
    uint8_t type;
    void *parentObj;
    int rank;
    union {
        struct {
            const char *name;
            uint64_t commHash;
            uint64_t seqNumber;
            const char *func;
            void const *sendBuff;
            void *recvBuff;
            size_t count;
            int root;
            const char *datatype;
            uint8_t nMaxChannels;
            uint8_t nWarps;
            const char *algo;
            const char *proto;
        } coll;
        struct {
            const char *name;
            uint64_t commHash;
            const char *func;
            void *buff;
            const char *datatype;
            size_t count;
            int peer;
        } p2p;
        pb_nccl_proxy_op_t proxyOp;
        pb_nccl_proxy_step_t proxyStep;
        struct {
            uint8_t channelId;
        } kernelCh;
        pb_nccl_net_plugin_t netPlugin;
    };
} pb_nccl_descr_v3_t;

typedef union {
    struct {
        size_t transSize;
        int steps;
    } proxyOp;
    struct {
        int appendedProxyOps;
    } proxyCtrl;
} pb_nccl_state_args_v3_t;

typedef struct {
    const char *name;
    pb_ncclResult_t (*init)(void **context, int *eActivationMask);
    pb_ncclResult_t (*startEvent)(void *context, void **eHandle, pb_nccl_descr_v3_t *eDescr);
    pb_ncclResult_t (*stopEvent)(void *eHandle);
    pb_ncclResult_t (*recordEventState)(void *eHandle, int eState,
                                        pb_nccl_state_args_v3_t *eStateArgs);
    pb_ncclResult_t (*finalize)(void *context);
} pb_nccl_profiler_v3_t;

/* ---- v4 (NCCL 2.27) ---- */
typedef struct {
    uint8_t type;
    void *parentObj;
    int rank;
    union {
        struct {
            uint64_t seqNumber;
            const char *func;
            void const *sendBuff;
            void *recvBuff;
            size_t count;
            int root;
            const char *datatype;
            uint8_t nChannels;
            uint8_t nWarps;
            const char *algo;
            const char *proto;
        } coll;
        struct {
            const char *func;
            void *buff;
            const char *datatype;
            size_t count;
            int peer;
            uint8_t nChannels;
        } p2p;
        pb_nccl_proxy_op_t proxyOp;
        pb_nccl_proxy_step_t proxyStep;
        pb_nccl_kernel_ch_t kernelCh;
        pb_nccl_net_plugin_t netPlugin;
    };
} pb_nccl_descr_v4_t;

/* v4 and v5 share this union's layout */
typedef union {
    struct {
        size_t transSize;
    } proxyStep;
    struct {
        int appendedProxyOps;
    } proxyCtrl;
    struct {
        void *data;
    } netPlugin;
    struct {
        uint64_t pTimer;
    } kernelCh;
} pb_nccl_state_args_v4_t;

typedef struct {
    const char *name;
    pb_ncclResult_t (*init)(void **context, int *eActivationMask, const char *commName,
                            uint64_t commHash, int nNodes, int nranks, int rank,
                            pb_nccl_logger_t logfn);
    pb_ncclResult_t (*startEvent)(void *context, void **eHandle, pb_nccl_descr_v4_t *eDescr);
    pb_ncclResult_t (*stopEvent)(void *eHandle);
    pb_ncclResult_t (*recordEventState)(void *eHandle, int eState,
                                        pb_nccl_state_args_v4_t *eStateArgs);
    pb_ncclResult_t (*finalize)(void *context);
} pb_nccl_profiler_v4_t;

/* ---- v5 (NCCL 2.28) ---- */
typedef struct {
    uint64_t type;
    void *parentObj;
    int rank;
    union {
        struct {
            bool graphCaptured;
            int groupDepth;
        } groupApi;
        struct {
            const char *func;
            size_t count;
            const char *datatype;
            int root;
            void *stream;
            bool graphCaptured;
        } collApi;
        struct {
            const char *func;
            size_t count;
            const char *datatype;
            void *stream;
            bool graphCaptured;
        } p2pApi;
        struct {
            void *stream;
        } kernelLaunch;
        struct {
            uint64_t seqNumber;
            const char *func;
            void const *sendBuff;
            void *recvBuff;
            size_t count;
            int root;
            const char *datatype;
            uint8_t nChannels;
            uint8_t nWarps;
            const char *algo;
            const char *proto;
            void *parentGroup;
        } coll;
        struct {
            const char *func;
            void *buff;
            const char *datatype;
            size_t count;
            int peer;
            uint8_t nChannels;
            void *parentGroup;
        } p2p;
        pb_nccl_proxy_op_t proxyOp;
        pb_nccl_proxy_step_t proxyStep;
        pb_nccl_kernel_ch_t kernelCh;
        pb_nccl_net_plugin_t netPlugin;
    };
} pb_nccl_descr_v5_t;

typedef pb_nccl_state_args_v4_t pb_nccl_state_args_v5_t;

typedef struct {
    const char *name;
    pb_ncclResult_t (*init)(void **context, uint64_t commId, int *eActivationMask,
                            const char *commName, int nNodes, int nranks, int rank,
                            pb_nccl_logger_t logfn);
    pb_ncclResult_t (*startEvent)(void *context, void **eHandle, pb_nccl_descr_v5_t *eDescr);
    pb_ncclResult_t (*stopEvent)(void *eHandle);
    pb_ncclResult_t (*recordEventState)(void *eHandle, int eState,
                                        pb_nccl_state_args_v5_t *eStateArgs);
    pb_ncclResult_t (*finalize)(void *context);
} pb_nccl_profiler_v5_t;

#endif
