/* protocols.h - the network protocols this tool speaks, one descriptor
 * each (wire/proto/protoNN.c), newest first, and their lookup by the
 * version number or the Tracy release a user names.
 *
 * A descriptor is everything the wire layer needs to know of one
 * protocol: its release, the file format its release writes, and (filled
 * in by its protoNN.c) the tables that translate its bytes into the
 * model's canonical events. Adding a protocol is one new protoNN.c and one
 * line in protocols.c. */
#ifndef TC_PROTOCOLS_H
#define TC_PROTOCOLS_H

#include <stddef.h>
#include <stdint.h>

typedef struct proto_desc {
    uint32_t version;          /* 76 */
    const char *release;       /* the releases that speak it: "0.13.x" */
    const char *file_format;   /* the stamp its release's capture writes by default: "0.13.0" */
} proto_desc_t;

/* Every supported protocol, newest first, NULL-terminated: the order of
 * the version search. */
extern const proto_desc_t *const proto_all[];

/* The descriptor of a protocol version, or NULL. */
const proto_desc_t *proto_by_version(uint32_t version);

/* The next older protocol after `d` in the search, or NULL after the
 * oldest. */
const proto_desc_t *proto_older(const proto_desc_t *d);

/* The descriptor a user names: a protocol number ("76") or a release
 * ("0.13", "0.13.1", "v0.13.1", "5479a42"); NULL when none matches. */
const proto_desc_t *proto_by_name(const char *name);

/* "82, 76, 74, 72, 69, 66, 64": the supported versions, for messages. */
void proto_list_text(char *out, size_t len);

#endif
