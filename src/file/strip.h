/* strip.h - what --strip leaves out of a saved file: tracy-update -s's
 * letters, each a family of data that Worker::Write of every release
 * (0.10 to 0.14) leaves out after a load without it, as the writer leaves
 * it out of any format (writer_write_payload). */
#ifndef TC_STRIP_H
#define TC_STRIP_H

#include <stddef.h>

enum {
    STRIP_LOCKS = 1u << 0,              /* l: locks and their events */
    STRIP_MESSAGES = 1u << 1,           /* m: messages (and each thread's list of them) */
    STRIP_PLOTS = 1u << 2,              /* p: plots */
    STRIP_MEMORY = 1u << 3,             /* M: memory pools and events */
    STRIP_FRAME_IMAGES = 1u << 4,       /* i: frame images (frames keep no image) */
    STRIP_CONTEXT_SWITCHES = 1u << 5,   /* c: context switches, per thread and per CPU */
    STRIP_SAMPLES = 1u << 6,            /* s: call-stack samples and context-switch samples */
    STRIP_SYMBOL_CODE = 1u << 7,        /* C: symbol code */
    STRIP_SOURCE_CACHE = 1u << 8,       /* S: source files */
};

/* The letters into a STRIP_ mask (*mask). Returns 0, or -1 with the
 * first letter not known in *bad ('\0': no letters at all). */
int strip_parse(const char *letters, unsigned *mask, char *bad);

/* "l (locks), m (messages), ...": every letter with its meaning. */
void strip_letters_text(char *buf, size_t len);

/* "memory, frame images": what mask leaves out, in letter order. */
void strip_describe(unsigned mask, char *buf, size_t len);

#endif
