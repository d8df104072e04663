/* stats_main.c - tracy-stats: print what tracy-csvexport prints for a
 * .tracy file, as the file's own release of it does (0.10 to 0.14.0),
 * without a second tool, reading the file as a stream.
 *
 * The story: read the options (statsargs.c), then read the file and print
 * (export.c). Exit 0, or 1 for a usage error, an option the file's release
 * lacks, a file that cannot be read (said with the file, what and where,
 * where upstream aborts) and an output that cannot be written. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "export.h"
#include "statsargs.h"

static void print_help(FILE *out)
{
    fputs("Usage: tracy-stats [OPTION...] FILE\n"
          "Print the statistics tracy-csvexport prints for the trace FILE, as the\n"
          "release of csvexport that FILE belongs to (0.10 to 0.14.0) prints them.\n"
          "\n"
          "  -f, --filter=X             keep source locations whose name contains X\n"
          "  -c, --case                 case-sensitive -f\n"
          "  -s, --sep=X                field separator (default ,)\n"
          "  -e, --self                 self times\n"
          "  -u, --unwrap               one row per CPU zone\n"
          "  -g, --gpu                  one row per GPU zone (from 5479a42 and 0.12.0)\n"
          "  -m, --messages             the messages only\n"
          "  -p, --plot                 with -u: the file's plots too (5479a42, 0.12.0 on)\n"
          "  -t, --truncated_mean[=N]   percentile N (default 90) and the mean of the\n"
          "                             zones up to it (from 0.13.1; -tN)\n"
          "      --release=RELEASE      print as tracy-csvexport RELEASE does, a release\n"
          "                             that reads FILE (default: FILE's own)\n"
          "  -h, --help                 show this help and exit\n"
          "  -V, --version              show the version and exit\n"
          "\n"
          "Options come before FILE, as csvexport takes them. Exit status: 0 printed,\n"
          "1 usage error, an option FILE's release lacks, FILE unreadable or malformed\n"
          "(said with what and where), or the output not writable.\n"
          "See tracy-stats(1).\n",
          out);
}

int main(int argc, char **argv)
{
    stats_args a;
    char err[1024];
    stats_args_init(&a);
    if (argc == 1) {
        print_help(stderr);
        return 1;
    }
    if (stats_args_parse(&a, argc, argv, 1, err, sizeof err) != 0) {
        fprintf(stderr, "tracy-stats: %s\nTry 'tracy-stats --help' for more information.\n", err);
        return 1;
    }
    if (a.help) {
        print_help(stdout);
        return 0;
    }
    if (a.version) {
        printf("tracy-stats %s (prints what tracy-csvexport 0.10 to 0.14.0 prints)\n", TC_VERSION);
        return 0;
    }
    int rc = 0;
    if (stats_export(a.path, &a, stdout, err, sizeof err) != 0) {
        fprintf(stderr, "tracy-stats: %s\n", err);
        rc = 1;
    }
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "tracy-stats: writing the output: %s\n", strerror(errno));
        rc = 1;
    }
    stats_args_free(&a);
    return rc;
}
