/* test_hip_kern.c - the AMD kernels as built (issue 51): the code objects
 * embedded are the targets configure kept, each an AMDGPU ELF holding the
 * five kernels; a device's gcnArchName picks its object; and, where none
 * matches, the host fallback fills and checks right - run here through
 * a fake HIP runtime (fake_hip.c) whose "device memory" is host memory.
 * Built only where HIP is (tests/CMakeLists.txt). */
#include <dlfcn.h>
#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/pb_hip_kernels.h"
#include "collectives/pb_hip_kobj.h"
#include "util/pb_dl.h"

#include "pb_test.h"

static const char *const kernels[] = {"pb_hip_fill_kernel", "pb_hip_fill_red_kernel",
                                      "pb_hip_check_kernel", "pb_hip_stall_kernel",
                                      "pb_hip_busy_kernel"};

/* Is `name` in a symbol table (.symtab or .dynsym) of the ELF b[0, size)?
 * Every header is copied out (the bytes are not aligned) and every
 * offset checked against size before it is followed. */
static int elf_has_symbol(const unsigned char *b, size_t size, const char *name)
{
    Elf64_Ehdr eh;
    if (size < sizeof eh)
        return 0;
    memcpy(&eh, b, sizeof eh);
    if (eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shoff > size ||
        (size - eh.e_shoff) / sizeof(Elf64_Shdr) < eh.e_shnum)
        return 0;
    for (unsigned i = 0; i < eh.e_shnum; i++) {
        Elf64_Shdr sh, str;
        memcpy(&sh, b + eh.e_shoff + i * sizeof sh, sizeof sh);
        if ((sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) || sh.sh_link >= eh.e_shnum)
            continue;
        memcpy(&str, b + eh.e_shoff + sh.sh_link * sizeof str, sizeof str);
        if (sh.sh_offset > size || sh.sh_size > size - sh.sh_offset || str.sh_offset > size ||
            str.sh_size > size - str.sh_offset)
            continue;
        for (uint64_t j = 0; j < sh.sh_size / sizeof(Elf64_Sym); j++) {
            Elf64_Sym sym;
            memcpy(&sym, b + sh.sh_offset + j * sizeof sym, sizeof sym);
            size_t n = strlen(name);
            if (sym.st_name < str.sh_size && str.sh_size - sym.st_name > n &&
                memcmp(b + str.sh_offset + sym.st_name, name, n + 1) == 0)
                return 1;
        }
    }
    return 0;
}

/* The objects: exactly configure's targets, each an AMDGPU ELF (magic
 * 0x7f 'E' 'L' 'F', 64-bit, e_machine EM_AMDGPU = 224: elf.h, LLVM's
 * AMDGPU usage notes) with every kernel pb_hip_kern.c looks up */
static void test_objects(void)
{
    CHECK(strcmp(pb_hip_kern_targets(), PB_HIP_EXPECT_TARGETS) == 0);
    char names[256] = "";
    for (size_t i = 0; i < pb_hip_kobj_count; i++) {
        const pb_hip_kobj_t *o = &pb_hip_kobjs[i];
        Elf64_Ehdr eh;
        CHECK(o->size > sizeof eh);
        if (o->size <= sizeof eh)
            continue;
        memcpy(&eh, o->bytes, sizeof eh);
        CHECK(memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0);
        CHECK(eh.e_ident[EI_CLASS] == ELFCLASS64);
        CHECK(eh.e_machine == 224);
        for (size_t k = 0; k < sizeof kernels / sizeof kernels[0]; k++)
            CHECK(elf_has_symbol(o->bytes, o->size, kernels[k]));
        /* the table's names, in order, are the list the build printed */
        if (i)
            strcat(names, " ");
        strcat(names, o->target);
    }
    CHECK(strcmp(names, PB_HIP_EXPECT_TARGETS) == 0);
}

/* gcnArchName up to ':' picks the object: for every target built, the
 * name with the features ROCm appends to an MI200's ("gfx90a:sramecc+:xnack-") */
static void test_pick(void)
{
    char base[64];
    for (size_t i = 0; i < pb_hip_kobj_count; i++) {
        char arch[96];
        snprintf(arch, sizeof arch, "%s:sramecc+:xnack-", pb_hip_kobjs[i].target);
        CHECK(pb_hip_kobj_pick(arch, base, sizeof base) == (int)i);
        CHECK(strcmp(base, pb_hip_kobjs[i].target) == 0);
    }
    /* a target no hipcc builds: no object, the base still cut at ':' */
    CHECK(pb_hip_kobj_pick("gfx9999:xnack+", base, sizeof base) == -1);
    CHECK(strcmp(base, "gfx9999") == 0);
    /* a prefix of a built name is not that name ("gfx90" of "gfx90a") */
    CHECK(pb_hip_kobj_pick("gfx90", base, sizeof base) == -1);
    /* a name longer than the buffer: refused, nothing cut wrongly */
    CHECK(pb_hip_kobj_pick("gfx90a", base, 4) == -1);
}

/* The arch the fallback is tried on: gfx942 (the MI300X) where this
 * hipcc did not build it (HIP 5.2: it stops at gfx940), else a name no
 * hipcc knows */
static const char *absent_arch(void)
{
    return strstr(" " PB_HIP_EXPECT_TARGETS " ", " gfx942 ") ? "gfx9999:xnack-"
                                                              : "gfx942:sramecc+:xnack-";
}

/* A library without HIP's entry points is refused, naming the first */
static void test_refuse(void)
{
    void *self = dlopen(NULL, RTLD_NOW);
    pb_hip_kern_t *k = NULL;
    char why[256] = "";
    CHECK(self != NULL);
    CHECK(pb_hip_kern_open(self, "gfx90a", &k, why, sizeof why) == -1);
    CHECK(k == NULL);
    CHECK(strstr(why, "hipModuleLoadData") != NULL);
    if (self)
        dlclose(self);
}

/* Fill then check `count` elements of type t through the fallback: 0
 * wrong (the counter keeps what it held: the contract adds), then with
 * element `poke` set one above its value, exactly 1 wrong.  Values are
 * (7 + j) mod 100 (pb_check.h's scheme, base 7, q 100: exact in every
 * type tried, bf16 holding every integer to 256). */
static void fill_check(pb_hip_kern_t *k, pb_dtype_t t, uint64_t count, uint64_t poke)
{
    unsigned char *buf = malloc((size_t)(count * pb_dtype_size(t)));
    unsigned long long counter = 5;
    pb_expect_t e = {PB_EXPECT_PATTERN, 7, 100, PB_SUM, 1, 1};
    CHECK(buf != NULL);
    if (buf == NULL)
        return;
    CHECK(pb_hip_fill(k, buf, count, t, 7, 100, NULL) == 0);
    CHECK(pb_load_double(buf, 0, t) == 7.0);
    CHECK(pb_load_double(buf, 123, t) == 30.0); /* (7 + 123) mod 100 */
    CHECK(pb_hip_check(k, buf, count, t, &e, &counter, NULL) == 0);
    CHECK(counter == 5);
    pb_store_int(buf, poke, t, (7 + poke) % 100 + 1);
    CHECK(pb_hip_check(k, buf, count, t, &e, &counter, NULL) == 0);
    CHECK(counter == 6);
    free(buf);
}

/* A reduction input of rank 0 (one rank, all active) is the reduced
 * result of a one-rank sum: (0 + g) mod 100 at global index g = 5000 + j.
 * Rank 1 of active 1 contributes zeros: against that sum, every element
 * with g mod 100 != 0 is wrong, 1000 - 10 = 990 (5000, 5100 .. 5900
 * are the ten right ones). */
static void fill_red_check(pb_hip_kern_t *k)
{
    int32_t buf[1000];
    unsigned long long counter = 0;
    pb_redparams_t p = {100, 1};
    pb_expect_t sum = {PB_EXPECT_REDUCED, 5000, 100, PB_SUM, 1, 1};
    pb_expect_t zeros = {PB_EXPECT_PATTERN, 0, 1, PB_SUM, 1, 1};
    CHECK(pb_hip_fill_red(k, buf, 1000, PB_I32, p, 0, 5000, NULL) == 0);
    CHECK(buf[1] == 1 && buf[999] == 99);
    CHECK(pb_hip_check(k, buf, 1000, PB_I32, &sum, &counter, NULL) == 0);
    CHECK(counter == 0);
    CHECK(pb_hip_fill_red(k, buf, 1000, PB_I32, p, 1, 5000, NULL) == 0);
    CHECK(pb_hip_check(k, buf, 1000, PB_I32, &zeros, &counter, NULL) == 0);
    CHECK(counter == 0);
    CHECK(pb_hip_check(k, buf, 1000, PB_I32, &sum, &counter, NULL) == 0);
    CHECK(counter == 990);
}

/* No kernel for the device: the fallback, said so, right */
static void test_fallback(void *hip)
{
    pb_hip_kern_t *k = NULL;
    char why[256] = "", want[256];
    const char *arch = absent_arch();
    CHECK(pb_hip_kern_open(hip, arch, &k, why, sizeof why) == 0);
    if (k == NULL)
        return;
    CHECK(pb_hip_kern_native(k) == 0);
    snprintf(want, sizeof want, "host fallback: no kernel for %.*s (built: %s)",
             (int)strcspn(arch, ":"), arch,
             PB_HIP_EXPECT_TARGETS[0] ? PB_HIP_EXPECT_TARGETS : "none");
    CHECK(strcmp(pb_hip_kern_mode(k), want) == 0);
    fill_check(k, PB_F32, 1000, 123);
    fill_check(k, PB_BF16, 1000, 123);
    fill_check(k, PB_I32, 1000, 123);
    /* over two 16 MiB chunks of f32 (4194304 elements each) and 1000:
     * the wrong element lies in the second chunk, at its index 5 */
    fill_check(k, PB_F32, 2 * UINT64_C(4194304) + 1000, UINT64_C(4194304) + 5);
    fill_red_check(k);
    /* stall: released before it starts, so it ends at once (a stall
     * that ignored the flag would hold this test 1000 s) */
    volatile int release = 1;
    CHECK(pb_hip_stall(k, 1000.0, NULL, &release) == 0);
    /* busy has no fallback: hipErrorNotSupported (801); none asked: 0 */
    uint64_t wave = 0;
    CHECK(pb_hip_busy(k, 1e-3, NULL, &wave) == 801);
    CHECK(pb_hip_busy(k, 0.0, NULL, &wave) == 0);
    pb_hip_kern_close(k);
}

typedef const char *(*last_fn)(unsigned *grid, unsigned *block, uint64_t *arg0, int *launches);

/* A device whose target was built: the kernels, launched as the CUDA
 * file launches them.  The fake records each launch (fake_hip.c) and
 * reports the real-time clock's rate as HIP 5.2 does, not at all, so it
 * is 100 MHz (pb_hip_clock.h), and 304 compute units (an MI300X). */
static void test_native(void *hip, last_fn last)
{
    pb_hip_kern_t *k = NULL;
    char why[256] = "", arch[96], want[96];
    unsigned grid = 0, block = 0;
    uint64_t arg0 = 0;
    int n0 = 0, n1 = 0;
    snprintf(arch, sizeof arch, "%s:sramecc+:xnack-", pb_hip_kobjs[0].target);
    CHECK(pb_hip_kern_open(hip, arch, &k, why, sizeof why) == 0);
    if (k == NULL)
        return;
    CHECK(pb_hip_kern_native(k) == 1);
    snprintf(want, sizeof want, "kernels for %s", pb_hip_kobjs[0].target);
    CHECK(strcmp(pb_hip_kern_mode(k), want) == 0);
    /* 1000 elements: ceil(1000 / 256) = 4 blocks of 256 threads */
    float buf[1];
    CHECK(pb_hip_fill(k, buf, 1000, PB_F32, 7, 100, NULL) == 0);
    const char *name = last(&grid, &block, &arg0, &n0);
    CHECK(name != NULL && strcmp(name, "pb_hip_fill_kernel") == 0);
    CHECK(grid == 4 && block == 256 && arg0 == (uint64_t)(uintptr_t)buf);
    /* 10^8 elements: 390625 blocks, capped at 65535 (grid-stride) */
    CHECK(pb_hip_fill(k, buf, 100000000, PB_F32, 7, 100, NULL) == 0);
    (void)last(&grid, &block, &arg0, &n0);
    CHECK(grid == 65535);
    /* fp8 goes by the host (HIP 5.2 has no fp8 type): no launch */
    unsigned char f8[4];
    CHECK(pb_hip_fill(k, f8, 4, PB_F8E4M3, 7, 100, NULL) == 0);
    (void)last(&grid, &block, &arg0, &n1);
    CHECK(n1 == n0);
    /* stall of 2 s: 2 x 10^8 ticks at 100 MHz, one block */
    CHECK(pb_hip_stall(k, 2.0, NULL, NULL) == 0);
    name = last(&grid, &block, &arg0, &n0);
    CHECK(name != NULL && strcmp(name, "pb_hip_stall_kernel") == 0);
    CHECK(grid == 1 && arg0 == UINT64_C(200000000));
    /* busy 1 ms (pb_busy_plan.h, test_busy_plan.c): 4 launches, the last
     * of 13 waves of 19230 ns = 1923 ticks; a wave is 304 CUs x 8 blocks */
    uint64_t wave = 0;
    CHECK(pb_hip_busy(k, 1e-3, NULL, &wave) == 0);
    name = last(&grid, &block, &arg0, &n1);
    CHECK(name != NULL && strcmp(name, "pb_hip_busy_kernel") == 0);
    CHECK(n1 - n0 == 4 && wave == 304 * 8 && grid == 13 * 304 * 8 && arg0 == 1923);
    pb_hip_kern_close(k);
}

/* The real HIP runtime, where one is installed (no GPU needed: a
 * fallback open only looks entry points up): every one the loader
 * requires is exported.  Debian's HIP 5.2 declares hipLaunchHostFunc
 * but does not export it, which a loader requiring it refused. */
static void test_real(void)
{
    static const char *const names[] = {"libamdhip64.so.6", "libamdhip64.so.5"};
    for (size_t i = 0; i < 2; i++) {
        void *hip = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (hip == NULL)
            continue;
        pb_hip_kern_t *k = NULL;
        char why[256] = "";
        CHECK(pb_hip_kern_open(hip, absent_arch(), &k, why, sizeof why) == 0);
        if (why[0])
            fprintf(stderr, "%s: %s\n", names[i], why);
        pb_hip_kern_close(k);
        dlclose(hip);
        return;
    }
    printf("no HIP runtime installed: its entry points not checked\n");
}

static void *open_fake(const char *path)
{
    void *hip = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (hip == NULL)
        fprintf(stderr, "%s\n", dlerror());
    CHECK(hip != NULL);
    return hip;
}

int main(void)
{
    test_objects();
    test_pick();
    test_refuse();
    test_real();
    void *hip = open_fake(PB_FAKE_HIP_SO), *hip52 = open_fake(PB_FAKE_HIP52_SO);
    if (hip == NULL || hip52 == NULL)
        PB_TEST_END("unit_hip_kern");
    last_fn last = NULL;
    CHECK(pb_dl_sym(hip, "pb_fake_hip_last", &last) == 1);
    test_fallback(hip);
    /* stall through hipStreamAddCallback */
    test_fallback(hip52);
    if (pb_hip_kobj_count > 0 && last != NULL)
        test_native(hip, last);
    dlclose(hip);
    dlclose(hip52);
    PB_TEST_END("unit_hip_kern");
}
