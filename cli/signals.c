/* signals.c — stopping a verb that runs children (profile, schedule --measure) when the CLI
 * gets SIGINT, SIGTERM or SIGHUP.
 *
 * The runner's children live in a process group of their own (so a hung kernel can be killed
 * as a whole), which also means a Ctrl+C in the terminal never reaches them. So the CLI catches
 * the signal, the runner sees it through its cancelled() callback (asked a few times a second,
 * and at once: poll() returns EINTR), ends the child's group (SIGTERM, then SIGKILL), and the
 * verb removes its temporary directory and exits with 128 + the signal, as a shell would
 * report a process killed by it. */
#include <signal.h>
#include <string.h>

#include "cli.h"

static volatile sig_atomic_t caught;

static void on_signal(int sig)
{
    if (!caught)
        caught = sig;
}

void cli_signals_install(void)
{
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction old;
        /* A signal the caller chose to ignore stays ignored: a shell starts background jobs
         * of a script with SIGINT ignored, and nohup ignores SIGHUP. */
        if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
            continue;
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = 0; /* no SA_RESTART: the runner's poll() wakes up at once */
        sigaction(sigs[i], &sa, NULL);
    }
}

int cli_signal_caught(void)
{
    return caught;
}

bool cli_signal_cancelled(void *ctx)
{
    (void)ctx;
    return caught != 0;
}

int cli_signal_exit(const char *verb)
{
    int sig = caught;
    const char *name = sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : sig == SIGHUP ? "SIGHUP"
                                                                                        : "a signal";
    cli_error("%s: stopped by %s: its child processes were ended and its temporary files "
              "removed", verb, name);
    return 128 + sig;
}
