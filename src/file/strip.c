/* strip.c - tracy-update -s's letters for --strip (see strip.h). */
#include "strip.h"

#include <stdio.h>
#include <string.h>

static const struct {
    char letter;
    unsigned bit;
    const char *what;
} letters[] = {
    { 'l', STRIP_LOCKS, "locks" },
    { 'm', STRIP_MESSAGES, "messages" },
    { 'p', STRIP_PLOTS, "plots" },
    { 'M', STRIP_MEMORY, "memory" },
    { 'i', STRIP_FRAME_IMAGES, "frame images" },
    { 'c', STRIP_CONTEXT_SWITCHES, "context switches" },
    { 's', STRIP_SAMPLES, "sampling data" },
    { 'C', STRIP_SYMBOL_CODE, "symbol code" },
    { 'S', STRIP_SOURCE_CACHE, "source cache" },
};
#define NLETTERS (sizeof letters / sizeof letters[0])

int strip_parse(const char *s, unsigned *mask, char *bad)
{
    *mask = 0;
    *bad = '\0';
    if (!*s) return -1;
    for (; *s; s++) {
        size_t i = 0;
        while (i < NLETTERS && letters[i].letter != *s) i++;
        if (i == NLETTERS) {
            *bad = *s;
            return -1;
        }
        *mask |= letters[i].bit;
    }
    return 0;
}

void strip_letters_text(char *buf, size_t len)
{
    size_t n = 0;
    if (len) buf[0] = '\0';
    for (size_t i = 0; i < NLETTERS && n < len; i++)
        n += (size_t)snprintf(buf + n, len - n, "%s%c (%s)", i ? ", " : "", letters[i].letter, letters[i].what);
}

void strip_describe(unsigned mask, char *buf, size_t len)
{
    size_t n = 0;
    if (len) buf[0] = '\0';
    for (size_t i = 0; i < NLETTERS && n < len; i++)
        if (mask & letters[i].bit) n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? ", " : "", letters[i].what);
}
