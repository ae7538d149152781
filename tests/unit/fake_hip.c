/* fake_hip.c - a stand-in for AMD's HIP runtime (libamdhip64), built as
 * libamdhip64.so.5 in a folder of its own, for the unit tests of the
 * parts that open the real one with dlopen (collectives/pb_hip_kern.c
 * and, later, the HIP runtime table).  There is no AMD GPU here: "device
 * memory" is host memory, a stream is any pointer, every queued operation
 * runs at once (so stream order holds trivially), and a kernel launch is
 * recorded, not run, for the test to read back (pb_fake_hip_last): its
 * kernel, grid, block and first argument (8 bytes in every parbench
 * kernel: a buffer or a tick count), copied while the caller's argument
 * array still lives.
 *
 * Each entry point is one small function with HIP's C signature written
 * in plain C types (hipError_t is an int enum, handles are pointers,
 * hipMemcpyKind and hipDeviceAttribute_t are int enums), so that this
 * file needs no HIP header.  To add one: declare it in the list below,
 * define it beneath with the code HIP documents for its failures. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* hipError_t values (hip_runtime_api.h) */
#define HIP_OK 0
#define HIP_INVALID_VALUE 1
#define HIP_INVALID_IMAGE 200
#define HIP_NOT_FOUND 500
/* hipDeviceAttribute_t values (HIP 5.2's hip_runtime_api.h) */
#define HIP_ATTR_MULTIPROCESSOR_COUNT 63

int hipModuleLoadData(void **module, const void *image);
int hipModuleGetFunction(void **function, void *module, const char *name);
int hipModuleLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                          unsigned by, unsigned bz, unsigned shared, void *stream, void **args,
                          void **extra);
int hipModuleUnload(void *module);
int hipMemcpy(void *dst, const void *src, size_t n, int kind);
int hipMemcpyAsync(void *dst, const void *src, size_t n, int kind, void *stream);
int hipStreamSynchronize(void *stream);
#ifndef PB_FAKE_HIP_52
int hipLaunchHostFunc(void *stream, void (*fn)(void *), void *data);
#endif
int hipStreamAddCallback(void *stream, void (*fn)(void *, int, void *), void *data,
                         unsigned flags);
int hipGetDevice(int *device);
int hipDeviceGetAttribute(int *value, int attr, int device);
/* for the tests: the last launch's kernel (NULL before any), and how many
 * launches there were */
const char *pb_fake_hip_last(unsigned *grid, unsigned *block, uint64_t *arg0, int *launches);

/* ---- modules: any AMDGPU ELF loads; a function is its name ---- */

/* The handles hipModuleGetFunction gives: the kernels' names, kept */
#define MAX_FUNCS 16
static _Thread_local char funcs[MAX_FUNCS][64];
static _Thread_local int nfuncs;
static int module_token; /* a module's handle points here */

/* hipErrorInvalidImage unless `image` starts as an ELF for AMDGPU does
 * (e_machine 224 at byte 18, little-endian) */
int hipModuleLoadData(void **module, const void *image)
{
    const unsigned char *b = image;
    if (b == NULL || memcmp(b, "\177ELF", 4) != 0 || b[18] != 224 || b[19] != 0)
        return HIP_INVALID_IMAGE;
    *module = &module_token;
    return HIP_OK;
}

int hipModuleGetFunction(void **function, void *module, const char *name)
{
    if (module != &module_token || strlen(name) >= sizeof funcs[0] || nfuncs == MAX_FUNCS)
        return HIP_NOT_FOUND;
    strcpy(funcs[nfuncs], name);
    *function = funcs[nfuncs++];
    return HIP_OK;
}

static _Thread_local const char *last_name;
static _Thread_local unsigned last_grid, last_block;
static _Thread_local uint64_t last_arg0;
static _Thread_local int launches_made;

int hipModuleLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                          unsigned by, unsigned bz, unsigned shared, void *stream, void **args,
                          void **extra)
{
    (void)stream;
    (void)shared;
    if (f == NULL || args == NULL || gy != 1 || gz != 1 || by != 1 || bz != 1 || extra != NULL)
        return HIP_INVALID_VALUE;
    last_name = f;
    last_grid = gx;
    last_block = bx;
    memcpy(&last_arg0, args[0], sizeof last_arg0);
    launches_made++;
    return HIP_OK;
}

const char *pb_fake_hip_last(unsigned *grid, unsigned *block, uint64_t *arg0, int *launches)
{
    *grid = last_grid;
    *block = last_block;
    *arg0 = last_arg0;
    *launches = launches_made;
    return last_name;
}

int hipModuleUnload(void *module)
{
    return module == &module_token ? HIP_OK : HIP_INVALID_VALUE;
}

/* ---- memory and streams: device memory is host memory ---- */

int hipMemcpy(void *dst, const void *src, size_t n, int kind)
{
    (void)kind;
    if (n > 0 && (dst == NULL || src == NULL))
        return HIP_INVALID_VALUE;
    memmove(dst, src, n);
    return HIP_OK;
}

int hipMemcpyAsync(void *dst, const void *src, size_t n, int kind, void *stream)
{
    (void)stream;
    return hipMemcpy(dst, src, n, kind);
}

int hipStreamSynchronize(void *stream)
{
    (void)stream;
    return HIP_OK;
}

/* Both run at once: everything queued before them has already run.
 * Built with PB_FAKE_HIP_52 (pb_fake_hip52), the library is HIP 5.2's as
 * Debian ships it: hipLaunchHostFunc is declared in its header but not
 * exported (nm -D libamdhip64.so.5), hipStreamAddCallback is. */
#ifndef PB_FAKE_HIP_52
int hipLaunchHostFunc(void *stream, void (*fn)(void *), void *data)
{
    (void)stream;
    if (fn == NULL)
        return HIP_INVALID_VALUE;
    fn(data);
    return HIP_OK;
}
#endif

/* hipStreamAddCallback's flags must be 0 (HIP's documentation) */
int hipStreamAddCallback(void *stream, void (*fn)(void *, int, void *), void *data,
                         unsigned flags)
{
    if (fn == NULL || flags != 0)
        return HIP_INVALID_VALUE;
    fn(stream, HIP_OK, data);
    return HIP_OK;
}

/* ---- devices: one, an MI300X-sized one ---- */

int hipGetDevice(int *device)
{
    *device = 0;
    return HIP_OK;
}

/* 304 compute units (AMD's MI300X datasheet); every other attribute is
 * refused as HIP 5.2 refuses one it does not know (the wall clock's) */
int hipDeviceGetAttribute(int *value, int attr, int device)
{
    if (device != 0 || attr != HIP_ATTR_MULTIPROCESSOR_COUNT)
        return HIP_INVALID_VALUE;
    *value = 304;
    return HIP_OK;
}
