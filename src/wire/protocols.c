/* protocols.c - the list of supported protocols, their lookup by version
 * or release name, and the translation tables built from a descriptor
 * (see protocols.h). */
#include "protocols.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Whether a canonical type carries a length field after its fixed part. */
static bool has_length(uint8_t ev)
{
    return ev >= EV_STRING_DATA || ev == EV_SINGLE_STRING_DATA || ev == EV_SECOND_STRING_DATA ||
           ev == EV_SINGLE_STRING_DATA8 || ev == EV_SECOND_STRING_DATA8;
}

/* The fixed size of a canonical type in this protocol. */
static uint8_t size_of(const proto_desc_t *d, uint8_t ev)
{
    for (size_t i = 0; i < sizeof d->sizes / sizeof d->sizes[0] && d->sizes[i].size; i++)
        if (d->sizes[i].ev == ev) return d->sizes[i].size;
    return proto_event_size[ev];
}

void proto_tables_init(proto_tables_t *t, const proto_desc_t *d)
{
    memset(t, 0, sizeof *t);
    t->desc = d;
    memset(t->canon, EV_NONE, sizeof t->canon);
    memset(t->wire, EV_NONE, sizeof t->wire);
    for (unsigned b = 0; b < d->ntypes && b < 256; b++) {
        const uint8_t ev = d->types[b];
        if (ev >= EV_TYPE_COUNT) continue;
        const uint8_t size = size_of(d, ev);
        if (size == 0) continue;      /* client-internal: never on the wire */
        t->canon[b] = ev;
        t->wire[ev] = (uint8_t)b;
        t->size[b] = size;
        t->fixed[b] = has_length(ev) ? 0 : size;
    }
}

extern const proto_desc_t proto82, proto76, proto74, proto72, proto69, proto66, proto64;

const proto_desc_t *const proto_all[] = {
    &proto82,
    &proto76,
    &proto74,
    &proto72,
    &proto69,
    &proto66,
    &proto64,
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
