/* test_combine_codegen.c — FlashDecoding's combine on sm90a for any group count (codegen/sm90a/
 * combine_plan.c, combine_emit.c): every G from 1 to 9 and 12 is generated from its default
 * sProgram; X comes by TMA exactly when G is a multiple of 4 (its rows then are 16-byte strides)
 * and is otherwise read by the warpgroup from a plain pointer; threads without a tile row are
 * guarded exactly when the rows do not divide 128; tiles the instructions cannot take are
 * refused with the tile and the rule. */
#include <stdlib.h>
#include <string.h>

#include "codegen.h"
#include "embedded.h"
#include "propagate.h"
#include "ptest.h"
#include "sm90a_generate.h"

/* The sm90a kernel of the combine with `set` and `tile` (NULL: the default sProgram's). */
static bool generate(const char *set, const char *tile, pt_codegen_result *out, pt_error *e)
{
    return pt_test_sm90a_generate("flash_decoding_combine", set, tile, out, e);
}

static void any_group_count(void)
{
    static const int gs[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 12};
    for (int i = 0; i < (int)(sizeof gs / sizeof gs[0]); i++) {
        int G = gs[i];
        char set[64];
        snprintf(set, sizeof set, "B=2,HKV=3,G=%d,SPLITS=5,D=64", G);
        pt_codegen_result out;
        pt_error e = {{0}};
        bool ok = generate(set, NULL, &out, &e);
        CHECK_MSG(ok, "G=%d: %s", G, e.msg);
        if (!ok)
            continue;
        bool plain = G % 4 != 0, idle = 128 % G != 0; /* the default tile is every row */
        CHECK_MSG(plain == (strstr(out.kernel_cu, "pt::split_load_x<S, GT, XROWS>") != NULL),
                  "G=%d", G);
        CHECK_MSG(plain == (strstr(out.kernel_cu, "const float *__restrict__ x,") != NULL), "G=%d", G);
        CHECK_MSG(plain != (strstr(out.kernel_cu, "CUtensorMap tm_x") != NULL), "G=%d", G);
        CHECK_MSG(plain != (strstr(out.host_c, "map_tile(&tm_x") != NULL), "G=%d", G);
        CHECK_MSG(plain == (strstr(out.host_c, "(void *)&slots[1]") != NULL), "G=%d", G);
        CHECK_MSG(idle == (strstr(out.kernel_cu, "if (row < GT)") != NULL), "G=%d", G);
        pt_codegen_result_free(&out);
    }
}

static void refusals(void)
{
    pt_codegen_result out;
    pt_error e = {{0}};
    /* G = 8 is a TMA stride, but a box of 6 rows (24 bytes) is not a 16-byte multiple: the
     * warpgroup reads X itself; a tile of 4 rows takes X by TMA */
    CHECK_MSG(generate("G=8,SPLITS=4", "g=6", &out, &e), "%s", e.msg);
    CHECK(strstr(out.host_c, "map_tile(&tm_x") == NULL);
    CHECK(strstr(out.kernel_cu, "split_load_x") != NULL);
    pt_codegen_result_free(&out);
    CHECK_MSG(generate("G=8,SPLITS=4", "g=4", &out, &e), "%s", e.msg);
    CHECK(strstr(out.host_c, "map_tile(&tm_x") != NULL);
    pt_codegen_result_free(&out);
    /* G = 6 reads X itself: 6 rows are fine there */
    CHECK_MSG(generate("G=6,SPLITS=4", "g=6", &out, &e), "%s", e.msg);
    pt_codegen_result_free(&out);
    /* more rows than the warpgroup has threads */
    CHECK(!generate("G=200,SPLITS=2,D=32", "g=200", &out, &e));
    CHECK_CONTAINS(e.msg, "tile g = 200; expected 1 to 128");
    /* 256 splits: walked in parts of 4 (64 weights a thread) they fit; one walker would keep 256
     * weights, and 512 splits are more than a TMA box side */
    CHECK_MSG(generate("G=32,SPLITS=256,D=128", "g=4,d=32", &out, &e), "%s", e.msg);
    CHECK(strstr(out.kernel_cu, "constexpr int P = 4,") != NULL);
    pt_codegen_result_free(&out);
    CHECK(!generate("G=32,SPLITS=256,D=128", "g=6,d=32", &out, &e));
    CHECK_CONTAINS(e.msg, "s = 256 splits over 1 thread(s) a column chunk (tile g = 6, d = 32)");
    CHECK(!generate("G=32,SPLITS=512,D=128", "g=1,d=32", &out, &e));
    CHECK_CONTAINS(e.msg, "s = 512 splits; at most 256");
}

/* Parts: a row with at least twice the threads of its column chunks shares each chunk's splits
 * among P threads (a power of two, P x NQ <= 32), where GT is a power of two */
static void parts(void)
{
    static const struct {
        const char *set, *tile;
        int p;
    } cases[] = {
        {"G=32,SPLITS=128", "g=4,d=32", 4},   /* 32 threads a row, 8 chunks */
        {"G=32,SPLITS=128", "g=1,d=32", 4},   /* 128 threads, capped at 32 / 8 */
        {"G=32,SPLITS=128", "g=2,d=64", 2},   /* 64 threads, 16 chunks: 32 / 16 */
        {"G=32,SPLITS=16", "g=8,d=32", 2},    /* 16 threads, 8 chunks */
        {"G=32,SPLITS=16", "g=32,d=32", 1},   /* 4 threads, 8 chunks */
        {"G=24,SPLITS=16", "g=24,d=32", 1},   /* 5 threads a row, 8 idle: no parts */
        {"G=8,SPLITS=4", "g=6,d=32", 1},      /* 21 threads a row: not a power of two */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pt_codegen_result out;
        pt_error e = {{0}};
        char want[64];
        if (!generate(cases[i].set, cases[i].tile, &out, &e)) {
            CHECK_MSG(false, "%s %s: %s", cases[i].set, cases[i].tile, e.msg);
            continue;
        }
        snprintf(want, sizeof want, "constexpr int P = %d,", cases[i].p);
        CHECK_MSG(strstr(out.kernel_cu, want) != NULL, "%s %s: expected %s", cases[i].set,
                  cases[i].tile, want);
        pt_codegen_result_free(&out);
    }
}

int main(void)
{
    PTEST_RUN(any_group_count);
    PTEST_RUN(refusals);
    PTEST_RUN(parts);
    PTEST_END();
}
