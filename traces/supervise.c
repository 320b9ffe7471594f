/* supervise.c — run one child process in its own process group under a watchdog: its stdout
 * and stderr are read through pipes with poll(), the whole group is killed (SIGKILL) when it
 * outlives its limit or the caller cancels, and it is always reaped. */
#include "run_parts.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Scan complete lines of b from *pos: phase and step markers. */
static void scan_lines(const run_buf *b, size_t *pos, run_child *ci, bool is_stdout, double *deadline,
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
            ci->run_started = run_now_s();
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
bool run_supervise(char *const argv[], const char *cwd, int in_fd, double first_timeout,
                      double run_timeout, bool echo, run_buf *out, run_buf *errb, run_child *ci,
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
    double deadline = run_now_s() + first_timeout;
    size_t out_pos = 0, err_pos = 0;
    struct pollfd fds[2] = {{.fd = po[0], .events = POLLIN}, {.fd = pe[0], .events = POLLIN}};
    int open_fds = 2;
    char chunk[65536];
    while (open_fds > 0) {
        double left = deadline - run_now_s();
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
                run_buf_add(out, chunk, (size_t)n, STDOUT_MAX);
                scan_lines(out, &out_pos, ci, true, &deadline, run_timeout);
            } else {
                if (echo && fwrite(chunk, 1, (size_t)n, stderr) != (size_t)n)
                    echo = false;
                /* scan before trimming: markers are short, so a line may be split only at
                 * the trim point, which costs at most one step name */
                run_buf_add_tail(errb, chunk, (size_t)n);
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
                ci->ended = run_now_s();
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
    ci->ended = run_now_s();
    if (WIFEXITED(st))
        ci->status = WEXITSTATUS(st);
    else if (WIFSIGNALED(st))
        ci->status = 128 + WTERMSIG(st);
    if (out->full && !ci->timed_out)
        return pt_fail(err, "the reply is larger than %zu MiB; expected a JSON line and a trace",
                       STDOUT_MAX >> 20);
    return true;
}
