/* fileopts.c - the command line's compression, stream and --strip options
 * (see fileopts.h). */
#include "fileopts.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <zstd.h>

#include "strip.h"

/* A whole decimal number, sign allowed, into *out. */
static int parse_int(const char *arg, long *out)
{
    char *end;
    errno = 0;
    const long v = strtol(arg, &end, 10);
    if (errno || end == arg || *end) return -1;
    *out = v;
    return 0;
}

/* Two compression options that say different things. */
static int contradiction(const file_opts_t *o, const char *option, char *err, size_t len)
{
    snprintf(err, len, "%s and %s contradict each other: a file has one compression", o->codec_option, option);
    return -1;
}

int file_opts_level(file_opts_t *o, const char *arg, char *err, size_t len)
{
    long v;
    const int lo = ZSTD_minCLevel(), hi = ZSTD_maxCLevel();
    if (parse_int(arg, &v) || v < lo || v > hi) {
        snprintf(err, len, "-z needs a zstd level from %d to %d, not '%s'", lo, hi, arg);
        return -1;
    }
    if (o->codec_option && o->codec != TFILE_ZSTD) return contradiction(o, "-z", err, len);
    o->codec = TFILE_ZSTD;
    o->codec_option = "-z";
    o->level = (int)v;
    return 0;
}

int file_opts_streams(file_opts_t *o, const char *arg, char *err, size_t len)
{
    long v;
    if (parse_int(arg, &v) || v == 0 || v < -1 || v > TFILE_MAX_STREAMS) {
        snprintf(err, len, "-j needs a stream count from 1 to %d, or -1 for one per core, not '%s'",
                 TFILE_MAX_STREAMS, arg);
        return -1;
    }
    if (v == -1) {
        /* as upstream: as many as the machine has cores */
        const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        v = cpus < 1 ? 1 : cpus > TFILE_MAX_STREAMS ? TFILE_MAX_STREAMS : cpus;
    }
    o->streams = (int)v;
    o->streams_given = true;
    return 0;
}

int file_opts_codec(file_opts_t *o, tfile_codec_t codec, const char *option, char *err, size_t len)
{
    if (o->codec_option && o->codec != codec) return contradiction(o, option, err, len);
    o->codec = codec;
    o->codec_option = option;
    return 0;
}

int file_opts_strip(file_opts_t *o, const char *arg, char *err, size_t len)
{
    unsigned mask;
    char bad;
    if (strip_parse(arg, &mask, &bad) == 0) {
        o->strip |= mask;
        return 0;
    }
    char letters[320];
    strip_letters_text(letters, sizeof letters);
    if (bad) snprintf(err, len, "--strip: unknown letter '%c' in '%s'; the letters are %s", bad, arg, letters);
    else snprintf(err, len, "--strip needs letters: %s", letters);
    return -1;
}

int file_opts_check(const file_opts_t *o, const file_format_t *fmt, char *err, size_t len)
{
    if (fmt->legacy && o->streams_given && o->streams != 1) {
        snprintf(err, len, "-j %d: the %s format's container has one compression stream", o->streams, fmt->name);
        return -1;
    }
    return 0;
}

void file_opts_apply(const file_opts_t *o, const file_format_t *fmt, save_opts_t *s)
{
    s->codec = o->codec;
    s->level = o->level;
    s->streams = fmt->legacy ? 1 : o->streams;
    s->strip = o->strip;
}

void file_opts_describe(const save_opts_t *s, char *buf, size_t len)
{
    char codec[32], left[160] = "";
    const int streams = s->streams < 1 ? 1 : s->streams;
    if (s->strip) {
        char what[144];
        strip_describe(s->strip, what, sizeof what);
        snprintf(left, sizeof left, "; without %s", what);
    }
    snprintf(buf, len, "%s, %d stream%s%s", tfile_codec_name(s->codec, s->level, codec, sizeof codec), streams,
             streams == 1 ? "" : "s", left);
}

int file_opts_option(file_opts_t *o, int opt, const char *arg, char *err, size_t len)
{
    switch (opt) {
    case 'z': return file_opts_level(o, arg, err, len);
    case 'j': return file_opts_streams(o, arg, err, len);
    case FILE_OPT_LZ4: return file_opts_codec(o, TFILE_LZ4, "--lz4", err, len);
    case FILE_OPT_LZ4HC: return file_opts_codec(o, TFILE_LZ4HC, "--lz4hc", err, len);
    case FILE_OPT_LZ4_EXTREME: return file_opts_codec(o, TFILE_LZ4_EXTREME, "--lz4-extreme", err, len);
    default: return file_opts_strip(o, arg, err, len);
    }
}
