/* info.c — hw and examples: what is built in. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "embedded.h"

int verb_hw(int argc, char **argv)
{
    if (argc == 0) {
        for (const char *const *n = pt_hw_builtin_names(); *n; n++) {
            pt_hw hw;
            pt_error err;
            if (pt_hw_load(&hw, *n, &err))
                printf("%-8s %-7s %-7s %4d EUs, %6.0f GB/s HBM, %lld KB smem/block\n", hw.name,
                       hw.vendor, hw.arch, hw.eu_count, hw.hbm_bytes_per_ns,
                       (long long)(hw.smem_per_block / 1024));
        }
        return EXIT_OK;
    }
    if (argc > 1) {
        cli_error("hw: expected at most one NAME|FILE");
        return EXIT_USAGE;
    }
    pt_hw hw;
    pt_error err;
    if (!pt_hw_load(&hw, argv[0], &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return EXIT_INVALID;
    }
    char *text = pt_hw_to_json(&hw);
    if (!text)
        return EXIT_INVALID;
    puts(text);
    free(text);
    return EXIT_OK;
}

int verb_examples(int argc, char **argv)
{
    if (argc == 0) {
        for (const pt_embedded_file *f = pt_embedded_examples; f->name; f++)
            puts(f->name);
        return EXIT_OK;
    }
    if (argc > 1) {
        cli_error("examples: expected at most one NAME");
        return EXIT_USAGE;
    }
    const char *text = pt_embedded_find(pt_embedded_examples, argv[0]);
    if (!text) {
        cli_error("examples: no example \"%s\"; run 'pipethreader-cli examples' for the list",
                  argv[0]);
        return EXIT_INVALID;
    }
    fputs(text, stdout);
    return EXIT_OK;
}
