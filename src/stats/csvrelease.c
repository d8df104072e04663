/* csvrelease: the table of tracy-csvexport releases and the lookups of
 * csvrelease.h. */
#include "csvrelease.h"

#include <stdio.h>
#include <string.h>

/* Oldest first; a file belongs to the first whose stamp is not older. */
static const csv_release releases[] = {
    { "0.10", { 0, 10, 0 }, false, false, false },
    { "0.11.0", { 0, 11, 0 }, false, false, false },
    { "0.11.1", { 0, 11, 1 }, false, false, false },
    { "5479a42", { 0, 11, 2 }, true, false, false },
    { "0.12.0", { 0, 12, 0 }, true, true, false },
    { "0.12.1", { 0, 12, 1 }, true, true, false },
    { "0.12.2", { 0, 12, 2 }, true, true, false },
    { "0.13.0", { 0, 13, 0 }, true, true, false },
    { "0.13.1", { 0, 13, 1 }, true, true, true },
    { "0.14.0", { 0, 14, 0 }, true, true, true },
};

enum { RELEASE_COUNT = sizeof releases / sizeof releases[0] };

static uint32_t stamp_value(const uint8_t v[3])
{
    return (uint32_t)v[0] << 16 | (uint32_t)v[1] << 8 | v[2];
}

const csv_release *csv_release_of_file(const uint8_t v[3])
{
    for (size_t i = 0; i < RELEASE_COUNT; i++)
        if (stamp_value(releases[i].stamp) >= stamp_value(v))
            return &releases[i];
    return NULL;
}

const csv_release *csv_release_by_name(const char *name)
{
    if (!name)
        return NULL;
    if (name[0] == 'v')
        name++;
    if (strcmp(name, "0.10.0") == 0)
        name = "0.10";
    /* the commit by a prefix of its hash, at least the 7 digits shown */
    const char *commit = "5479a42ef9346b64e6d1b860ae58aa8abdb0c7f6";
    if (strlen(name) >= 7 && strncmp(commit, name, strlen(name)) == 0)
        name = "5479a42";
    for (size_t i = 0; i < RELEASE_COUNT; i++)
        if (strcmp(name, releases[i].name) == 0)
            return &releases[i];
    return NULL;
}

const csv_release *csv_release_newest(void)
{
    return &releases[RELEASE_COUNT - 1];
}

bool csv_release_reads(const csv_release *a, const csv_release *b)
{
    return stamp_value(a->stamp) >= stamp_value(b->stamp);
}

void csv_release_list_text(char *out, size_t len)
{
    size_t n = 0;
    if (len)
        out[0] = '\0';
    for (size_t i = 0; i < RELEASE_COUNT && n < len; i++)
        n += (size_t)snprintf(out + n, len - n, "%s%s", i ? ", " : "", releases[i].name);
}
