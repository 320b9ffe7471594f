/* cli.h — shared pieces of pipethreader-cli: options, loading the inputs every verb needs,
 * and the exit statuses (0 ok, 1 invalid input or schedule, 2 wrong usage). */
#ifndef PT_CLI_H
#define PT_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "graph_source.h"
#include "propagate.h"
#include "sim.h"
#include "sprogram.h"
#include "timeline_json.h"
#include "validate.h"

enum { EXIT_OK = 0, EXIT_INVALID = 1, EXIT_USAGE = 2 };

typedef struct {
    const char *verb;
    const char *graph_arg;     /* file path or embedded example name */
    const char *hw;            /* --hw NAME|FILE (default H200) */
    const char *tile;          /* --tile axis=N,... */
    const char *set;           /* --set P=V,... */
    const char *program;       /* --program PROG */
    const char *out;           /* -o FILE */
    const char *chrome;        /* --chrome FILE */
    const char *target;        /* --target NAME (codegen: sm90a) */
    const char *calib_from;    /* --from RESULT.json (calibrate: a saved benchmark result) */
    bool no_graph;             /* set by verbs that take no GRAPH argument (calibrate) */
    const char *remote;        /* --remote 'CMD' (profile: run on another machine) */
    double timeout_s;          /* --timeout S (profile: limit of the kernel runs), 0 = default */
    double build_timeout_s;    /* --build-timeout S (profile: limit of the build), 0 = default */
    int top;                   /* --top K (schedule), 0 = default */
    double budget_s;           /* --budget S (schedule), 0 = none */
    int measure;               /* --measure N (schedule: profile the best N on a GPU) */
    const char *candidates;    /* --candidates DIR (schedule: write the N it would measure) */
    const char *decay;         /* --decay FORM (schedule: every candidate's decay form) */
    bool json;                 /* --json */
    bool resimulate;           /* --resimulate (report: predict again with today's model) */
    bool ragged;               /* --ragged (schedule: warpgroup counts that leave a batch tile ragged) */
    bool quiet;                /* -q */
    int width;                 /* --width N for the text timeline */
    bool split_searched;       /* set by schedule: it searches the graph's split count, so a
                                  default count that does not fit the sizes is no error */
} cli_opts;

/* Everything loaded for a verb. */
typedef struct {
    pt_graph graph;
    pt_hw hw;
    pt_stask_graph sg;
    pt_sprogram prog;
    bool have_sg, have_prog;
} cli_inputs;

/* Parse argv after the verb. `allowed` lists the long options this verb takes (e.g.
 * "hw,tile,set,o"). Prints the error and returns false on wrong usage. */
bool cli_parse(int argc, char **argv, const char *allowed, cli_opts *o);
/* Where the GRAPH argument is read from (a file, else the built-in example of that name) with
 * --set's overrides. */
pt_graph_source cli_graph_source(const cli_opts *o);
/* Load graph (file or embedded example), hardware, and partition with --tile over the graph's
 * defaults; with --program, the sProgram's "params" (what its schedule chose) are applied with
 * --set's overrides (a disagreement is refused). Prints the error (one line) and returns false
 * on invalid input. */
bool cli_load_graph(const cli_opts *o, cli_inputs *in);
/* Then the sProgram: --program file (its tiling wins; --tile with --program is an error), or
 * the default sProgram. */
bool cli_load_program(const cli_opts *o, cli_inputs *in);
void cli_inputs_free(cli_inputs *in);
/* "PROG" or "GRAPH (default sProgram)": what messages about the schedule name. */
void cli_program_name(const cli_opts *o, const cli_inputs *in, char *out, size_t cap);
/* Validate the loaded sProgram; when invalid print every problem (one line each, naming the
 * program) and return false. */
bool cli_check_valid(const cli_opts *o, const cli_inputs *in);
/* Write text to -o FILE (atomically) or stdout ("-" or NULL); a failed write is reported
 * ("PATH: write failed: REASON") and returns false. */
bool cli_write(const char *path, const char *text);
/* Set once a stdout write failure has been reported (main reports it only once). */
extern bool cli_stdout_failed;
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Readable summaries. */
void cli_print_stask_graph(FILE *f, const cli_inputs *in);
void cli_print_timeline(FILE *f, const cli_inputs *in, const pt_timeline *tl, int width);
void cli_print_validation(FILE *f, const pt_validation *v);

/* signals.c: verbs that run children stop cleanly on SIGINT, SIGTERM and SIGHUP. Install the
 * handlers; pass cli_signal_cancelled as a runner request's cancelled(); once
 * cli_signal_caught() is non-zero (the signal), clean up and return cli_signal_exit(verb),
 * which says so on stderr and gives 128 + the signal. */
void cli_signals_install(void);
int cli_signal_caught(void);
bool cli_signal_cancelled(void *ctx);
int cli_signal_exit(const char *verb);

int verb_partition(int argc, char **argv);
int verb_program(int argc, char **argv);
int verb_simulate(int argc, char **argv);
int verb_validate(int argc, char **argv);
int verb_hw(int argc, char **argv);
int verb_examples(int argc, char **argv);
int verb_pack(int argc, char **argv);
int verb_codegen(int argc, char **argv);
int verb_calibrate(int argc, char **argv);
int verb_profile(int argc, char **argv);
int verb_schedule(int argc, char **argv);
int verb_report(int argc, char **argv);

/* report.c — predicted against measured (profile's output, and `report` on a saved trace). */
typedef struct {
    int n_lanes, n_stasks;
    const char *lane[PT_MAX_LANES];
    const char **stask;        /* malloc'd: n_stasks ids */
} cli_names;
void cli_names_from_program(cli_names *nm, const pt_sprogram *p, const pt_stask_graph *sg);
void cli_names_from_trace(cli_names *nm, const pt_trace *tr);
void cli_names_free(cli_names *nm);
/* A time for people ("1.234 ms", "5.67 us", "89 ns"; "?" when not finite) and a percentage
 * ("12.3%", with sign "+12.3%"), into out. */
void cli_fmt_ns(double ns, char *out, size_t cap);
void cli_fmt_pct(double v, bool sign, char *out, size_t cap);
/* The sample line (CTAs, iterations, dropped, unpaired; PARTIAL SAMPLE when records were
 * lost), per-lane busy % (busy.h) and the per-sTask table, in text; the same as JSON
 * (malloc'd, NULL when out of memory). */
void cli_print_sample(FILE *f, const pt_measured *m);
void cli_print_alignment(FILE *f, const cli_names *nm, const pt_measured *m,
                         const pt_alignment *a);
char *cli_alignment_json(const cli_names *nm, const pt_measured *m, const pt_alignment *a);

#endif
