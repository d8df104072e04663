/* tfload: parse the whole .tracy payload, section by section in file
 * order (tracy-file-0.14.md §2.2, sections 1..36), into a tf_model, and
 * insist that exactly the whole payload is consumed.  The lists that grow
 * with the events are kept only when asked for; CPU zones can instead be
 * heard one by one as they are read (a load_sink), so that statistics
 * need no memory per zone. */
#ifndef TC_TFLOAD_H
#define TC_TFLOAD_H

#include <stddef.h>

#include "tfmodel.h"
#include "tfread.h"

/* What the model keeps besides its tables (strings, source locations,
 * threads, counts, contexts): the lists that grow with the events. */
enum {
    LOAD_KEEP_ZONES = 1 << 0,      /* §5.20 CPU zones (model.zones) */
    LOAD_KEEP_GPU_ZONES = 1 << 1,  /* §5.21 GPU zones */
    LOAD_KEEP_EXTRAS = 1 << 2,     /* §5.19 zone extras */
    LOAD_KEEP_MESSAGES = 1 << 3,   /* §5.18 messages */
    LOAD_KEEP_PLOTS = 1 << 4,      /* §5.22 plot points */
    LOAD_KEEP_EVENTS = 1 << 5,     /* the rest: frames, lock events, thread message ids, samples,
                                      memory events, call stacks, frame images, context switches,
                                      symbols, hardware samples */
    LOAD_KEEP_ALL = (1 << 6) - 1,
};

/* Who hears of each CPU zone as it is read (every callback returns 0, or
 * -1 when out of memory, which fails the load): the timelines begin (the
 * sections before §5.20 are in the model), a thread's timeline begins
 * (its §5.20 index and the number the loader gives it), a zone begins
 * and, after its children, ends. */
typedef struct load_sink {
    void *ctx;
    int (*on_timelines)(void *ctx, const tf_model *m);
    int (*on_thread)(void *ctx, size_t index, uint16_t number);
    int (*on_zone_begin)(void *ctx, int16_t srcloc, int64_t start, uint32_t extra);
    int (*on_zone_end)(void *ctx, int64_t end);
} load_sink;

typedef struct load_options {
    unsigned keep;               /* LOAD_KEEP_* */
    const load_sink *sink;       /* NULL: none */
} load_options;

/* Returns 0 on success; -1 with a message in err naming the section and
 * payload offset if the payload is malformed, truncated or has trailing
 * bytes (or memory ran out).  The model must have been tf_model_init()ed; on
 * failure it holds whatever was read so far (free it with tf_model_free). */
int load_model(tfread *r, tf_model *m, const load_options *o, char *err, size_t errsz);

/* Name of section n (0 = payload header, 1..36 as in §2.2). */
const char *load_section_name(int section);

#endif
