/* tracy-csv: test tool that reads a .tracy file (format 0.9.0 .. 0.14.0) with
 * our own strict parser (src/stats, as tracy-stats does, keeping the whole
 * file in memory and validating all of it) and prints exactly what upstream
 * tracy-csvexport v0.14.0 prints for the same options, or (--summary) a
 * short description of the file.  Exit status: 0 ok, 1 usage error or unreadable file, 2 malformed
 * file or validation failure (details on stderr). */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "csvexport.h"
#include "fields.h"
#include "tfload.h"
#include "summary.h"
#include "tfread.h"
#include "validate.h"

enum { OPT_SUMMARY = 256, OPT_SECTIONS, OPT_FORMAT_FIELDS, OPT_LENIENT, OPT_MAX_ERRORS };

typedef struct app {
    csv_options csv;
    int summary;
    int sections;
    int format_fields;
    int lenient;
    long max_errors;
    const char *path;
} app;

static void usage(FILE *to)
{
    fputs("Usage: tracy-csv [OPTION...] FILE\n"
          "Print what tracy-csvexport 0.14.0 prints for FILE, after checking the file strictly.\n"
          "\n"
          "  -h, --help                  this text\n"
          "  -V, --version               version\n"
          "  -f, --filter=X              keep source locations whose name contains X\n"
          "  -s, --sep=X                 field separator (default ,)\n"
          "  -c, --case                  case-sensitive filter\n"
          "  -e, --self                  self times\n"
          "  -u, --unwrap                one row per CPU zone\n"
          "  -g, --gpu                   one row per GPU zone\n"
          "  -m, --messages              messages only\n"
          "  -p, --plot                  with -u: append the file's plot points\n"
          "      --truncated_mean[=N]    add percentile N (default 90) and truncated mean\n"
          "      --summary               describe the file instead of printing CSV\n"
          "      --sections              list the payload offset of every section\n"
          "      --format-fields         print the fields that not every file version holds\n"
          "      --lenient               print validation problems but continue\n"
          "      --max-errors=N          report at most N validation problems (default 50)\n",
          to);
}

static int clamp_percentile(const char *arg)
{
    int v = arg ? atoi(arg) : 90;
    return v < 1 ? 1 : v > 99 ? 99 : v;
}

/* Returns -1 to continue, else an exit status. */
static int parse_args(app *a, int argc, char **argv)
{
    static const struct option longopts[] = {
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
        { "summary", no_argument, NULL, OPT_SUMMARY },
        { "sections", no_argument, NULL, OPT_SECTIONS },
        { "format-fields", no_argument, NULL, OPT_FORMAT_FIELDS },
        { "lenient", no_argument, NULL, OPT_LENIENT },
        { "max-errors", required_argument, NULL, OPT_MAX_ERRORS },
        { NULL, 0, NULL, 0 },
    };
    memset(a, 0, sizeof *a);
    a->csv.filter = "";
    a->csv.sep = ",";
    a->max_errors = 50;
    if (argc == 1) {
        usage(stderr);
        return 1;
    }
    int c;
    while ((c = getopt_long(argc, argv, "+hf:s:ceugmpV", longopts, NULL)) != -1) {
        switch (c) {
        case 'h': usage(stderr); return 0;
        case 'V': printf("tracy-csv %s (reproduces tracy-csvexport 0.14.0)\n", TC_VERSION); return 0;
        case 'f': a->csv.filter = optarg ? optarg : ""; break;
        case 's': a->csv.sep = optarg; break;
        case 'c': a->csv.case_sensitive = 1; break;
        case 'e': a->csv.self_time = 1; break;
        case 'u': a->csv.unwrap = 1; break;
        case 'g': a->csv.gpu = 1; break;
        case 'm': a->csv.messages = 1; break;
        case 'p': a->csv.plot = 1; break;
        case 't': a->csv.truncated_mean = clamp_percentile(optarg); break;
        case OPT_SUMMARY: a->summary = 1; break;
        case OPT_SECTIONS: a->sections = 1; break;
        case OPT_FORMAT_FIELDS: a->format_fields = 1; break;
        case OPT_LENIENT: a->lenient = 1; break;
        case OPT_MAX_ERRORS: a->max_errors = atol(optarg); break;
        default: usage(stderr); return 1;
        }
    }
    if (argc != optind + 1) {
        usage(stderr);
        return 1;
    }
    a->path = argv[optind];
    return -1;
}

static void write_section_offsets(const tf_model *m, FILE *out)
{
    for (int i = 0; i < TF_SECTIONS; i++)
        fprintf(out, "%d %" PRIu64 " %s\n", i, m->section_offset[i], load_section_name(i));
}

/* Open, load (everything, and the statistics the options print) and
 * validate; returns -1 on success, else an exit status. */
static int load_and_check(const app *a, tfread **r, tf_model *m, tf_stats *s)
{
    char err[512];
    int open_failed;
    if (tfread_open(r, a->path, &open_failed, err, sizeof err) != 0) {
        if (open_failed) {
            fprintf(stderr, "Could not open file %s\n", a->path);
            return 1;
        }
        fprintf(stderr, "tracy-csv: %s: %s\n", a->path, err);
        return 2;
    }
    if (csv_load(*r, m, s, &a->csv, LOAD_KEEP_ALL, err, sizeof err) != 0) {
        fprintf(stderr, "tracy-csv: %s: %s\n", a->path, err);
        return 2;
    }
    long problems = validate_model(m, stderr, a->max_errors);
    if (problems < 0) {
        fprintf(stderr, "tracy-csv: out of memory while validating\n");
        return 2;
    }
    if (problems > 0 && !a->lenient) {
        fprintf(stderr, "tracy-csv: %s: %ld validation problem(s)\n", a->path, problems);
        return 2;
    }
    return -1;
}

/* What the options ask for, of the loaded model; 0, or -1 out of memory. */
static int write_report(const app *a, const tf_model *m, tf_stats *s, FILE *out)
{
    if (a->summary) {
        summary_write(m, out);
        return 0;
    }
    if (a->sections) {
        write_section_offsets(m, out);
        return 0;
    }
    if (a->format_fields)
        return fields_write(m, out);
    return csv_write(m, s, &a->csv, out);
}

int main(int argc, char **argv)
{
    app a;
    int status = parse_args(&a, argc, argv);
    if (status >= 0)
        return status;
    tfread *r = NULL;
    tf_model m;
    tf_stats s;
    tf_model_init(&m);
    stats_init(&s, &(stats_options){ 0 });
    status = load_and_check(&a, &r, &m, &s);
    if (status < 0) {
        status = 0;
        if (write_report(&a, &m, &s, stdout) != 0) {
            fprintf(stderr, "tracy-csv: out of memory\n");
            status = 2;
        }
        if (fflush(stdout) != 0 || ferror(stdout)) {
            fprintf(stderr, "tracy-csv: write error\n");
            status = 1;
        }
    }
    stats_free(&s);
    tf_model_free(&m);
    tfread_close(r);
    return status;
}
