/* protocols.c - the list of supported protocols and their lookup by
 * version or release name (see protocols.h). */
#include "protocols.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const proto_desc_t proto82;

const proto_desc_t *const proto_all[] = {
    &proto82,
    NULL,
};

/* Release names a user may give for each protocol, besides its number. */
static const struct {
    uint32_t version;
    const char *names[6];
} release_names[] = {
    { 82, { "0.14", "0.14.0", NULL } },
    { 76, { "0.13", "0.13.0", "0.13.1", "0.13.x", NULL } },
    { 74, { "0.12", "0.12.0", "0.12.1", "0.12.2", "0.12.x", NULL } },
    { 72, { "5479a42", "5479a42e", NULL } },
    { 69, { "0.11.1", NULL } },
    { 66, { "0.11", "0.11.0", NULL } },
    { 64, { "0.10", "0.10.0", NULL } },
};

const proto_desc_t *proto_by_version(uint32_t version)
{
    for (size_t i = 0; proto_all[i]; i++)
        if (proto_all[i]->version == version) return proto_all[i];
    return NULL;
}

const proto_desc_t *proto_older(const proto_desc_t *d)
{
    for (size_t i = 0; proto_all[i]; i++)
        if (proto_all[i] == d) return proto_all[i + 1];
    return NULL;
}

const proto_desc_t *proto_by_name(const char *name)
{
    if (!name || !*name) return NULL;
    char *end;
    unsigned long v = strtoul(name, &end, 10);
    if (*end == '\0' && name[0] >= '0' && name[0] <= '9' && v < 1000) return proto_by_version((uint32_t)v);
    if (name[0] == 'v') name++;
    for (size_t i = 0; i < sizeof release_names / sizeof release_names[0]; i++)
        for (size_t k = 0; release_names[i].names[k]; k++)
            if (strcmp(name, release_names[i].names[k]) == 0) return proto_by_version(release_names[i].version);
    return NULL;
}

void proto_list_text(char *out, size_t len)
{
    size_t n = 0;
    if (len) out[0] = '\0';
    for (size_t i = 0; proto_all[i] && n < len; i++)
        n += (size_t)snprintf(out + n, len - n, "%s%u", i ? ", " : "", proto_all[i]->version);
}
