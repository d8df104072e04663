/* main.c - command line of tracy-test-client, a scripted stand-in for a
 * Tracy-instrumented application: it plays the client side of Tracy
 * network protocol 82 (v0.14.0) or of an older one (--protocol, see
 * protocols.h) so the capture tool can be tested end to end. See usage()
 * for the options and scenario.c for what is sent. */
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "bench.h"
#include "broadcast.h"
#include "client.h"
#include "gen.h"
#include "manifest.h"
#include "names.h"
#include "queries.h"
#include "scenario.h"
#include "session.h"
#include "wire.h"

#define DEFAULT_TIMEOUT_S 300.0

int64_t tc_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void tc_log(const struct tc_client *c, const char *fmt, ...)
{
    if (c->opt.quiet)
        return;
    va_list ap;
    va_start(ap, fmt);
    fputs("tracy-test-client: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

static void usage(FILE *out)
{
    fprintf(out,
            "usage: tracy-test-client [options]\n"
            "Plays the client side of a Tracy protocol (%s) for testing a capture tool.\n"
            "  -p, --port N          TCP port to listen on (default 8086, 0 = any free)\n"
            "  -a, --address A       address to listen on (default 127.0.0.1)\n"
            "  -S, --scenario NAME   %s (default normal)\n"
            "  -g, --garbage-kind K  for --scenario garbage: length, lz4, event or next-type\n"
            "                        (default length);\n"
            "                        for --scenario malformed, the bad input injected mid-session:\n"
            "                        lock-unannounced, gpu-unknown-context, fiber-unknown,\n"
            "                        time-backwards, unasked-answers, srcloc-overflow,\n"
            "                        callstack-empty, callstack-alloc-empty, zone-depth,\n"
            "                        gpu-zone-depth,\n"
            "                        absurd-length or absurd-string; valid floods: text-flood,\n"
            "                        hash-flood, callstack-flood, string-flood; or in the\n"
            "                        welcome: timer-nan, timer-infinite, timer-huge,\n"
            "                        resolution-max, init-begin-far (default lock-unannounced)\n"
            "  -P, --protocol V      protocol spoken: 64, 66, 69, 72, 74, 76 or 82 (default), or\n"
            "                        none; other versions (none: all) get ProtocolMismatch and\n"
            "                        the client keeps listening (none: until each of the seven\n"
            "                        was refused)\n"
            "  -L, --list-types      print the protocol's event types (number, size, name)\n"
            "  -s, --seconds S       duration of the stream scenario, silence of stall (default 10)\n"
            "  -z, --zones N         approximate number of zones to send (zones, threads:\n"
            "                        per thread; memory: batches per worker)\n"
            "  -t, --threads N       application threads incl. the main thread (1-16; zones,\n"
            "                        memory: worker threads; threads: 1-%d)\n"
            "  -m, --manifest FILE   write a description of what was sent\n"
            "  -r, --record FILE     write every byte sent to the server to FILE\n"
            "  -T, --timeout S       give up (exit 3) after S seconds in total (default 300,\n"
            "                        0 = never; extended by --seconds for stream)\n"
            "      --name NAME       program name in the welcome and the announcements\n"
            "                        (default tracy-test-client; cut to 63 bytes)\n"
            "      --announce PORT   while no server is connected, announce this client on\n"
            "                        UDP to 127.255.255.255:PORT (only there) as a real\n"
            "                        client does: a v3 broadcast with --name, the pid, the\n"
            "                        protocol (82 for none) and the TCP port listened on;\n"
            "                        one with activeTime -1 when a server connects or the\n"
            "                        client gives up waiting; none after the session began\n"
            "      --announce-interval MS  between announcements (default %d)\n"
            "  -q, --quiet           no diagnostics (the listening line is always printed)\n"
            "  -V, --version         print the version\n"
            "  -h, --help            this text\n",
            proto_version_list(), scenario_names(), BENCH_MAX_THREADS, TC_ANNOUNCE_INTERVAL_MS);
}

static bool parse_number(const char *s, double min, double *out)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end != '\0' || v < min)
        return false;
    *out = v;
    return true;
}

/* --protocol: a known version, or none. */
static bool parse_protocol(const char *s, uint32_t *out)
{
    double v;
    if (strcmp(s, "none") == 0) {
        *out = TC_PROTOCOL_NONE;
        return true;
    }
    if (!parse_number(s, 0, &v) || v > 0xFFFFFFFFu || !proto_known((uint32_t)v))
        return false;
    *out = (uint32_t)v;
    return true;
}

static const struct {
    const char *name;
    enum tc_garbage_kind kind;
    bool malformed; /* a kind of --scenario malformed, not of garbage */
} garbage_kinds[] = {
    { "length", TC_GARBAGE_LENGTH, false },
    { "lz4", TC_GARBAGE_LZ4, false },
    { "event", TC_GARBAGE_EVENT, false },
    { "next-type", TC_GARBAGE_NEXT_TYPE, false },
    { "lock-unannounced", TC_BAD_LOCK_UNANNOUNCED, true },
    { "gpu-unknown-context", TC_BAD_GPU_UNKNOWN_CONTEXT, true },
    { "fiber-unknown", TC_BAD_FIBER_UNKNOWN, true },
    { "time-backwards", TC_BAD_TIME_BACKWARDS, true },
    { "unasked-answers", TC_BAD_UNASKED_ANSWERS, true },
    { "srcloc-overflow", TC_BAD_SRCLOC_OVERFLOW, true },
    { "absurd-length", TC_BAD_ABSURD_LENGTH, true },
    { "absurd-string", TC_BAD_ABSURD_STRING, true },
    { "timer-nan", TC_BAD_TIMER_NAN, true },
    { "timer-infinite", TC_BAD_TIMER_INFINITE, true },
    { "timer-huge", TC_BAD_TIMER_HUGE, true },
    { "resolution-max", TC_BAD_RESOLUTION_MAX, true },
    { "init-begin-far", TC_BAD_INIT_BEGIN_FAR, true },
    { "callstack-empty", TC_BAD_CALLSTACK_EMPTY, true },
    { "callstack-alloc-empty", TC_BAD_CALLSTACK_ALLOC_EMPTY, true },
    { "zone-depth", TC_BAD_ZONE_DEPTH, true },
    { "gpu-zone-depth", TC_BAD_GPU_ZONE_DEPTH, true },
    { "text-flood", TC_BAD_TEXT_FLOOD, true },
    { "hash-flood", TC_BAD_HASH_FLOOD, true },
    { "callstack-flood", TC_BAD_CALLSTACK_FLOOD, true },
    { "string-flood", TC_BAD_STRING_FLOOD, true },
};

#define N_GARBAGE_KINDS (sizeof(garbage_kinds) / sizeof(garbage_kinds[0]))

static bool parse_garbage_kind(const char *s, struct tc_options *o)
{
    for (size_t i = 0; i < N_GARBAGE_KINDS; i++) {
        if (strcmp(s, garbage_kinds[i].name) == 0) {
            o->garbage_kind = garbage_kinds[i].kind;
            o->garbage_kind_name = garbage_kinds[i].name;
            return true;
        }
    }
    return false;
}

/* The kind must belong to the scenario (garbage or malformed). */
static bool garbage_kind_fits(const struct tc_options *o)
{
    for (size_t i = 0; i < N_GARBAGE_KINDS; i++)
        if (garbage_kinds[i].kind == o->garbage_kind)
            return garbage_kinds[i].malformed == (o->scenario == TC_SCEN_MALFORMED);
    return false;
}

static void default_options(struct tc_options *o)
{
    memset(o, 0, sizeof(*o));
    o->address = "127.0.0.1";
    o->port = 8086;
    o->scenario = TC_SCEN_NORMAL;
    o->scenario_name = "normal";
    o->garbage_kind = TC_GARBAGE_LENGTH;
    o->garbage_kind_name = NULL;
    o->protocol = TC_PROTOCOL_VERSION;
    o->seconds = 10.0;
    o->timeout = DEFAULT_TIMEOUT_S;
    o->program_name = "tracy-test-client";
    o->announce_interval_ms = TC_ANNOUNCE_INTERVAL_MS;
}

/* Long options without a short form. */
enum { OPT_NAME = 256, OPT_ANNOUNCE, OPT_ANNOUNCE_INTERVAL };

/* Returns -1 to continue, else an exit status. */
static int parse_options(int argc, char **argv, struct tc_options *o)
{
    static const struct option longopts[] = {
        { "port", required_argument, NULL, 'p' },
        { "address", required_argument, NULL, 'a' },
        { "scenario", required_argument, NULL, 'S' },
        { "garbage-kind", required_argument, NULL, 'g' },
        { "protocol", required_argument, NULL, 'P' },
        { "list-types", no_argument, NULL, 'L' },
        { "seconds", required_argument, NULL, 's' },
        { "zones", required_argument, NULL, 'z' },
        { "threads", required_argument, NULL, 't' },
        { "manifest", required_argument, NULL, 'm' },
        { "record", required_argument, NULL, 'r' },
        { "timeout", required_argument, NULL, 'T' },
        { "quiet", no_argument, NULL, 'q' },
        { "name", required_argument, NULL, OPT_NAME },
        { "announce", required_argument, NULL, OPT_ANNOUNCE },
        { "announce-interval", required_argument, NULL, OPT_ANNOUNCE_INTERVAL },
        { "version", no_argument, NULL, 'V' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    int opt;
    double v;
    while ((opt = getopt_long(argc, argv, "p:a:S:g:P:Ls:z:t:m:r:T:qVh", longopts, NULL)) != -1) {
        bool ok = true;
        switch (opt) {
        case 'p': ok = parse_number(optarg, 0, &v) && v <= 65535; o->port = (int)v; break;
        case 'a': o->address = optarg; break;
        case 'S': ok = scenario_parse(optarg, &o->scenario); o->scenario_name = optarg; break;
        case 'g': ok = parse_garbage_kind(optarg, o); break;
        case 'P': ok = parse_protocol(optarg, &o->protocol); break;
        case 'L': o->list_types = true; break;
        case 's': ok = parse_number(optarg, 0, &o->seconds); break;
        case 'z': ok = parse_number(optarg, 1, &v); o->zones = (long)v; break;
        case 't': ok = parse_number(optarg, 1, &v) && v <= BENCH_MAX_THREADS; o->threads = (int)v; break;
        case 'm': o->manifest_path = optarg; break;
        case 'r': o->record_path = optarg; break;
        case 'T': ok = parse_number(optarg, 0, &o->timeout); break;
        case 'q': o->quiet = true; break;
        case OPT_NAME: o->program_name = optarg; break;
        case OPT_ANNOUNCE:
            ok = parse_number(optarg, 1, &v) && v <= 65535 && v == (int)v;
            o->announce_port = (int)v;
            break;
        case OPT_ANNOUNCE_INTERVAL:
            ok = parse_number(optarg, 1, &v) && v <= 3600000;
            o->announce_interval_ms = (int)v;
            break;
        case 'V': printf("tracy-test-client %s (Tracy protocols %s)\n", TC_VERSION, proto_version_list()); return 0;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 1;
        }
        if (!ok && opt == 'P') {
            fprintf(stderr, "tracy-test-client: invalid value for -P: %s (%s or none)\n", optarg,
                    proto_version_list());
            return 1;
        }
        if (!ok && opt >= OPT_NAME) {
            fprintf(stderr, "tracy-test-client: invalid value for --%s: %s\n",
                    opt == OPT_ANNOUNCE ? "announce" : "announce-interval", optarg);
            return 1;
        }
        if (!ok) {
            fprintf(stderr, "tracy-test-client: invalid value for -%c: %s\n", opt, optarg);
            return 1;
        }
    }
    if (optind != argc) {
        usage(stderr);
        return 1;
    }
    if (o->scenario == TC_SCEN_MALFORMED && !o->garbage_kind_name) {
        o->garbage_kind = TC_BAD_LOCK_UNANNOUNCED;
        o->garbage_kind_name = "lock-unannounced";
    }
    if (o->garbage_kind_name && !garbage_kind_fits(o)) {
        fprintf(stderr, "tracy-test-client: --garbage-kind %s does not belong to --scenario %s\n",
                o->garbage_kind_name, o->scenario_name);
        return 1;
    }
    if (o->list_types && o->protocol == TC_PROTOCOL_NONE) {
        fprintf(stderr, "tracy-test-client: --list-types needs a protocol, not none\n");
        return 1;
    }
    if (o->threads > MAX_THREADS && o->scenario != TC_SCEN_THREADS) {
        fprintf(stderr, "tracy-test-client: invalid value for -t: %d (more than %d threads "
                        "only for --scenario threads)\n", o->threads, MAX_THREADS);
        return 1;
    }
    return -1;
}

static void init_client(struct tc_client *c)
{
    proto_init(&c->proto, c->opt.protocol == TC_PROTOCOL_NONE ? TC_PROTOCOL_VERSION
                                                             : c->opt.protocol);
    c->listen_fd = -1;
    c->ann.fd = -1;
    c->start_ns = tc_now_ns();
    c->init_begin = 1000000;
    c->init_end = c->init_begin + 250000;
    c->welcome.timer_mul = 1.0;
    c->welcome.resolution = 10;
    c->welcome.init_begin = c->init_begin;
    c->welcome.queue_delay = 40;
    c->main_tid = 1000;
    c->symbol_tid = 1999;
    if (c->opt.timeout > 0) {
        double limit = c->opt.timeout;
        if (c->opt.scenario == TC_SCEN_STREAM || c->opt.scenario == TC_SCEN_STALL ||
            c->opt.scenario == TC_SCEN_STALL_RESET)
            limit += c->opt.seconds;
        c->deadline_ns = c->start_ns + (int64_t)(limit * 1e9);
    }
    names_init(c);
    manifest_init(c);
    scenario_configure(c);
}

int main(int argc, char **argv)
{
    struct tc_client client = { 0 }; /* the one context of the program */
    struct tc_client *c = &client;
    default_options(&c->opt);
    int rc = parse_options(argc, argv, &c->opt);
    if (rc >= 0)
        return rc;
    if (c->opt.list_types) {
        proto_init(&c->proto, c->opt.protocol);
        proto_list_types(&c->proto, stdout);
        return 0;
    }
    signal(SIGPIPE, SIG_IGN);
    init_client(c);
    if (!wire_init(c)) {
        fprintf(stderr, "tracy-test-client: out of memory\n");
        return 1;
    }
    rc = 1;
    if (session_listen(c))
        rc = session_serve(c);
    if (c->opt.manifest_path && !manifest_write(c, c->opt.manifest_path)) {
        fprintf(stderr, "tracy-test-client: cannot write %s\n", c->opt.manifest_path);
        rc = rc ? rc : 1;
    }
    tc_log(c, "done: %s, %llu frames, %llu bytes", c->man.end_reason,
           (unsigned long long)c->wire.frames, (unsigned long long)c->wire.wire_bytes);
    wire_free(c);
    names_free(c);
    manifest_free(c);
    queries_free(c);
    broadcast_close(c);
    if (c->listen_fd >= 0)
        close(c->listen_fd);
    return rc;
}
