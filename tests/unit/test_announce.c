/* test_announce.c - unit tests of announce.c: every broadcast version
 * decoded from bytes laid out by hand (fields, the v0 port, the missing
 * pids), the length limits of each (too short, too long, a name cut short,
 * a name without its NUL), unknown versions, the encoder's v3 datagram
 * and its round trip, the address text and the client key. */
#include <arpa/inet.h>
#include <check.h>
#include <netinet/in.h>
#include <string.h>

#include "announce.h"
#include "unit.h"

static void put(uint8_t *p, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++) p[i] = (uint8_t)(v >> (8 * i));
}

/* A v3 datagram as a 0.14.0 client sends it: 20 + strlen(name) + 1 bytes. */
static size_t v3(uint8_t *m, uint16_t port, uint32_t proto, uint64_t pid, int32_t active, const char *name)
{
    memset(m, 0, 84);
    put(m, 3, 2);
    put(m + 2, port, 2);
    put(m + 4, proto, 4);
    put(m + 8, pid, 8);
    put(m + 16, (uint32_t)active, 4);
    size_t n = strlen(name);
    memcpy(m + 20, name, n);
    return 20 + n + 1;
}

START_TEST(v3_as_a_client_sends_it)
{
    uint8_t m[84];
    size_t len = v3(m, 8087, 82, 0x123456789AULL, 42, "game");
    ck_assert_uint_eq(len, 25);
    announce_t a;
    ck_assert_int_eq(announce_parse(m, len, &a), ANNOUNCE_OK);
    ck_assert_uint_eq(a.broadcast_version, 3);
    ck_assert_uint_eq(a.listen_port, 8087);
    ck_assert_uint_eq(a.protocol_version, 82);
    ck_assert_uint_eq(a.pid, 0x123456789AULL);
    ck_assert_int_eq(a.active_time, 42);
    ck_assert_str_eq(a.program_name, "game");
    /* the going-away form */
    len = v3(m, 8086, 82, 7, -1, "game");
    ck_assert_int_eq(announce_parse(m, len, &a), ANNOUNCE_OK);
    ck_assert_int_eq(a.active_time, -1);
    /* the whole struct, zero padded, is taken as well */
    ck_assert_int_eq(announce_parse(m, 84, &a), ANNOUNCE_OK);
    ck_assert_str_eq(a.program_name, "game");
}
END_TEST

START_TEST(v2_has_no_pid)
{
    uint8_t m[76] = { 0 };
    put(m, 2, 2);
    put(m + 2, 9000, 2);
    put(m + 4, 63, 4);
    put(m + 8, 5, 4);
    memcpy(m + 12, "old", 4);
    announce_t a;
    ck_assert_int_eq(announce_parse(m, 16, &a), ANNOUNCE_OK);
    ck_assert_uint_eq(a.broadcast_version, 2);
    ck_assert_uint_eq(a.listen_port, 9000);
    ck_assert_uint_eq(a.protocol_version, 63);
    ck_assert_uint_eq(a.pid, 0);
    ck_assert_int_eq(a.active_time, 5);
    ck_assert_str_eq(a.program_name, "old");
    ck_assert_int_eq(announce_parse(m, 76, &a), ANNOUNCE_OK);
    ck_assert_int_eq(announce_parse(m, 77, &a), ANNOUNCE_TOO_LONG);
    ck_assert_int_eq(announce_parse(m, 11, &a), ANNOUNCE_TOO_SHORT);
}
END_TEST

START_TEST(v1_has_wide_fields)
{
    uint8_t m[80] = { 0 };
    put(m, 1, 4);
    put(m + 4, 40, 4);
    put(m + 8, 0x10000 + 8099, 4);         /* a u32 port is cut to 16 bits */
    put(m + 12, 0xFFFFFFFFu, 4);           /* a u32 active time reads as -1 */
    memcpy(m + 16, "older", 6);
    announce_t a;
    ck_assert_int_eq(announce_parse(m, 22, &a), ANNOUNCE_OK);
    ck_assert_uint_eq(a.broadcast_version, 1);
    ck_assert_uint_eq(a.protocol_version, 40);
    ck_assert_uint_eq(a.listen_port, 8099);
    ck_assert_uint_eq(a.pid, 0);
    ck_assert_int_eq(a.active_time, -1);
    ck_assert_str_eq(a.program_name, "older");
    ck_assert_int_eq(announce_parse(m, 80, &a), ANNOUNCE_OK);
    ck_assert_int_eq(announce_parse(m, 81, &a), ANNOUNCE_TOO_LONG);
    ck_assert_int_eq(announce_parse(m, 15, &a), ANNOUNCE_TOO_SHORT);
    /* only the low u16 of the u32 version counts, as upstream reads it */
    put(m, 0x00050001u, 4);
    ck_assert_int_eq(announce_parse(m, 22, &a), ANNOUNCE_OK);
    ck_assert_uint_eq(a.broadcast_version, 1);
}
END_TEST

START_TEST(v0_has_no_port)
{
    uint8_t m[76] = { 0 };
    put(m, 0, 4);
    put(m + 4, 30, 4);
    put(m + 8, 100, 4);
    memcpy(m + 12, "oldest", 7);
    announce_t a;
    ck_assert_int_eq(announce_parse(m, 19, &a), ANNOUNCE_OK);
    ck_assert_uint_eq(a.broadcast_version, 0);
    ck_assert_uint_eq(a.protocol_version, 30);
    ck_assert_uint_eq(a.listen_port, 8086);
    ck_assert_uint_eq(a.pid, 0);
    ck_assert_int_eq(a.active_time, 100);
    ck_assert_str_eq(a.program_name, "oldest");
    ck_assert_int_eq(announce_parse(m, 76, &a), ANNOUNCE_OK);
    ck_assert_int_eq(announce_parse(m, 77, &a), ANNOUNCE_TOO_LONG);
    ck_assert_int_eq(announce_parse(m, 11, &a), ANNOUNCE_TOO_SHORT);
}
END_TEST

START_TEST(lengths_and_versions_refused)
{
    uint8_t m[200];
    size_t len = v3(m, 8086, 82, 1, 0, "x");
    announce_t a;
    announce_t before;
    memset(&a, 0x5A, sizeof a);
    memcpy(&before, &a, sizeof a);
    ck_assert_int_eq(announce_parse(m, 0, &a), ANNOUNCE_TOO_SHORT);
    ck_assert_int_eq(announce_parse(m, 1, &a), ANNOUNCE_TOO_SHORT);
    for (size_t n = 2; n < 20; n++)        /* every cut before the name */
        ck_assert_int_eq(announce_parse(m, n, &a), ANNOUNCE_TOO_SHORT);
    memset(m + len, 0, sizeof m - len);
    ck_assert_int_eq(announce_parse(m, 85, &a), ANNOUNCE_TOO_LONG);
    ck_assert_int_eq(announce_parse(m, 200, &a), ANNOUNCE_TOO_LONG);
    for (unsigned v = 4; v < 70000; v += v < 10 ? 1 : 997) {
        put(m, v, 2);
        ck_assert_int_eq(announce_parse(m, len, &a), ANNOUNCE_UNKNOWN_VERSION);
    }
    /* the version is checked before the length, as upstream does */
    put(m, 4, 2);
    ck_assert_int_eq(announce_parse(m, 200, &a), ANNOUNCE_UNKNOWN_VERSION);
    ck_assert_int_eq(memcmp(&a, &before, sizeof a), 0); /* untouched by a refusal */
    ck_assert_str_ne(announce_result_text(ANNOUNCE_TOO_SHORT), announce_result_text(ANNOUNCE_TOO_LONG));
    ck_assert_str_eq(announce_result_text(ANNOUNCE_UNKNOWN_VERSION), "an unknown broadcast version");
}
END_TEST

START_TEST(names_cut_short_or_unterminated)
{
    uint8_t m[84];
    announce_t a;
    char longname[70];
    memset(longname, 'n', 64);
    longname[64] = '\0';
    /* the header alone: an empty name */
    v3(m, 8086, 82, 1, 0, "abcdef");
    ck_assert_int_eq(announce_parse(m, 20, &a), ANNOUNCE_OK);
    ck_assert_str_eq(a.program_name, "");
    /* a name cut before its NUL ends where the datagram does */
    ck_assert_int_eq(announce_parse(m, 23, &a), ANNOUNCE_OK);
    ck_assert_str_eq(a.program_name, "abc");
    /* 64 bytes without a NUL: 63 kept, terminated */
    memset(m + 20, 'n', 64);
    ck_assert_int_eq(announce_parse(m, 84, &a), ANNOUNCE_OK);
    ck_assert_uint_eq(strlen(a.program_name), 63);
    ck_assert_int_eq(a.program_name[63], '\0');
    /* the same in the older versions, whose names are strzcpy'd upstream */
    uint8_t o[80];
    memset(o, 'q', sizeof o);
    put(o, 2, 2);
    ck_assert_int_eq(announce_parse(o, 76, &a), ANNOUNCE_OK);
    ck_assert_uint_eq(strlen(a.program_name), 63);
    put(o, 1, 4);
    ck_assert_int_eq(announce_parse(o, 80, &a), ANNOUNCE_OK);
    ck_assert_uint_eq(strlen(a.program_name), 63);
    put(o, 0, 4);
    ck_assert_int_eq(announce_parse(o, 70, &a), ANNOUNCE_OK);
    ck_assert_uint_eq(strlen(a.program_name), 58);
    /* bytes after the name's NUL are not part of it */
    v3(m, 8086, 82, 1, 0, "ab");
    memset(m + 23, 'z', 84 - 23);
    ck_assert_int_eq(announce_parse(m, 84, &a), ANNOUNCE_OK);
    ck_assert_str_eq(a.program_name, "ab");
}
END_TEST

START_TEST(encode_is_the_client_datagram_and_round_trips)
{
    announce_t a = { .broadcast_version = 1, .protocol_version = 82, .listen_port = 8090,
                     .pid = 0xFEDCBA9876543210ULL, .active_time = 1234 };
    strcpy(a.program_name, "my program");
    uint8_t m[ANNOUNCE_MAX_SIZE], want[84];
    size_t len = announce_encode(&a, m);
    size_t want_len = v3(want, 8090, 82, 0xFEDCBA9876543210ULL, 1234, "my program");
    ck_assert_uint_eq(len, want_len);
    ck_assert_int_eq(memcmp(m, want, len), 0);
    announce_t b;
    ck_assert_int_eq(announce_parse(m, len, &b), ANNOUNCE_OK);
    ck_assert_uint_eq(b.broadcast_version, 3);  /* always v3 */
    ck_assert_uint_eq(b.protocol_version, a.protocol_version);
    ck_assert_uint_eq(b.listen_port, a.listen_port);
    ck_assert_uint_eq(b.pid, a.pid);
    ck_assert_int_eq(b.active_time, a.active_time);
    ck_assert_str_eq(b.program_name, a.program_name);
    /* empty and longest names */
    a.program_name[0] = '\0';
    a.active_time = -1;
    ck_assert_uint_eq(announce_encode(&a, m), 21);
    ck_assert_int_eq(announce_parse(m, 21, &b), ANNOUNCE_OK);
    ck_assert_str_eq(b.program_name, "");
    ck_assert_int_eq(b.active_time, -1);
    memset(a.program_name, 'L', sizeof a.program_name); /* not even terminated */
    ck_assert_uint_eq(announce_encode(&a, m), 84);
    ck_assert_int_eq(m[83], '\0');
    ck_assert_int_eq(announce_parse(m, 84, &b), ANNOUNCE_OK);
    ck_assert_uint_eq(strlen(b.program_name), 63);
}
END_TEST

START_TEST(address_text_and_client_key)
{
    struct sockaddr_in in = { .sin_family = AF_INET, .sin_port = htons(5555) };
    inet_pton(AF_INET, "192.168.7.21", &in.sin_addr);
    char buf[ANNOUNCE_ADDR_SIZE];
    ck_assert_str_eq(announce_address_text((struct sockaddr *)&in, buf), "192.168.7.21");
    struct sockaddr_in6 in6 = { .sin6_family = AF_INET6 };
    inet_pton(AF_INET6, "::ffff:10.0.0.3", &in6.sin6_addr);
    ck_assert_str_eq(announce_address_text((struct sockaddr *)&in6, buf), "10.0.0.3");
    inet_pton(AF_INET6, "fe80::1", &in6.sin6_addr);
    ck_assert_str_eq(announce_address_text((struct sockaddr *)&in6, buf), "fe80::1");
    struct sockaddr other = { .sa_family = AF_UNIX };
    ck_assert_str_eq(announce_address_text(&other, buf), "");

    announce_t a = { .pid = 18446744073709551615ULL, .listen_port = 65535 };
    announce_key_t k;
    announce_key(&a, (struct sockaddr *)&in, &k);
    ck_assert_str_eq(k.text, "18446744073709551615_192.168.7.21_65535");
    inet_pton(AF_INET6, "1234:5678:9abc:def0:1234:5678:9abc:def0", &in6.sin6_addr);
    announce_key(&a, (struct sockaddr *)&in6, &k);  /* the longest fits */
    ck_assert_str_eq(k.text, "18446744073709551615_1234:5678:9abc:def0:1234:5678:9abc:def0_65535");
    a.pid = 0;
    a.listen_port = 8086;
    announce_key(&a, (struct sockaddr *)&in, &k);
    ck_assert_str_eq(k.text, "0_192.168.7.21_8086");
}
END_TEST

Suite *announce_suite(void)
{
    Suite *s = suite_create("announce");
    TCase *tc = tcase_create("announce");
    tcase_add_test(tc, v3_as_a_client_sends_it);
    tcase_add_test(tc, v2_has_no_pid);
    tcase_add_test(tc, v1_has_wide_fields);
    tcase_add_test(tc, v0_has_no_port);
    tcase_add_test(tc, lengths_and_versions_refused);
    tcase_add_test(tc, names_cut_short_or_unterminated);
    tcase_add_test(tc, encode_is_the_client_datagram_and_round_trips);
    tcase_add_test(tc, address_text_and_client_key);
    suite_add_tcase(s, tc);
    return s;
}
