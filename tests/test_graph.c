/* test_graph.c — the operator-graph loader: every example loads, every file of the bad-input
 * corpus fails with its expected message, size expressions and --set overrides work. */
#include <string.h>

#include "embedded.h"
#include "expr.h"
#include "graph.h"
#include "json_util.h"
#include "ptest.h"

#define CORPUS PT_SOURCE_ROOT "/tests/corpus/graph"

static void examples_load(void)
{
    int n = 0;
    for (const pt_embedded_file *f = pt_embedded_examples; f->name; f++, n++) {
        pt_graph g;
        pt_error e = {{0}};
        bool ok = pt_graph_load_text(&g, f->name, f->text, strlen(f->text), NULL, &e);
        CHECK_MSG(ok, "%s: %s", f->name, e.msg);
        CHECK_STR(g.name, f->name);
    }
    CHECK(n >= 9);
}

static void corpus_messages(void)
{
    char *list;
    size_t len;
    pt_error e;
    CHECK(pt_read_file(CORPUS "/EXPECTED", &list, &len, &e));
    int cases = 0;
    for (char *line = strtok(list, "\n"); line; line = strtok(NULL, "\n")) {
        char *tab = strchr(line, '\t');
        if (!tab)
            continue;
        *tab = 0;
        char path[512];
        snprintf(path, sizeof path, "%s/%s", CORPUS, line);
        pt_graph g;
        e.msg[0] = 0;
        bool ok = pt_graph_load_file(&g, path, NULL, &e);
        CHECK_MSG(!ok, "%s loaded but should fail", line);
        CHECK_CONTAINS(e.msg, tab + 1);
        CHECK_CONTAINS(e.msg, line); /* the message names the file */
        CHECK_MSG(strchr(e.msg, '\n') == NULL, "%s: message is not one line", line);
        cases++;
    }
    CHECK(cases >= 30);
    free(list);
}

static void expressions(void)
{
    pt_graph g = {0};
    g.n_params = 2;
    snprintf(g.params[0].name, PT_NAME_MAX, "S");
    g.params[0].value = 8192;
    snprintf(g.params[1].name, PT_NAME_MAX, "L");
    g.params[1].value = 256;
    int64_t v;
    char why[128];
    CHECK(pt_expr_eval("S/L", &g, &v, why, sizeof why) && v == 32);
    CHECK(pt_expr_eval(" (S + L) * 2 - 1 ", &g, &v, why, sizeof why) && v == 16895);
    CHECK(pt_expr_eval("-3+5", &g, &v, why, sizeof why) && v == 2);
    CHECK(!pt_expr_eval("S/", &g, &v, why, sizeof why));
    CHECK(!pt_expr_eval("S)", &g, &v, why, sizeof why));
    CHECK(!pt_expr_eval("((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((1))))"
                        "))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))",
                        &g, &v, why, sizeof why));
    CHECK_CONTAINS(why, "nested too deeply");
    CHECK(!pt_expr_eval("99999999999999999999", &g, &v, why, sizeof why));
    CHECK(pt_expr_eval("cdiv(S, L)", &g, &v, why, sizeof why) && v == 32);
    CHECK(pt_expr_eval("cdiv(S - 1, L) * 2", &g, &v, why, sizeof why) && v == 64);
    CHECK(pt_expr_eval("cdiv(S + 1, L)", &g, &v, why, sizeof why) && v == 33);
    CHECK(!pt_expr_eval("cdiv(S, 0)", &g, &v, why, sizeof why));
    CHECK_CONTAINS(why, "b > 0");
    CHECK(!pt_expr_eval("cdiv(S)", &g, &v, why, sizeof why));
}

static void overrides(void)
{
    pt_graph g;
    pt_error e;
    const char *fa = pt_embedded_find(pt_embedded_examples, "flash_attention");
    CHECK(pt_graph_load_text(&g, "fa", fa, strlen(fa), "S=1000,D=64,CAUSAL=1", &e));
    int m = pt_graph_find_axis(&g, "m"), d = pt_graph_find_axis(&g, "d");
    CHECK(g.axes[m].extent == 1000 && g.axes[d].extent == 64);
    CHECK(g.ops[1].causal && g.ops[1].row_axis == m);
    CHECK(!pt_graph_load_text(&g, "fa", fa, strlen(fa), "Q=3", &e));
    CHECK_CONTAINS(e.msg, "no parameter \"Q\"");
    /* CAUSAL is declared 0..1: 2 is refused with the range (it used to act as 1) */
    CHECK(!pt_graph_load_text(&g, "fa", fa, strlen(fa), "CAUSAL=2", &e));
    CHECK_STR(e.msg, "--set: CAUSAL=2 is out of range; expected 0 or 1 (a flag) (fa: "
                     "$.params.CAUSAL)");
    /* a parameter given as true/false is a flag */
    const char *flag = "{\"name\": \"f\", \"params\": {\"S\": 64, \"C\": true}, \"axes\": "
                       "{\"m\": \"S\", \"n\": \"S\"}, \"tensors\": {\"X\": {\"axes\": [\"m\", "
                       "\"n\"], \"dtype\": \"f32\", \"role\": \"input\"}, \"Y\": {\"axes\": [\"m\", "
                       "\"n\"], \"dtype\": \"f16\", \"role\": \"output\"}}, \"ops\": [{\"op\": "
                       "\"online_softmax\", \"in\": [\"X\"], \"out\": \"Y\", \"axis\": \"n\", "
                       "\"causal\": \"C\", \"rows\": \"m\"}]}";
    CHECK_MSG(pt_graph_load_text(&g, "f.json", flag, strlen(flag), NULL, &e), "%s", e.msg);
    CHECK(g.ops[0].causal && g.params[1].flag && g.params[1].max == 1);
    CHECK(pt_graph_load_text(&g, "f.json", flag, strlen(flag), "C=0", &e) && !g.ops[0].causal);
    CHECK(!pt_graph_load_text(&g, "f.json", flag, strlen(flag), "C=3", &e));
    CHECK_CONTAINS(e.msg, "--set: C=3 is out of range; expected 0 or 1 (a flag)");
    CHECK(!pt_graph_load_text(&g, "fa", fa, strlen(fa), "S=abc", &e));
    CHECK_CONTAINS(e.msg, "S=\"abc\"");
}

static void flops(void)
{
    pt_graph g;
    pt_error e;
    const char *t = pt_embedded_find(pt_embedded_examples, "gemm_f16");
    CHECK(pt_graph_load_text(&g, "gemm", t, strlen(t), "M=256,N=512,K=1024", &e));
    CHECK(pt_graph_matmul_flops(&g) == 2LL * 256 * 512 * 1024);
}

/* FlashDecoding's key axis cut into pieces that need not divide the sequence (graph.h): the
 * piece's extent rounds up, the last piece is shorter, K stores the whole sequence and the
 * intermediates whole pieces; a count that divides is not ragged. */
static void ragged_pieces(void)
{
    const char *text = pt_embedded_find(pt_embedded_examples, "flash_decoding");
    pt_graph g;
    pt_error e = {{0}};
    CHECK(text != NULL);
    if (!text || !pt_graph_load_text(&g, "fd", text, strlen(text), "B=2,HKV=3,G=4,S=1001,SPLITS=4,D=64", &e)) {
        CHECK_MSG(false, "%s", e.msg);
        return;
    }
    int n = pt_graph_find_axis(&g, "n"), s = pt_graph_find_axis(&g, "s");
    const pt_tensor *K = &g.tensors[pt_graph_find_tensor(&g, "K")],
                    *Sc = &g.tensors[pt_graph_find_tensor(&g, "Sc")];
    CHECK(g.axes[n].extent == 251 && g.axes[n].split_by == s && g.axes[n].split_total == 1001);
    CHECK(pt_axis_ragged(&g, n) && !pt_axis_ragged(&g, s));
    CHECK(pt_tensor_ragged_pos(&g, K) == 3 && pt_tensor_ragged_pos(&g, Sc) == -1);
    CHECK(pt_tensor_elems(&g, K) == 2LL * 3 * 1001 * 64);
    CHECK(pt_tensor_elems(&g, Sc) == 2LL * 3 * 4 * 4 * 251);
    CHECK(pt_graph_load_text(&g, "fd", text, strlen(text), "B=2,HKV=3,G=4,S=1004,SPLITS=4,D=64", &e));
    CHECK(g.axes[n].extent == 251 && !pt_axis_ragged(&g, n) && pt_tensor_ragged_pos(&g, K) == -1);
    CHECK(pt_tensor_elems(&g, K) == 2LL * 3 * 1004 * 64);
    /* the one piece a count of 1 leaves, and a piece of one key each */
    CHECK(pt_graph_load_text(&g, "fd", text, strlen(text), "S=7,SPLITS=1", &e) && g.axes[n].extent == 7);
    CHECK(pt_graph_load_text(&g, "fd", text, strlen(text), "S=7,SPLITS=7", &e) && g.axes[n].extent == 1);
    CHECK(!pt_graph_load_text(&g, "fd", text, strlen(text), "S=7,SPLITS=8", &e));
    CHECK_CONTAINS(e.msg, "leaves pieces empty; expected at most 7 pieces");

    /* Mamba2's chunks: pieces of L, cdiv(S, L) of them, the last shorter; x and the output
     * store the sequence, dt and dA whole chunks (and dA_s, a view of dA_l, with them) */
    text = pt_embedded_find(pt_embedded_examples, "mamba2_chunk_scan");
    CHECK(text && pt_graph_load_text(&g, "scan", text, strlen(text), "B=2,S=2000,H=3,L=256", &e));
    int c = pt_graph_find_axis(&g, "c"), l = pt_graph_find_axis(&g, "l");
    CHECK(g.axes[c].extent == 8 && g.axes[l].extent == 256 && pt_axis_ragged(&g, l));
    const pt_tensor *x = &g.tensors[pt_graph_find_tensor(&g, "x")],
                    *dt = &g.tensors[pt_graph_find_tensor(&g, "dt")],
                    *dA_s = &g.tensors[pt_graph_find_tensor(&g, "dA_s")],
                    *out = &g.tensors[pt_graph_find_tensor(&g, "out")];
    CHECK(pt_tensor_ragged_pos(&g, x) == 2 && pt_tensor_elems(&g, x) == 2LL * 2000 * 3 * 64);
    CHECK(pt_tensor_ragged_pos(&g, out) == 2 && pt_tensor_elems(&g, out) == 2LL * 2000 * 3 * 64);
    CHECK(dt->whole_pieces && pt_tensor_ragged_pos(&g, dt) == -1);
    CHECK(pt_tensor_elems(&g, dt) == 2LL * 3 * 8 * 256);
    CHECK(dA_s->whole_pieces && pt_tensor_ragged_pos(&g, dA_s) == -1);
    CHECK(pt_graph_load_text(&g, "scan", text, strlen(text), "B=2,S=2048,H=3,L=256", &e));
    CHECK(!pt_axis_ragged(&g, l) && g.axes[c].extent == 8);
}

int main(void)
{
    PTEST_RUN(examples_load);
    PTEST_RUN(corpus_messages);
    PTEST_RUN(expressions);
    PTEST_RUN(overrides);
    PTEST_RUN(flops);
    PTEST_RUN(ragged_pieces);
    PTEST_END();
}
