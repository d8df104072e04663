/* bench.c - what the benchmark scenarios of tracy-test-client (bench.h)
 * share: their welcome values, option defaults and manifest statistics. */
#include "bench.h"

#include "names.h"

void bench_configure(struct tc_client *c)
{
    if (c->opt.scenario != TC_SCEN_MEMORY)
        return;
    /* Like the real client: code transfer on, so the server asks for the
     * machine code of every symbol (and then for the frame of every
     * instruction in it). No executable time, so no server asks for
     * source files: the ids of those queries depend on how a server
     * de-duplicates file names, and a recording must replay into any. */
    c->welcome.flags = TC_WELCOME_CODE_TRANSFER;
}

int bench_threads_opt(const struct tc_client *c, int dflt, int max)
{
    int n = c->opt.threads > 0 ? c->opt.threads : dflt;
    return n > max ? max : n;
}

long bench_zones_opt(const struct tc_client *c, long dflt)
{
    return c->opt.zones > 0 ? c->opt.zones : dflt;
}

void bench_zone_stats(struct tc_client *c, int loc, uint64_t zones, int64_t total_ns)
{
    struct tc_srcloc_entry *s = names_srcloc_at(c, loc);
    s->zones += zones;
    s->total_ns += total_ns;
}
