/* cli.c - command-line parsing (getopt_long), --help and --version. */
#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "disasm.h"
#include "protocols.h"
#include "require.h"
#include "statsargs.h"

enum { OPT_CONNECT_TIMEOUT = 256, OPT_END_TIMEOUT, OPT_RECOVER, OPT_SPOOL, OPT_KEEP_SPOOL, OPT_NO_SPOOL,
       OPT_PROTOCOL, OPT_FORMAT, OPT_REQUIRE,
       OPT_SUMMARY_JSON, OPT_CSV, OPT_CSV_ARGS };

static const struct option long_options[] = {
    { "output", required_argument, NULL, 'o' },
    { "address", required_argument, NULL, 'a' },
    { "port", required_argument, NULL, 'p' },
    { "force", no_argument, NULL, 'f' },
    { "seconds", required_argument, NULL, 's' },
    { "memlimit", required_argument, NULL, 'm' },
    { "connect-timeout", required_argument, NULL, OPT_CONNECT_TIMEOUT },
    { "end-timeout", required_argument, NULL, OPT_END_TIMEOUT },
    { "recover", required_argument, NULL, OPT_RECOVER },
    { "spool", required_argument, NULL, OPT_SPOOL },
    { "keep-spool", no_argument, NULL, OPT_KEEP_SPOOL },
    { "no-spool", no_argument, NULL, OPT_NO_SPOOL },
    { "protocol", required_argument, NULL, OPT_PROTOCOL },
    { "format", required_argument, NULL, OPT_FORMAT },
    FILE_OPTS_LONG_OPTIONS,
    { "require", required_argument, NULL, OPT_REQUIRE },
    { "summary-json", required_argument, NULL, OPT_SUMMARY_JSON },
    { "csv", required_argument, NULL, OPT_CSV },
    { "csv-args", required_argument, NULL, OPT_CSV_ARGS },
    { "quiet", no_argument, NULL, 'q' },
    { "help", no_argument, NULL, 'h' },
    { "version", no_argument, NULL, 'V' },
    { NULL, 0, NULL, 0 },
};

static void print_help(FILE *out)
{
    fprintf(out,
        "Usage: tracy-capture -o FILE [options]\n"
        "Capture a Tracy client of release 0.10 to 0.14 (protocols 64 to 82, found by\n"
        "themselves) into a .tracy file in the format of the client's release.\n"
        "\n"
        "  -o, --output FILE          write the trace to FILE (required)\n"
        "  -a, --address ADDRESS      client address or host name (default 127.0.0.1)\n"
        "  -p, --port PORT            client port (default 8086)\n"
        "  -f, --force                overwrite FILE if it exists\n"
        "  -s, --seconds SECONDS      stop capturing after SECONDS\n"
        "  -m, --memlimit PERCENT     stop when this process uses PERCENT of physical\n"
        "                             memory (1 to 999)\n"
        "      --connect-timeout SECONDS\n"
        "                             give up (exit 6) when no client answers within\n"
        "                             SECONDS (default: keep retrying, like upstream)\n"
        "      --end-timeout SECONDS  at the end of a session, stop waiting for the\n"
        "                             client's outstanding answers after SECONDS\n"
        "                             without one, SECONDS after a stop request, or\n"
        "                             10 x SECONDS after the client ended the session\n"
        "                             (default 10)\n"
        "      --recover RECORDING    build the trace from a recorded client stream\n"
        "                             (every byte a client sent) instead of connecting\n"
        "      --spool PATH           keep every byte received in PATH while capturing\n"
        "                             (default FILE.spool), for --recover after a kill\n"
        "      --keep-spool           keep the spool after a successful save\n"
        "      --no-spool             do not spool\n"
        "      --protocol N|RELEASE   speak only this protocol (82, 76, 74, 72, 69, 66,\n"
        "                             64, or a release such as 0.13 or 0.11.1) instead\n"
        "                             of searching for the client's\n"
        "      --format VERSION       save in the file format of that Tracy release,\n"
        "                             for its tools (0.10 .. 0.14; default: that of\n"
        "                             the client's release; what the format cannot\n"
        "                             hold is left out)\n"
        "  -z, --zstd LEVEL           zstd compression level (default 2; up to 22, the\n"
        "                             smallest; negative ones, to -131072, faster)\n"
        "      --lz4, --lz4hc, --lz4-extreme\n"
        "                             LZ4 compression instead (fast; high; highest)\n"
        "  -j, --streams N            compression streams (default 4; 1 to 255, -1: one\n"
        "                             per core; the 0.10 format has one)\n"
        "      --strip FLAGS          leave data out of the file, as tracy-update -s:\n"
        "                             l locks, m messages, p plots, M memory, i frame\n"
        "                             images, c context switches, s sampling data,\n"
        "                             C symbol code, S source cache\n"
        "      --require LIST         after saving, exit 9 if the trace holds nothing of\n"
        "                             one of these comma-separated families, saying\n"
        "                             why: zones, frames, messages, plots, locks,\n"
        "                             memory, callstacks, sampling, context-switches,\n"
        "                             gpu, source-files\n"
        "      --summary-json FILE    write the summary's numbers, the families, the\n"
        "                             exit status and the trace's format and path to\n"
        "                             FILE as a JSON object (replaced if it exists)\n"
        "      --csv CSV              after the save, write what tracy-csvexport prints\n"
        "                             of the trace to CSV (beside it, then renamed)\n"
        "      --csv-args \"ARGS\"      tracy-csvexport's options for --csv (-f -c -s -e\n"
        "                             -u -g -m -p -t; see tracy-stats(1))\n"
        "  -q, --quiet                print only errors\n"
        "  -h, --help                 show this help and exit\n"
        "  -V, --version              show the version and exit\n"
        "\n"
        "Ctrl-C (or SIGTERM, SIGHUP, or the end of -s) ends the capture in an orderly\n"
        "way and saves it; a second signal stops waiting and saves at once.\n"
        "Exit status: 0 saved, 1 usage error, unresolvable address, unreadable\n"
        "recording, no Tracy client, protocol mismatch, or too few descriptors or\n"
        "too little memory to start (ulimit -n, -v), 2 client not available,\n"
        "3 client dropped the handshake, 4 output exists, 5 output not writable,\n"
        "6 connect timeout, 7 saving failed or out of memory, 8 stream broken (data\n"
        "before it saved), 9 saved but a --require family missing (another failure's\n"
        "status comes first), 10 saved but --csv not written, 130 aborted by a second\n"
        "signal, or by a signal before any data.\n"
        "tracy-capture warns when it runs with LD_PRELOAD set: run it with\n"
        "'env -u LD_PRELOAD tracy-capture ...'.\n"
        "See tracy-capture(1).\n");
}

static int usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "tracy-capture: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\nTry 'tracy-capture --help' for more information.\n");
    return EXIT_USAGE;
}

/* A non-negative number of seconds (fractions allowed). */
#define MAX_SECONDS 1e9

int cli_seconds(const char *arg, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(arg, &end);
    if (errno || end == arg || *end || !isfinite(v) || v < 0) return -1;
    /* beyond 31 years is forever, and stays within the timers' range */
    *out = v > MAX_SECONDS ? MAX_SECONDS : v;
    return 0;
}

static int parse_seconds(const char *arg, const char *opt, double *out)
{
    if (cli_seconds(arg, out) == 0) return 0;
    fprintf(stderr, "tracy-capture: %s needs a number of seconds, not '%s'\n", opt, arg);
    return -1;
}

int cli_port(const char *arg, char *buf, size_t len)
{
    if (arg[0] < '0' || arg[0] > '9') return -1;
    char *end;
    errno = 0;
    long v = strtol(arg, &end, 10);
    if (errno || *end || v < 1 || v > 65535) return -1;
    snprintf(buf, len, "%ld", v);
    return 0;
}

/* The option getopt found at fault: a short one by its letter (it may sit
 * in a group such as -fz, where getopt stays on the argument: `before` is
 * optind before the call), a long one by its name without "=value". */
static bool faulty_option(char **argv, int before, char *buf, size_t len)
{
    const char *arg = argv[optind - 1];
    const bool is_long = optind != before && arg[0] == '-' && arg[1] == '-';
    if (is_long) snprintf(buf, len, "%.*s", (int)strcspn(arg, "="), arg);
    else if (optopt == '-') snprintf(buf, len, "-");     /* a '-' inside a group such as -f- */
    else snprintf(buf, len, "-%c", optopt);
    return is_long;
}

/* How many long options begin with `name` (after its "--"). */
static int long_matches(const char *name)
{
    int n = 0;
    for (const struct option *o = long_options; o->name; o++)
        if (strncmp(o->name, name + 2, strlen(name + 2)) == 0) n++;
    return n;
}

/* --format VERSION: a release whose file format the writer knows. */
static int parse_format(const char *arg, const file_format_t **out)
{
    *out = file_format_by_name(arg);
    if (*out) return 0;
    char list[256];
    file_format_list_text(list, sizeof list);
    fprintf(stderr, "tracy-capture: unknown file format '%s'; --format takes one of: %s\n", arg, list);
    return -1;
}

/* Options that cannot go together, and values that cannot be empty. */
static int check_combination(const options_t *o)
{
    char why[160];
    if (o->format && file_opts_check(&o->file, o->format, why, sizeof why)) return usage_error("%s", why);
    if (!o->output) return usage_error("%s", "no output file: use -o FILE");
    if (!o->output[0]) return usage_error("%s", "-o needs a file name, not ''");
    if (!o->address[0]) return usage_error("%s", "-a needs an address or host name, not ''");
    if (o->spool && !o->spool[0]) return usage_error("%s", "--spool needs a path, not ''");
    if (o->recover && !o->recover[0]) return usage_error("%s", "--recover needs a recording, not ''");
    if (o->summary_json && !o->summary_json[0]) return usage_error("%s", "--summary-json needs a file name, not ''");
    if (o->no_spool && o->spool) return usage_error("%s", "--spool and --no-spool contradict each other");
    if (o->no_spool && o->keep_spool) return usage_error("%s", "--keep-spool and --no-spool contradict each other");
    if (o->recover && (o->spool || o->keep_spool))
        return usage_error("%s", "--recover reads a recording and spools nothing: --spool and --keep-spool do not apply");
    return -1;
}

/* --csv and --csv-args, checked now, not after the capture (parsing the
 * options uses getopt: after the command line's own parse). */
static int check_csv(const options_t *o)
{
    if (o->csv && !o->csv[0]) return usage_error("%s", "--csv needs a file name, not ''");
    if (o->csv_args && !o->csv) return usage_error("%s", "--csv-args needs --csv FILE");
    if (!o->csv_args) return -1;
    stats_args a;
    char err[512];
    stats_args_init(&a);
    const int bad = stats_args_parse_text(&a, o->csv_args, err, sizeof err);
    stats_args_free(&a);
    return bad ? usage_error("--csv-args: %s", err) : -1;
}

int cli_parse(options_t *o, int argc, char **argv)
{
    *o = (options_t){ .address = "127.0.0.1", .port = "8086", .seconds = -1, .connect_timeout = -1,
                      .end_timeout = 10, .file = FILE_OPTS_DEFAULT };
    int c, before = optind;
    char why[512];
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":o:a:p:fs:m:z:j:qhV", long_options, NULL)) != -1) {
        switch (c) {
        case 'o': o->output = optarg; break;
        case 'a': o->address = optarg; break;
        case 'p':
            if (cli_port(optarg, o->port_buf, sizeof o->port_buf))
                return usage_error("invalid port '%s' (1 to 65535)", optarg);
            o->port = o->port_buf;
            break;
        case 'f': o->force = true; break;
        case 's':
            if (parse_seconds(optarg, "-s", &o->seconds)) return EXIT_USAGE;
            break;
        case 'm': {
            char *end;
            long v = strtol(optarg, &end, 10);
            if (end == optarg || *end || v < 1 || v > 999)
                return usage_error("-m needs a percentage from 1 to 999, not '%s'", optarg);
            o->memlimit_percent = (int)v;
            break;
        }
        case OPT_CONNECT_TIMEOUT:
            if (parse_seconds(optarg, "--connect-timeout", &o->connect_timeout)) return EXIT_USAGE;
            if (o->connect_timeout <= 0)
                return usage_error("--connect-timeout needs a time above 0, not '%s'", optarg);
            break;
        case OPT_END_TIMEOUT:
            if (parse_seconds(optarg, "--end-timeout", &o->end_timeout)) return EXIT_USAGE;
            break;
        case OPT_RECOVER: o->recover = optarg; break;
        case OPT_SPOOL: o->spool = optarg; break;
        case OPT_KEEP_SPOOL: o->keep_spool = true; break;
        case OPT_NO_SPOOL: o->no_spool = true; break;
        case OPT_PROTOCOL:
            o->protocol = proto_by_name(optarg);
            if (!o->protocol) {
                char list[64];
                proto_list_text(list, sizeof list);
                fprintf(stderr, "tracy-capture: --protocol needs a protocol this tool speaks (%s) or its Tracy "
                        "release (such as 0.13 or 0.11.1), not '%s'\n", list, optarg);
                return EXIT_USAGE;
            }
            break;
        case OPT_FORMAT:
            if (parse_format(optarg, &o->format)) return EXIT_USAGE;
            break;
        case 'z': case 'j': case FILE_OPT_LZ4: case FILE_OPT_LZ4HC: case FILE_OPT_LZ4_EXTREME: case FILE_OPT_STRIP:
            if (file_opts_option(&o->file, c, optarg, why, sizeof why)) return usage_error("%s", why);
            break;
        case OPT_REQUIRE:
            if (require_parse(optarg, &o->require)) return EXIT_USAGE;
            break;
        case OPT_SUMMARY_JSON: o->summary_json = optarg; break;
        case OPT_CSV: o->csv = optarg; break;
        case OPT_CSV_ARGS: o->csv_args = optarg; break;
        case 'q': o->quiet = true; break;
        case 'h': print_help(stdout); return EXIT_OK;
        case 'V': {
            char protocols[64], formats[256];
            proto_list_text(protocols, sizeof protocols);
            file_format_list_text(formats, sizeof formats);
            printf("tracy-capture %s (Tracy protocols %s; file formats %s; %s)\n", TC_VERSION, protocols, formats,
                   disasm_engine());
            return EXIT_OK;
        }
        case ':': {
            char name[64];
            faulty_option(argv, before, name, sizeof name);
            return usage_error("option '%s' needs an argument", name);
        }
        default: {
            char name[64];
            const bool is_long = faulty_option(argv, before, name, sizeof name);
            /* a long option known but given a value it does not take */
            if (is_long && optopt) return usage_error("option '%s' takes no argument", name);
            if (is_long && long_matches(name) > 1) return usage_error("option '%s' is ambiguous", name);
            return usage_error("unknown option '%s'", name);
        }
        }
        before = optind;
    }
    if (optind < argc) return usage_error("unexpected argument '%s'", argv[optind]);
    const int rc = check_combination(o);
    return rc >= 0 ? rc : check_csv(o);
}
