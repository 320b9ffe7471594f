/* codegen.c — the codegen verb: validate an sProgram, then write its standalone bundle. */
#include <string.h>

#include "cli.h"
#include "backend.h"
#include "codegen.h"

int verb_codegen(int argc, char **argv)
{
    cli_opts o = {.verb = "codegen"};
    cli_inputs in = {0};
    if (!cli_parse(argc, argv, "hw,tile,set,program,o,target", &o))
        return EXIT_USAGE;
    if (!o.out || !o.out[0]) {
        cli_error("codegen: missing -o DIR (the bundle directory); see codegen --help");
        return EXIT_USAGE;
    }
    const char *target = o.target ? o.target : PT_TARGET_DEFAULT;
    const pt_backend *be;
    pt_error err = {{0}};
    if (!pt_backend_lookup(target, "codegen: ", &be, &err)) { /* before any loading: a usage mistake */
        cli_error("%s", err.msg);
        return EXIT_USAGE;
    }
    if (!cli_load_graph(&o, &in) || !cli_load_program(&o, &in)) {
        cli_inputs_free(&in);
        return EXIT_INVALID;
    }
    /* Code is generated only from a valid schedule: the generators trust validation. */
    if (!cli_check_valid(&o, &in)) {
        cli_inputs_free(&in);
        return EXIT_INVALID;
    }
    int rc = EXIT_OK;
    pt_codegen_result k = {0};
    if (!pt_codegen_bundle(o.out, &in.prog, &in.sg, &in.hw, be->name, &k, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        rc = EXIT_INVALID;
    } else
        printf("wrote %s: %s (grid %lld, block %d, smem %lld)\n", o.out,
               be->hip ? pt_bundle_hip_file_list : pt_bundle_file_list(),
               (long long)k.grid, k.block_threads, (long long)k.smem_bytes);
    cli_inputs_free(&in);
    return rc;
}
