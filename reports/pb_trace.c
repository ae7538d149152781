#include "pb_trace.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

static json_t *event(const pb_trace_event_t *e)
{
    json_t *args = json_object();
    json_t *o = json_object();
    if (args == NULL || o == NULL) {
        json_decref(args);
        json_decref(o);
        return NULL;
    }
    int bad = 0;
    if (e->mb >= 0)
        bad |= json_object_set_new(args, "mb", json_integer(e->mb));
    if (e->chunk >= 0)
        bad |= json_object_set_new(args, "chunk", json_integer(e->chunk));
    if (e->detail[0])
        bad |= json_object_set_new(args, "parts", json_string(e->detail));
    bad |= json_object_set_new(o, "name", json_string(e->name));
    bad |= json_object_set_new(o, "cat", json_string(e->cat));
    bad |= json_object_set_new(o, "ph", json_string("X"));
    bad |= json_object_set_new(o, "ts", json_real(e->ts_us));
    bad |= json_object_set_new(o, "dur", json_real(e->dur_us));
    bad |= json_object_set_new(o, "pid", json_integer(e->pid));
    bad |= json_object_set_new(o, "tid", json_integer(e->tid));
    bad |= json_object_set_new(o, "args", args);
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}

/* the metadata event that names a process in the viewer */
static json_t *process_name(int pid, const char *label)
{
    char name[64];
    snprintf(name, sizeof name, "rank %d (%s)", pid, label);
    json_t *o = json_pack("{s:s, s:s, s:i, s:i, s:{s:s}}", "name", "process_name", "ph", "M",
                          "pid", pid, "tid", 0, "args", "name", name);
    return o;
}

int pb_trace_write(const char *path, const pb_trace_event_t *ev, size_t n,
                   const char (*proc_label)[32], int nproc, pb_err_t *err)
{
    json_t *events = json_array();
    json_t *root = json_object();
    int bad = events == NULL || root == NULL;
    for (int p = 0; !bad && p < nproc; p++)
        bad = json_array_append_new(events, process_name(p, proc_label[p])) != 0;
    for (size_t i = 0; !bad && i < n; i++)
        bad = json_array_append_new(events, event(&ev[i])) != 0;
    if (!bad)
        bad = json_object_set_new(root, "displayTimeUnit", json_string("ms")) ||
              json_object_set(root, "traceEvents", events);
    json_decref(events);
    if (bad) {
        json_decref(root);
        return pb_err_set(err, PB_ERUNTIME, "out of memory for the trace");
    }
    /* the whole document at once: a trace is read after the run */
    int rc = json_dump_file(root, path, JSON_INDENT(0) | JSON_REAL_PRECISION(12));
    json_decref(root);
    if (rc != 0)
        return pb_err_set(err, PB_EINPUT, "cannot write the trace '%s': %s", path,
                          errno ? strerror(errno) : "write failed");
    return PB_OK;
}
