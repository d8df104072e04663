/* format.h - the .tracy file formats the writer can produce, one per
 * Tracy release's capture (tracy-file-older.md): what each one's payload
 * holds beyond the oldest, and its lookup by the release a user names.
 *
 * A format is the version stamp plus the few places where the layouts of
 * the releases differ; everything else is the same in all of them. Each
 * release's tools refuse a file stamped by a later release, so a format
 * stamps the oldest release of its layout unless a patch release is named
 * exactly ("0.12.2"). */
#ifndef TC_FORMAT_H
#define TC_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct file_format {
    const char *name;        /* "0.13.0": the stamp as text */
    uint8_t stamp[3];        /* major, minor, patch after "tracy" */
    bool legacy;             /* the single-stream 'tZst' container, no type or stream-count byte (0.10) */
    bool delay;              /* an i64 queue delay after the payload header (up to 0.12.x) */
    bool group_hint;         /* threads carry an i32 group hint (0.11.1 on) */
    bool dies;               /* the CPU topology has a die level (0.11.2 on) */
    bool wakeup_cpu;         /* context switches carry a u8 wake-up CPU (0.12.0 on) */
    bool gpu_notes;          /* GPU note names, zone query ids and notes (0.13.0 on) */
    bool sections;           /* the sections block (0.14.0) */
    bool msg_meta;           /* messages carry source and severity bytes (0.14.0) */
} file_format_t;

/* The format of this tool's default output: 0.14.0. */
const file_format_t *file_format_default(void);

/* The format a user names: a release ("0.13", "0.13.1", "v0.12.2",
 * "5479a42" for the commit IREE pins, which stamps 0.11.2); NULL when
 * none matches. */
const file_format_t *file_format_by_name(const char *name);

/* "0.14.0, 0.13.0, 0.13.1, ...": the accepted names, for messages. */
void file_format_list_text(char *out, size_t len);

#endif
