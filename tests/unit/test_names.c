/* test_names.c - unit tests of names.c: program names sanitized as
 * upstream's daemon does, and output paths with their _N suffixes while a
 * path was handed out before or is on disk (a temporary directory). */
#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "names.h"
#include "unit.h"

START_TEST(sanitize_keeps_safe_characters)
{
    char out[64];
    ck_assert_str_eq(names_sanitize("Game-2_final", out, sizeof out), "Game-2_final");
    ck_assert_str_eq(names_sanitize("my game", out, sizeof out), "my_game");
    ck_assert_str_eq(names_sanitize("a\tb  c", out, sizeof out), "a_b__c");
    ck_assert_str_eq(names_sanitize("/usr/bin/x.exe", out, sizeof out), "usrbinxexe");
    ck_assert_str_eq(names_sanitize("caf\xc3\xa9!", out, sizeof out), "caf");
    ck_assert_str_eq(names_sanitize("", out, sizeof out), "unknown");
    ck_assert_str_eq(names_sanitize("../..", out, sizeof out), "unknown");
    ck_assert_str_eq(names_sanitize("\xe2\x9c\x93", out, sizeof out), "unknown");
    ck_assert_str_eq(names_sanitize("\n\r", out, sizeof out), "unknown");
    char small[4];
    ck_assert_str_eq(names_sanitize("abcdef", small, sizeof small), "abc");
}
END_TEST

static char *make_dir(void)
{
    char tmpl[] = "/tmp/tc-names-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(tmpl));
    return strdup(tmpl);
}

static void touch(const char *dir, const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int fd = open(path, O_CREAT | O_WRONLY | O_EXCL, 0644);
    ck_assert_int_ge(fd, 0);
    close(fd);
}

static void remove_dir(char *dir)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
    free(dir);
}

/* The path's part after the directory. */
static const char *base(const char *path, const char *dir)
{
    size_t n = strlen(dir);
    ck_assert_int_eq(strncmp(path, dir, n), 0);
    ck_assert_int_eq(path[n], '/');
    return path + n + 1;
}

START_TEST(claims_add_suffixes_while_taken)
{
    char *dir = make_dir();
    names_t n;
    names_init(&n, dir);
    const char *first = names_claim(&n, "my game", "127.0.0.1", 8086);
    ck_assert_str_eq(base(first, dir), "my_game_127.0.0.1_8086.tracy");
    ck_assert_str_eq(base(names_claim(&n, "my game", "127.0.0.1", 8086), dir), "my_game_127.0.0.1_8086_1.tracy");
    ck_assert_str_eq(base(names_claim(&n, "my\tgame", "127.0.0.1", 8086), dir), "my_game_127.0.0.1_8086_2.tracy");
    ck_assert_str_eq(base(names_claim(&n, "my?game", "127.0.0.1", 8086), dir), "mygame_127.0.0.1_8086.tracy");
    ck_assert_str_eq(base(names_claim(&n, "my game", "127.0.0.1", 8087), dir), "my_game_127.0.0.1_8087.tracy");
    ck_assert_str_eq(base(names_claim(&n, "my game", "10.1.2.3", 8086), dir), "my_game_10.1.2.3_8086.tracy");
    ck_assert_str_eq(base(names_claim(&n, "", "10.1.2.3", 8086), dir), "unknown_10.1.2.3_8086.tracy");
    /* nothing was created on disk: the names were taken here only */
    char path[512];
    snprintf(path, sizeof path, "%s/my_game_127.0.0.1_8086.tracy", dir);
    ck_assert_int_ne(access(path, F_OK), 0);
    /* a path handed out stays valid and taken through many more claims */
    for (int i = 0; i < 3000; i++) names_claim(&n, "many", "127.0.0.1", 1);
    ck_assert_str_eq(base(names_claim(&n, "many", "127.0.0.1", 1), dir), "many_127.0.0.1_1_3000.tracy");
    ck_assert_str_eq(base(first, dir), "my_game_127.0.0.1_8086.tracy");
    names_free(&n);
    /* another names_t knows nothing of these */
    names_init(&n, dir);
    ck_assert_str_eq(base(names_claim(&n, "my game", "127.0.0.1", 8086), dir), "my_game_127.0.0.1_8086.tracy");
    names_free(&n);
    remove_dir(dir);
}
END_TEST

START_TEST(claims_skip_what_is_on_disk)
{
    char *dir = make_dir();
    touch(dir, "prog_192.168.0.9_9000.tracy");
    touch(dir, "prog_192.168.0.9_9000_1.tracy");
    touch(dir, "prog_192.168.0.9_9000_3.tracy");
    char link[512];
    snprintf(link, sizeof link, "%s/prog_192.168.0.9_9000_4.tracy", dir);
    ck_assert_int_eq(symlink("/nonexistent/tc-names-target", link), 0); /* dangling: taken too */
    names_t n;
    names_init(&n, dir);
    ck_assert_str_eq(base(names_claim(&n, "prog", "192.168.0.9", 9000), dir), "prog_192.168.0.9_9000_2.tracy");
    ck_assert_str_eq(base(names_claim(&n, "prog", "192.168.0.9", 9000), dir), "prog_192.168.0.9_9000_5.tracy");
    /* a file that goes away frees its name (it was never handed out);
     * the names handed out stay taken though nothing is on disk */
    snprintf(link, sizeof link, "%s/prog_192.168.0.9_9000.tracy", dir);
    ck_assert_int_eq(unlink(link), 0);
    ck_assert_str_eq(base(names_claim(&n, "prog", "192.168.0.9", 9000), dir), "prog_192.168.0.9_9000.tracy");
    ck_assert_str_eq(base(names_claim(&n, "prog", "192.168.0.9", 9000), dir), "prog_192.168.0.9_9000_6.tracy");
    names_free(&n);
    remove_dir(dir);
}
END_TEST

START_TEST(directory_forms)
{
    names_t n;
    names_init(&n, "out/");
    ck_assert_str_eq(names_claim(&n, "p", "1.2.3.4", 5), "out/p_1.2.3.4_5.tracy");
    names_free(&n);
    names_init(&n, "/");
    ck_assert_str_eq(names_claim(&n, "p", "1.2.3.4", 5), "/p_1.2.3.4_5.tracy");
    names_free(&n);
    names_init(&n, "");
    ck_assert_str_eq(names_claim(&n, "p", "1.2.3.4", 5), "./p_1.2.3.4_5.tracy");
    names_free(&n);
}
END_TEST

Suite *names_suite(void)
{
    Suite *s = suite_create("names");
    TCase *tc = tcase_create("names");
    tcase_add_test(tc, sanitize_keeps_safe_characters);
    tcase_add_test(tc, claims_add_suffixes_while_taken);
    tcase_add_test(tc, claims_skip_what_is_on_disk);
    tcase_add_test(tc, directory_forms);
    suite_add_tcase(s, tc);
    return s;
}
