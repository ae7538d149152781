/* What the commands' descriptors share beyond the option groups: the
 * shared groups' defaults and their checks over the whole command line,
 * the setters and refusal lines several commands name.  A command's own
 * defaults and finish call these first and then do their own. */
#include "pb_opt_common.h"

#include <stdio.h>
#include <string.h>

const char pb_o_elsewhere[] = "-o is an option of parbench calibrate, report and the main job";

void pb_run_defaults(pb_options_t *o)
{
    snprintf(o->run.backend, sizeof o->run.backend, "auto");
    o->run.timeout_s = 300.0;
    o->run.fault_rank = -1;
    o->run.fault_peer = -1;
}

void pb_meas_defaults(pb_options_t *o)
{
    pb_meas_opts_t *m = &o->meas;
    m->out_of_place = 1;
    m->in_place = 1;
    m->size_min = 8;
    m->size_factor = 2.0;
    m->warmup = 5;
    m->min_iters = 10;
    m->max_iters = 1000;
    m->precision = 0.02;
    m->time_budget = 1.0;
    m->rotate = -1; /* the backend's way, decided once it is open */
}

void pb_model_defaults(pb_options_t *o)
{
    o->model.train.imbalance = 1.0;
}

/* a slow pair is what validate flags; no other command has pairs */
int pb_run_finish(const pb_options_t *o, pb_err_t *err)
{
    if (o->run.fault == PB_FAULT_SLOW && o->cmd != PB_CMD_VALIDATE)
        return pb_err_set(err, PB_EINPUT, "--fault slow: is an option of parbench validate");
    if (o->run.fault == PB_FAULT_SLOW_RANK && o->cmd != PB_CMD_VALIDATE)
        return pb_err_set(err, PB_EINPUT, "--fault slow-rank: is an option of parbench validate");
    if (o->run.fault == PB_FAULT_NOISY && o->cmd != PB_CMD_VALIDATE)
        return pb_err_set(err, PB_EINPUT, "--fault noisy: is an option of parbench validate");
    return PB_OK;
}

/* -G N: graph mode, beside any --mode given */
static void graph_mode(pb_meas_opts_t *m)
{
    if (m->graph_replays) {
        int have = 0;
        for (int i = 0; i < m->nmodes; i++)
            have |= m->modes[i] == PB_MODE_GRAPH;
        if (!(m->given & PB_GIVEN_MODE))
            m->nmodes = 0;
        if (!have)
            m->modes[m->nmodes++] = PB_MODE_GRAPH;
    } else {
        m->graph_replays = 10;
    }
}

/* The lists' defaults and the sizes and sample counts that must agree. */
int pb_meas_finish(pb_options_t *o, pb_err_t *err)
{
    pb_meas_opts_t *m = &o->meas;
    if (m->ncolls == 0)
        m->colls[m->ncolls++] = PB_ALLREDUCE;
    if (m->ndtypes == 0)
        m->dtypes[m->ndtypes++] = PB_F32;
    if (m->nredops == 0)
        m->redops[m->nredops++] = PB_SUM;
    if (m->nmodes == 0)
        m->modes[m->nmodes++] = PB_MODE_LATENCY;
    graph_mode(m);
    if ((m->sizes_given & 4) && (m->sizes_given & 3))
        return pb_err_set(err, PB_EINPUT, "give sizes either with -b/-e or with --sizes, not both");
    if (m->size_step && (m->given & PB_GIVEN_FACTOR))
        return pb_err_set(err, PB_EINPUT, "give either -f (factor) or -i (step), not both");
    if (!(m->sizes_given & 2))
        m->size_max = (m->sizes_given & 1) ? m->size_min : UINT64_C(64) << 20;
    if (!(m->sizes_given & 4) && m->size_min > m->size_max)
        return pb_err_set(err, PB_EINPUT, "minimum size %llu is above maximum size %llu",
                          (unsigned long long)m->size_min, (unsigned long long)m->size_max);
    if (!(m->given & PB_GIVEN_MIN_ITERS) && m->min_iters > m->max_iters)
        m->min_iters = m->max_iters; /* only the user's own numbers can clash */
    if (m->min_iters > m->max_iters)
        return pb_err_set(err, PB_EINPUT, "--min-iters %llu is above --max-iters %llu",
                          (unsigned long long)m->min_iters, (unsigned long long)m->max_iters);
    if (!m->out_of_place && !m->in_place)
        return pb_err_set(err, PB_EINPUT, "nothing to measure: --place excludes both");
    return pb_run_finish(o, err);
}

int pb_predict_finish(const pb_options_t *o, pb_err_t *err)
{
    if (o->predict.selective && o->model.train.recompute)
        return pb_err_set(err, PB_EINPUT, "give --recompute (full) or --selective, not both");
    if (o->predict.recompute_mode && (o->predict.selective || o->model.train.recompute))
        return pb_err_set(err, PB_EINPUT,
                          "give --recompute-mode MODE or --recompute / --selective, not both");
    if (o->predict.flash && o->predict.no_flash)
        return pb_err_set(err, PB_EINPUT, "give --flash or --no-flash, not both");
    if (o->predict.causal && o->predict.no_causal)
        return pb_err_set(err, PB_EINPUT, "give --causal or --no-causal, not both");
    if (o->predict.fsdp2 && o->model.train.zero != 3)
        return pb_err_set(err, PB_EINPUT, "--fsdp2 is a way of running ZeRO-3: give --zero 3");
    return PB_OK;
}

const char *pb_pure_foreign(const pb_opt_spec_t *s, const pb_opt_group_t *g)
{
    (void)g;
    if (strcmp(s->lng, "pattern") == 0 || strcmp(s->lng, "dry-run") == 0)
        return "--pattern and --dry-run are not options of calibrate, model or plan";
    return NULL;
}

int pb_opt_output(pb_options_t *o, const pb_opt_spec_t *s, const char *v, const char *shown,
                  pb_err_t *err)
{
    if (v[0] == '\0')
        return pb_err_set(err, PB_EINPUT, "%s needs a name", shown);
    *PB_FIELD(o, s, const char *) = v;
    return PB_OK;
}

void pb_files_defaults(pb_options_t *o)
{
    o->files.threshold = 0.05;
}

const char *pb_files_foreign(const pb_opt_spec_t *s, const char *rows_line,
                             const char *generic_line)
{
    if (strcmp(s->lng, "csv") == 0 || strcmp(s->lng, "json") == 0)
        return rows_line;
    return s->elsewhere ? NULL : generic_line;
}
