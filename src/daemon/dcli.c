/* dcli.c - tracy-capture-daemon's command line (getopt_long), --help and
 * --version. */
#include "dcli.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "config.h"
#include "protocols.h"

#define PROG "tracy-capture-daemon"

enum { OPT_FILTER_NAME = 256, OPT_FILTER_PORT, OPT_NO_LISTEN, OPT_MAX_CLIENTS, OPT_IDLE_EXIT, OPT_END_TIMEOUT,
       OPT_FORMAT, OPT_THREADS };

static const struct option long_options[] = {
    { "output", required_argument, NULL, 'o' },
    { "port", required_argument, NULL, 'p' },
    { "memory", required_argument, NULL, 'm' },
    { "memlimit", required_argument, NULL, 'm' },
    { "filter-name", required_argument, NULL, OPT_FILTER_NAME },
    { "filter-port", required_argument, NULL, OPT_FILTER_PORT },
    { "address", required_argument, NULL, 'a' },
    { "no-listen", no_argument, NULL, OPT_NO_LISTEN },
    { "max-clients", required_argument, NULL, OPT_MAX_CLIENTS },
    { "idle-exit", required_argument, NULL, OPT_IDLE_EXIT },
    { "end-timeout", required_argument, NULL, OPT_END_TIMEOUT },
    { "format", required_argument, NULL, OPT_FORMAT },
    { "threads", required_argument, NULL, OPT_THREADS },
    FILE_OPTS_LONG_OPTIONS,
    { "quiet", no_argument, NULL, 'q' },
    { "help", no_argument, NULL, 'h' },
    { "version", no_argument, NULL, 'V' },
    { NULL, 0, NULL, 0 },
};

static void print_help(FILE *out)
{
    fprintf(out,
        "Usage: " PROG " -o DIR [options]\n"
        "Capture every Tracy client (releases 0.10 to 0.14) that announces itself on\n"
        "this network, and every client named with -a, each into its own .tracy file\n"
        "in DIR (PROGRAM_ADDRESS_PORT.tracy) in the format of the client's release.\n"
        "\n"
        "  -o, --output DIR           write the traces into DIR (required; created)\n"
        "  -p, --port PORT            UDP port the announcements come to (default 8086)\n"
        "  -m, --memory PERCENT       stop a client's capture when it holds PERCENT of\n"
        "                             physical memory (1 to 999; each client on its own)\n"
        "      --filter-name TEXT     only clients whose program name contains TEXT\n"
        "      --filter-port PORT     only clients whose data port is PORT\n"
        "  -a, --address HOST:PORT    also capture the client at HOST:PORT, which need\n"
        "                             not announce itself (adb forward, a container),\n"
        "                             tried until it appears (repeatable)\n"
        "      --no-listen            capture the -a clients only\n"
        "      --max-clients N        take N clients, then stop listening and exit once\n"
        "                             their traces are saved\n"
        "      --idle-exit SECONDS    exit when no capture has run and no new client has\n"
        "                             appeared for SECONDS\n"
        "      --end-timeout SECONDS  as tracy-capture's (default 10)\n"
        "      --format VERSION       save every trace in the file format of that Tracy\n"
        "                             release (0.10 .. 0.14; default: the client's own)\n"
        "      --threads N            threads decoding and saving (default: one per core)\n"
        "  -z, --zstd LEVEL, --lz4, --lz4hc, --lz4-extreme, -j, --streams N,\n"
        "      --strip FLAGS          each trace's compression, compression streams\n"
        "                             and what is left out, as tracy-capture's\n"
        "  -q, --quiet                print only errors, warnings and the summary\n"
        "  -h, --help                 show this help and exit\n"
        "  -V, --version              show the version and exit\n"
        "\n"
        "Ctrl-C (or SIGTERM, SIGHUP) ends every capture in an orderly way and saves\n"
        "them all; a second signal stops waiting and saves at once.\n"
        "Exit status: 0 when every capture was saved, else the worst status of a\n"
        "client (tracy-capture's codes, the highest; 6: a client that never\n"
        "answered), 1 for a usage error or a listening port that cannot be had, or\n"
        "5 for an output directory that cannot be created or written.\n"
        "See " PROG "(1).\n");
}

static int usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, PROG ": ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\nTry '" PROG " --help' for more information.\n");
    return 1;
}

/* HOST:PORT, [IPV6]:PORT, or an IPv6 address whose last part is the port
 * only inside brackets. */
static int parse_target(const char *arg, target_t *t)
{
    const char *colon;
    size_t hostlen;
    const char *host = arg;
    if (arg[0] == '[') {
        const char *close = strchr(arg, ']');
        if (!close || close[1] != ':') return -1;
        host = arg + 1;
        hostlen = (size_t)(close - host);
        colon = close + 1;
    } else {
        colon = strrchr(arg, ':');
        if (!colon || memchr(arg, ':', (size_t)(colon - arg))) return -1;   /* IPv6 needs brackets */
        hostlen = (size_t)(colon - arg);
    }
    if (hostlen == 0 || hostlen >= sizeof t->host) return -1;
    if (cli_port(colon + 1, t->port, sizeof t->port)) return -1;
    memcpy(t->host, host, hostlen);
    t->host[hostlen] = '\0';
    return 0;
}

static int parse_count(const char *arg, long max, long *out)
{
    char *end;
    long v = strtol(arg, &end, 10);
    if (end == arg || *end || v < 1 || v > max) return -1;
    *out = v;
    return 0;
}

static int check_combination(const daemon_options_t *o)
{
    char why[160];
    if (o->format && file_opts_check(&o->file, o->format, why, sizeof why)) return usage_error("%s", why);
    if (!o->dir) return usage_error("%s", "no output directory: use -o DIR");
    if (!o->dir[0]) return usage_error("%s", "-o needs a directory, not ''");
    if (o->no_listen && o->ntargets == 0)
        return usage_error("%s", "--no-listen leaves nothing to capture: name clients with -a HOST:PORT");
    return -1;
}

int dcli_parse(daemon_options_t *o, int argc, char **argv)
{
    memset(o, 0, sizeof *o);
    o->listen_port = 8086;
    o->idle_exit = -1;
    o->end_timeout = 10;
    o->file = FILE_OPTS_DEFAULT;
    int c;
    long v;
    char port[8], why[512];
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":o:p:m:a:z:j:qhV", long_options, NULL)) != -1) {
        switch (c) {
        case 'o': o->dir = optarg; break;
        case 'p':
            if (cli_port(optarg, port, sizeof port)) return usage_error("invalid port '%s' (1 to 65535)", optarg);
            o->listen_port = (uint16_t)atoi(port);
            break;
        case 'm':
            if (parse_count(optarg, 999, &v)) return usage_error("-m needs a percentage from 1 to 999, not '%s'", optarg);
            o->memlimit_percent = (int)v;
            break;
        case OPT_FILTER_NAME: o->filter_name = optarg; break;
        case OPT_FILTER_PORT:
            if (cli_port(optarg, port, sizeof port))
                return usage_error("invalid --filter-port '%s' (1 to 65535)", optarg);
            o->filter_port = (uint16_t)atoi(port);
            break;
        case 'a':
            if (o->ntargets == DAEMON_MAX_TARGETS) return usage_error("%s", "too many -a clients (at most 256)");
            if (parse_target(optarg, &o->targets[o->ntargets]))
                return usage_error("-a needs HOST:PORT (an IPv6 address in brackets), not '%s'", optarg);
            o->ntargets++;
            break;
        case OPT_NO_LISTEN: o->no_listen = true; break;
        case OPT_MAX_CLIENTS:
            if (parse_count(optarg, 1000000, &v)) return usage_error("--max-clients needs a count from 1, not '%s'", optarg);
            o->max_clients = (int)v;
            break;
        case OPT_IDLE_EXIT:
            if (cli_seconds(optarg, &o->idle_exit) || o->idle_exit <= 0)
                return usage_error("--idle-exit needs a time above 0, not '%s'", optarg);
            break;
        case OPT_END_TIMEOUT:
            if (cli_seconds(optarg, &o->end_timeout))
                return usage_error("--end-timeout needs a number of seconds, not '%s'", optarg);
            break;
        case OPT_FORMAT:
            o->format = file_format_by_name(optarg);
            if (!o->format) {
                char list[256];
                file_format_list_text(list, sizeof list);
                fprintf(stderr, PROG ": unknown file format '%s'; --format takes one of: %s\n", optarg, list);
                return 1;
            }
            break;
        case OPT_THREADS:
            if (parse_count(optarg, 64, &v)) return usage_error("--threads needs a count from 1 to 64, not '%s'", optarg);
            o->threads = (int)v;
            break;
        case 'z': case 'j': case FILE_OPT_LZ4: case FILE_OPT_LZ4HC: case FILE_OPT_LZ4_EXTREME: case FILE_OPT_STRIP:
            if (file_opts_option(&o->file, c, optarg, why, sizeof why)) return usage_error("%s", why);
            break;
        case 'q': o->quiet = true; break;
        case 'h': print_help(stdout); return 0;
        case 'V': {
            char protocols[64], formats[256];
            proto_list_text(protocols, sizeof protocols);
            file_format_list_text(formats, sizeof formats);
            printf(PROG " %s (Tracy protocols %s; file formats %s)\n", TC_VERSION, protocols, formats);
            return 0;
        }
        case ':': return usage_error("option '%s' needs an argument", argv[optind - 1]);
        default: return usage_error("unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc) return usage_error("unexpected argument '%s'", argv[optind]);
    return check_combination(o);
}
