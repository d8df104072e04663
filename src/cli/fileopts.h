/* fileopts.h - how a trace is saved, as tracy-capture's and
 * tracy-capture-daemon's command lines say it, with tracy-update's
 * choices: the compression (-z LEVEL, --lz4, --lz4hc, --lz4-extreme), the
 * stream count (-j STREAMS) and what is left out (--strip FLAGS); their
 * parsing, and their check against the file format saved. */
#ifndef TC_FILEOPTS_H
#define TC_FILEOPTS_H

#include <stdbool.h>
#include <stddef.h>

#include "format.h"
#include "writer.h"

typedef struct {
    tfile_codec_t codec;
    const char *codec_option;   /* the option that chose it; NULL: the default, zstd */
    int level;                  /* zstd level */
    int streams;                /* 1..255 */
    bool streams_given;         /* -j: said, not the default */
    unsigned strip;             /* STRIP_* (strip.h) */
} file_opts_t;

/* The defaults: zstd level 2, four streams (upstream's), nothing left out.
 * Upstream saves at level 3. On Tracy's payloads zstd's level 2 (its fast
 * match finder: one 256 KiB table, 6-byte matches) makes files from 1%
 * larger (much source text) to 19% smaller (many zones) in 0.6 to 0.9 of
 * the CPU: level 3's double-fast finder probes two tables (768 KiB a
 * stream) at each position, and its 5-byte matches in zone and memory
 * events cost more than they save (README, "Compression"). */
#define FILE_OPTS_DEFAULT ((file_opts_t){ .codec = TFILE_ZSTD, .level = 2, .streams = 4 })

/* The long options' ids (beside the short -z and -j) and their table
 * entries, for the getopt_long tables (<getopt.h>) of both commands. */
enum { FILE_OPT_LZ4 = 0x1000, FILE_OPT_LZ4HC, FILE_OPT_LZ4_EXTREME, FILE_OPT_STRIP };
#define FILE_OPTS_LONG_OPTIONS                                   \
    { "zstd", required_argument, NULL, 'z' },                    \
    { "streams", required_argument, NULL, 'j' },                 \
    { "lz4", no_argument, NULL, FILE_OPT_LZ4 },                  \
    { "lz4hc", no_argument, NULL, FILE_OPT_LZ4HC },              \
    { "lz4-extreme", no_argument, NULL, FILE_OPT_LZ4_EXTREME },  \
    { "strip", required_argument, NULL, FILE_OPT_STRIP }
/* Take one of them (opt, its argument): 0, or -1 with the message in err. */
int file_opts_option(file_opts_t *o, int opt, const char *arg, char *err, size_t len);

/* Each option's value: 0, or -1 with the message in err. */
int file_opts_level(file_opts_t *o, const char *arg, char *err, size_t len);              /* -z */
int file_opts_streams(file_opts_t *o, const char *arg, char *err, size_t len);            /* -j */
int file_opts_codec(file_opts_t *o, tfile_codec_t codec, const char *option, char *err, size_t len);
int file_opts_strip(file_opts_t *o, const char *arg, char *err, size_t len);              /* --strip */

/* Whether a file in format fmt can be written so (the 0.10 container has
 * one stream): 0, or -1 with why in err. */
int file_opts_check(const file_opts_t *o, const file_format_t *fmt, char *err, size_t len);

/* A save's codec, level, streams (one in the 0.10 container) and strip. */
void file_opts_apply(const file_opts_t *o, const file_format_t *fmt, save_opts_t *s);

/* "zstd 2, 4 streams", "LZ4HC, 1 stream; without memory": for summaries. */
void file_opts_describe(const save_opts_t *s, char *buf, size_t len);

#endif
