/* proto82.c - protocol 82 (Tracy 0.14.0): the canonical protocol, whose
 * event and query numbering the model uses as its own (proto.h). */
#include "protocols.h"

const proto_desc_t proto82 = {
    .version = 82,
    .release = "0.14.0",
    .file_format = "0.14.0",
};
