/* model_messages.c - messages (copied, literal, coloured, with call stack)
 * and application info lines. */
#include "model.h"

/* Insert index `id` into a time-ordered list the way upstream does: append
 * when strictly later than the last, else before the first entry whose time
 * is not earlier (so equal times end up in reverse arrival order). */
static void insert_by_time(model_t *m, size_t *n, size_t *cap, uint32_t **v, uint32_t id)
{
    const int64_t t = m->messages.v[id].time;
    if (*n == *cap) *v = grow_array(*v, sizeof **v, cap, *n + 1);
    size_t pos = *n;
    if (*n && m->messages.v[(*v)[*n - 1]].time >= t) {
        size_t lo = 0, hi = *n;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (m->messages.v[(*v)[mid]].time < t) lo = mid + 1;
            else hi = mid;
        }
        pos = lo;
        memmove(*v + pos + 1, *v + pos, (*n - pos) * sizeof **v);
    }
    (*v)[pos] = id;
    (*n)++;
}

void model_message(model_t *m, int64_t ticks, uint64_t text, bool literal, uint32_t color,
                   uint8_t metadata, bool callstack)
{
    thread_t *t = model_current_thread(m);
    message_t msg = {0};
    if (literal) {
        model_check_string(m, text);
        msg.text = text;
        msg.text_ptr = true;
    } else {
        int64_t s = model_take_single_string(m);
        if (s < 0) {
            model_failure(m, "message without text");
            s = model_store_string(m, "", 0);
        }
        msg.text = (uint64_t)s;
    }
    msg.time = model_time(m, ticks);
    model_compress_thread(m, t->id);
    msg.color = color;
    msg.source = metadata & 0x0F;
    msg.severity = (metadata & 0xF0) >> 4;
    model_raise_time(m, msg.time);

    uint32_t id = (uint32_t)m->messages.n;
    VEC_PUSH(m->messages, msg);
    insert_by_time(m, &m->message_order.n, &m->message_order.cap, &m->message_order.v, id);
    insert_by_time(m, &t->messages.n, &t->messages.cap, &t->messages.v, id);

    if (callstack) {
        /* Upstream gives the call stack to the thread's last message. */
        m->messages.v[t->messages.v[t->messages.n - 1]].callstack = t->next_callstack;
        t->next_callstack = 0;
    }
}

void model_app_info(model_t *m, int64_t ticks)
{
    int64_t s = model_take_single_string(m);
    if (s < 0) {
        model_failure(m, "application info without text");
        return;
    }
    VEC_PUSH(m->app_info, (uint32_t)s);
    model_raise_time(m, model_time(m, ticks));
}
