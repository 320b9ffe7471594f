/* runner.c — build a bundle and run its harness in a supervised child process, locally (from
 * a cache of built bundles) or through a user command; parse what comes back (runner.h).
 *
 * The child is the only thing that touches the GPU: it runs in its own process group, its
 * stdout and stderr are read through pipes with poll(), and a watchdog kills the whole group
 * (SIGKILL) when the build or the run outlives its limit. Every child is reaped. */
#include "runner.h"

#include <cjson/cJSON.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "codegen.h"
#include "json_util.h"
#include "measured.h"

#define RUN_PATH_MAX 4096
#define STDOUT_MAX ((size_t)512 << 20) /* the reply: a trace buffer in base64 is a few MiB */
#define STDERR_KEEP ((size_t)256 << 10) /* the tail of stderr kept for messages */

/* A bundle's files (codegen's pt_bundle_files) all go into the build's cache key and travel. */

/* ---- small buffers ---- */

typedef struct {
    char *s;
    size_t n, cap;
    bool full;
} buf;

static bool buf_add(buf *b, const char *p, size_t n, size_t max)
{
    if (b->n + n > max) {
        b->full = true;
        return false;
    }
    if (b->n + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 8192;
        while (cap < b->n + n + 1)
            cap *= 2;
        char *ns = realloc(b->s, cap);
        if (!ns) {
            b->full = true;
            return false;
        }
        b->s = ns;
        b->cap = cap;
    }
    memcpy(b->s + b->n, p, n);
    b->n += n;
    b->s[b->n] = 0;
    return true;
}

/* Keep only the last STDERR_KEEP bytes (from a line start where possible). */
static void buf_add_tail(buf *b, const char *p, size_t n)
{
    if (n > STDERR_KEEP) {
        p += n - STDERR_KEEP;
        n = STDERR_KEEP;
    }
    if (b->n + n > 2 * STDERR_KEEP) {
        size_t drop = b->n + n - STDERR_KEEP;
        if (drop > b->n)
            drop = b->n;
        memmove(b->s, b->s + drop, b->n - drop);
        b->n -= drop;
    }
    buf_add(b, p, n, 4 * STDERR_KEEP);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ---- supervising a child ---- */

typedef struct {
    int status;           /* exit status, 128 + signal when killed by one, -1 unknown */
    bool timed_out;
    bool cancelled;       /* the caller's cancelled() said so: the group was killed */
    bool in_run;          /* "PT-PHASE run" was seen */
    double run_started;   /* now_s() then */
    double ended;
    char step[32];        /* the harness's last "PT-STEP" */
} child_info;

/* Scan complete lines of b from *pos: phase and step markers. */
static void scan_lines(const buf *b, size_t *pos, child_info *ci, bool is_stdout, double *deadline,
                       double run_timeout)
{
    while (*pos < b->n) {
        const char *line = b->s + *pos;
        const char *nl = memchr(line, '\n', b->n - *pos);
        if (!nl)
            return;
        size_t len = (size_t)(nl - line);
        if (is_stdout && len >= 12 && !strncmp(line, "PT-PHASE run", 12) && !ci->in_run) {
            ci->in_run = true;
            ci->run_started = now_s();
            *deadline = ci->run_started + run_timeout;
        } else if (!is_stdout && len > 8 && !strncmp(line, "PT-STEP ", 8)) {
            size_t k = len - 8 < sizeof ci->step - 1 ? len - 8 : sizeof ci->step - 1;
            memcpy(ci->step, line + 8, k);
            ci->step[k] = 0;
        }
        *pos += len + 1;
    }
}

/* Run argv in cwd with stdin from in_fd (-1: /dev/null) in a new process group. The watchdog
 * allows first_timeout seconds, restarted with run_timeout at "PT-PHASE run" on stdout. rq (may
 * be NULL) brings the caller's output and cancelled callbacks. */
static bool supervise(char *const argv[], const char *cwd, int in_fd, double first_timeout,
                      double run_timeout, bool echo, buf *out, buf *errb, child_info *ci,
                      const pt_run_request *rq, pt_error *err)
{
    memset(ci, 0, sizeof *ci);
    ci->status = -1;
    int po[2] = {-1, -1}, pe[2] = {-1, -1};
    if (pipe(po) != 0 || pipe(pe) != 0) {
        int e = errno;
        for (int i = 0; i < 2; i++) {
            if (po[i] >= 0)
                close(po[i]);
            if (pe[i] >= 0)
                close(pe[i]);
        }
        return pt_fail(err, "cannot create pipes: %s", strerror(e));
    }
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        close(po[0]);
        close(po[1]);
        close(pe[0]);
        close(pe[1]);
        return pt_fail(err, "cannot start %s: %s", argv[0], strerror(e));
    }
    if (pid == 0) {
        setpgid(0, 0);
        signal(SIGPIPE, SIG_DFL);
        int in = in_fd >= 0 ? in_fd : open("/dev/null", O_RDONLY);
        if (in < 0 || dup2(in, 0) < 0 || dup2(po[1], 1) < 0 || dup2(pe[1], 2) < 0)
            _exit(126);
        close(po[0]);
        close(pe[0]);
        close(po[1]);
        close(pe[1]);
        if (in != 0)
            close(in);
        if (cwd && chdir(cwd) != 0) {
            fprintf(stderr, "cannot enter %s: %s\n", cwd, strerror(errno));
            _exit(126);
        }
        execvp(argv[0], argv);
        fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    setpgid(pid, pid); /* also here: no race with the kill below */
    close(po[1]);
    close(pe[1]);
    double deadline = now_s() + first_timeout;
    size_t out_pos = 0, err_pos = 0;
    struct pollfd fds[2] = {{.fd = po[0], .events = POLLIN}, {.fd = pe[0], .events = POLLIN}};
    int open_fds = 2;
    char chunk[65536];
    while (open_fds > 0) {
        double left = deadline - now_s();
        if (left <= 0) {
            ci->timed_out = true;
            break;
        }
        if (rq && rq->cancelled && rq->cancelled(rq->ctx)) {
            ci->cancelled = true;
            break;
        }
        int ms = left > 0.2 ? 200 : (int)(left * 1000) + 1;
        int rc = poll(fds, 2, ms);
        if (rc < 0 && errno != EINTR)
            break;
        for (int i = 0; i < 2 && rc > 0; i++) {
            if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            ssize_t n = read(fds[i].fd, chunk, sizeof chunk);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0) {
                close(fds[i].fd);
                fds[i].fd = -1;
                open_fds--;
                continue;
            }
            if (rq && rq->output)
                rq->output(rq->ctx, i + 1, chunk, (size_t)n);
            if (i == 0) {
                buf_add(out, chunk, (size_t)n, STDOUT_MAX);
                scan_lines(out, &out_pos, ci, true, &deadline, run_timeout);
            } else {
                if (echo && fwrite(chunk, 1, (size_t)n, stderr) != (size_t)n)
                    echo = false;
                /* scan before trimming: markers are short, so a line may be split only at
                 * the trim point, which costs at most one step name */
                buf_add_tail(errb, chunk, (size_t)n);
                if (err_pos > errb->n)
                    err_pos = 0;
                scan_lines(errb, &err_pos, ci, false, &deadline, run_timeout);
            }
        }
        if (out->full) /* a runaway reply: stop it */
            break;
    }
    if (ci->cancelled) {
        /* The caller is being stopped (the user's Ctrl+C, a SIGTERM): ask the group to end
         * first, so that a remote command (ssh) can tear down its side, then make sure. */
        kill(-pid, SIGTERM);
        for (int i = 0; i < 40; i++) {
            int st0;
            pid_t w = waitpid(pid, &st0, WNOHANG);
            if (w == pid) {
                kill(-pid, SIGKILL); /* the leader is gone: anything left of its group */
                for (int k = 0; k < 2; k++)
                    if (fds[k].fd >= 0)
                        close(fds[k].fd);
                ci->ended = now_s();
                ci->status = WIFEXITED(st0) ? WEXITSTATUS(st0)
                             : WIFSIGNALED(st0) ? 128 + WTERMSIG(st0) : -1;
                return true;
            }
            struct timespec ts = {0, 50 * 1000 * 1000};
            nanosleep(&ts, NULL);
        }
    }
    if (open_fds > 0 || ci->timed_out || ci->cancelled)
        kill(-pid, SIGKILL);
    for (int i = 0; i < 2; i++)
        if (fds[i].fd >= 0)
            close(fds[i].fd);
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    if (ci->timed_out || ci->cancelled || open_fds > 0)
        kill(-pid, SIGKILL); /* anything of the group still alive */
    ci->ended = now_s();
    if (WIFEXITED(st))
        ci->status = WEXITSTATUS(st);
    else if (WIFSIGNALED(st))
        ci->status = 128 + WTERMSIG(st);
    if (out->full && !ci->timed_out)
        return pt_fail(err, "the reply is larger than %zu MiB; expected a JSON line and a trace",
                       STDOUT_MAX >> 20);
    return true;
}

/* ---- checks before running on this machine ---- */

static bool find_in_path(const char *prog, char *out, size_t cap)
{
    const char *path = getenv("PATH");
    char dirs[8192];
    snprintf(dirs, sizeof dirs, "%s", path ? path : "/usr/bin:/bin");
    for (char *save = NULL, *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
        if ((size_t)snprintf(out, cap, "%s/%s", *d ? d : ".", prog) < cap && access(out, X_OK) == 0)
            return true;
    }
    const char *cuda = getenv("CUDA_PATH");
    const char *extra[] = {cuda, "/usr/local/cuda"};
    for (int i = 0; i < 2; i++)
        if (extra[i] && (size_t)snprintf(out, cap, "%s/bin/%s", extra[i], prog) < cap &&
            access(out, X_OK) == 0)
            return true;
    return false;
}

bool pt_runner_check_local(pt_error *err)
{
    void *h = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
    if (!h)
        return pt_fail(err, "cannot profile on this machine: no NVIDIA driver (libcuda.so.1 not "
                            "found); use --remote 'CMD' to run on a GPU machine");
    dlclose(h);
    char smi[RUN_PATH_MAX];
    if (!find_in_path("nvidia-smi", smi, sizeof smi))
        return pt_fail(err, "cannot profile on this machine: no GPU (nvidia-smi not found, so "
                            "nvidia-smi -L lists none); use --remote 'CMD'");
    char *argv[] = {smi, "-L", NULL};
    buf out = {0}, errb = {0};
    child_info ci;
    pt_error e2;
    bool ran = supervise(argv, NULL, -1, 30, 30, false, &out, &errb, &ci, NULL, &e2);
    bool gpu = ran && !ci.timed_out && out.s && (strncmp(out.s, "GPU ", 4) == 0 ||
                                                 strstr(out.s, "\nGPU "));
    free(out.s);
    free(errb.s);
    if (!gpu)
        return pt_fail(err, "cannot profile on this machine: no GPU (nvidia-smi -L lists none); "
                            "use --remote 'CMD' to run on a GPU machine");
    char path[RUN_PATH_MAX];
    if (!find_in_path("nvcc", path, sizeof path))
        return pt_fail(err, "cannot profile on this machine: nvcc not found (looked in PATH, "
                            "$CUDA_PATH/bin and /usr/local/cuda/bin)");
    if (!find_in_path("make", path, sizeof path))
        return pt_fail(err, "cannot profile on this machine: make not found");
    return true;
}

/* ---- the script both modes run ---- */

static char *run_script(const pt_run_request *rq)
{
    buf b = {0};
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
    buf_add(&b, head, strlen(head), 1 << 20);
    buf_add(&b, body, sizeof body - 1, 1 << 20);
    if (b.full) {
        free(b.s);
        return NULL;
    }
    return b.s;
}

/* ---- the cache ---- */

bool pt_runner_cache_root(char *out, size_t cap)
{
    const char *x = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    int n;
    if (x && x[0] == '/')
        n = snprintf(out, cap, "%s/pipethreader", x);
    else if (home && home[0])
        n = snprintf(out, cap, "%s/.cache/pipethreader", home);
    else
        return false;
    return n > 0 && (size_t)n < cap;
}

static bool mkdirs(const char *dir, pt_error *err)
{
    char p[RUN_PATH_MAX];
    size_t n = strlen(dir);
    if (n == 0 || n >= sizeof p)
        return pt_fail(err, "%.80s: bad directory name", dir);
    memcpy(p, dir, n + 1);
    for (size_t i = 1; i <= n; i++) {
        if (p[i] != '/' && p[i] != 0)
            continue;
        char keep = p[i];
        p[i] = 0;
        if (mkdir(p, 0777) != 0 && errno != EEXIST)
            return pt_fail(err, "%s: cannot create directory: %s", p, strerror(errno));
        p[i] = keep;
    }
    return true;
}

static bool read_whole(const char *path, char **text, size_t *len, pt_error *err)
{
    return pt_read_file(path, text, len, err);
}

/* FNV-1a 64 over each build input's name and contents. */
static bool bundle_hash(const char *dir, uint64_t *h, pt_error *err)
{
    uint64_t x = 0xcbf29ce484222325ull;
    for (int i = 0; pt_bundle_files[i]; i++) {
        char path[RUN_PATH_MAX], *text = NULL;
        size_t len = 0;
        snprintf(path, sizeof path, "%s/%s", dir, pt_bundle_files[i]);
        if (!read_whole(path, &text, &len, err))
            return false;
        for (const char *s = pt_bundle_files[i]; *s; s++)
            x = (x ^ (unsigned char)*s) * 0x100000001b3ull;
        x = (x ^ 0xff) * 0x100000001b3ull;
        for (size_t k = 0; k < len; k++)
            x = (x ^ (unsigned char)text[k]) * 0x100000001b3ull;
        free(text);
    }
    *h = x;
    return true;
}

static bool copy_file(const char *from, const char *to, pt_error *err)
{
    char *text = NULL;
    size_t len = 0;
    if (!read_whole(from, &text, &len, err))
        return false;
    FILE *f = fopen(to, "wb");
    bool ok = f && fwrite(text, 1, len, f) == len;
    if (f && fclose(f) != 0)
        ok = false;
    free(text);
    if (!ok)
        return pt_fail(err, "%s: write failed: %s", to, strerror(errno));
    return true;
}

static void remove_tree_flat(const char *dir)
{
    char path[RUN_PATH_MAX];
    for (int i = 0; pt_bundle_files[i]; i++) {
        if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, pt_bundle_files[i]) < sizeof path)
            unlink(path);
    }
    rmdir(dir);
}

/* The cached copy of the bundle: dir/bundles/HASH, created from bundle_dir when absent. */
static bool cached_bundle(const pt_run_request *rq, char *out, size_t cap, bool *reused,
                          pt_error *err)
{
    char root[RUN_PATH_MAX];
    if (rq->cache_dir)
        snprintf(root, sizeof root, "%s", rq->cache_dir);
    else if (!pt_runner_cache_root(root, sizeof root))
        return pt_fail(err, "no cache directory: set XDG_CACHE_HOME or HOME");
    uint64_t h = 0;
    if (!bundle_hash(rq->bundle_dir, &h, err))
        return false;
    char bundles[RUN_PATH_MAX];
    if ((size_t)snprintf(bundles, sizeof bundles, "%s/bundles", root) >= sizeof bundles)
        return pt_fail(err, "%s: cache path too long", root);
    if (!mkdirs(bundles, err))
        return false;
    if ((size_t)snprintf(out, cap, "%s/%016llx", bundles, (unsigned long long)h) >= cap)
        return pt_fail(err, "%s: cache path too long", bundles);
    struct stat st;
    if (stat(out, &st) == 0 && S_ISDIR(st.st_mode)) {
        char p[RUN_PATH_MAX + 32];
        snprintf(p, sizeof p, "%s/harness", out);
        bool a = access(p, X_OK) == 0;
        snprintf(p, sizeof p, "%s/kernel.cubin", out);
        bool b = access(p, R_OK) == 0;
        snprintf(p, sizeof p, "%s/kernel_trace.cubin", out);
        bool c = !rq->trace || access(p, R_OK) == 0;
        *reused = a && b && c;
        return true;
    }
    /* fill a private directory, then rename it into place (atomic against a parallel run) */
    char tmp[RUN_PATH_MAX + 32];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", out, (long)getpid());
    remove_tree_flat(tmp);
    if (mkdir(tmp, 0777) != 0)
        return pt_fail(err, "%s: cannot create directory: %s", tmp, strerror(errno));
    for (int i = 0; pt_bundle_files[i]; i++) {
        char from[RUN_PATH_MAX], to[RUN_PATH_MAX + 64];
        snprintf(from, sizeof from, "%s/%s", rq->bundle_dir, pt_bundle_files[i]);
        snprintf(to, sizeof to, "%s/%s", tmp, pt_bundle_files[i]);
        if (access(from, R_OK) != 0 && strcmp(pt_bundle_files[i], "README.md") == 0)
            continue;
        if (!copy_file(from, to, err)) {
            remove_tree_flat(tmp);
            return false;
        }
    }
    if (rename(tmp, out) != 0) {
        int e = errno;
        remove_tree_flat(tmp);
        if (!(stat(out, &st) == 0 && S_ISDIR(st.st_mode))) /* lost a race: fine */
            return pt_fail(err, "%s: cannot create: %s", out, strerror(e));
    }
    *reused = false;
    return true;
}

/* ---- the tar stream shipped to a remote command ---- */

static void tar_octal(char *field, size_t width, uint64_t v)
{
    snprintf(field, width, "%0*llo", (int)width - 1, (unsigned long long)v);
}

static bool tar_add(buf *t, const char *name, const char *data, size_t len)
{
    char h[512];
    memset(h, 0, sizeof h);
    snprintf(h, 100, "%s", name);
    tar_octal(h + 100, 8, 0644);
    tar_octal(h + 108, 8, 0);
    tar_octal(h + 116, 8, 0);
    tar_octal(h + 124, 12, len);
    tar_octal(h + 136, 12, (uint64_t)time(NULL));
    memset(h + 148, ' ', 8);
    h[156] = '0';
    memcpy(h + 257, "ustar", 6);
    memcpy(h + 263, "00", 2);
    unsigned sum = 0;
    for (int i = 0; i < 512; i++)
        sum += (unsigned char)h[i];
    snprintf(h + 148, 8, "%06o", sum);
    h[155] = ' ';
    static const char zeros[512] = {0};
    return buf_add(t, h, 512, (size_t)64 << 20) && buf_add(t, data, len, (size_t)64 << 20) &&
           buf_add(t, zeros, (512 - len % 512) % 512, (size_t)64 << 20);
}

/* An unlinked temporary file holding the tar stream, positioned at its start. */
static int tar_bundle(const pt_run_request *rq, const char *script, pt_error *err)
{
    buf t = {0};
    bool ok = true;
    for (int i = 0; pt_bundle_files[i] && ok; i++) {
        char path[RUN_PATH_MAX], *text = NULL;
        size_t len = 0;
        snprintf(path, sizeof path, "%s/%s", rq->bundle_dir, pt_bundle_files[i]);
        if (access(path, R_OK) != 0 && strcmp(pt_bundle_files[i], "README.md") == 0)
            continue;
        ok = read_whole(path, &text, &len, err) &&
             (tar_add(&t, pt_bundle_files[i], text, len) || pt_fail(err, "bundle too large to ship"));
        free(text);
    }
    static const char zeros[1024] = {0};
    if (ok && !(tar_add(&t, "pt-run.sh", script, strlen(script)) &&
                buf_add(&t, zeros, sizeof zeros, (size_t)65 << 20)))
        ok = pt_fail(err, "bundle too large to ship");
    if (!ok) {
        free(t.s);
        return -1;
    }
    const char *tmpdir = getenv("TMPDIR");
    char path[RUN_PATH_MAX];
    snprintf(path, sizeof path, "%s/pt-bundle-XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
    int fd = mkstemp(path);
    if (fd < 0) {
        free(t.s);
        pt_fail(err, "%s: cannot create a temporary file: %s", path, strerror(errno));
        return -1;
    }
    unlink(path); /* gone when closed, whatever happens */
    size_t off = 0;
    while (off < t.n) {
        ssize_t w = write(fd, t.s + off, t.n - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            pt_fail(err, "cannot write the bundle's tar stream: %s", strerror(errno));
            free(t.s);
            close(fd);
            return -1;
        }
        off += (size_t)w;
    }
    free(t.s);
    lseek(fd, 0, SEEK_SET);
    return fd;
}

/* ---- decoding ---- */

static int b64_val(int c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    if (c == '+')
        return 62;
    if (c == '/')
        return 63;
    return -1;
}

bool pt_base64_decode(const char *text, size_t len, unsigned char **out, size_t *out_len)
{
    unsigned char *o = malloc(len / 4 * 3 + 4);
    if (!o)
        return false;
    size_t n = 0;
    uint32_t acc = 0;
    int bits = 0, pad = 0;
    for (size_t i = 0; i < len; i++) {
        int c = (unsigned char)text[i];
        if (c == ' ' || c == '\n' || c == '\r' || c == '\t')
            continue;
        if (c == '=') {
            pad++;
            continue;
        }
        int v = b64_val(c);
        if (v < 0 || pad) { /* a bad character, or data after padding */
            free(o);
            return false;
        }
        acc = (acc << 6) | (uint32_t)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            o[n++] = (unsigned char)(acc >> bits);
        }
    }
    if (pad > 2 || bits >= 6) {
        free(o);
        return false;
    }
    *out = o;
    *out_len = n;
    return true;
}

char *pt_base64_encode(const unsigned char *data, size_t len)
{
    static const char a[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t chars = (len + 2) / 3 * 4;
    char *o = malloc(chars + chars / 76 + 2);
    if (!o)
        return NULL;
    size_t n = 0, col = 0;
    for (size_t i = 0; i < len; i += 3) {
        uint32_t v = (uint32_t)data[i] << 16;
        if (i + 1 < len)
            v |= (uint32_t)data[i + 1] << 8;
        if (i + 2 < len)
            v |= data[i + 2];
        char q[4] = {a[(v >> 18) & 63], a[(v >> 12) & 63], i + 1 < len ? a[(v >> 6) & 63] : '=',
                     i + 2 < len ? a[v & 63] : '='};
        for (int k = 0; k < 4; k++) {
            o[n++] = q[k];
            if (++col == 76) {
                o[n++] = '\n';
                col = 0;
            }
        }
    }
    if (col)
        o[n++] = '\n';
    o[n] = 0;
    return o;
}

static bool hex_decode(const char *text, size_t len, unsigned char **out, size_t *out_len)
{
    unsigned char *o = malloc(len / 2 + 1);
    if (!o)
        return false;
    size_t n = 0;
    int hi = -1;
    for (size_t i = 0; i < len; i++) {
        int c = (unsigned char)text[i], v;
        if (c == ' ' || c == '\n' || c == '\r' || c == '\t') {
            if (hi >= 0) { /* od prints two digits per byte */
                free(o);
                return false;
            }
            continue;
        }
        if (c >= '0' && c <= '9')
            v = c - '0';
        else if (c >= 'a' && c <= 'f')
            v = c - 'a' + 10;
        else if (c >= 'A' && c <= 'F')
            v = c - 'A' + 10;
        else {
            free(o);
            return false;
        }
        if (hi < 0)
            hi = v;
        else {
            o[n++] = (unsigned char)(hi << 4 | v);
            hi = -1;
        }
    }
    if (hi >= 0) {
        free(o);
        return false;
    }
    *out = o;
    *out_len = n;
    return true;
}

/* ---- reading the reply ---- */

typedef struct {
    bool phase_build, phase_run, build_failed, have_exit, have_cupti;
    int exit_status, cupti;
    char error[256];
    /* The first line that is not what the contract allows: a "PT-" line of no known kind,
     * another PT- marker glued inside a line (a JSON line without its newline), or a
     * PT-RESULT that is not one JSON object. Reported when something expected is missing. */
    bool garbled, garbled_result; /* garbled_result: the PT-RESULT line itself is not JSON */
    char garbled_text[200];    /* its first bytes, escaped */
    char garbled_why[160];     /* what is wrong with it */
} reply_info;

/* Note the first garbled line. */
static void note_garbled(reply_info *ri, const char *line, size_t len, const char *why)
{
    if (ri->garbled)
        return;
    ri->garbled = true;
    pt_excerpt(line, len, 96, ri->garbled_text, sizeof ri->garbled_text);
    snprintf(ri->garbled_why, sizeof ri->garbled_why, "%s", why);
}

/* Where a PT- marker of the contract starts inside the line (after its first byte), or -1. */
static long glued_marker(const char *line, size_t len)
{
    static const char *const marks[] = {"PT-PHASE ", "PT-BUILD-FAILED", "PT-ERROR ", "PT-CUPTI ",
                                        "PT-EXIT ", "PT-RESULT ", "PT-TRACE", NULL};
    for (size_t i = 1; i + 3 <= len; i++) {
        if (memcmp(line + i, "PT-", 3) != 0)
            continue;
        for (int k = 0; marks[k]; k++) {
            size_t m = strlen(marks[k]);
            if (i + m <= len && memcmp(line + i, marks[k], m) == 0)
                return (long)i;
        }
    }
    return -1;
}

static bool next_line(const char *s, size_t n, size_t *pos, const char **line, size_t *len)
{
    if (*pos >= n)
        return false;
    *line = s + *pos;
    const char *nl = memchr(*line, '\n', n - *pos);
    *len = nl ? (size_t)(nl - *line) : n - *pos;
    *pos += *len + (nl ? 1 : 0);
    if (*len && (*line)[*len - 1] == '\r')
        (*len)--;
    return true;
}

static bool starts(const char *line, size_t len, const char *p)
{
    size_t k = strlen(p);
    return len >= k && memcmp(line, p, k) == 0;
}

static bool parse_reply(const buf *out, reply_info *ri, pt_run_result *r, const char *what,
                        pt_error *err)
{
    memset(ri, 0, sizeof *ri);
    const char *s = out->s ? out->s : "";
    size_t n = out->n, pos = 0, len;
    const char *line;
    while (next_line(s, n, &pos, &line, &len)) {
        long glued = glued_marker(line, len);
        if (glued > 0) {
            char why[160];
            if (starts(line, len, "PT-"))
                snprintf(why, sizeof why, "another PT- line is glued into it at byte %ld (a "
                         "line without its newline)", glued);
            else
                snprintf(why, sizeof why, "a PT- line starts at its byte %ld, after other "
                         "output on the same line", glued);
            note_garbled(ri, line, len, why);
        }
        if (starts(line, len, "PT-PHASE build"))
            ri->phase_build = true;
        else if (starts(line, len, "PT-PHASE run"))
            ri->phase_run = true;
        else if (starts(line, len, "PT-BUILD-FAILED"))
            ri->build_failed = true;
        else if (starts(line, len, "PT-ERROR ")) {
            size_t k = len - 9 < sizeof ri->error - 1 ? len - 9 : sizeof ri->error - 1;
            memcpy(ri->error, line + 9, k);
            ri->error[k] = 0;
        } else if (starts(line, len, "PT-CUPTI ")) {
            ri->have_cupti = true;
            ri->cupti = line[9] == '1';
        } else if (starts(line, len, "PT-EXIT ")) {
            char tmp[16];
            size_t k = len - 8 < sizeof tmp - 1 ? len - 8 : sizeof tmp - 1;
            memcpy(tmp, line + 8, k);
            tmp[k] = 0;
            char *end;
            long v = strtol(tmp, &end, 10);
            if (end == tmp || *end || v < 0 || v > 255)
                return pt_fail(err, "%s: the reply's \"PT-EXIT %s\" is not an exit status; "
                               "expected 0 to 255", what, tmp);
            ri->have_exit = true;
            ri->exit_status = (int)v;
        } else if (starts(line, len, "PT-RESULT ")) {
            if (glued < 0 && (len < 12 || line[10] != '{' || line[len - 1] != '}') &&
                !ri->garbled) {
                note_garbled(ri, line, len, "it is not one JSON object after \"PT-RESULT \"");
                ri->garbled_result = true;
            }
            free(r->json);
            r->json = malloc(len - 10 + 1);
            if (!r->json)
                return pt_fail(err, "%s: out of memory", what);
            memcpy(r->json, line + 10, len - 10);
            r->json[len - 10] = 0;
        } else if (starts(line, len, "PT-TRACE ")) {
            char enc[16] = "";
            unsigned long long bytes = 0;
            char tmp[64];
            size_t k = len < sizeof tmp - 1 ? len : sizeof tmp - 1;
            memcpy(tmp, line, k);
            tmp[k] = 0;
            if (sscanf(tmp, "PT-TRACE %15s %llu", enc, &bytes) != 2 ||
                (strcmp(enc, "base64") && strcmp(enc, "hex")))
                return pt_fail(err, "%s: the reply's trace header \"%s\" is malformed; expected "
                               "\"PT-TRACE base64|hex BYTES\"", what, tmp);
            size_t data = pos;
            const char *l2;
            size_t len2, end = n;
            bool closed = false;
            while (next_line(s, n, &pos, &l2, &len2))
                if (starts(l2, len2, "PT-TRACE-END")) {
                    end = (size_t)(l2 - s);
                    closed = true;
                    break;
                }
            if (!closed)
                return pt_fail(err, "%s: the reply's trace ends early (no PT-TRACE-END): the "
                               "transfer was cut", what);
            free(r->trace);
            r->trace = NULL;
            bool dec = !strcmp(enc, "base64")
                           ? pt_base64_decode(s + data, end - data, &r->trace, &r->trace_len)
                           : hex_decode(s + data, end - data, &r->trace, &r->trace_len);
            if (!dec)
                return pt_fail(err, "%s: the reply's trace is not valid %s", what, enc);
            if (r->trace_len != bytes)
                return pt_fail(err, "%s: the reply's trace has %zu bytes; expected %llu (its "
                               "header): the transfer was cut", what, r->trace_len, bytes);
        } else if (starts(line, len, "PT-") && !starts(line, len, "PT-PHASE ") &&
                   !starts(line, len, "PT-STEP "))
            note_garbled(ri, line, len, "it starts with \"PT-\" but is no line of the contract");
    }
    return true;
}

/* The last line of stderr that says what went wrong: a "harness:" line, else an error line,
 * else the last non-empty line. */
static void last_words(const buf *errb, char *out, size_t cap)
{
    out[0] = 0;
    const char *s = errb->s ? errb->s : "";
    size_t n = errb->n, pos = 0, len;
    const char *line, *best = NULL, *any = NULL;
    size_t best_len = 0, any_len = 0;
    int best_rank = 0;
    while (next_line(s, n, &pos, &line, &len)) {
        if (len == 0 || starts(line, len, "PT-STEP "))
            continue;
        any = line;
        any_len = len;
        int rank = starts(line, len, "harness:") ? 3 : 0;
        if (!rank) {
            for (size_t i = 0; i + 5 <= len && !rank; i++)
                if (!strncmp(line + i, "error", 5) || !strncmp(line + i, "Error", 5))
                    rank = 2;
        }
        if (rank && rank >= best_rank) {
            best = line;
            best_len = len;
            best_rank = rank;
        }
    }
    if (!best) {
        best = any;
        best_len = any_len;
    }
    if (best) {
        size_t k = best_len < cap - 1 ? best_len : cap - 1;
        memcpy(out, best, k);
        out[k] = 0;
        for (size_t i = 0; i < k; i++)
            if ((unsigned char)out[i] < 32)
                out[i] = ' ';
    }
}

static const char *step_words(const char *step)
{
    if (!strcmp(step, "check"))
        return "checking the kernel against the reference";
    if (!strcmp(step, "time"))
        return "timing the kernel";
    if (!strcmp(step, "trace-time"))
        return "timing the instrumented kernel";
    if (!strcmp(step, "trace"))
        return "recording the trace";
    if (!strcmp(step, "init"))
        return "loading the kernel";
    return step[0] ? step : "starting the harness";
}

void pt_run_result_free(pt_run_result *r)
{
    if (!r)
        return;
    free(r->json);
    free(r->trace);
    memset(r, 0, sizeof *r);
}

bool pt_runner_run(const pt_run_request *rq, pt_run_result *r, pt_error *err)
{
    memset(r, 0, sizeof *r);
    const char *what = rq->what ? rq->what : rq->bundle_dir;
    double timeout = rq->timeout_s > 0 ? rq->timeout_s : 60;
    double build_timeout = rq->build_timeout_s > 0 ? rq->build_timeout_s : 900;
    pt_run_request q = *rq;
    q.timeout_s = timeout;
    q.build_timeout_s = build_timeout;
    char *script = run_script(&q);
    if (!script)
        return pt_fail(err, "%s: out of memory", what);
    pt_error e = {{0}};
    int in_fd = -1;
    char *argv[4] = {NULL};
    const char *cwd = NULL;
    if (!rq->remote) {
        char sp[RUN_PATH_MAX + 16];
        if (!cached_bundle(rq, r->run_dir, sizeof r->run_dir, &r->reused, &e)) {
            free(script);
            return pt_fail(err, "%s: %s", what, e.msg);
        }
        snprintf(sp, sizeof sp, "%s/pt-run.sh", r->run_dir);
        if (!pt_write_file(sp, script, &e)) {
            free(script);
            return pt_fail(err, "%s: %s", what, e.msg);
        }
        argv[0] = "/bin/sh";
        argv[1] = "pt-run.sh";
        cwd = r->run_dir;
    } else {
        in_fd = tar_bundle(rq, script, &e);
        if (in_fd < 0) {
            free(script);
            return pt_fail(err, "%s: %s", what, e.msg);
        }
        argv[0] = "/bin/sh";
        argv[1] = "-c";
        argv[2] = (char *)rq->remote;
    }
    free(script);
    buf out = {0}, errb = {0};
    child_info ci;
    /* the watchdogs here let the script's own timeouts (and their 5 s grace) act first: they
     * also end a remote build or run on its machine, and say so */
    bool ok = supervise(argv, cwd, in_fd, build_timeout + 10, timeout + 10, rq->echo, &out, &errb,
                        &ci, rq, &e);
    if (in_fd >= 0)
        close(in_fd);
    if (!ok) {
        free(out.s);
        free(errb.s);
        return pt_fail(err, "%s: %s", what, e.msg);
    }
    reply_info ri;
    char words[400];
    last_words(&errb, words, sizeof words);
    const char *via = rq->remote ? " (through --remote)" : "";
    if (ci.cancelled) {
        ok = pt_fail(err, "%s: cancelled", what);
    } else if (ci.timed_out) {
        if (ci.in_run)
            ok = pt_fail(err, "%s: timed out after %g s: the kernel hung (mbarrier deadlock?) "
                         "while %s%s", what, timeout, step_words(ci.step), via);
        else
            ok = pt_fail(err, "%s: the build%s did not finish in %g s (killed)", what, via,
                         build_timeout);
    } else if (!parse_reply(&out, &ri, r, what, err))
        ok = false;
    else if (ri.error[0])
        ok = pt_fail(err, "%s: %s", what, ri.error);
    else if (ri.build_failed)
        ok = pt_fail(err, "%s: the build failed%s: %s", what, via,
                     words[0] ? words : "(no output)");
    else if (!ri.have_exit) {
        if (rq->remote && !ri.phase_build)
            ok = pt_fail(err, "%s: the remote command exited with status %d without running "
                         "pt-run.sh (no PT- lines on its stdout)%s%s", what, ci.status,
                         words[0] ? ": " : "", words);
        else
            ok = pt_fail(err, "%s: the run ended (status %d) without the harness's exit "
                         "status%s%s", what, ci.status, words[0] ? ": " : "", words);
    } else {
        r->harness_status = ri.exit_status;
        r->cupti = ri.have_cupti && ri.cupti;
        int st = ri.exit_status;
        if (st == 124 || (st == 137 && ci.in_run && ci.ended - ci.run_started >= timeout))
            ok = pt_fail(err, "%s: timed out after %g s: the kernel hung (mbarrier deadlock?) "
                         "while %s%s", what, timeout, step_words(ci.step), via);
        else if (st > 128 && st < 160)
            ok = pt_fail(err, "%s: the harness crashed (signal %d) while %s%s%s", what, st - 128,
                         step_words(ci.step), words[0] ? ": " : "", words);
        else if (st != 0 && st != 3)
            ok = pt_fail(err, "%s: the harness failed (exit %d) while %s: %s", what, st,
                         step_words(ci.step), words[0] ? words : "(no message)");
        else if (!r->json && ri.garbled)
            ok = pt_fail(err, "%s: the harness's JSON line did not arrive (exit %d): expected "
                         "\"PT-RESULT {...}\" on a line of its own; received \"%s\" (%s)", what,
                         st, ri.garbled_text, ri.garbled_why);
        else if (!r->json)
            ok = pt_fail(err, "%s: the harness printed no JSON line (exit %d)", what, st);
        else if (ri.garbled_result)
            ok = pt_fail(err, "%s: the harness's JSON line is garbled: expected \"PT-RESULT\" "
                         "and one JSON object on a line of its own; received \"%s\"", what,
                         ri.garbled_text);
        else if (st == 0 && rq->trace && !r->trace && ri.garbled)
            ok = pt_fail(err, "%s: the trace buffer did not arrive: expected a line \"PT-TRACE "
                         "base64|hex BYTES\", its data and \"PT-TRACE-END\"; received a garbled "
                         "line \"%s\" (%s)", what, ri.garbled_text, ri.garbled_why);
        else if (st == 0 && rq->trace && !r->trace)
            ok = pt_fail(err, "%s: the harness wrote no trace buffer (no \"PT-TRACE base64|hex "
                         "BYTES\" line in the reply)", what);
    }
    free(out.s);
    free(errb.s);
    if (!ok)
        pt_run_result_free(r);
    return ok;
}

void pt_excerpt(const char *s, size_t len, size_t max, char *out, size_t cap)
{
    static const char hex[] = "0123456789abcdef";
    size_t o = 0, i = 0;
    if (cap == 0)
        return;
    for (; i < len && i < max; i++) {
        unsigned char c = (unsigned char)s[i];
        char tmp[5];
        size_t k = 0;
        if (c == '"' || c == '\\') {
            tmp[k++] = '\\';
            tmp[k++] = (char)c;
        } else if (c == '\n' || c == '\r' || c == '\t') {
            tmp[k++] = '\\';
            tmp[k++] = c == '\n' ? 'n' : c == '\r' ? 'r' : 't';
        } else if (c < 32 || c >= 127) {
            tmp[k++] = '\\';
            tmp[k++] = 'x';
            tmp[k++] = hex[c >> 4];
            tmp[k++] = hex[c & 15];
        } else
            tmp[k++] = (char)c;
        if (o + k + 4 > cap) /* room for "..." and the terminator */
            break;
        memcpy(out + o, tmp, k);
        o += k;
    }
    if (i < len && o + 4 <= cap) {
        memcpy(out + o, "...", 3);
        o += 3;
    }
    out[o] = 0;
}

/* ---- the harness's JSON line ---- */

/* A number member, or NaN when null or absent; an error when it is something else. */
static bool h_num(const cJSON *o, const char *key, const char *name, const char *path,
                  double *out, pt_error *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    *out = NAN;
    if (!v || cJSON_IsNull(v))
        return true;
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble))
        return pt_fail(err, "%s: %s.%s: is %s; expected a number or null", name, path, key,
                       pt_json_type(v));
    *out = v->valuedouble;
    return true;
}

static bool h_int(const cJSON *o, const char *key, const char *name, const char *path,
                  int64_t *out, pt_error *err)
{
    double d;
    if (!h_num(o, key, name, path, &d, err))
        return false;
    if (isnan(d)) {
        *out = -1;
        return true;
    }
    if (d != floor(d) || d < 0 || d > 9007199254740992.0)
        return pt_fail(err, "%s: %s.%s: %g; expected a whole number >= 0", name, path, key, d);
    *out = (int64_t)d;
    return true;
}

/* A GPU timestamp (ns, ~1e18: beyond a double's 53 bits): its digits read from the text. */
static bool h_u64(const cJSON *o, const char *key, const char *text, size_t len,
                  const char *name, const char *path, uint64_t *out, bool *have, pt_error *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    *have = false;
    if (!v || cJSON_IsNull(v))
        return true;
    if (!cJSON_IsNumber(v) || !(v->valuedouble >= 0 && v->valuedouble < 1.8e19))
        return pt_fail(err, "%s: %s.%s: is %s; expected a timestamp in ns (0 to 1.8e19) or null",
                       name, path, key, cJSON_IsNumber(v) ? "out of range" : pt_json_type(v));
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\"", key);
    size_t pl = strlen(pat);
    for (size_t i = 0; i + pl < len; i++) {
        if (memcmp(text + i, pat, pl) != 0)
            continue;
        size_t j = i + pl;
        while (j < len && (text[j] == ' ' || text[j] == ':' || text[j] == '\t'))
            j++;
        uint64_t x = 0;
        size_t d = 0;
        while (j < len && text[j] >= '0' && text[j] <= '9' && d < 19) { /* 19 digits fit */
            x = x * 10 + (uint64_t)(text[j] - '0');
            j++;
            d++;
        }
        if (d > 0 && (j >= len || text[j] < '0' || text[j] > '9') &&
            (j >= len || (text[j] != '.' && text[j] != 'e' && text[j] != 'E'))) {
            *out = x;
            *have = true;
            return true;
        }
        break;
    }
    /* written some other way (exponent): as close as a double gets */
    *out = (uint64_t)v->valuedouble;
    *have = true;
    return true;
}

bool pt_harness_parse(pt_harness_result *h, const char *name, const char *text, size_t len,
                      pt_error *err)
{
    memset(h, 0, sizeof *h);
    cJSON *root = pt_json_parse(name, text, len, err);
    if (!root)
        return false;
    bool ok = true;
    const char *P = "$";
    if (!cJSON_IsObject(root))
        ok = pt_fail(err, "%s: $: is %s; expected the harness's JSON object", name,
                     pt_json_type(root));
    const cJSON *c = ok ? cJSON_GetObjectItemCaseSensitive(root, "correct") : NULL;
    if (ok) {
        if (!c || !(cJSON_IsBool(c) || cJSON_IsNull(c)))
            ok = pt_fail(err, "%s: $.correct: is %s; expected true, false or null", name,
                         c ? pt_json_type(c) : "missing");
        else
            h->correct = cJSON_IsNull(c) ? -1 : cJSON_IsTrue(c) ? 1 : 0;
    }
    static const struct {
        const char *key;
        size_t off, cap;
    } strs[] = {{"graph", offsetof(pt_harness_result, graph), 64},
                {"kernel", offsetof(pt_harness_result, kernel), 64},
                {"timing", offsetof(pt_harness_result, timing), 16}};
    for (size_t i = 0; ok && i < sizeof strs / sizeof strs[0]; i++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, strs[i].key);
        if (!v || cJSON_IsNull(v))
            continue;
        if (!cJSON_IsString(v))
            ok = pt_fail(err, "%s: $.%s: is %s; expected a string or null", name, strs[i].key,
                         pt_json_type(v));
        else
            snprintf((char *)h + strs[i].off, strs[i].cap, "%s", v->valuestring);
    }
    ok = ok && h_int(root, "mismatches", name, P, &h->mismatches, err) &&
         h_int(root, "elements", name, P, &h->elements, err) &&
         h_num(root, "max_abs_err", name, P, &h->max_abs_err, err) &&
         h_num(root, "rel_err", name, P, &h->rel_err, err) &&
         h_num(root, "time_ms_median", name, P, &h->time_ms_median, err) &&
         h_num(root, "time_ms_min", name, P, &h->time_ms_min, err) &&
         h_num(root, "time_ms_max", name, P, &h->time_ms_max, err) &&
         h_num(root, "trace_time_ms_median", name, P, &h->trace_time_ms_median, err) &&
         h_num(root, "trace_time_ms_min", name, P, &h->trace_time_ms_min, err) &&
         h_num(root, "trace_time_ms_max", name, P, &h->trace_time_ms_max, err) &&
         h_int(root, "iters", name, P, &h->iters, err) &&
         h_int(root, "grid", name, P, &h->grid, err) &&
         h_int(root, "block", name, P, &h->block, err) &&
         h_int(root, "smem", name, P, &h->smem, err) &&
         h_int(root, "trace_bytes", name, P, &h->trace_bytes, err);
    bool a = false, b = false;
    ok = ok && h_u64(root, "trace_kernel_start_ns", text, len, name, P, &h->trace_kernel_start_ns,
                     &a, err) &&
         h_u64(root, "trace_kernel_end_ns", text, len, name, P, &h->trace_kernel_end_ns, &b, err);
    if (ok && a && b) {
        if (h->trace_kernel_end_ns < h->trace_kernel_start_ns)
            ok = pt_fail(err, "%s: $.trace_kernel_end_ns: %llu is before trace_kernel_start_ns "
                         "%llu; expected end >= start", name,
                         (unsigned long long)h->trace_kernel_end_ns,
                         (unsigned long long)h->trace_kernel_start_ns);
        h->has_trace_kernel = true;
    }
    const cJSON *cu = ok ? cJSON_GetObjectItemCaseSensitive(root, "cupti") : NULL;
    if (ok && cu && !cJSON_IsNull(cu)) {
        const char *C = "$.cupti";
        bool s1 = false, s2 = false;
        if (!cJSON_IsObject(cu))
            ok = pt_fail(err, "%s: $.cupti: is %s; expected an object or null", name,
                         pt_json_type(cu));
        ok = ok && h_num(cu, "median_ms", name, C, &h->cupti_median_ms, err) &&
             h_num(cu, "min_ms", name, C, &h->cupti_min_ms, err) &&
             h_num(cu, "max_ms", name, C, &h->cupti_max_ms, err) &&
             h_int(cu, "records", name, C, &h->cupti_records, err) &&
             h_int(cu, "registers", name, C, &h->cupti_registers, err) &&
             h_int(cu, "smem", name, C, &h->cupti_smem, err) &&
             h_int(cu, "grid", name, C, &h->cupti_grid, err) &&
             h_int(cu, "block", name, C, &h->cupti_block, err) &&
             h_u64(cu, "start_ns_first", text, len, name, C, &h->cupti_start_ns_first, &s1, err) &&
             h_u64(cu, "end_ns_first", text, len, name, C, &h->cupti_end_ns_first, &s2, err);
        if (ok && isnan(h->cupti_median_ms))
            ok = pt_fail(err, "%s: $.cupti.median_ms: is missing; expected the median kernel "
                         "time in ms", name);
        h->has_cupti = ok;
    }
    cJSON_Delete(root);
    return ok;
}

void pt_harness_to_mkernel(const pt_harness_result *h, pt_mkernel *k)
{
    memset(k, 0, sizeof *k);
    snprintf(k->timing, sizeof k->timing, "%s", h->timing);
    k->iters = h->iters > 0 ? h->iters : 0;
    k->plain_ms_median = h->time_ms_median;
    k->plain_ms_min = h->time_ms_min;
    k->plain_ms_max = h->time_ms_max;
    k->instr_ms_median = h->trace_time_ms_median;
    k->instr_ms_min = h->trace_time_ms_min;
    k->instr_ms_max = h->trace_time_ms_max;
    k->overhead_pct = pt_error_pct(h->trace_time_ms_median, h->time_ms_median);
    k->has_cupti = h->has_cupti;
    k->cupti_ms_median = h->has_cupti ? h->cupti_median_ms : NAN;
    k->cupti_ms_min = h->has_cupti ? h->cupti_min_ms : NAN;
    k->cupti_ms_max = h->has_cupti ? h->cupti_max_ms : NAN;
    k->cupti_registers = h->has_cupti && h->cupti_registers > 0 ? h->cupti_registers : 0;
    k->cupti_smem = h->has_cupti && h->cupti_smem > 0 ? h->cupti_smem : 0;
    k->cupti_grid = h->has_cupti && h->cupti_grid > 0 ? h->cupti_grid : 0;
    k->cupti_block = h->has_cupti && h->cupti_block > 0 ? h->cupti_block : 0;
    k->traced_kernel_ns = h->has_trace_kernel
                              ? (double)(h->trace_kernel_end_ns - h->trace_kernel_start_ns)
                              : NAN;
}
