/* What parbench maps into a rank, read from /proc/self/maps (the dynamic
 * linker's own record): libxml2 only once an NCCL topology file is read
 * (topo/pb_libxml.h), and none of the hwloc plugins pb_topo_skip_plugins
 * names (topo/pb_topo.h).  Both matter because a mapped library slows
 * the timed loop even when never called (measured: pb_libxml.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pb_test.h"
#include "topo/pb_nccl_topo.h"
#include "topo/pb_topo.h"

/* this process's mappings now, one read of /proc/self/maps (NULL when
 * it cannot be read); free() it */
static char *maps_now(void)
{
    FILE *f = fopen("/proc/self/maps", "r");
    if (f == NULL)
        return NULL;
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    for (int c; out != NULL && (c = fgetc(f)) != EOF;)
        fputc(c, out);
    fclose(f);
    if (out != NULL)
        fclose(out);
    return text;
}

/* is a file named `name`... mapped?  1 yes, 0 no, -1 unknown */
static int mapped(const char *name)
{
    char *text = maps_now(), file[64];
    snprintf(file, sizeof file, "/%s", name);
    int found = text == NULL ? -1 : strstr(text, file) != NULL;
    free(text);
    return found;
}

/* how many of the skipped plugins are mapped (one read of the maps) */
static int skipped_mapped(void)
{
    char *text = maps_now();
    if (text == NULL)
        return -1;
    char list[] = PB_TOPO_SKIPPED_PLUGINS;
    int n = 0;
    for (char *save = NULL, *p = strtok_r(list, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
        char file[64];
        snprintf(file, sizeof file, "/%s.so", p);
        n += strstr(text, file) != NULL;
    }
    free(text);
    return n;
}

/* In a child: load the live machine, with or without the skip list;
 * the exit code is how many skipped plugins got mapped (255: no load,
 * or no maps to read). */
static int child_maps(int skip)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        unsetenv("HWLOC_PLUGINS_BLACKLIST");
        if (skip)
            pb_topo_skip_plugins();
        pb_topo_t tp;
        pb_err_t err;
        pb_err_clear(&err);
        if (pb_topo_load(&tp, NULL, 1, &err) != PB_OK)
            _exit(255);
        int n = skipped_mapped();
        pb_topo_free(&tp);
        _exit(n < 0 ? 255 : n);
    }
    int st = 0;
    if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
        return -1;
    return WEXITSTATUS(st);
}

static void plugins(void)
{
    int plain = child_maps(0), skipped = child_maps(1);
    CHECK(plain >= 0 && plain != 255 && skipped >= 0 && skipped != 255);
    /* where this hwloc has none of the plugins (plain == 0: a build
     * without plugins), only "none mapped" can be checked; Debian 12's
     * libhwloc-plugins maps three (gl, opencl, xml_libxml) */
    printf("topo_loads: skipped plugins mapped: %d without the list, %d with it\n", plain,
           skipped);
    CHECK(skipped == 0);
    /* a choice the user made is kept */
    setenv("HWLOC_PLUGINS_BLACKLIST", "hwloc_pci", 1);
    pb_topo_skip_plugins();
    CHECK(strcmp(getenv("HWLOC_PLUGINS_BLACKLIST"), "hwloc_pci") == 0);
    unsetenv("HWLOC_PLUGINS_BLACKLIST");
}

static void libxml_on_demand(void)
{
    /* not linked: nothing has read an NCCL topology file yet */
    CHECK(mapped("libxml2.so") == 0);
    pb_ntopo_t t;
    pb_err_t err;
    pb_err_clear(&err);
    CHECK(pb_ntopo_load(PB_SOURCE_DIR "/tests/fixtures/nccl-topo-small.xml", &t, &err) == PB_OK);
    CHECK(t.ngpus == 5); /* the fixture's own count, as in test_nccl_topo */
    pb_ntopo_free(&t);
    CHECK(mapped("libxml2.so") == 1);
    /* a second reader opens the same library again: no state is kept */
    CHECK(pb_ntopo_load(PB_SOURCE_DIR "/tests/fixtures/nccl-topo-small.xml", &t, &err) == PB_OK);
    pb_ntopo_free(&t);
}

int main(void)
{
    plugins();
    libxml_on_demand();
    PB_TEST_END("topo_loads");
}
