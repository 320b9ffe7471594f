/* verbs.c — partition, program, simulate, validate: the model's steps, headless. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "chrome.h"
#include "cli.h"
#include "timeline_json.h"

/* sTask-graph as JSON, for scripts. */
static char *stask_graph_json(const cli_inputs *in)
{
    const pt_stask_graph *sg = &in->sg;
    const pt_graph *g = &in->graph;
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "format", "pipethreader.stask-graph");
    cJSON_AddNumberToObject(root, "version", 1);
    cJSON_AddStringToObject(root, "graph", g->name);
    cJSON *tile = cJSON_AddObjectToObject(root, "tile");
    for (int a = 0; a < g->n_axes; a++)
        cJSON_AddNumberToObject(tile, g->axes[a].name, (double)sg->tiling.tile[a]);
    cJSON_AddNumberToObject(root, "warpgroups", sg->tiling.warpgroups);
    if (sg->loop_axis >= 0)
        cJSON_AddStringToObject(root, "loop_axis", g->axes[sg->loop_axis].name);
    else
        cJSON_AddNullToObject(root, "loop_axis");
    cJSON_AddNumberToObject(root, "iterations", (double)sg->iterations);
    cJSON_AddNumberToObject(root, "tiles", (double)sg->tiles);
    cJSON *tasks = cJSON_AddArrayToObject(root, "stasks");
    for (int i = 0; i < sg->n; i++) {
        const pt_stask *s = &sg->tasks[i];
        cJSON *t = cJSON_CreateObject();
        cJSON_AddStringToObject(t, "id", s->id);
        cJSON_AddStringToObject(t, "kind", pt_stask_kind_name(s->kind));
        cJSON_AddStringToObject(t, "seu", pt_seu_name(s->seu));
        cJSON_AddStringToObject(t, "region", pt_region_name(s->region));
        cJSON_AddNumberToObject(t, "wg", s->wg);
        cJSON *shape = cJSON_AddObjectToObject(t, "tile");
        for (int k = 0; k < s->rank; k++)
            cJSON_AddNumberToObject(shape, g->axes[s->axes[k]].name, (double)s->tile[k]);
        cJSON_AddStringToObject(t, "dtype", pt_dtype_name(s->dtype));
        cJSON_AddNumberToObject(t, "bytes", (double)s->bytes);
        cJSON_AddNumberToObject(t, "flops", (double)s->flops);
        cJSON_AddNumberToObject(t, "elems", (double)s->elems);
        cJSON_AddBoolToObject(t, "buffered", s->buffered);
        cJSON_AddStringToObject(t, "expr", s->expr);
        cJSON *deps = cJSON_AddArrayToObject(t, "deps");
        for (int d = 0; d < s->n_deps; d++) {
            cJSON *dep = cJSON_CreateObject();
            cJSON_AddStringToObject(dep, "on", sg->tasks[s->deps[d].from].id);
            cJSON_AddNumberToObject(dep, "distance", s->deps[d].distance);
            cJSON_AddItemToArray(deps, dep);
        }
        cJSON_AddItemToArray(tasks, t);
    }
    char *text = cJSON_Print(root);
    cJSON_Delete(root);
    if (text) {
        size_t n = strlen(text);
        char *withnl = realloc(text, n + 2);
        if (withnl) {
            withnl[n] = '\n';
            withnl[n + 1] = 0;
            text = withnl;
        }
    }
    return text;
}

int verb_partition(int argc, char **argv)
{
    cli_opts o = {.verb = "partition"};
    cli_inputs in = {0};
    if (!cli_parse(argc, argv, "hw,tile,set,o,json", &o))
        return EXIT_USAGE;
    if (!cli_load_graph(&o, &in))
        return EXIT_INVALID;
    int rc = EXIT_OK;
    if (o.out || o.json) {
        char *text = stask_graph_json(&in);
        rc = text && cli_write(o.out, text) ? EXIT_OK : EXIT_INVALID;
        free(text);
    } else
        cli_print_stask_graph(stdout, &in);
    cli_inputs_free(&in);
    return rc;
}

int verb_program(int argc, char **argv)
{
    cli_opts o = {.verb = "program"};
    cli_inputs in = {0};
    if (!cli_parse(argc, argv, "hw,tile,set,o", &o))
        return EXIT_USAGE;
    if (!cli_load_graph(&o, &in) || !cli_load_program(&o, &in)) {
        cli_inputs_free(&in);
        return EXIT_INVALID;
    }
    char *text = pt_sprogram_to_json(&in.prog, &in.sg);
    int rc = text && cli_write(o.out, text) ? EXIT_OK : EXIT_INVALID;
    free(text);
    cli_inputs_free(&in);
    return rc;
}

/* A number for the JSON summary: JSON has no inf or nan, so those become null. */
static const char *jnum(char *buf, size_t cap, const char *fmt, double v)
{
    if (!isfinite(v))
        snprintf(buf, cap, "null");
    else
        snprintf(buf, cap, fmt, v);
    return buf;
}

/* A string as a JSON literal (names may hold any character), malloc'd; NULL on no memory. */
static char *jstr(const char *text)
{
    cJSON *v = cJSON_CreateString(text);
    char *q = v ? cJSON_PrintUnformatted(v) : NULL;
    cJSON_Delete(v);
    return q;
}

static void print_summary_json(const cli_inputs *in, const pt_timeline *tl)
{
    char t[5][48];
    char *g = jstr(in->graph.name), *h = jstr(in->hw.name);
    printf("{\"graph\": %s, \"hw\": %s, \"predicted_time_ns\": %s, \"tflops\": %s, "
           "\"eu_time_ns\": %s, \"iterations\": %lld, \"tiles\": %lld, \"grid\": %lld, "
           "\"waves\": %lld, \"flops\": %s, \"dram_floor_ns\": %s, \"spans\": %lld",
           g ? g : "null", h ? h : "null", jnum(t[0], sizeof t[0], "%.1f", tl->kernel_time_ns),
           jnum(t[1], sizeof t[1], "%.3f", tl->tflops),
           jnum(t[2], sizeof t[2], "%.1f", tl->eu_time_ns), (long long)tl->eu_iterations,
           (long long)tl->tiles, (long long)tl->grid, (long long)tl->waves,
           jnum(t[3], sizeof t[3], "%.0f", tl->flops),
           jnum(t[4], sizeof t[4], "%.1f", tl->dram_floor_ns), (long long)tl->n_spans);
    if (tl->split_k > 1) /* only when split: an unsplit program's summary is as it was */
        printf(", \"split_k\": %d, \"work_items\": %lld, \"workspace_bytes\": %.0f",
               tl->split_k, (long long)tl->work_items, tl->workspace_bytes);
    if (tl->stream_k > 1)
        printf(", \"stream_k\": %d, \"work_items\": %lld, \"workspace_bytes\": %.0f",
               tl->stream_k, (long long)tl->work_items, tl->workspace_bytes);
    if (tl->staged > 0) /* unaligned rows: the launcher's staging copies (src/staging.h) */
        printf(", \"staged\": %d, \"staging_bytes\": %.0f, \"staging_ns\": %.1f", tl->staged,
               tl->staging_bytes, tl->staging_ns);
    printf("}\n");
    free(g);
    free(h);
}

int verb_simulate(int argc, char **argv)
{
    cli_opts o = {.verb = "simulate"};
    cli_inputs in = {0};
    if (!cli_parse(argc, argv, "hw,tile,set,program,o,chrome,json,width", &o))
        return EXIT_USAGE;
    if (!cli_load_graph(&o, &in) || !cli_load_program(&o, &in)) {
        cli_inputs_free(&in);
        return EXIT_INVALID;
    }
    int rc = cli_check_valid(&o, &in) ? EXIT_OK : EXIT_INVALID;
    pt_timeline tl = {0};
    pt_error err = {{0}};
    if (rc == EXIT_OK && !pt_simulate(&in.prog, &in.sg, &in.hw, &tl, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        rc = EXIT_INVALID;
    }
    if (rc == EXIT_OK && o.out) {
        char *text = pt_timeline_to_json(&tl, &in.prog, &in.sg, &in.hw);
        rc = text && cli_write(o.out, text) ? EXIT_OK : EXIT_INVALID;
        free(text);
    }
    if (rc == EXIT_OK && o.chrome) {
        char *text = pt_chrome_trace(&tl, &in.prog, &in.sg, "predicted");
        rc = text && cli_write(o.chrome, text) ? EXIT_OK : EXIT_INVALID;
        free(text);
    }
    if (rc == EXIT_OK) {
        if (o.json)
            print_summary_json(&in, &tl);
        else if (!o.out || strcmp(o.out, "-") != 0)
            cli_print_timeline(stdout, &in, &tl, o.width);
    }
    pt_timeline_free(&tl);
    cli_inputs_free(&in);
    return rc;
}

int verb_validate(int argc, char **argv)
{
    cli_opts o = {.verb = "validate"};
    cli_inputs in = {0};
    if (!cli_parse(argc, argv, "hw,set,program,tile,q", &o))
        return EXIT_USAGE;
    if (!cli_load_graph(&o, &in) || !cli_load_program(&o, &in)) {
        cli_inputs_free(&in);
        return EXIT_INVALID;
    }
    pt_validation v;
    pt_error err = {{0}};
    bool ok = pt_validate(&in.prog, &in.sg, &in.hw, &v, &err);
    char what[300];
    cli_program_name(&o, &in, what, sizeof what);
    if (!ok) {
        for (int i = 0; i < v.n_problems; i++)
            fprintf(stderr, "%s: %s\n", what, v.problems[i]);
    } else if (!o.quiet) {
        printf("%s: valid for %s\n", what, in.hw.name);
        cli_print_validation(stdout, &v);
    }
    cli_inputs_free(&in);
    return ok ? EXIT_OK : EXIT_INVALID;
}
