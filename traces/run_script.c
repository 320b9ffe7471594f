/* run_script.c — pt-run.sh, the script both modes run next to the bundle: it builds, runs
 * the harness and prints the PT- lines that reply.c reads (runner.h has the contract). */
#include "run_parts.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *run_script(const pt_run_request *rq)
{
    run_buf b = {0};
    char head[512];
    snprintf(head, sizeof head,
             "#!/bin/sh\n"
             "# pt-run.sh — written by PipeThreader (traces/runner.h has the contract): builds\n"
             "# this bundle, runs its harness, and prints the results as PT- lines on stdout;\n"
             "# everything else goes to stderr.\n"
             "PT_TIMEOUT=%d\n"
             "PT_BUILD_TIMEOUT=%d\n"
             "PT_TRACE=%d\n",
             (int)ceil(rq->timeout_s), (int)ceil(rq->build_timeout_s), rq->trace ? 1 : 0);
    static const char body[] =
        "exec 3>&1 1>&2\n"
        "if ! command -v nvcc >/dev/null 2>&1; then\n"
        "    for d in \"${CUDA_PATH:-}\" /usr/local/cuda; do\n"
        "        if [ -n \"$d\" ] && [ -x \"$d/bin/nvcc\" ]; then PATH=$PATH:$d/bin; export PATH; break; fi\n"
        "    done\n"
        "fi\n"
        "command -v nvcc >/dev/null 2>&1 || { echo \"PT-ERROR nvcc not found on $(hostname)\" >&3; exit 1; }\n"
        "command -v make >/dev/null 2>&1 || { echo \"PT-ERROR make not found on $(hostname)\" >&3; exit 1; }\n"
        "cuda=${CUDA_PATH:-$(dirname \"$(dirname \"$(command -v nvcc)\")\")}\n"
        "cupti=0\n"
        "for d in \"$cuda/extras/CUPTI\" \"$cuda/targets/x86_64-linux\" \"$cuda/targets/sbsa-linux\"; do\n"
        "    if [ -f \"$d/include/cupti.h\" ] && { [ -f \"$d/lib64/libcupti.so\" ] || [ -f \"$d/lib/libcupti.so\" ]; }; then cupti=1; fi\n"
        "done\n"
        "echo \"PT-PHASE build\" >&3\n"
        "targets=all\n"
        "[ \"$PT_TRACE\" = 1 ] && targets=\"all trace\"\n"
        "# the build has its own limit here too, so a hung nvcc on a remote machine ends there\n"
        "set -- make CUDA_PATH=\"$cuda\" CUPTI=$cupti\n"
        "command -v timeout >/dev/null 2>&1 && set -- timeout -k 5 \"$PT_BUILD_TIMEOUT\" \"$@\"\n"
        "# shellcheck disable=SC2086\n"
        "\"$@\" $targets\n"
        "st=$?\n"
        "if [ \"$st\" = 124 ] || [ \"$st\" = 137 ]; then\n"
        "    echo \"PT-ERROR the build did not finish in $PT_BUILD_TIMEOUT s on $(hostname) (killed: the build timeout)\" >&3; exit 1\n"
        "fi\n"
        "[ \"$st\" = 0 ] || { echo \"PT-BUILD-FAILED\" >&3; exit 1; }\n"
        "echo \"PT-CUPTI $cupti\" >&3\n"
        "echo \"PT-PHASE run\" >&3\n"
        "res=pt-result.$$\n"
        "tf=pt-trace.$$.bin\n"
        "rm -f \"$res\" \"$tf\"\n"
        "set -- ./harness --json-only --progress\n"
        "[ \"$PT_TRACE\" = 1 ] && set -- \"$@\" --trace \"$tf\"\n"
        "command -v timeout >/dev/null 2>&1 && set -- timeout -k 5 \"$PT_TIMEOUT\" \"$@\"\n"
        "\"$@\" >\"$res\"\n"
        "echo \"PT-EXIT $?\" >&3\n"
        "# one line even when the harness's JSON has no final newline (else the next PT- line\n"
        "# would be glued to it)\n"
        "if [ -s \"$res\" ]; then printf 'PT-RESULT %s\\n' \"$(head -n 1 \"$res\")\" >&3; fi\n"
        "if [ -s \"$tf\" ]; then\n"
        "    n=$(wc -c <\"$tf\" | tr -d ' ')\n"
        "    if command -v base64 >/dev/null 2>&1; then\n"
        "        echo \"PT-TRACE base64 $n\" >&3; base64 \"$tf\" >&3\n"
        "    else\n"
        "        echo \"PT-TRACE hex $n\" >&3; od -An -v -tx1 \"$tf\" >&3\n"
        "    fi\n"
        "    echo \"PT-TRACE-END\" >&3\n"
        "fi\n"
        "rm -f \"$res\" \"$tf\"\n"
        "exit 0\n";
    run_buf_add(&b, head, strlen(head), 1 << 20);
    run_buf_add(&b, body, sizeof body - 1, 1 << 20);
    if (b.full) {
        free(b.s);
        return NULL;
    }
    return b.s;
}
