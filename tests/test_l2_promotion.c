/* test_l2_promotion.c — the L2 promotion each sm90a tensor map gets (codegen/sm90a/host.c
 * l2_promotion): 128 bytes where one stage reads 256 or more contiguous bytes (two swizzle atoms
 * of a row, or whole short rows back to back), 256 bytes where a stage reads 128 bytes or fewer
 * of a longer row and the next stage reads on along it. */
#include <stdlib.h>
#include <string.h>

#include "codegen.h"
#include "embedded.h"
#include "propagate.h"
#include "ptest.h"
#include "sm90a_generate.h"

/* The sm90a bundle of an embedded example with `set` and `tile`, default sProgram otherwise. */
static bool generate(const char *example, const char *set, const char *tile, pt_codegen_result *out)
{
    pt_error e = {{0}};
    bool ok = pt_test_sm90a_generate(example, set, tile, out, &e);
    CHECK_MSG(ok, "%s %s %s: %s", example, set, tile ? tile : "", e.msg);
    return ok;
}

/* The promotion written for map `tm` ("k" for tm_k): 128 or 256, 0 where there is no such map. */
static int promotion(const pt_codegen_result *r, const char *tm)
{
    char key[32];
    snprintf(key, sizeof key, "map_tile(&tm_%s,", tm);
    const char *at = strstr(r->host_c, key);
    if (!at)
        return 0;
    const char *p = strstr(at, "CU_TENSOR_MAP_L2_PROMOTION_L2_");
    return p ? atoi(p + strlen("CU_TENSOR_MAP_L2_PROMOTION_L2_")) : 0;
}

struct expect {
    const char *example, *set, *tile, *map;
    int promo;
};

static void promotions(void)
{
    static const struct expect cases[] = {
        /* head dim 128: a stage's K and V rows are two atoms of one 256-byte row */
        {"flash_decoding", "B=2,HKV=2,G=4,S=4096,SPLITS=4,D=128", NULL, "k", 128},
        {"flash_decoding", "B=2,HKV=2,G=4,S=4096,SPLITS=4,D=128", NULL, "v", 128},
        {"flash_attention", "B=1,H=2,S=1024,D=128", NULL, "k", 128},
        /* head dim 64: 128-byte rows, one after another in the box */
        {"flash_attention", "B=1,H=2,S=1024,D=64", NULL, "k", 128},
        /* k tile 64 of long rows: 128 bytes a stage, the next stage reads the next 128 */
        {"gemm_f16", "M=256,N=256,K=4096", "m=128,n=128,k=64", "a", 256},
        /* B is stored [k][n]: a stage reads n = 128 of each k row, two atoms; n = 64, one */
        {"gemm_f16", "M=256,N=256,K=4096", "m=128,n=128,k=64", "b", 128},
        {"gemm_f16", "M=256,N=256,K=4096", "m=128,n=64,k=64", "b", 256},
        /* k tile 128: two atoms of each row in one stage */
        {"gemm_f16", "M=256,N=256,K=4096", "m=128,n=128,k=128", "a", 128},
        /* N = 64: B's rows are 128 bytes, so a box of them is contiguous */
        {"gemm_f16", "M=256,N=64,K=4096", "m=128,n=64,k=64", "b", 128},
        /* packed int4 weights: 64 or 128 bytes of a 2048-byte row a stage (k tiles reach 256) */
        {"gemm_w4a16", "M=64,N=256,K=4096,G=128", "m=64,n=128,k=128,wg=1", "bq", 256},
        {"gemm_w4a16", "M=64,N=256,K=4096,G=128", "m=64,n=64,k=256,wg=1", "bq", 256},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const struct expect *c = &cases[i];
        pt_codegen_result r;
        if (!generate(c->example, c->set, c->tile, &r))
            continue;
        int got = promotion(&r, c->map);
        CHECK_MSG(got == c->promo, "%s %s %s map %s: L2 promotion %d, expected %d", c->example,
                  c->set, c->tile ? c->tile : "(default)", c->map, got, c->promo);
        pt_codegen_result_free(&r);
    }
}

int main(void)
{
    PTEST_RUN(promotions);
    PTEST_END();
}
