/* queries.c - how tracy-test-client answers each ServerQuery (spec §4.2),
 * looking the queried address up in the invented address space (names.c):
 * strings, names, source locations, call-stack frames with inline chains,
 * symbols, symbol code and source files (assembled from DataTransfer
 * parts, §4.5; contents from code.c), other processes' thread names.
 * Unknown addresses get "???" answers so the server never waits forever.
 * Like a real client, answers the upstream client produces on its symbol
 * thread (CallstackFrame, user-space Symbol, SourceCode, ExternalName)
 * travel behind a ThreadContext of that thread, and are not sent any more
 * after a Disconnect (§8.2). */
#include "queries.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "code.h"
#include "events.h"
#include "manifest.h"
#include "names.h"

static const char *const query_names[TC_SQ_COUNT] = {
    "Terminate", "String", "ThreadString", "SourceLocation", "PlotName", "FrameName",
    "Parameter", "FiberName", "ExternalName", "Disconnect", "CallstackFrame", "Symbol",
    "SymbolCode", "SourceCode", "DataTransfer", "DataTransferPart",
};

const char *queries_name(uint8_t type)
{
    return type < TC_SQ_COUNT ? query_names[type] : "unknown";
}

static const char *string_or_unknown(const struct tc_client *c, uint64_t ptr)
{
    const char *s = names_find_string(c, ptr);
    return s ? s : "???";
}

static void answer_string(struct tc_client *c, uint8_t event, uint64_t ptr)
{
    ev_string_transfer(c, event, ptr, string_or_unknown(c, ptr));
}

static void answer_source_location(struct tc_client *c, uint64_t ptr)
{
    const struct tc_srcloc_entry *s = names_find_srcloc(c, ptr);
    if (s) {
        ev_source_location(c, s->name_ptr, s->function_ptr, s->file_ptr, s->line, s->color);
    } else {
        uint64_t u = c->names.unknown_ptr;
        ev_source_location(c, 0, u, u, 0, 0);
    }
}

/* Asynchronous answers travel behind a ThreadContext of the symbol thread. */
static void symbol_thread(struct tc_client *c)
{
    ev_thread_context(c, c->symbol_tid);
}

static void answer_thread_string(struct tc_client *c, uint64_t tid)
{
    const struct tc_thread_entry *t = names_find_thread_entry(c, tid);
    ev_string_transfer(c, TC_EV_THREAD_NAME, tid, t ? t->name : "???");
    if (t && t->group_hint != 0 && !c->disconnecting && /* queued: dropped after Disconnect */
        proto_has(&c->proto, TC_EV_THREAD_GROUP_HINT)) {
        ev_thread_group_hint(c, (uint32_t)tid, t->group_hint);
        c->man.facts.group_hints++;
    }
}

/* Like the Linux client: TidToPid, then the thread and process names. */
static void answer_external_name(struct tc_client *c, uint64_t tid)
{
    const struct tc_thread_entry *t = names_find_thread_entry(c, tid);
    symbol_thread(c);
    if (t) {
        ev_tid_to_pid(c, tid, t->external ? t->pid : (uint64_t)getpid());
        c->man.facts.tid_to_pid++;
    }
    ev_string_transfer(c, TC_EV_EXTERNAL_THREAD_NAME, tid, t ? t->name : "???");
    ev_string_transfer(c, TC_EV_EXTERNAL_NAME, tid,
                       !t ? "???" : t->external ? t->process : "tracy-test-client");
    c->man.facts.external_names++;
}

/* The frame of an address that is not a registered call-stack frame but
 * lies inside a known function (e.g. an instruction the server found by
 * disassembling that function's code). */
static void answer_code_in_symbol(struct tc_client *c, uint64_t addr,
                                  const struct tc_symbol_entry *s)
{
    struct tc_inline_entry e = { s->name, s->file, s->line, s->addr, s->len };
    if (s->addr >> 63 == 0)
        e.line = s->line + 1 + (uint32_t)((addr - s->addr) / 16);
    ev_callstack_frame_answer(c, addr, s->image, &e, 1);
}

static void answer_callstack_frame(struct tc_client *c, uint64_t addr)
{
    const struct tc_frame_entry *f = names_find_code(c, addr);
    const struct tc_symbol_entry *s = f ? NULL : names_symbol_containing(c, addr);
    symbol_thread(c);
    if (f) {
        struct tc_inline_entry chain[TC_MAX_INLINE + 1];
        for (int i = 0; i < f->n_inline; i++)
            chain[i] = f->inl[i];
        chain[f->n_inline] = (struct tc_inline_entry){ f->function, f->file, f->line,
                                                       f->sym_addr, f->sym_len };
        ev_callstack_frame_answer(c, addr, f->image, chain, f->n_inline + 1);
    } else if (s) {
        answer_code_in_symbol(c, addr, s);
    } else {
        const struct tc_inline_entry unknown = { "???", "???", 0, 0, 0 };
        ev_callstack_frame_answer(c, addr, "???", &unknown, 1);
    }
}

/* Kernel symbols are answered at once with "<kernel>", others from the
 * symbol thread (§4.2). */
static void answer_symbol(struct tc_client *c, uint64_t sym_addr)
{
    const struct tc_symbol_entry *s = names_find_symbol(c, sym_addr);
    if (sym_addr >> 63 != 0) {
        ev_symbol_answer(c, sym_addr, "<kernel>", 0);
    } else {
        symbol_thread(c);
        ev_symbol_answer(c, sym_addr, s ? s->file : "???", s ? s->line : 0);
    }
    c->man.facts.symbols_answered++;
}

/* User-space code is copied at once; kernel code is looked for on the
 * symbol thread and is not readable (no /proc/kcore access). */
static void answer_symbol_code(struct tc_client *c, uint64_t sym_addr, uint32_t size)
{
    const struct tc_symbol_entry *s = names_find_symbol(c, sym_addr);
    uint8_t code[4096];
    size_t n = s && size <= s->len ? code_symbol_bytes(c, s, code, sizeof(code)) : 0;
    if (n == 0) {
        if (sym_addr >> 63 != 0)
            symbol_thread(c);
        ev_ack(c, TC_EV_ACK_SYMBOL_CODE_NOT_AVAILABLE);
        return;
    }
    ev_symbol_code(c, sym_addr, code, size);
    c->man.facts.symbol_code_answered++;
    c->man.facts.symbol_code_bytes += size;
}

static void transfer_reset(struct tc_transfer *x)
{
    free(x->data);
    free(x->image);
    memset(x, 0, sizeof(*x));
}

/* DataTransfer: a new blob; an unused previous one is the image name. */
static void transfer_begin(struct tc_client *c, uint64_t size)
{
    struct tc_transfer *x = &c->xfer;
    if (x->data) {
        free(x->image);
        x->image = x->data;
    }
    x->cap = (size_t)(size > 65536 ? 65536 : size) + 12;
    x->data = calloc(1, x->cap);
    x->len = 0;
    if (!x->data)
        abort();
}

static void transfer_part(struct tc_client *c, uint64_t ptr, uint32_t extra)
{
    struct tc_transfer *x = &c->xfer;
    if (!x->data || x->len + 12 > x->cap)
        return;
    for (int k = 0; k < 8; k++)
        x->data[x->len++] = (char)(ptr >> (8 * k));
    for (int k = 0; k < 4; k++)
        x->data[x->len++] = (char)(extra >> (8 * k));
}

/* SourceCode(id) for the file named by the preceding DataTransfer. */
static void answer_source_code(struct tc_client *c, uint32_t id)
{
    const char *file = c->xfer.data ? c->xfer.data : "";
    symbol_thread(c);
    if (c->welcome.exectime != 0 && names_knows_source(c, file)) {
        size_t len;
        char *text = code_source_text(c, file, &len);
        ev_source_code(c, id, text, (uint32_t)len);
        manifest_source_file(c, file, len);
        free(text);
    } else {
        ev_ack_source_code(c, id);
        c->man.facts.source_files_missing++;
    }
    transfer_reset(&c->xfer);
}

/* Queries the upstream client answers from its symbol thread (kernel
 * symbols are answered at once, kernel code is read there). */
static bool is_asynchronous(const struct tc_query *q)
{
    bool kernel = q->ptr >> 63 != 0;
    return q->type == TC_SQ_CALLSTACK_FRAME || (q->type == TC_SQ_SYMBOL && !kernel) ||
           (q->type == TC_SQ_SYMBOL_CODE && kernel) || q->type == TC_SQ_SOURCE_CODE ||
           q->type == TC_SQ_EXTERNAL_NAME;
}

void queries_free(struct tc_client *c)
{
    transfer_reset(&c->xfer);
}

bool queries_answer(struct tc_client *c, const struct tc_query *q)
{
    if (c->disconnecting && is_asynchronous(q))
        return true;
    switch (q->type) {
    case TC_SQ_STRING:
        if (c->opt.scenario != TC_SCEN_NO_ANSWER && c->opt.scenario != TC_SCEN_STALL_RESET &&
            c->opt.scenario != TC_SCEN_TRICKLE)
            answer_string(c, TC_EV_STRING_DATA, q->ptr);
        break;
    case TC_SQ_THREAD_STRING:
        answer_thread_string(c, q->ptr);
        break;
    case TC_SQ_SOURCE_LOCATION:
        answer_source_location(c, q->ptr);
        break;
    case TC_SQ_PLOT_NAME:
        answer_string(c, TC_EV_PLOT_NAME, q->ptr);
        break;
    case TC_SQ_FRAME_NAME:
        answer_string(c, TC_EV_FRAME_NAME, q->ptr);
        break;
    case TC_SQ_FIBER_NAME:
        answer_string(c, TC_EV_FIBER_NAME, q->ptr);
        break;
    case TC_SQ_EXTERNAL_NAME:
        answer_external_name(c, q->ptr);
        break;
    case TC_SQ_PARAMETER:
        ev_ack(c, TC_EV_ACK_SERVER_QUERY_NOOP);
        break;
    case TC_SQ_DATA_TRANSFER:
        transfer_begin(c, q->ptr);
        ev_ack(c, TC_EV_ACK_SERVER_QUERY_NOOP);
        break;
    case TC_SQ_DATA_TRANSFER_PART:
        transfer_part(c, q->ptr, q->extra);
        ev_ack(c, TC_EV_ACK_SERVER_QUERY_NOOP);
        break;
    case TC_SQ_SYMBOL_CODE:
        answer_symbol_code(c, q->ptr, q->extra);
        break;
    case TC_SQ_SOURCE_CODE:
        answer_source_code(c, (uint32_t)q->ptr);
        break;
    case TC_SQ_CALLSTACK_FRAME:
        answer_callstack_frame(c, q->ptr);
        break;
    case TC_SQ_SYMBOL:
        answer_symbol(c, q->ptr);
        break;
    case TC_SQ_DISCONNECT:
        return false;
    default:
        tc_log(c, "ignoring unknown query type %u (ptr 0x%llx)", q->type,
               (unsigned long long)q->ptr);
        break;
    }
    return true;
}
