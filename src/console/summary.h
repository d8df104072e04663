/* summary.h - what tracy-capture says at the end of a capture: upstream's
 * lines (frames, time span, zones, elapsed time; the trace's size comes
 * with the save, progress.c), then a line per family the capture holds
 * something of and one naming the families it holds nothing of; and the
 * same numbers for machines, as a JSON object (--summary-json). */
#ifndef TC_SUMMARY_H
#define TC_SUMMARY_H

#include <stdbool.h>
#include <stdint.h>

#include "capture.h"
#include "families.h"

typedef struct {
    /* upstream's lines, as they were said */
    uint64_t frames, zones;
    int64_t span_ns, elapsed_ns;
    /* the save */
    bool saved;
    const char *format;          /* the file format's release */
    char path[4096];             /* where the trace was saved (if saved) */
    char compression[256];       /* how it is compressed (file_opts_describe: "zstd 2, 4 streams") */
    uint64_t file_bytes, payload_bytes;
    double save_seconds;
    /* what the file holds, and what was required of it */
    model_counts_t counts;       /* less what --strip left out */
    family_set_t stripped;       /* families that had something, all left out by --strip */
    family_set_t required, missing;
} summary_t;

/* Upstream's numbers as the capture ends (before the save). */
void summary_start(capture_t *c, summary_t *s);
/* Say them: "Frames: ...", "Time span: ...", "Zones: ...", "Elapsed time: ...". */
void summary_capture(capture_t *c, const summary_t *s);
/* What the model holds (once finished), less what `strip` (STRIP_ flags)
 * leaves out of the file. */
void summary_count(capture_t *c, summary_t *s, unsigned strip);
/* "Captured:", a line per family with something in it, then "Not
 * captured: ..." naming the requirable families with nothing, and "Left
 * out by --strip: ..." those it emptied. */
void summary_families(const summary_t *s);

/* Before connecting: the --summary-json file can be written (a temporary
 * file beside it, or a device or FIFO written in place) and is neither the
 * trace, the spool nor the recording; if it is this process's stdout, the
 * summary and progress stay out of it (o->quiet). Returns EXIT_OK or the
 * exit code, the reason said on stderr. */
int summary_json_prepare(options_t *o, const char *save_path);
/* Write the JSON object of s, the capture's client and the exit status to
 * path: into a temporary file renamed over it (never half a file under its
 * name). Returns 0, or -1 after saying why. */
int summary_json_write(const char *path, const capture_t *c, const summary_t *s, int status);

#endif
