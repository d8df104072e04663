/* welcome.c - the WelcomeMessage's fields at their protocol-82 offsets
 * (see welcome.h). */
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

bool welcome_on_demand(const uint8_t *w)
{
    return w[64] & WF_ON_DEMAND;
}

void welcome_parse(const uint8_t *w, welcome_t *out)
{
    const uint8_t flags = w[64];
    *out = (welcome_t){
        .timer_mul = ldf64(w + 0),
        .init_begin = ldi64(w + 8),
        .init_end = ldi64(w + 16),
        .resolution = ld64(w + 24),
        .capture_time = ld64(w + 32),
        .exec_time = ld64(w + 40),
        .pid = ld64(w + 48),
        .sampling_period = ldi64(w + 56),
        .on_demand = flags & WF_ON_DEMAND,
        .ignore_mem_faults = flags & WF_IGNORE_MEM_FAULTS,
        .code_transfer = flags & WF_CODE_TRANSFER,
        .combine_samples = flags & WF_COMBINE_SAMPLES,
        .identify_samples = flags & WF_IDENTIFY_SAMPLES,
        .cpu_arch = w[65],
        .cpu_id = ld32(w + 78),
    };
    memcpy(out->cpu_manufacturer, w + 66, sizeof out->cpu_manufacturer);
    fixed_text(out->program, w + 82, 64);
    fixed_text(out->host_info, w + 146, 1024);
}

void on_demand_parse(const uint8_t *p, on_demand_t *out)
{
    out->frame_offset = ld64(p);
    out->connection_time = ldi64(p + 8);
}
