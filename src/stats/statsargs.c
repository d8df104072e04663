/* statsargs: parsing and checking csvexport's options (see statsargs.h). */
#include "statsargs.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { OPT_RELEASE = 256 };

static const struct option long_options[] = {
    { "help", no_argument, NULL, 'h' },
    { "version", no_argument, NULL, 'V' },
    { "filter", optional_argument, NULL, 'f' },
    { "sep", optional_argument, NULL, 's' },
    { "case", no_argument, NULL, 'c' },
    { "self", no_argument, NULL, 'e' },
    { "unwrap", no_argument, NULL, 'u' },
    { "gpu", no_argument, NULL, 'g' },
    { "messages", no_argument, NULL, 'm' },
    { "plot", no_argument, NULL, 'p' },
    { "truncated_mean", optional_argument, NULL, 't' },
    { "release", required_argument, NULL, OPT_RELEASE },
    { NULL, 0, NULL, 0 },
};

void stats_args_init(stats_args *a)
{
    memset(a, 0, sizeof *a);
    a->csv.filter = "";
    a->csv.sep = ",";
}

void stats_args_free(stats_args *a)
{
    if (a->words) {
        free(a->words[0]);
        free(a->words);
    }
    a->words = NULL;
}

/* upstream: atoi, clamped to 1..99; 90 when no value is given */
static int clamp_percentile(const char *arg)
{
    int v = arg ? atoi(arg) : 90;
    return v < 1 ? 1 : v > 99 ? 99 : v;
}

/* The option getopt stopped at, for a message. */
static void name_faulty_option(char **argv, int before, char *buf, size_t len)
{
    const char *arg = argv[optind - 1];
    if (optind != before && arg[0] == '-' && arg[1] == '-')
        snprintf(buf, len, "%.*s", (int)strcspn(arg, "="), arg);
    else
        snprintf(buf, len, "-%c", optopt ? optopt : '?');
}

static int parse_release(stats_args *a, const char *arg, char *err, size_t errsz)
{
    a->release = csv_release_by_name(arg);
    if (a->release)
        return 0;
    char list[160];
    csv_release_list_text(list, sizeof list);
    snprintf(err, errsz, "--release takes a release of tracy-csvexport (%s), not '%s'", list, arg);
    return -1;
}

/* One option; 1 to stop (-h, -V), 0 to go on, -1 on an error. */
static int take_option(stats_args *a, int c, char **argv, int before, char *err, size_t errsz)
{
    char name[64];
    switch (c) {
    case 'h': a->help = 1; return 1;
    case 'V': a->version = 1; return 1;
    case 'f': a->csv.filter = optarg ? optarg : ""; return 0;
    case 's': a->csv.sep = optarg; return 0;   /* --sep without '=': none, as upstream */
    case 'c': a->csv.case_sensitive = 1; return 0;
    case 'e': a->csv.self_time = 1; return 0;
    case 'u': a->csv.unwrap = 1; return 0;
    case 'g': a->csv.gpu = 1; return 0;
    case 'm': a->csv.messages = 1; return 0;
    case 'p': a->csv.plot = 1; return 0;
    case 't': a->csv.truncated_mean = clamp_percentile(optarg); return 0;
    case OPT_RELEASE: return parse_release(a, optarg, err, errsz);
    case ':':
        name_faulty_option(argv, before, name, sizeof name);
        snprintf(err, errsz, "option '%s' needs an argument", name);
        return -1;
    default:
        name_faulty_option(argv, before, name, sizeof name);
        snprintf(err, errsz, "unknown or ambiguous option '%s'", name);
        return -1;
    }
}

int stats_args_parse(stats_args *a, int argc, char **argv, int want_file, char *err, size_t errsz)
{
    optind = 0;   /* a fresh parse (glibc: this resets all of getopt's state) */
    opterr = 0;
    int c, before = 1;
    while ((c = getopt_long(argc, argv, "+:hVf:s:ceugmpt::", long_options, NULL)) != -1) {
        int rc = take_option(a, c, argv, before, err, errsz);
        if (rc != 0)
            return rc < 0 ? -1 : 0;
        before = optind;
    }
    if (want_file && argc - optind != 1) {
        snprintf(err, errsz, argc == optind ? "no trace file given" : "one trace file after the options, not %d words",
                 argc - optind);
        return -1;
    }
    if (!want_file && argc != optind) {
        snprintf(err, errsz, "options only, not '%s'", argv[optind]);
        return -1;
    }
    a->path = want_file ? argv[optind] : NULL;
    return 0;
}

/* Split text into words as a shell does (no expansion): into *words, a
 * NULL-terminated vector after a first "--csv-args", all in one buffer
 * (words[0]'s). Returns the word count, or -1 (err). */
static int split_words(const char *text, char ***words, char *err, size_t errsz)
{
    const char *first = "--csv-args";
    size_t len = strlen(text), cap = len / 2 + 3;
    char *buf = malloc(strlen(first) + 1 + len + 1);
    char **w = calloc(cap, sizeof *w);
    if (!buf || !w) {
        free(buf);
        free(w);
        snprintf(err, errsz, "out of memory");
        return -1;
    }
    strcpy(buf, first);
    w[0] = buf;
    int n = 1;
    char *o = buf + strlen(first) + 1;
    const char *p = text;
    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == '\n')
            p++;
        if (!*p)
            break;
        w[n++] = o;
        char quote = 0;
        for (; *p && (quote || (*p != ' ' && *p != '\t' && *p != '\n')); p++) {
            if (quote == '\'' && *p == '\'')
                quote = 0;
            else if (quote == '"' && *p == '"')
                quote = 0;
            else if (!quote && (*p == '\'' || *p == '"'))
                quote = *p;
            else if (*p == '\\' && quote != '\'' && p[1] &&
                     (!quote || p[1] == '"' || p[1] == '\\'))
                *o++ = *++p;
            else
                *o++ = *p;
        }
        *o++ = '\0';
        if (quote) {
            free(buf);
            free(w);
            snprintf(err, errsz, "unmatched %c", quote);
            return -1;
        }
    }
    w[n] = NULL;
    *words = w;
    return n;
}

int stats_args_parse_text(stats_args *a, const char *text, char *err, size_t errsz)
{
    char **words;
    int n = split_words(text, &words, err, errsz);
    if (n < 0)
        return -1;
    stats_args_free(a);
    a->words = words;
    if (stats_args_parse(a, n, words, 0, err, errsz) != 0)
        return -1;
    if (a->help || a->version) {
        snprintf(err, errsz, "%s has no place here", a->help ? "-h" : "-V");
        return -1;
    }
    return 0;
}

/* An option the release lacks: the message, and -1. */
static int lacks(const stats_args *a, const char *option, const char *since, char *err, size_t errsz)
{
    const csv_release *rel = a->csv.release;
    snprintf(err, errsz, "tracy-csvexport %s%s has no %s (it came with %s)%s", rel->name,
             a->release ? "" : ", the release of this file,", option, since,
             a->release ? "" : "; --release 0.14.0 prints what csvexport 0.14.0 prints");
    return -1;
}

int stats_args_check(stats_args *a, const uint8_t v[3], char *err, size_t errsz)
{
    const csv_release *own = csv_release_of_file(v);
    if (!own) {
        snprintf(err, errsz, "unsupported file version %u.%u.%u (newer than 0.14.0)", v[0], v[1], v[2]);
        return -1;
    }
    if (a->release && !csv_release_reads(a->release, own)) {
        snprintf(err, errsz, "tracy-csvexport %s cannot read a file of version %u.%u.%u (its release is %s)",
                 a->release->name, v[0], v[1], v[2], own->name);
        return -1;
    }
    const csv_release *rel = a->release ? a->release : own;
    a->csv.release = rel;
    if (a->csv.gpu && !rel->gpu)
        return lacks(a, "-g", "5479a42 and 0.12.0", err, errsz);
    if (a->csv.plot && !rel->gpu)
        return lacks(a, "-p", "5479a42 and 0.12.0", err, errsz);
    if (a->csv.truncated_mean && !rel->truncated_mean)
        return lacks(a, "--truncated_mean", "0.13.1", err, errsz);
    return 0;
}
