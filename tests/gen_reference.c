/* gen_reference.c — test helper: writes the reference backend's output for one graph.
 *
 * usage: gen_reference GRAPH DIR [P=V,...]
 *   GRAPH is a graph JSON file or the name of a built-in example; DIR must exist. Writes
 *   DIR/reference.cu and DIR/reference_host.c so that a test can compile them with nvcc and a
 *   C compiler. Exit 0 on success, 1 with a one-line message otherwise. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "codegen.h"
#include "embedded.h"
#include "json_util.h"

int main(int argc, char **argv)
{
    if (argc < 3 || argc > 4) {
        fprintf(stderr, "usage: gen_reference GRAPH DIR [P=V,...]\n");
        return 2;
    }
    static pt_graph g; /* large: keep it off the stack */
    pt_error err = {{0}};
    const char *overrides = argc == 4 ? argv[3] : NULL;
    const char *embedded = pt_embedded_find(pt_embedded_examples, argv[1]);
    struct stat st;
    bool ok = stat(argv[1], &st) != 0 && embedded
                  ? pt_graph_load_text(&g, argv[1], embedded, strlen(embedded), overrides, &err)
                  : pt_graph_load_file(&g, argv[1], overrides, &err);
    pt_codegen_result r;
    if (!ok || !pt_codegen_reference(&g, &r, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/reference.cu", argv[2]);
    ok = pt_write_file(path, r.kernel_cu, &err);
    snprintf(path, sizeof path, "%s/reference_host.c", argv[2]);
    ok = ok && pt_write_file(path, r.host_c, &err);
    pt_codegen_result_free(&r);
    if (!ok) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    return 0;
}
