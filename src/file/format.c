/* format.c - the table of file formats and their lookup by name (see
 * format.h). */
#include "format.h"

#include <stdio.h>
#include <string.h>

/* Newest layout first (its releases' stamps oldest first): each layout
 * holds what the one below it does, and what its release added. */
static const file_format_t formats[] = {
    { "0.14.0", { 0, 14, 0 }, .group_hint = true, .dies = true, .wakeup_cpu = true, .gpu_notes = true,
      .sections = true, .msg_meta = true },
    { "0.13.0", { 0, 13, 0 }, .group_hint = true, .dies = true, .wakeup_cpu = true, .gpu_notes = true },
    { "0.13.1", { 0, 13, 1 }, .group_hint = true, .dies = true, .wakeup_cpu = true, .gpu_notes = true },
    { "0.12.0", { 0, 12, 0 }, .delay = true, .group_hint = true, .dies = true, .wakeup_cpu = true },
    { "0.12.1", { 0, 12, 1 }, .delay = true, .group_hint = true, .dies = true, .wakeup_cpu = true },
    { "0.12.2", { 0, 12, 2 }, .delay = true, .group_hint = true, .dies = true, .wakeup_cpu = true },
    { "0.11.2", { 0, 11, 2 }, .delay = true, .group_hint = true, .dies = true },
    { "0.11.1", { 0, 11, 1 }, .delay = true, .group_hint = true },
    { "0.11.0", { 0, 11, 0 }, .delay = true },
    { "0.10.0", { 0, 10, 0 }, .delay = true, .legacy = true },
};

/* Names besides each format's own stamp. */
static const struct {
    const char *alias, *format;
} aliases[] = {
    { "0.14", "0.14.0" },
    { "0.13", "0.13.0" },
    { "0.12", "0.12.0" },
    { "5479a42", "0.11.2" },
    { "5479a42e", "0.11.2" },
    { "0.11", "0.11.0" },
    { "0.10", "0.10.0" },
};

const file_format_t *file_format_default(void)
{
    return &formats[0];
}

static const file_format_t *by_stamp(const char *name)
{
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++)
        if (strcmp(name, formats[i].name) == 0) return &formats[i];
    return NULL;
}

const file_format_t *file_format_by_name(const char *name)
{
    if (!name) return NULL;
    if (name[0] == 'v') name++;
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (strcmp(name, aliases[i].alias) == 0) return by_stamp(aliases[i].format);
    return by_stamp(name);
}

void file_format_list_text(char *out, size_t len)
{
    size_t n = 0;
    if (len) out[0] = '\0';
    for (size_t i = 0; i < sizeof formats / sizeof formats[0] && n < len; i++) {
        n += (size_t)snprintf(out + n, len - n, "%s%s", i ? ", " : "", formats[i].name);
        const char *open = " (";
        for (size_t k = 0; k < sizeof aliases / sizeof aliases[0] && n < len; k++) {
            if (strcmp(aliases[k].format, formats[i].name) != 0) continue;
            n += (size_t)snprintf(out + n, len - n, "%s%s", open, aliases[k].alias);
            open = ", ";
        }
        if (*open == ',' && n < len) n += (size_t)snprintf(out + n, len - n, ")");
    }
}
