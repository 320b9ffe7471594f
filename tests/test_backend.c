/* test_backend.c — the target registry (codegen/backend.h: lookup by name, the message that
 * names the valid targets) and the bundle templates' filling-in (codegen/template.h: notes
 * dropped, make's $@ and @echo untouched, values not scanned again, a placeholder without a
 * value refused). */
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "ptest.h"
#include "template.h"

static void test_registry(void)
{
    const pt_backend *b = pt_backend_find(PT_TARGET_DEFAULT);
    CHECK(b != NULL);
    if (!b)
        return;
    CHECK_STR(b->name, "sm90a");
    CHECK_STR(b->arch, "sm_90a");
    CHECK(b->accepts && b->generate && b->nvcc_arch_flags && b->gpus);
    CHECK(pt_backend_find("sm80") == NULL);
    CHECK(pt_backend_find(NULL) == NULL);
    CHECK_CONTAINS(pt_backend_names(), "sm90a");
    const pt_backend *got = b;
    pt_error err = {{0}};
    CHECK(!pt_backend_lookup("gfx9000", "codegen: ", &got, &err));
    CHECK(got == NULL);
    CHECK_STR(err.msg, "codegen: unknown target \"gfx9000\"; valid targets: sm90a, gfx942");
    CHECK(pt_backend_lookup("sm90a", NULL, &got, &err) && got == b);
    /* MI300X's arch finds the gfx942 target, whose bundle is HIP */
    const pt_backend *amd = pt_backend_for_arch("gfx942");
    CHECK(amd != NULL && amd == pt_backend_find("gfx942"));
    if (amd) {
        CHECK_STR(amd->gpus, "MI300X");
        CHECK(amd->hip && !b->hip);
    }
}

static void test_template(void)
{
    const pt_template_var vars[] = {{"NAME", "g@NAME@"}, {"T2", "x"}};
    pt_error err = {{0}};
    char *s = pt_template_fill("t.in",
                               "@@ a note\n"
                               "# @NAME@ (@T2@)\n"
                               "a: b\n\t$(CC) -o $@ b\n\t@echo '@' done @@x\n",
                               vars, 2, &err);
    CHECK(s != NULL);
    if (s)
        CHECK_STR(s, "# g@NAME@ (x)\na: b\n\t$(CC) -o $@ b\n\t@echo '@' done @@x\n");
    free(s);
    s = pt_template_fill("t.in", "ok @MISSING@ here\n", vars, 2, &err);
    CHECK(s == NULL);
    CHECK_CONTAINS(err.msg, "t.in has @MISSING@, which has no value");
    free(s);
}

int main(void)
{
    PTEST_RUN(test_registry);
    PTEST_RUN(test_template);
    PTEST_END();
}
