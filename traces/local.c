/* local.c — what this machine offers the profiling layer: tools found in PATH (and the CUDA
 * toolkit's bin), temporary directories and their removal, and the check that profiling can
 * run here at all (driver, GPU, nvcc, make). */
#include "local.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "run_parts.h"

static bool executable(const char *p)
{
    struct stat st;
    return p && p[0] && stat(p, &st) == 0 && S_ISREG(st.st_mode) && access(p, X_OK) == 0;
}

bool pt_find_tool(const char *prog, const char *env_var, char *out, size_t cap)
{
    const char *env = env_var ? getenv(env_var) : NULL;
    if (executable(env) && (size_t)snprintf(out, cap, "%s", env) < cap)
        return true;
    const char *path = getenv("PATH");
    char dirs[8192];
    snprintf(dirs, sizeof dirs, "%s", path ? path : "/usr/bin:/bin");
    for (char *save = NULL, *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
        if ((size_t)snprintf(out, cap, "%s/%s", *d ? d : ".", prog) < cap && executable(out))
            return true;
    }
    const char *extra[] = {getenv("CUDA_PATH"), getenv("CUDA_HOME"), "/usr/local/cuda"};
    for (int i = 0; i < 3; i++)
        if (extra[i] && extra[i][0] &&
            (size_t)snprintf(out, cap, "%s/bin/%s", extra[i], prog) < cap && executable(out))
            return true;
    return false;
}

bool pt_make_temp_dir(const char *prefix, char *out, size_t cap, pt_error *err)
{
    const char *tmp = getenv("TMPDIR");
    if ((size_t)snprintf(out, cap, "%s/%s-XXXXXX", tmp && *tmp ? tmp : "/tmp", prefix) >= cap)
        return pt_fail(err, "%s: temporary directory name too long", tmp);
    if (!mkdtemp(out))
        return pt_fail(err, "%s: cannot create a temporary directory: %s", out, strerror(errno));
    return true;
}

void pt_remove_flat_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *e;
        char path[RUN_PATH_MAX + 256];
        while ((e = readdir(d)))
            if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
                (size_t)snprintf(path, sizeof path, "%s/%s", dir, e->d_name) < sizeof path)
                unlink(path);
        closedir(d);
    }
    rmdir(dir);
}

bool pt_runner_check_local(pt_error *err)
{
    void *h = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
    if (!h)
        return pt_fail(err, "cannot profile on this machine: no NVIDIA driver (libcuda.so.1 not "
                            "found); use --remote 'CMD' to run on a GPU machine");
    dlclose(h);
    char smi[RUN_PATH_MAX];
    if (!pt_find_tool("nvidia-smi", NULL, smi, sizeof smi))
        return pt_fail(err, "cannot profile on this machine: no GPU (nvidia-smi not found, so "
                            "nvidia-smi -L lists none); use --remote 'CMD'");
    char *argv[] = {smi, "-L", NULL};
    run_buf out = {0}, errb = {0};
    run_child ci;
    pt_error e2;
    bool ran = run_supervise(argv, NULL, -1, 30, 30, false, &out, &errb, &ci, NULL, &e2);
    bool gpu = ran && !ci.timed_out && out.s && (strncmp(out.s, "GPU ", 4) == 0 ||
                                                 strstr(out.s, "\nGPU "));
    free(out.s);
    free(errb.s);
    if (!gpu)
        return pt_fail(err, "cannot profile on this machine: no GPU (nvidia-smi -L lists none); "
                            "use --remote 'CMD' to run on a GPU machine");
    char path[RUN_PATH_MAX];
    if (!pt_find_tool("nvcc", NULL, path, sizeof path))
        return pt_fail(err, "cannot profile on this machine: nvcc not found (looked in PATH, "
                            "$CUDA_PATH/bin and /usr/local/cuda/bin)");
    if (!pt_find_tool("make", NULL, path, sizeof path))
        return pt_fail(err, "cannot profile on this machine: make not found");
    return true;
}
