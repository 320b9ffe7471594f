/* args.c — option parsing and input loading shared by every verb. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "default_tiling.h"
#include "embedded.h"
#include "json_util.h"
#include "sprogram_params.h"

void cli_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("pipethreader-cli: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

static bool allowed_opt(const char *allowed, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = allowed; (p = strstr(p, name)); p += n)
        if ((p == allowed || p[-1] == ',') && (p[n] == ',' || p[n] == 0))
            return true;
    return false;
}

bool cli_parse(int argc, char **argv, const char *allowed, cli_opts *o)
{
    static const struct {
        const char *flag, *name;
        bool has_value;
    } opts[] = {
        {"--hw", "hw", true},        {"--tile", "tile", true},     {"--set", "set", true},
        {"--program", "program", true}, {"-o", "o", true},         {"--output", "o", true},
        {"--chrome", "chrome", true}, {"--json", "json", false},   {"-q", "q", false},
        {"--width", "width", true},   {"--target", "target", true},
        {"--remote", "remote", true}, {"--timeout", "timeout", true},
        {"--build-timeout", "build-timeout", true},
        {"--from", "from", true},     {"--top", "top", true},
        {"--budget", "budget", true}, {"--measure", "measure", true},
        {"--candidates", "candidates", true}, {"--resimulate", "resimulate", false},
        {"--decay", "decay", true},   {"--ragged", "ragged", false},
    };
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (a[0] != '-' || a[1] == 0) {
            if (o->graph_arg || o->no_graph) {
                cli_error("%s: unexpected argument \"%s\"; see %s --help", o->verb, a, o->verb);
                return false;
            }
            o->graph_arg = a;
            continue;
        }
        const char *eq = strchr(a, '=');
        size_t flen = eq ? (size_t)(eq - a) : strlen(a);
        int k = -1;
        for (size_t j = 0; j < sizeof opts / sizeof opts[0]; j++)
            if (strlen(opts[j].flag) == flen && strncmp(opts[j].flag, a, flen) == 0)
                k = (int)j;
        if (k < 0 || !allowed_opt(allowed, opts[k].name)) {
            cli_error("%s: unknown option \"%.*s\"; see %s --help", o->verb, (int)flen, a, o->verb);
            return false;
        }
        const char *val = NULL;
        if (opts[k].has_value) {
            if (eq)
                val = eq + 1;
            else if (i + 1 < argc)
                val = argv[++i];
            else {
                cli_error("%s: option %s needs a value", o->verb, opts[k].flag);
                return false;
            }
        } else if (eq) {
            cli_error("%s: option %s takes no value", o->verb, opts[k].flag);
            return false;
        }
        const char *n = opts[k].name;
        if (!strcmp(n, "hw")) o->hw = val;
        else if (!strcmp(n, "tile")) o->tile = val;
        else if (!strcmp(n, "set")) o->set = val;
        else if (!strcmp(n, "program")) o->program = val;
        else if (!strcmp(n, "o")) o->out = val;
        else if (!strcmp(n, "chrome")) o->chrome = val;
        else if (!strcmp(n, "target")) o->target = val;
        else if (!strcmp(n, "from")) o->calib_from = val;
        else if (!strcmp(n, "candidates")) o->candidates = val;
        else if (!strcmp(n, "decay")) o->decay = val;
        else if (!strcmp(n, "remote")) {
            if (!val[0]) {
                cli_error("%s: --remote needs a command; see %s --help", o->verb, o->verb);
                return false;
            }
            o->remote = val;
        } else if (!strcmp(n, "top") || !strcmp(n, "measure")) {
            char *end;
            long v = strtol(val, &end, 10);
            if (*end || v < (n[0] == 't' ? 1 : 0) || v > 64) {
                cli_error("%s: --%s %s: expected a whole number from %d to 64", o->verb, n, val,
                          n[0] == 't' ? 1 : 0);
                return false;
            }
            if (n[0] == 't')
                o->top = (int)v;
            else
                o->measure = (int)v;
        } else if (!strcmp(n, "budget")) {
            char *end;
            double v = strtod(val, &end);
            if (*end || !(v > 0 && v <= 86400)) {
                cli_error("%s: --budget %s: expected seconds, more than 0", o->verb, val);
                return false;
            }
            o->budget_s = v;
        } else if (!strcmp(n, "timeout") || !strcmp(n, "build-timeout")) {
            char *end;
            double s = strtod(val, &end);
            if (*end || end == val || !(s >= 1 && s <= 86400)) {
                cli_error("%s: --%s %s: expected seconds from 1 to 86400", o->verb, n, val);
                return false;
            }
            if (n[0] == 't')
                o->timeout_s = s;
            else
                o->build_timeout_s = s;
        }
        else if (!strcmp(n, "json")) o->json = true;
        else if (!strcmp(n, "resimulate")) o->resimulate = true;
        else if (!strcmp(n, "ragged")) o->ragged = true;
        else if (!strcmp(n, "q")) o->quiet = true;
        else if (!strcmp(n, "width")) {
            char *end;
            long w = strtol(val, &end, 10);
            if (*end || w < 20 || w > 1000) {
                cli_error("%s: --width %s: expected a number from 20 to 1000", o->verb, val);
                return false;
            }
            o->width = (int)w;
        }
    }
    if (o->tile && o->program) {
        cli_error("%s: --tile cannot be combined with --program (the sProgram has its own "
                  "tiling)", o->verb);
        return false;
    }
    if (!o->graph_arg && !o->no_graph) {
        cli_error("%s: missing GRAPH (a graph file or an example name: see 'examples'); see %s "
                  "--help", o->verb, o->verb);
        return false;
    }
    return true;
}

pt_graph_source cli_graph_source(const cli_opts *o)
{
    struct stat st;
    const char *embedded = pt_embedded_find(pt_embedded_examples, o->graph_arg);
    pt_graph_source src = {.arg = o->graph_arg, .overrides = o->set};
    if (stat(o->graph_arg, &st) != 0 && embedded) {
        src.text = embedded;
        src.len = strlen(embedded);
    }
    return src;
}

bool cli_load_graph(const cli_opts *o, cli_inputs *in)
{
    pt_error err = {{0}};
    pt_graph_source src = cli_graph_source(o);
    bool ok = pt_graph_source_load(&src, NULL, &in->graph, &err);
    /* schedule searches a split graph's count: where the graph's default count does not fit
     * the sizes given (FlashDecoding's SPLITS = 16 against S = 20 leaves a piece empty) and
     * --set leaves the count open, load it with one piece (which always fits) and let the
     * search try the rest */
    char split[PT_NAME_MAX];
    if (!ok && o->split_searched && pt_graph_source_split_param(&src, split, sizeof split) &&
        !pt_graph_source_sets(&src, split)) {
        char one[PT_NAME_MAX + 3];
        snprintf(one, sizeof one, "%s=1", split);
        pt_error first = err;
        memset(&err, 0, sizeof err);
        ok = pt_graph_source_load(&src, one, &in->graph, &err);
        if (ok)
            fprintf(stderr, "%s: note: %s; %s is searched instead, from the counts that fit\n",
                    o->verb, first.msg, split);
        else
            err = first;
    }
    /* an sProgram's own graph parameters (the split count its schedule chose) join --set; one
     * the graph lacks is left to the sProgram loader, which names it. Where the graph does not
     * load with its defaults (S = 20 leaves a piece empty at the default SPLITS = 16), it is loaded
     * with the sProgram's parameters first, to learn which of them it declares. */
    pt_sprogram_param pp[PT_SPROGRAM_MAX_PARAMS];
    int npp = o->program ? pt_sprogram_params_peek(o->program, pp) : 0, keep = 0;
    if (!ok && npp > 0) {
        char *merged = NULL;
        pt_error again = {{0}};
        pt_graph_source with = src;
        if (pt_sprogram_params_merge(o->set, pp, npp, o->program, &merged, &again)) {
            with.overrides = merged;
            ok = pt_graph_source_load(&with, NULL, &in->graph, &again);
        }
        free(merged);
        if (ok)
            memset(&err, 0, sizeof err);
    }
    if (!ok)
        npp = 0;
    for (int i = 0; i < npp; i++)
        if (pt_graph_find_param(&in->graph, pp[i].name) >= 0)
            pp[keep++] = pp[i];
    if (keep > 0) {
        char *merged = NULL;
        ok = pt_sprogram_params_merge(o->set, pp, keep, o->program, &merged, &err);
        src.overrides = merged;
        ok = ok && pt_graph_source_load(&src, NULL, &in->graph, &err);
        free(merged);
    }
    /* an sProgram of the graph's one-pass form (schedule picks FlashDecoding's unsplit kernel
     * for many sequences and writes that graph's sProgram) is read against that graph, at the
     * sizes the two share */
    char pg[PT_NAME_MAX];
    if (ok && o->program && in->graph.split_unsplit[0] &&
        pt_sprogram_graph_peek(o->program, pg, sizeof pg) && strcmp(pg, in->graph.name) != 0 &&
        strcmp(pg, in->graph.split_unsplit) == 0) {
        pt_graph one;
        ok = pt_graph_source_load_sibling(&src, &in->graph, pg, &one, &err);
        if (ok) {
            fprintf(stderr, "%s: note: %s is an sProgram of %s, the one-pass form of %s; that "
                            "graph is used\n", o->verb, o->program, pg, in->graph.name);
            in->graph = one;
        }
    }
    /* without --hw, the model an sProgram was scheduled for is the one it is validated,
     * simulated and generated against (its $.hw), so that an H100 pick is not read as an H200
     * one; a model it names that is neither built in nor a file (one scheduled with a model file
     * named otherwise) leaves the default, and the user is told */
    char phw[sizeof in->prog.hw_name];
    bool from_prog = ok && !o->hw && o->program && pt_sprogram_hw_peek(o->program, phw, sizeof phw);
    if (from_prog && !pt_hw_load(&in->hw, phw, &err)) {
        fprintf(stderr, "%s: note: $.hw names \"%s\", which is not a built-in model or a model "
                        "file here; read against H200 (--hw chooses the model)\n", o->program, phw);
        from_prog = false;
    }
    if (!ok || (!from_prog && !pt_hw_load(&in->hw, o->hw ? o->hw : "H200", &err))) {
        fprintf(stderr, "%s\n", err.msg);
        return false;
    }
    if (o->program)
        return true; /* the program's own tiling is partitioned by cli_load_program */
    /* a given --tile is over the graph's own defaults (what it names is what it gets); without
     * one, the defaults made to fit the model */
    pt_tiling t;
    if (o->tile)
        pt_tiling_defaults(&in->graph, &t);
    else
        pt_tiling_defaults_on(&in->graph, &in->hw, &t);
    if ((o->tile && !pt_tiling_parse(&in->graph, o->tile, "--tile", &t, &err)) ||
        !pt_partition(&in->sg, &in->graph, &t, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return false;
    }
    in->have_sg = true;
    return true;
}

bool cli_load_program(const cli_opts *o, cli_inputs *in)
{
    pt_error err = {{0}};
    if (o->program) {
        if (!pt_sprogram_load_file(&in->prog, &in->sg, &in->graph, o->program, &err)) {
            fprintf(stderr, "%s\n", err.msg);
            return false;
        }
        in->have_sg = in->have_prog = true;
        return true;
    }
    if (!pt_sprogram_default(&in->prog, &in->sg, &in->hw, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return false;
    }
    in->have_prog = true;
    return true;
}

void cli_program_name(const cli_opts *o, const cli_inputs *in, char *out, size_t cap)
{
    if (o->program)
        snprintf(out, cap, "%s", o->program);
    else
        snprintf(out, cap, "%s (default sProgram)", in->graph.file);
}

bool cli_check_valid(const cli_opts *o, const cli_inputs *in)
{
    pt_validation v;
    pt_error err = {{0}};
    if (pt_validate(&in->prog, &in->sg, &in->hw, &v, &err))
        return true;
    char what[300];
    cli_program_name(o, in, what, sizeof what);
    /* "PROG: $.waits[2].distance: ..." — the validator gives the JSON path, we the file. */
    fprintf(stderr, "%s: %s (the sProgram is not valid)\n", what, err.msg);
    for (int i = 1; i < v.n_problems; i++)
        fprintf(stderr, "%s: also: %s\n", what, v.problems[i]);
    return false;
}

void cli_inputs_free(cli_inputs *in)
{
    if (in->have_prog)
        pt_sprogram_free(&in->prog);
    if (in->have_sg)
        pt_stask_graph_free(&in->sg);
    in->have_prog = in->have_sg = false;
}

bool cli_stdout_failed;

bool cli_write(const char *path, const char *text)
{
    if (!path || strcmp(path, "-") == 0) {
        if (fputs(text, stdout) == EOF || fflush(stdout) != 0) {
            fprintf(stderr, "stdout: write failed: %s\n", strerror(errno));
            cli_stdout_failed = true;
            return false;
        }
        return true;
    }
    pt_error err;
    if (!pt_write_file(path, text, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return false;
    }
    return true;
}
