/* tar.c — the uncompressed tar stream of a bundle and its pt-run.sh, shipped on stdin to a
 * remote command. */
#include "run_parts.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "codegen.h"
#include "json_util.h"

static void tar_octal(char *field, size_t width, uint64_t v)
{
    snprintf(field, width, "%0*llo", (int)width - 1, (unsigned long long)v);
}

static bool tar_add(run_buf *t, const char *name, const char *data, size_t len)
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
    return run_buf_add(t, h, 512, (size_t)64 << 20) && run_buf_add(t, data, len, (size_t)64 << 20) &&
           run_buf_add(t, zeros, (512 - len % 512) % 512, (size_t)64 << 20);
}

/* An unlinked temporary file holding the tar stream, positioned at its start. */
int run_tar_bundle(const pt_run_request *rq, const char *script, pt_error *err)
{
    run_buf t = {0};
    bool ok = true;
    for (int i = 0; pt_bundle_files[i] && ok; i++) {
        char path[RUN_PATH_MAX], *text = NULL;
        size_t len = 0;
        snprintf(path, sizeof path, "%s/%s", rq->bundle_dir, pt_bundle_files[i]);
        if (access(path, R_OK) != 0 && strcmp(pt_bundle_files[i], "README.md") == 0)
            continue;
        ok = pt_read_file(path, &text, &len, err) &&
             (tar_add(&t, pt_bundle_files[i], text, len) || pt_fail(err, "bundle too large to ship"));
        free(text);
    }
    static const char zeros[1024] = {0};
    if (ok && !(tar_add(&t, "pt-run.sh", script, strlen(script)) &&
                run_buf_add(&t, zeros, sizeof zeros, (size_t)65 << 20)))
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
