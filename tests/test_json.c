/* test_json.c — the one place input files are read and parsed (src/json_util.c): only regular
 * files are read (a FIFO must not hang), input limits (size, nesting) are refused with the
 * limit named, JSON errors give line, column and an excerpt, a "\u0000" in a string is refused
 * with its JSON path, a long path never pushes the reason out of a message, write errors are
 * reported, and a file of another kind is named as such. */
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include "graph.h"
#include "json_util.h"
#include "ptest.h"

static char dir[64];

static void path_in(char *out, size_t cap, const char *name)
{
    snprintf(out, cap, "%s/%s", dir, name);
}

static void put(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

/* A FIFO without a writer used to block the reader forever: alarm() turns a hang into a
 * failure instead of a test timeout. */
static void fifo_refused(void)
{
    char p[128], *text = NULL;
    size_t len;
    pt_error e = {{0}};
    path_in(p, sizeof p, "fifo.json");
    CHECK(mkfifo(p, 0600) == 0);
    alarm(10);
    CHECK(!pt_read_file(p, &text, &len, &e));
    alarm(0);
    CHECK_CONTAINS(e.msg, p);
    CHECK_CONTAINS(e.msg, "FIFO");
    CHECK_CONTAINS(e.msg, "expected a regular JSON file");
    pt_graph g;
    alarm(10);
    CHECK(!pt_graph_load_file(&g, p, NULL, &e));
    alarm(0);
    CHECK(!pt_read_file("/dev/zero", &text, &len, &e));
    CHECK_CONTAINS(e.msg, "/dev/zero: is a character device");
    CHECK(!pt_read_file(dir, &text, &len, &e));
    CHECK_CONTAINS(e.msg, "is a directory");
}

static void size_limit(void)
{
    char p[128], *text = NULL;
    size_t len;
    pt_error e = {{0}};
    path_in(p, sizeof p, "huge.json");
    int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    CHECK(fd >= 0 && ftruncate(fd, (off_t)PT_JSON_MAX_FILE + 1) == 0); /* sparse */
    close(fd);
    CHECK(!pt_read_file(p, &text, &len, &e));
    CHECK_CONTAINS(e.msg, "huge.json: is 67108865 bytes; the limit for this input file is 64 MiB");
    unlink(p);
}

static void nesting_limit(void)
{
    char text[400];
    pt_error e = {{0}};
    int n = PT_JSON_MAX_DEPTH + 1;
    for (int i = 0; i < n; i++)
        text[i] = '[', text[n + i] = ']';
    text[2 * n] = 0;
    CHECK(pt_json_parse("d.json", text, strlen(text), &e) == NULL);
    CHECK_CONTAINS(e.msg, "d.json: line 1: the JSON text nests deeper than 64 levels (the limit)");
    /* exactly the limit is fine */
    cJSON *ok = pt_json_parse("d.json", text + 1, strlen(text) - 2, &e);
    CHECK(ok != NULL);
    cJSON_Delete(ok);
}

static void syntax_messages(void)
{
    pt_error e = {{0}};
    const char *t1 = "{\"a\": 1,}\n";
    CHECK(pt_json_parse("t.json", t1, strlen(t1), &e) == NULL);
    /* used to be: JSON syntax error near '' */
    CHECK_CONTAINS(e.msg, "t.json: line 1, column 8: JSON syntax error: a trailing comma in "
                          "`{\"a\": 1,}`");
    const char *t2 = "{\"a\": [1,\n  2,\n  ]\n}";
    CHECK(pt_json_parse("t.json", t2, strlen(t2), &e) == NULL);
    CHECK_CONTAINS(e.msg, "line 2, column 4: JSON syntax error: a trailing comma in `2,`");
    const char *t3 = "{\"a\": 1 2}";
    CHECK(pt_json_parse("t.json", t3, strlen(t3), &e) == NULL);
    CHECK_CONTAINS(e.msg, "line 1, column 9: JSON syntax error at '2' in `{\"a\": 1 2}`");
    /* A comma inside a string is not a trailing comma. */
    const char *t4 = "{\"a\": \",}\", \"b\": }";
    CHECK(pt_json_parse("t.json", t4, strlen(t4), &e) == NULL);
    CHECK(strstr(e.msg, "trailing comma") == NULL);
}

static void nul_in_string(void)
{
    pt_error e = {{0}};
    const char *t = "{\"name\": \"x\", \"ops\": [{\"op\": \"exp\\u0000\"}]}";
    CHECK(pt_json_parse("n.json", t, strlen(t), &e) == NULL);
    CHECK_CONTAINS(e.msg, "n.json: $.ops[0].op: the string contains \\u0000");
    const char *k = "{\"na\\u0000me\": 1}";
    CHECK(pt_json_parse("n.json", k, strlen(k), &e) == NULL);
    CHECK_CONTAINS(e.msg, "n.json: $ (a key): the string contains \\u0000");
    const char *fine = "{\"name\": \"a\\\\u0000\"}"; /* an escaped backslash, then text */
    cJSON *ok = pt_json_parse("n.json", fine, strlen(fine), &e);
    CHECK(ok != NULL);
    cJSON_Delete(ok);
}

/* A path of several KiB: the message keeps the reason at its end. */
static void long_path_keeps_reason(void)
{
    char p[3000];
    size_t n = (size_t)snprintf(p, sizeof p, "%s/", dir);
    while (n + 10 < sizeof p - 20)
        n += (size_t)snprintf(p + n, sizeof p - n, "dddddddd/");
    snprintf(p + n, sizeof p - n, "missing.json");
    char *text;
    size_t len;
    pt_error e = {{0}};
    CHECK(!pt_read_file(p, &text, &len, &e));
    CHECK(strlen(e.msg) < PT_ERROR_MAX);
    CHECK_CONTAINS(e.msg, "missing.json: cannot open: ");
    CHECK_CONTAINS(e.msg, " ... ");
    CHECK(strncmp(e.msg, dir, strlen(dir)) == 0);
}

static void write_errors(void)
{
    pt_error e = {{0}};
    CHECK(!pt_write_file("/dev/full", "{}\n", &e));
    CHECK_CONTAINS(e.msg, "/dev/full: write failed: No space left on device");
    struct stat st;
    CHECK(stat("/dev/full", &st) == 0 && S_ISCHR(st.st_mode)); /* not replaced by a file */
    CHECK(pt_write_file("/dev/null", "{}\n", &e));
    CHECK(!pt_write_file(dir, "{}\n", &e));
    CHECK_CONTAINS(e.msg, "is a directory");
}

static void file_kinds(void)
{
    char p[128];
    pt_error e = {{0}};
    path_in(p, sizeof p, "prog.json");
    put(p, "{\"format\": \"pipethreader.sprogram\", \"version\": 1, \"graph\": \"g\", \"lanes\": {}}");
    CHECK(pt_file_sniff(p) == PT_FILE_SPROGRAM);
    pt_graph g;
    CHECK(!pt_graph_load_file(&g, p, NULL, &e));
    CHECK_CONTAINS(e.msg, "prog.json is an sProgram, expected an operator graph (give it with "
                          "--program)");
    path_in(p, sizeof p, "hw.json");
    put(p, "{\"base\": \"H200\", \"name\": \"x\", \"eu_count\": 100}");
    CHECK(!pt_graph_load_file(&g, p, NULL, &e));
    CHECK_CONTAINS(e.msg, "hw.json is a hardware model, expected an operator graph (give it "
                          "with --hw)");
    path_in(p, sizeof p, "chrome.json");
    put(p, "{\"traceEvents\": []}");
    CHECK(!pt_graph_load_file(&g, p, NULL, &e));
    CHECK_CONTAINS(e.msg, "chrome.json is a Chrome trace, expected an operator graph");
    /* unknown formats are left to the loader's own message */
    path_in(p, sizeof p, "other.json");
    put(p, "{\"format\": \"other\"}");
    CHECK(pt_file_sniff(p) == PT_FILE_UNKNOWN);
}

int main(void)
{
    snprintf(dir, sizeof dir, "/tmp/pt-test-json-XXXXXX");
    if (!mkdtemp(dir))
        return 1;
    PTEST_RUN(fifo_refused);
    PTEST_RUN(size_limit);
    PTEST_RUN(nesting_limit);
    PTEST_RUN(syntax_messages);
    PTEST_RUN(nul_in_string);
    PTEST_RUN(long_path_keeps_reason);
    PTEST_RUN(write_errors);
    PTEST_RUN(file_kinds);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    PTEST_END();
}
