/* test_dependent_launch.c — which sm90a kernels take part in a programmatic dependent launch
 * (codegen/sm90a/common.c sm90a_pdl_role): FlashDecoding's partial lets its dependent launch
 * early and is launched plainly; the combine is launched as the dependent (cuLaunchKernelEx with
 * programmatic stream serialisation) and waits for the grid before it before touching global
 * memory; a kernel of any other graph does neither. (The split search's charge for that launch:
 * test_split_search.) */
#include <stdlib.h>
#include <string.h>

#include "codegen.h"
#include "embedded.h"
#include "propagate.h"
#include "ptest.h"
#include "sm90a_generate.h"

static bool generate(const char *example, const char *set, pt_codegen_result *out)
{
    pt_error e = {{0}};
    bool ok = pt_test_sm90a_generate(example, set, NULL, out, &e);
    CHECK_MSG(ok, "%s %s: %s", example, set, e.msg);
    return ok;
}

static void roles(void)
{
    static const struct {
        const char *example, *set;
        bool triggers, waits, launched_dependent;
    } cases[] = {
        {"flash_decoding", "B=2,HKV=2,G=4,S=4096,SPLITS=4,D=128", true, false, false},
        {"flash_decoding", "B=64,HKV=8,G=4,S=1024,SPLITS=1,D=128", true, false, false},
        {"flash_decoding_combine", "B=2,HKV=2,G=4,SPLITS=4,D=128", false, true, true},
        {"flash_decoding_combine", "B=3,HKV=8,G=5,SPLITS=1,D=64", false, true, true},
        {"flash_attention", "B=1,H=2,S=1024,D=64", false, false, false},
        {"gemm_f16", "M=256,N=256,K=4096", false, false, false},
        {"gemm_w4a16", "M=16,N=256,K=4096,G=128", false, false, false},
        {"mamba2_chunk_state", "B=1,S=512,H=4", false, false, false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pt_codegen_result r;
        if (!generate(cases[i].example, cases[i].set, &r))
            continue;
        bool trig = strstr(r.kernel_cu, "pt::grid_launch_dependents()") != NULL;
        bool wait = strstr(r.kernel_cu, "pt::grid_dependency_wait()") != NULL;
        bool dep = strstr(r.host_c, "programmaticStreamSerializationAllowed = 1") != NULL &&
                   strstr(r.host_c, "cuLaunchKernelEx") != NULL;
        CHECK_MSG(trig == cases[i].triggers, "%s %s: triggers its dependent: %d, expected %d",
                  cases[i].example, cases[i].set, trig, cases[i].triggers);
        CHECK_MSG(wait == cases[i].waits, "%s %s: waits for the grid before it: %d, expected %d",
                  cases[i].example, cases[i].set, wait, cases[i].waits);
        CHECK_MSG(dep == cases[i].launched_dependent, "%s %s: launched as a dependent: %d, expected %d",
                  cases[i].example, cases[i].set, dep, cases[i].launched_dependent);
        if (wait) {  /* the wait comes before either role starts (before any global access) */
            const char *w = strstr(r.kernel_cu, "pt::grid_dependency_wait()");
            const char *roles = strstr(r.kernel_cu, "if (wg == 0)");
            CHECK_MSG(roles && w < roles, "%s: the wait is not before the roles split", cases[i].example);
        }
        pt_codegen_result_free(&r);
    }
}

int main(void)
{
    PTEST_RUN(roles);
    PTEST_END();
}
