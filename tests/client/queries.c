/* queries.c - how tracy-test-client answers each ServerQuery (spec §4.2),
 * looking the queried address up in the invented address space (names.c).
 * Unknown addresses get "???" answers so the server never waits forever.
 * Like a real client, answers the upstream client produces on its symbol
 * thread (CallstackFrame, Symbol, SourceCode) travel behind a ThreadContext
 * of that thread, and are not sent any more after a Disconnect (§8.2). */
#include "queries.h"

#include "events.h"
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

static void answer_thread_string(struct tc_client *c, uint64_t tid)
{
    const char *name = names_find_thread(c, (uint32_t)tid);
    ev_string_transfer(c, TC_EV_THREAD_NAME, tid, name ? name : "???");
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

static void answer_external_name(struct tc_client *c, uint64_t tid)
{
    ev_string_transfer(c, TC_EV_EXTERNAL_THREAD_NAME, tid, "???");
    ev_string_transfer(c, TC_EV_EXTERNAL_NAME, tid, "???");
}

static void answer_callstack_frame(struct tc_client *c, uint64_t addr)
{
    const struct tc_frame_entry *f = names_find_code(c, addr);
    ev_thread_context(c, c->symbol_tid);
    if (f)
        ev_callstack_frame_answer(c, addr, f->image, f->function, f->file, f->line, f->sym_addr,
                                  f->sym_len);
    else
        ev_callstack_frame_answer(c, addr, "???", "???", "???", 0, 0, 0);
}

static void answer_symbol(struct tc_client *c, uint64_t sym_addr)
{
    const struct tc_frame_entry *f = names_find_symbol(c, sym_addr);
    ev_thread_context(c, c->symbol_tid);
    ev_symbol_answer(c, sym_addr, f ? f->file : "???", f ? f->line : 0);
}

static void answer_source_code(struct tc_client *c, uint64_t id)
{
    ev_thread_context(c, c->symbol_tid);
    ev_ack_source_code(c, (uint32_t)id);
}

/* Queries the upstream client answers from its symbol thread. */
static bool is_asynchronous(uint8_t type)
{
    return type == TC_SQ_CALLSTACK_FRAME || type == TC_SQ_SYMBOL || type == TC_SQ_SOURCE_CODE ||
           type == TC_SQ_EXTERNAL_NAME;
}

bool queries_answer(struct tc_client *c, const struct tc_query *q)
{
    if (c->disconnecting && is_asynchronous(q->type))
        return true;
    switch (q->type) {
    case TC_SQ_STRING:
        if (c->opt.scenario != TC_SCEN_NO_ANSWER)
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
    case TC_SQ_DATA_TRANSFER:
    case TC_SQ_DATA_TRANSFER_PART:
        ev_ack(c, TC_EV_ACK_SERVER_QUERY_NOOP);
        break;
    case TC_SQ_SYMBOL_CODE:
        ev_ack(c, TC_EV_ACK_SYMBOL_CODE_NOT_AVAILABLE);
        break;
    case TC_SQ_SOURCE_CODE:
        answer_source_code(c, q->ptr);
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
