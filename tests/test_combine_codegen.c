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
    /* X by TMA (G = 8): the tile's rows are the box's inner extent, 16-byte multiples */
    CHECK(!generate("G=8,SPLITS=4", "g=6", &out, &e));
    CHECK_CONTAINS(e.msg, "tile g = 6; expected a multiple of 4 (the TMA box of \"LSE\"");
    /* G = 6 reads X itself: 6 rows are fine there */
    CHECK_MSG(generate("G=6,SPLITS=4", "g=6", &out, &e), "%s", e.msg);
    pt_codegen_result_free(&out);
    /* more rows than the warpgroup has threads */
    CHECK(!generate("G=200,SPLITS=2,D=32", "g=200", &out, &e));
    CHECK_CONTAINS(e.msg, "tile g = 200; expected 1 to 128");
}

int main(void)
{
    PTEST_RUN(any_group_count);
    PTEST_RUN(refusals);
    PTEST_END();
}
