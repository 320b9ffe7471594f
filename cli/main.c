/* main.c — pipethreader-cli: every step of PipeThreader headless, for scripts and CI. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *usage;
    const char *help;
} verbs[] = {
    {"partition", verb_partition, "partition GRAPH [--hw H] [--tile axis=N,...] [--set P=V,...] [-o FILE] [--json]",
     "sTask-partition of an operator graph: prints the sTask-graph (or writes it as JSON).\n"
     "  GRAPH            a graph JSON file, or the name of a built-in example\n"
     "  --hw H           hardware model: H100, H200 (default), MI300X, or a JSON file; with\n"
     "                   --program, the default is the model the sProgram names (its \"hw\")\n"
     "  --tile SPEC      tile per axis and consumer warpgroups, e.g. m=128,n=256,k=64,wg=2\n"
     "                   (over the graph's \"defaults\"; Propagate fills the other axes)\n"
     "  --set P=V,...    override graph parameters, e.g. S=8192,CAUSAL=1\n"
     "  -o FILE          write the sTask-graph as JSON\n"
     "  --json           print the sTask-graph as JSON on stdout\n"},
    {"program", verb_program, "program GRAPH [--hw H] [--tile SPEC] [--set P=V,...] [-o PROG]",
     "Write the deterministic default sProgram (lanes, order, Waits, stages) as JSON, for editing.\n"
     "  -o PROG          output file (default: stdout)\n"},
    {"simulate", verb_simulate,
     "simulate GRAPH [--program PROG] [--hw H] [--tile SPEC] [--set P=V,...] [-o TRACE] [--chrome FILE] [--json] [--width N]",
     "Validate and simulate an sProgram: the predicted per-lane timeline of one EU and the\n"
     "kernel time over all waves.\n"
     "  --program PROG   sProgram JSON (default: the default sProgram)\n"
     "  -o TRACE         write the predicted trace (pipethreader.trace JSON)\n"
     "  --chrome FILE    write Chrome trace-event JSON (open it in Perfetto)\n"
     "  --json           print a one-line JSON summary (predicted_time_ns, tflops, ...)\n"
     "  --width N        width of the text timeline (default 100)\n"},
    {"validate", verb_validate, "validate GRAPH [--program PROG] [--hw H] [--set P=V,...] [-q]",
     "Check an sProgram: placement, sEU kinds, Waits, deadlock, shared memory, registers.\n"
     "Exit status 1 with every problem listed when it is not valid.\n"},
    {"codegen", verb_codegen,
     "codegen GRAPH [--program PROG] [--hw H] [--tile SPEC] [--set P=V,...] [--target sm90a] -o DIR",
     "Validate an sProgram and write a standalone bundle for it into DIR (created if missing):\n"
     "kernel.cu + launch.c (the generated kernel and its launcher), reference.cu +\n"
     "reference_host.c (a naive f32 reference), harness.c (checks every output element against\n"
     "the reference on seeded random inputs, then times the kernel; prints one JSON line),\n"
     "Makefile (needs only nvcc) and README.md. On the GPU machine: make -C DIR run.\n"
     "  --program PROG   sProgram JSON (default: the default sProgram)\n"
     "  --target T       code generator: sm90a (Hopper: TMA, mbarrier, wgmma; the default)\n"
     "  -o DIR           the bundle directory\n"},
    {"schedule", verb_schedule,
     "schedule GRAPH [--hw H] [--set P=V,...] [-o PROG] [--top K] [--budget SECONDS] [--measure N [--candidates DIR]] [--target sm90a] [--decay FORM] [--ragged] [--remote 'CMD'] [--timeout S] [--build-timeout S]",
     "The automatic scheduler: searches tile shapes (the reduction tile too), consumer\n"
     "warpgroups, stages, look-ahead and ping-pong pipelining, persistent or one-CTA-per-tile\n"
     "grids and rasterisation; each candidate gets the greedy intra-EU schedule, is validated\n"
     "(shared memory, registers) and scored by the simulator. Progress on stderr; prints the\n"
     "search summary and the top K with their predicted times.\n"
     "  -o PROG          write the best sProgram (the fastest measured one with --measure)\n"
     "  --top K          how many to list (default 5)\n"
     "  --budget S       stop searching after S seconds\n"
     "  --target sm90a   keep only sPrograms the Hopper code generator emits\n"
     "  --measure N      compile, check and time N of the 64 best on the GPU (implies --target\n"
     "                   sm90a): the best predicted of each tile shape first, then of each\n"
     "                   stage count of a tile, then of each schedule; keep the fastest\n"
     "                   measured. --remote, --timeout,\n"
     "                   --build-timeout and signals as for profile\n"
     "  --candidates DIR with --measure N: write those N sPrograms as DIR/cand-RANK.json (a line\n"
     "                   each: rank, predicted ns, description) instead of measuring them\n"
     "  --decay FORM     every candidate's exp_decay lowering: tile, factored, factored16 (its\n"
     "                   column factor rounded to 16 bits: faster, the decayed tile rounded\n"
     "                   twice) or any (the default: each candidate in all three where the\n"
     "                   graph has the factored forms' chain; docs/FORMAT-sprogram.md)\n"
     "  --ragged         also put warpgroups on a batch axis in counts that do not divide it\n"
     "                   (64 heads in 22 triples, the last tile ragged; not yet timed, so\n"
     "                   off by default)\n"},
    {"report", verb_report, "report TRACE [--json] [--resimulate [--hw H]]",
     "Predicted against measured from a profiled trace (written by profile): the sample (CTAs,\n"
     "iterations, records dropped or unpaired; a partial sample is marked), busy % per lane\n"
     "(issue to completion, the unit's own occupancy beside it) and a per-sTask table (count,\n"
     "mean, spread, error = (predicted - measured) / measured, start offset), recomputed from\n"
     "the trace's spans.\n"
     "  --json           print it as JSON\n"
     "  --resimulate     predict again with the model as it is now (the trace's own graph,\n"
     "                   parameters and sProgram; on --hw H, default the trace's hardware)\n"
     "                   instead of the prediction stored when it was profiled\n"},
    {"profile", verb_profile,
     "profile GRAPH [--program PROG] [--hw H] [--tile SPEC] [--set P=V,...] -o TRACE [--chrome FILE] [--json] [--target sm90a] [--remote 'CMD'] [--timeout S] [--build-timeout S]",
     "Validate and simulate an sProgram, generate its bundle, build and run it on a GPU: every\n"
     "output element is checked against the reference first (a wrong result is reported, never\n"
     "timed), then the kernel is timed (CUDA events; CUPTI records where CUPTI is installed),\n"
     "then the instrumented build records per-sTask start/end times of sampled CTAs. Writes a\n"
     "trace with the predicted and the measured timelines aligned sTask by sTask, and prints\n"
     "predicted vs measured kernel time, instrumentation overhead, the sample, per-lane busy %\n"
     "and a per-sTask table (as for 'report'). Runs in a child process: a fault or a hang is\n"
     "reported, not fatal.\n"
     "  --json           print the predicted-vs-measured report as JSON (as 'report --json')\n"
     "  -o TRACE         write the trace (pipethreader.trace JSON, version 2)\n"
     "  --chrome FILE    write Chrome trace-event JSON of both timelines (Perfetto)\n"
     "  --target T       code generator, as for codegen (default sm90a)\n"
     "  --remote 'CMD'   run on another machine: CMD gets the bundle as a tar stream on stdin,\n"
     "                   must unpack it into an empty directory there, run 'sh pt-run.sh' and\n"
     "                   pass its stdout back, e.g.\n"
     "                   ssh gpu 'd=$(mktemp -d) && tar -xf - -C \"$d\" && cd \"$d\" && sh pt-run.sh; s=$?; rm -rf \"$d\"; exit $s'\n"
     "  --timeout S      seconds the kernel runs may take before they count as hung (default 60)\n"
     "  --build-timeout S\n"
     "                   seconds the build (nvcc, make) may take (default 900): pt-run.sh ends\n"
     "                   it (with timeout(1), where installed), the watchdog here 10 s later\n"
     "On SIGINT (Ctrl+C), SIGTERM or SIGHUP the build or run is ended (its whole process group\n"
     "here, e.g. the --remote command: SIGTERM, then SIGKILL after 2 s), the temporary files\n"
     "are removed, and the exit status is 128 + the signal.\n"
     "Without --remote it needs, here: the NVIDIA driver, a GPU, nvcc and make (built bundles\n"
     "are cached in $XDG_CACHE_HOME/pipethreader or ~/.cache/pipethreader).\n"},
    {"calibrate", verb_calibrate, "calibrate [--hw BASE] -o HW.json [--from RESULT.json] [--timeout S]",
     "Measure the GPU with microbenchmarks (bench/micro/calibrate.cu: TMA loads and stores under\n"
     "full-chip load, wgmma per shape and dtype, the CUDA-core pieces, barrier hand-offs, the SM\n"
     "clock) and write a hardware-model override whose costs come from them; use it with\n"
     "--hw HW.json. Needs nvcc and a GPU here (it compiles the benchmark into a temporary\n"
     "directory and runs it in a child process), or --from a result saved on the GPU machine.\n"
     "See docs/FORMAT-hw.md, \"Calibration\", for how each constant is derived.\n"
     "  --hw BASE        built-in model the override starts from (default H200)\n"
     "  -o HW.json       the model to write; measured here, the raw result is kept beside it\n"
     "                   as HW.result.json\n"
     "  --from RESULT    convert a saved benchmark result instead of measuring\n"
     "  --timeout S      limit for compiling and for running the benchmark (default 900)\n"},
    {"hw", verb_hw, "hw [NAME|FILE]",
     "List the built-in hardware models, or print one (or a JSON override) in full.\n"},
    {"examples", verb_examples, "examples [NAME]",
     "List the built-in example graphs, or print one.\n"},
    {"pack", verb_pack, "pack IN --rows N --cols K [--format int4|fp4-e2m1] [--group G] [--dtype bf16|f16] [--packing rows|fragments] [--scales padded|exact] -o PREFIX",
     "Quantise a weight matrix for the low-bit GEMM graphs (gemm_w4a16, gemm_wfp4a16): IN holds\n"
     "N x K bf16 (or f16) elements, row-major, little-endian (W[n, k] of C = A . W^T). Writes\n"
     "PREFIX.wq, the 4-bit weights two to a byte (the even k in the low nibble; int4 signed\n"
     "-8..7, fp4 e2m1), and PREFIX.ws, one scale per group of G along k in the weights' type:\n"
     "the tensors Wq [n, k] and Ws [n, kg] of those graphs. Symmetric: a group's scale is its\n"
     "largest magnitude / 7 (int4) or / 6 (fp4), each weight the nearest value of w / scale.\n"
     "  --group G        scale group length along k (default 128)\n"
     "  --packing P      the nibble order: rows (default) or fragments, the order of wgmma's A\n"
     "                   fragments that the fastest low-bit kernels read (rows a multiple of 16,\n"
     "                   k of 64; the graph's Wq then says \"packing\": \"fragments\")\n"
     "  --scales S       padded (default): a row of K/G scales padded with zeros to whole 16\n"
     "                   bytes (kg = cdiv(K/G, 8)*8, as the examples declare it, so the kernel\n"
     "                   maps them as they lie); exact: K/G scales a row (a graph with kg = K/G,\n"
     "                   whose kernel then copies them into padded rows every launch)\n"},
};

#define N_VERBS (int)(sizeof verbs / sizeof verbs[0])

static void print_usage(FILE *f)
{
    fprintf(f, "usage: pipethreader-cli VERB [options]   (pipethreader-cli VERB --help)\n\n");
    for (int i = 0; i < N_VERBS; i++)
        fprintf(f, "  %s\n", verbs[i].usage);
    fprintf(f, "\nExit status: 0 success, 1 invalid input or schedule, 2 wrong usage.\n");
}

/* Output that never arrived must not exit 0: `> /dev/full`, a closed pipe, a full disk.
 * Every verb prints through stdio; whatever is still buffered is flushed here and any error
 * on the stream turns into "stdout: write failed: REASON" and exit status 1. */
static int finish_stdout(int rc)
{
    errno = 0;
    bool bad = fflush(stdout) != 0;
    int e = errno;
    bad = ferror(stdout) || bad;
    if (fclose(stdout) != 0 && !bad) {
        bad = true;
        e = errno;
    }
    if (!bad)
        return rc;
    if (cli_stdout_failed) /* already said */
        return rc == EXIT_OK ? EXIT_INVALID : rc;
    fprintf(stderr, "stdout: write failed: %s\n", e ? strerror(e) : "I/O error");
    return rc == EXIT_OK ? EXIT_INVALID : rc;
}

static int run_verb(int argc, char **argv)
{
    if (argc < 2) {
        print_usage(stderr);
        return EXIT_USAGE;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        print_usage(stdout);
        return EXIT_OK;
    }
    if (!strcmp(argv[1], "--version")) {
        puts("pipethreader-cli " PT_VERSION);
        return EXIT_OK;
    }
    for (int i = 0; i < N_VERBS; i++) {
        if (strcmp(argv[1], verbs[i].name) != 0)
            continue;
        for (int a = 2; a < argc; a++)
            if (!strcmp(argv[a], "--help") || !strcmp(argv[a], "-h")) {
                printf("usage: pipethreader-cli %s\n\n%s", verbs[i].usage, verbs[i].help);
                return EXIT_OK;
            }
        return verbs[i].run(argc - 2, argv + 2);
    }
    cli_error("unknown verb \"%s\"", argv[1]);
    print_usage(stderr);
    return EXIT_USAGE;
}

int main(int argc, char **argv)
{
    /* Into a file or pipe, stdout is written once at the end (up to 1 MiB), so a failed write
     * happens in finish_stdout, which keeps its reason; stdio's own 4-KB buffer would write
     * mid-verb, and the errno of that write is gone by the time the error flag is read. A
     * terminal keeps its line buffering. */
    static char out_buf[1 << 20];
    if (!isatty(fileno(stdout)))
        setvbuf(stdout, out_buf, _IOFBF, sizeof out_buf);
    return finish_stdout(run_verb(argc, argv));
}
