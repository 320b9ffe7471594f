/* autosave.c — the autosave files, the session lock and the writer thread (see autosave.h). */
#include "autosave.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "json_util.h"

#define FORMAT "pipethreader.autosave"

static char *dir;             /* the autosave directory */
static char *session;         /* "session-PID-TIME" */
static int lock_fd = -1;      /* flock()ed while the session runs */
static int next_window;

/* ---- the writer thread -------------------------------------------------------------------- */

typedef struct {
    char *path;
    char *text; /* NULL: remove path */
    bool drop_lock_if_last; /* after removing: the lock of its session when none is left */
} job;

static GThreadPool *pool;
static GMutex mu;
static GCond idle;
static int pending;
static char *last_error;

static void set_error(char *msg)
{
    g_warning("%s", msg); /* also on the terminal: a failed autosave must not go unnoticed */
    g_mutex_lock(&mu);
    g_free(last_error);
    last_error = msg;
    g_mutex_unlock(&mu);
}

/* The session part of an autosave file's base name ("session-1-2" of "session-1-2.w3.json"),
 * or NULL when it is no autosave of ours. */
static char *session_of(const char *base)
{
    if (!g_str_has_prefix(base, "session-") || !g_str_has_suffix(base, ".json"))
        return NULL;
    const char *w = strstr(base, ".w");
    return w ? g_strndup(base, (gsize)(w - base)) : NULL;
}

static bool session_has_autosaves(const char *sid)
{
    GDir *d = dir ? g_dir_open(dir, 0, NULL) : NULL;
    bool any = false;
    const char *name;
    while (d && !any && (name = g_dir_read_name(d))) {
        char *s = session_of(name);
        any = s && strcmp(s, sid) == 0;
        g_free(s);
    }
    if (d)
        g_dir_close(d);
    return any;
}

static void run_job(gpointer data, gpointer user)
{
    job *j = data;
    (void)user;
    if (j->text) {
        /* g_file_set_contents_full writes a temporary file beside path and renames it over
         * path (fsync()ing first where the file system needs it): never a half-written file */
        GError *e = NULL;
        if (!g_file_set_contents_full(j->path, j->text, -1, G_FILE_SET_CONTENTS_CONSISTENT,
                                      0600, &e)) {
            set_error(g_strdup_printf("%s: cannot write the autosave: %s; your unsaved edits "
                                      "are not protected until you save them", j->path,
                                      e ? e->message : "unknown error"));
            g_clear_error(&e);
        }
    } else {
        if (g_unlink(j->path) != 0 && errno != ENOENT)
            set_error(g_strdup_printf("%s: cannot remove the autosave: %s", j->path,
                                      g_strerror(errno)));
        char *base = g_path_get_basename(j->path);
        char *sid = session_of(base);
        /* (only orphans are discarded, never this session's files: its lock stays) */
        if (j->drop_lock_if_last && sid && !session_has_autosaves(sid)) {
            char *lock = g_strdup_printf("%s/%s.lock", dir, sid);
            g_unlink(lock);
            g_free(lock);
        }
        g_free(sid);
        g_free(base);
    }
    g_free(j->path);
    g_free(j->text);
    g_free(j);
    g_mutex_lock(&mu);
    if (--pending == 0)
        g_cond_broadcast(&idle);
    g_mutex_unlock(&mu);
}

static void queue(const char *path, char *text, bool drop_lock)
{
    if (!pool) {
        /* one thread: the jobs run in the order queued (a write, then its removal) */
        pool = g_thread_pool_new(run_job, NULL, 1, FALSE, NULL);
    }
    job *j = g_new0(job, 1);
    j->path = g_strdup(path);
    j->text = text;
    j->drop_lock_if_last = drop_lock;
    g_mutex_lock(&mu);
    pending++;
    g_mutex_unlock(&mu);
    g_thread_pool_push(pool, j, NULL);
}

void pt_autosave_write_async(const char *path, char *text)
{
    queue(path, text, false);
}

void pt_autosave_remove_async(const char *path)
{
    queue(path, NULL, false);
}

void pt_autosave_discard(const char *path)
{
    queue(path, NULL, true);
}

void pt_autosave_flush(void)
{
    g_mutex_lock(&mu);
    while (pending > 0)
        g_cond_wait(&idle, &mu);
    g_mutex_unlock(&mu);
}

char *pt_autosave_take_error(void)
{
    g_mutex_lock(&mu);
    char *e = last_error;
    last_error = NULL;
    g_mutex_unlock(&mu);
    return e;
}

/* ---- the session -------------------------------------------------------------------------- */

bool pt_autosave_session_start(pt_error *err)
{
    if (session)
        return true;
    char *d = g_build_filename(g_get_user_state_dir(), "pipethreader", "autosave", NULL);
    if (g_mkdir_with_parents(d, 0700) != 0) {
        pt_fail(err, "%s: cannot create the autosave directory: %s; autosave is off", d,
                g_strerror(errno));
        g_free(d);
        return false;
    }
    char *sid = g_strdup_printf("session-%ld-%" G_GINT64_MODIFIER "x", (long)getpid(),
                                g_get_real_time());
    char *lock = g_strdup_printf("%s/%s.lock", d, sid);
    /* O_CLOEXEC: a child (a profiling run) must not keep a crashed session looking alive */
    int fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB) != 0) {
        pt_fail(err, "%s: cannot create and lock the session file: %s; autosave is off", lock,
                g_strerror(errno));
        if (fd >= 0)
            close(fd);
        g_free(lock);
        g_free(sid);
        g_free(d);
        return false;
    }
    g_free(lock);
    dir = d;
    session = sid;
    lock_fd = fd;
    return true;
}

void pt_autosave_session_end(void)
{
    if (!session)
        return;
    pt_autosave_flush();
    char *lock = g_strdup_printf("%s/%s.lock", dir, session);
    /* Only when no autosave of ours is left (a window still holding edits keeps them
     * recoverable, e.g. when the app is ended without its windows being closed). */
    if (!session_has_autosaves(session))
        g_unlink(lock);
    g_free(lock);
    close(lock_fd);
    lock_fd = -1;
    g_clear_pointer(&session, g_free);
}

bool pt_autosave_active(void)
{
    return session != NULL;
}

const char *pt_autosave_dir(void)
{
    return dir;
}

char *pt_autosave_new_path(void)
{
    if (!session)
        return NULL;
    return g_strdup_printf("%s/%s.w%d.json", dir, session, ++next_window);
}

/* Whether session sid is running: its lock file exists and someone holds its lock. */
static bool session_alive(const char *sid)
{
    if (session && strcmp(sid, session) == 0)
        return true;
    char *lock = g_strdup_printf("%s/%s.lock", dir, sid);
    int fd = open(lock, O_RDWR | O_CLOEXEC);
    g_free(lock);
    if (fd < 0)
        return false;
    bool alive = flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK;
    close(fd); /* also drops the lock just taken */
    return alive;
}

static gint by_mtime(gconstpointer a, gconstpointer b)
{
    GStatBuf sa, sb;
    const char *pa = *(const char *const *)a, *pb = *(const char *const *)b;
    if (g_stat(pa, &sa) != 0 || g_stat(pb, &sb) != 0)
        return strcmp(pa, pb);
    return sa.st_mtime < sb.st_mtime ? -1 : sa.st_mtime > sb.st_mtime ? 1 : strcmp(pa, pb);
}

GPtrArray *pt_autosave_find_orphans(void)
{
    GPtrArray *out = g_ptr_array_new_with_free_func(g_free);
    GDir *d = dir ? g_dir_open(dir, 0, NULL) : NULL;
    if (!d)
        return out;
    GPtrArray *locks = g_ptr_array_new_with_free_func(g_free);
    const char *name;
    while ((name = g_dir_read_name(d))) {
        if (g_str_has_suffix(name, ".lock")) {
            g_ptr_array_add(locks, g_strndup(name, strlen(name) - 5));
            continue;
        }
        char *sid = session_of(name);
        if (sid && !session_alive(sid))
            g_ptr_array_add(out, g_build_filename(dir, name, NULL));
        g_free(sid);
    }
    g_dir_close(d);
    /* a dead session that left no autosave: its lock file is just litter */
    for (guint i = 0; i < locks->len; i++) {
        const char *sid = g_ptr_array_index(locks, i);
        if (!session_alive(sid) && !session_has_autosaves(sid)) {
            char *lock = g_strdup_printf("%s/%s.lock", dir, sid);
            g_unlink(lock);
            g_free(lock);
        }
    }
    g_ptr_array_unref(locks);
    g_ptr_array_sort(out, by_mtime);
    return out;
}

/* ---- the file ----------------------------------------------------------------------------- */

char *pt_autosave_compose(const pt_autosave_info *info, const char *sprogram_json,
                          const char *graph_json)
{
    cJSON *prog = cJSON_Parse(sprogram_json);
    if (!prog)
        return NULL;
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "format", FORMAT);
    cJSON_AddNumberToObject(root, "version", 1);
    cJSON_AddStringToObject(root, "graph_source", info->graph_source);
    cJSON_AddStringToObject(root, "hw", info->hw);
    cJSON_AddStringToObject(root, "save_path", info->save_path);
    cJSON_AddStringToObject(root, "title", info->title);
    GDateTime *now = g_date_time_new_now_local();
    char *at = g_date_time_format_iso8601(now);
    g_date_time_unref(now);
    cJSON_AddStringToObject(root, "saved_at", at ? at : "");
    g_free(at);
    cJSON_AddItemToObject(root, "sprogram", prog);
    cJSON *graph = graph_json ? cJSON_Parse(graph_json) : NULL;
    if (graph)
        cJSON_AddItemToObject(root, "graph", graph);
    char *text = cJSON_Print(root);
    cJSON_Delete(root);
    char *out = text ? g_strdup(text) : NULL;
    cJSON_free(text);
    return out;
}

static bool get_string(const cJSON *root, const char *key, char *out, size_t cap,
                       const char *path, pt_error *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, key);
    if (!cJSON_IsString(v) || !v->valuestring)
        return pt_fail(err, "%s: $.%s: is %s; expected a string", path, key,
                       v ? pt_json_type(v) : "missing");
    if (strlen(v->valuestring) >= cap)
        return pt_fail(err, "%s: $.%s: is longer than %zu bytes", path, key, cap - 1);
    memcpy(out, v->valuestring, strlen(v->valuestring) + 1);
    return true;
}

bool pt_autosave_read(const char *path, pt_autosave_info *info, char **sprogram_json,
                      char **graph_json, pt_error *err)
{
    memset(info, 0, sizeof *info);
    *sprogram_json = NULL;
    if (graph_json)
        *graph_json = NULL;
    char *text = NULL;
    size_t len = 0;
    if (!pt_read_file(path, &text, &len, err))
        return false;
    cJSON *root = pt_json_parse(path, text, len, err);
    free(text);
    if (!root)
        return false;
    bool ok = true;
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(root, "format");
    if (!cJSON_IsObject(root) || !cJSON_IsString(f) || strcmp(f->valuestring, FORMAT) != 0)
        ok = pt_fail(err, "%s: $.format: expected \"" FORMAT "\" (an explorer autosave)", path);
    const cJSON *v = ok ? cJSON_GetObjectItemCaseSensitive(root, "version") : NULL;
    if (ok && !(cJSON_IsNumber(v) && v->valuedouble == 1))
        ok = pt_fail(err, "%s: $.version: expected 1 (this explorer reads version 1)", path);
    ok = ok && get_string(root, "graph_source", info->graph_source, sizeof info->graph_source,
                          path, err) &&
         get_string(root, "hw", info->hw, sizeof info->hw, path, err) &&
         get_string(root, "save_path", info->save_path, sizeof info->save_path, path, err) &&
         get_string(root, "title", info->title, sizeof info->title, path, err);
    if (ok) /* optional: only for the offer's text */
        get_string(root, "saved_at", info->saved_at, sizeof info->saved_at, path, NULL);
    const cJSON *prog = ok ? cJSON_GetObjectItemCaseSensitive(root, "sprogram") : NULL;
    if (ok && !cJSON_IsObject(prog))
        ok = pt_fail(err, "%s: $.sprogram: is %s; expected the sProgram object", path,
                     prog ? pt_json_type(prog) : "missing");
    if (ok) {
        char *t = cJSON_Print(prog);
        *sprogram_json = t ? g_strdup(t) : NULL;
        cJSON_free(t);
        if (!*sprogram_json)
            ok = pt_fail(err, "%s: out of memory", path);
    }
    const cJSON *graph = ok ? cJSON_GetObjectItemCaseSensitive(root, "graph") : NULL;
    if (ok && graph && !cJSON_IsObject(graph))
        ok = pt_fail(err, "%s: $.graph: is %s; expected the operator graph object or no member",
                     path, pt_json_type(graph));
    if (ok && graph && graph_json) {
        char *t = cJSON_Print(graph);
        *graph_json = t ? g_strdup(t) : NULL;
        cJSON_free(t);
        if (!*graph_json)
            ok = pt_fail(err, "%s: out of memory", path);
    }
    if (!ok) {
        g_clear_pointer(sprogram_json, g_free);
        if (graph_json)
            g_clear_pointer(graph_json, g_free);
    }
    cJSON_Delete(root);
    return ok;
}
