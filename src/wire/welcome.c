/* welcome.c - the WelcomeMessage's fields at their offsets: protocol
 * 82's, or 8 bytes later after the queue delay of 64-74 (see welcome.h). */
#include "welcome.h"

#include <string.h>

#include "proto.h"
#include "util.h"

/* A fixed-size text field up to its first NUL. */
static void fixed_text(char *out, const uint8_t *p, size_t max)
{
    size_t n = 0;
    while (n < max && p[n]) n++;
    memcpy(out, p, n);
    out[n] = '\0';
}

bool welcome_on_demand(const proto_desc_t *desc, const uint8_t *w)
{
    return w[desc->welcome_flags_at] & WF_ON_DEMAND;
}

void welcome_parse(const proto_desc_t *desc, const uint8_t *w, welcome_t *out)
{
    const bool has_delay = desc->layout & PL_WELCOME_DELAY;
    const uint8_t *r = w + (has_delay ? 8 : 0);   /* the fields after the delay */
    const uint8_t flags = w[desc->welcome_flags_at];
    *out = (welcome_t){
        .timer_mul = ldf64(w + 0),
        .init_begin = ldi64(w + 8),
        .init_end = ldi64(w + 16),
        .delay = has_delay ? ld64(w + 24) : 0,
        .resolution = ld64(r + 24),
        .capture_time = ld64(r + 32),
        .exec_time = ld64(r + 40),
        .pid = ld64(r + 48),
        .sampling_period = ldi64(r + 56),
        .on_demand = flags & WF_ON_DEMAND,
        .ignore_mem_faults = flags & WF_IGNORE_MEM_FAULTS,
        .code_transfer = flags & WF_CODE_TRANSFER,
        .combine_samples = flags & WF_COMBINE_SAMPLES,
        .identify_samples = flags & WF_IDENTIFY_SAMPLES,
        .cpu_arch = r[65],
        .cpu_id = ld32(r + 78),
    };
    memcpy(out->cpu_manufacturer, r + 66, sizeof out->cpu_manufacturer);
    fixed_text(out->program, r + 82, 64);
    fixed_text(out->host_info, r + 146, 1024);
}

void on_demand_parse(const uint8_t *p, on_demand_t *out)
{
    out->frame_offset = ld64(p);
    out->connection_time = ldi64(p + 8);
}
