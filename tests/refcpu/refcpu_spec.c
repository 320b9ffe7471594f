/* refcpu_spec.c — test helper: the tensor table refcpu_pieces reads (one line per graph tensor
 * in slot order: name, slot dtype, role, elements in the ragged and the padded instance, and for
 * a tensor storing the sequence its rows, with what lies outside them).
 * usage: refcpu_spec GRAPH RAGGED_SET PADDED_SET — GRAPH a file or a built-in example. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "embedded.h"
#include "graph.h"

static bool load(pt_graph *g, const char *arg, const char *set, pt_error *e)
{
    struct stat st;
    const char *text = pt_embedded_find(pt_embedded_examples, arg);
    return stat(arg, &st) != 0 && text ? pt_graph_load_text(g, arg, text, strlen(text), set, e)
                                       : pt_graph_load_file(g, arg, set, e);
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: refcpu_spec GRAPH RAGGED_SET PADDED_SET\n");
        return 2;
    }
    static pt_graph g[2];
    pt_error e = {{0}};
    for (int k = 0; k < 2; k++)
        if (!load(&g[k], argv[1], argv[2 + k], &e)) {
            fprintf(stderr, "%s\n", e.msg);
            return 1;
        }
    for (int t = 0; t < g[0].n_tensors; t++) {
        const pt_tensor *x = &g[0].tensors[t];
        const char *role = x->view_of >= 0 ? "view"
                           : x->role == PT_ROLE_INPUT ? "input"
                           : x->role == PT_ROLE_OUTPUT ? "output" : "intermediate";
        const char *dt = x->role != PT_ROLE_INPUT ? "f32" : pt_dtype_name(x->dtype);
        int r = pt_tensor_ragged_pos(&g[0], x);
        long long outer = 1, inner = 1, seq[2] = {0, 0};
        if (r > 0) {
            for (int i = 0; i < r - 1; i++)
                outer *= g[0].axes[x->axes[i]].extent;
            for (int i = r + 1; i < x->rank; i++)
                inner *= g[0].axes[x->axes[i]].extent;
            for (int k = 0; k < 2; k++) /* the padded instance stores its whole pieces */
                seq[k] = g[k].axes[x->axes[r]].split_total;
        }
        printf("%s %s %s %lld %lld %lld %lld %lld %lld\n", x->name, dt, role,
               x->view_of >= 0 ? 0 : (long long)pt_tensor_elems(&g[0], x),
               x->view_of >= 0 ? 0 : (long long)pt_tensor_elems(&g[1], &g[1].tensors[t]), outer,
               seq[0], seq[1], inner);
    }
    return 0;
}
