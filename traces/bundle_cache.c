/* bundle_cache.c — the local cache of built bundles: a bundle is copied into a directory
 * named by a hash of its build inputs, so an unchanged kernel is not rebuilt. */
#include "run_parts.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "codegen.h"
#include "json_util.h"
#include "local.h"

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

/* FNV-1a 64 over each build input's name and contents. */
static bool bundle_hash(const char *dir, uint64_t *h, pt_error *err)
{
    uint64_t x = 0xcbf29ce484222325ull;
    for (int i = 0; pt_bundle_files[i]; i++) {
        char path[RUN_PATH_MAX], *text = NULL;
        size_t len = 0;
        snprintf(path, sizeof path, "%s/%s", dir, pt_bundle_files[i]);
        if (!pt_read_file(path, &text, &len, err))
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
    if (!pt_read_file(from, &text, &len, err))
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

/* The cached copy of the bundle: dir/bundles/HASH, created from bundle_dir when absent. */
bool run_cached_bundle(const pt_run_request *rq, char *out, size_t cap, bool *reused,
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
    if (!pt_bundle_make_dirs(bundles, err))
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
    pt_remove_flat_dir(tmp);
    if (mkdir(tmp, 0777) != 0)
        return pt_fail(err, "%s: cannot create directory: %s", tmp, strerror(errno));
    for (int i = 0; pt_bundle_files[i]; i++) {
        char from[RUN_PATH_MAX], to[RUN_PATH_MAX + 64];
        snprintf(from, sizeof from, "%s/%s", rq->bundle_dir, pt_bundle_files[i]);
        snprintf(to, sizeof to, "%s/%s", tmp, pt_bundle_files[i]);
        if (access(from, R_OK) != 0 && strcmp(pt_bundle_files[i], "README.md") == 0)
            continue;
        if (!copy_file(from, to, err)) {
            pt_remove_flat_dir(tmp);
            return false;
        }
    }
    if (rename(tmp, out) != 0) {
        int e = errno;
        pt_remove_flat_dir(tmp);
        if (!(stat(out, &st) == 0 && S_ISDIR(st.st_mode))) /* lost a race: fine */
            return pt_fail(err, "%s: cannot create: %s", out, strerror(e));
    }
    *reused = false;
    return true;
}
