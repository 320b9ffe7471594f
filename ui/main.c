/* main.c — the `pipethreader` explorer: a GtkApplication (org.pipethreader.Explorer).
 *
 *   pipethreader [--hw NAME] [FILE-or-example…]
 *   pipethreader --screenshot OUT.png [--size WxH] [--hw NAME] [--select STASK]
 *                [--page timeline|graph|code|compare] [--ctas] [--unroll] FILE-or-example
 *
 * Each FILE opens in its own window; with none, the window's start page lists the embedded
 * examples. --screenshot renders the main window with FILE loaded and simulated to a PNG and
 * exits (--select first selects an sTask by id, as a click would, and prints the inspector's
 * text); the PNG is exactly --size (the window is resized until its content is). A load
 * error is shown in the window's banner, printed as "error: …" (stdout and stderr) and the
 * screenshot of it is still written, but the exit status is 1: a script must not take a broken
 * file's picture for a good one. A failure to write the PNG exits 1 too. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gtk/gtk.h>

#include "autosave.h"
#include "style.h"
#include "window.h"

#define PT_APP_ID "org.pipethreader.Explorer"

typedef struct {
    const char *screenshot;
    int width, height;
    const char *hw;
    const char *select;     /* --select ID (with --screenshot): select an sTask first */
    const char *page;       /* --page timeline|graph|code|compare: the page shown */
    gboolean captured;      /* the screenshot was written on a frame tick */
    gboolean ctas;          /* --ctas: several CTAs / waves as lane groups */
    gboolean unroll;        /* --unroll: the sTask-graph's loop unrolled */
    GPtrArray *sources;
    int status;
    PtWindow *shot_window;
    int frames;
    int resizes;            /* size corrections made so that the capture is exactly WxH */
    gboolean shot_done;
} app_opts;

static void usage(FILE *f)
{
    fprintf(f, "usage: pipethreader [--hw H100|H200|MI300X|FILE.json] [GRAPH…]\n"
               "       pipethreader --screenshot OUT.png [--size WxH] [--hw NAME] [--select STASK]\n"
               "                    [--page timeline|graph|code|compare] [--ctas] [--unroll] GRAPH\n"
               "GRAPH is an operator-graph JSON file or an embedded example name.\n");
}

static const char app_css[] =
    /* GTK 4.8's default theme has @error_color but not libadwaita's @error_bg_color. */
    ".pt-error-banner { background-color: #c01c28; color: #ffffff; padding: 6px 12px; }\n"
    ".pt-error-banner label, .pt-error-banner image { color: #ffffff; }\n"
    ".pt-error-banner button { color: #ffffff; }\n"
    /* the offer to recover autosaved edits: information, not an error */
    ".pt-recovery-banner { background-color: #1c71d8; color: #ffffff; padding: 6px 12px; }\n"
    /* only its own text and icon: the buttons keep the theme's colours, readable */
    ".pt-recovery-banner > label, .pt-recovery-banner > image { color: #ffffff; }\n";

static void action_about(GSimpleAction *a, GVariant *p, gpointer data)
{
    (void)a, (void)p;
    GtkWindow *parent = gtk_application_get_active_window(GTK_APPLICATION(data));
    const char *authors[] = {"The PipeThreader developers", NULL};
    gtk_show_about_dialog(parent, "program-name", "PipeThreader", "logo-icon-name", PT_APP_ID,
                          "version", PT_VERSION, "comments",
                          "Interactive GPU pipeline-schedule explorer: sTask-graphs, "
                          "per-sEU timelines and software-defined pipelining.",
                          "license-type", GTK_LICENSE_MIT_X11, "authors", authors, NULL);
}

static void action_quit(GSimpleAction *a, GVariant *p, gpointer data)
{
    (void)a, (void)p;
    /* Close each window (each asks about unsaved changes); the app ends with the last one. */
    GList *wins = g_list_copy(gtk_application_get_windows(GTK_APPLICATION(data)));
    for (GList *l = wins; l; l = l->next)
        gtk_window_close(GTK_WINDOW(l->data));
    g_list_free(wins);
}

static const GActionEntry app_actions[] = {
    {"about", action_about, NULL, NULL, NULL, {0}},
    {"quit", action_quit, NULL, NULL, NULL, {0}},
};

static void on_startup(GApplication *app, gpointer data)
{
    (void)data;
    g_action_map_add_action_entries(G_ACTION_MAP(app), app_actions, G_N_ELEMENTS(app_actions),
                                    app);
    const char *quit[] = {"<Control>q", NULL}, *open[] = {"<Control>o", NULL},
               *help[] = {"<Control>question", NULL}, *fit[] = {"<Control>0", NULL};
    gtk_application_set_accels_for_action(GTK_APPLICATION(app), "app.quit", quit);
    gtk_application_set_accels_for_action(GTK_APPLICATION(app), "win.open", open);
    gtk_application_set_accels_for_action(GTK_APPLICATION(app), "win.show-help-overlay", help);
    gtk_application_set_accels_for_action(GTK_APPLICATION(app), "win.fit", fit);
    const char *undo[] = {"<Control>z", NULL}, *redo[] = {"<Control><Shift>z", NULL},
               *save[] = {"<Control>s", NULL}, *save_as[] = {"<Control><Shift>s", NULL};
    gtk_application_set_accels_for_action(GTK_APPLICATION(app), "win.undo", undo);
    gtk_application_set_accels_for_action(GTK_APPLICATION(app), "win.redo", redo);
    gtk_application_set_accels_for_action(GTK_APPLICATION(app), "win.save", save);
    gtk_application_set_accels_for_action(GTK_APPLICATION(app), "win.save-as", save_as);
    /* Editing Waits of the selected sTask, and the view toggles. */
    static const struct { const char *action, *accel; } more[] = {
        {"win.wait-add-dialog", "<Control>d"},
        {"win.wait-remove-last", "<Control><Shift>d"},
        {"win.show-critical", "<Control>1"},
        {"win.show-ctas", "<Control>2"},
        {"win.unroll-loop", "<Control>3"},
    };
    for (guint i = 0; i < G_N_ELEMENTS(more); i++) {
        const char *accels[] = {more[i].accel, NULL};
        gtk_application_set_accels_for_action(GTK_APPLICATION(app), more[i].action, accels);
    }
    pt_style_follow_system();
    GtkCssProvider *css = gtk_css_provider_new();
    gtk_css_provider_load_from_data(css, app_css, -1);
    gtk_style_context_add_provider_for_display(gdk_display_get_default(),
                                               GTK_STYLE_PROVIDER(css),
                                               GTK_STYLE_PROVIDER_PRIORITY_APPLICATION);
    g_object_unref(css);
}

static gboolean take_screenshot(app_opts *o, gboolean quiet)
{
    GtkWidget *win = GTK_WIDGET(o->shot_window);
    int w = gtk_widget_get_width(win), h = gtk_widget_get_height(win);
    if (w <= 0 || h <= 0) {
        fprintf(stderr, "pipethreader: the window has no size; nothing to capture\n");
        return FALSE;
    }
    GdkPaintable *paintable = gtk_widget_paintable_new(win);
    GtkSnapshot *snap = gtk_snapshot_new();
    gdk_paintable_snapshot(paintable, GDK_SNAPSHOT(snap), w, h);
    GskRenderNode *node = gtk_snapshot_free_to_node(snap);
    gboolean ok = FALSE;
    if (node) {
        GskRenderer *r = gtk_native_get_renderer(GTK_NATIVE(win));
        GdkTexture *tex = gsk_renderer_render_texture(r, node,
                                                      &GRAPHENE_RECT_INIT(0, 0, (float)w, (float)h));
        ok = tex && gdk_texture_save_to_png(tex, o->screenshot);
        if (tex)
            g_object_unref(tex);
        gsk_render_node_unref(node);
    }
    g_object_unref(paintable);
    if (!ok && !quiet)
        fprintf(stderr, "pipethreader: could not write %s\n", o->screenshot);
    return ok;
}

static void finish_screenshot(app_opts *o)
{
    if (o->shot_done)
        return;
    o->shot_done = TRUE;
    const char *err = pt_window_get_error(o->shot_window);
    if (err) {
        printf("error: %s\n", err);
        fprintf(stderr, "pipethreader: %s\n", err);
        o->status = 1;
    }
    char *sum = pt_window_dup_summary(o->shot_window);
    if (sum)
        printf("%s\n", sum);
    g_free(sum);
    if (o->page && !strcmp(o->page, "compare")) { /* the predicted-vs-measured table */
        char *cmp = pt_window_dup_compare_text(o->shot_window);
        printf("compare: %s\n", cmp);
        g_free(cmp);
    }
    if (o->captured || take_screenshot(o, FALSE))
        printf("screenshot: %s (%dx%d)\n", o->screenshot,
               gtk_widget_get_width(GTK_WIDGET(o->shot_window)),
               gtk_widget_get_height(GTK_WIDGET(o->shot_window)));
    else
        o->status = 1;
    fflush(stdout);
    gtk_window_destroy(GTK_WINDOW(o->shot_window));
}

/* Wait a few frames so layout and the first paint are done, then capture. */
static gboolean on_tick(GtkWidget *w, GdkFrameClock *clock, gpointer data)
{
    app_opts *o = data;
    (void)w, (void)clock;
    /* the Code page scrolls to the selection from an idle once its text is laid out */
    int settle = o->page && !strcmp(o->page, "code") ? 30 : 4;
    if (++o->frames < settle)
        return G_SOURCE_CONTINUE;
    /* The window's content can come out smaller than its default size (client-side
     * decorations' margins): grow the default size by the difference until it is exact. */
    int cw = gtk_widget_get_width(GTK_WIDGET(o->shot_window));
    int ch = gtk_widget_get_height(GTK_WIDGET(o->shot_window));
    if ((cw != o->width || ch != o->height) && cw > 0 && ch > 0 && o->resizes < 3) {
        int dw = 0, dh = 0;
        gtk_window_get_default_size(GTK_WINDOW(o->shot_window), &dw, &dh);
        gtk_window_set_default_size(GTK_WINDOW(o->shot_window), dw + (o->width - cw),
                                    dh + (o->height - ch));
        o->resizes++;
        o->frames = 0;
        return G_SOURCE_CONTINUE;
    }
    /* A page still laying out (the Code page's text view on a fresh kernel) can render to no
     * texture for a frame or two: try again on later frames before giving up. */
    o->captured = take_screenshot(o, TRUE);
    if (!o->captured && o->frames < settle + 60)
        return G_SOURCE_CONTINUE;
    finish_screenshot(o);
    return G_SOURCE_REMOVE;
}

static gboolean on_shot_timeout(gpointer data)
{
    app_opts *o = data;
    if (!o->shot_done) /* no frames came (no compositor?): capture anyway */
        finish_screenshot(o);
    return G_SOURCE_REMOVE;
}

static void on_activate(GApplication *app, gpointer data)
{
    app_opts *o = data;
    if (o->screenshot) {
        PtWindow *win = pt_window_new(GTK_APPLICATION(app), o->hw);
        gtk_window_set_default_size(GTK_WINDOW(win), o->width, o->height);
        if (o->sources->len && pt_window_open(win, g_ptr_array_index(o->sources, 0)) &&
            o->select && pt_window_select_stask_id(win, o->select)) {
            char *text = pt_window_dup_inspector_text(win);
            printf("inspector: %s\n", text);
            g_free(text);
        }
        if (o->ctas)
            g_action_group_activate_action(G_ACTION_GROUP(win), "show-ctas", NULL);
        if (o->unroll)
            g_action_group_activate_action(G_ACTION_GROUP(win), "unroll-loop", NULL);
        if (o->page && !pt_window_show_page(win, o->page))
            printf("error: no page '%s' (timeline, graph or code)\n", o->page);
        o->shot_window = win;
        gtk_widget_add_tick_callback(GTK_WIDGET(win), on_tick, o, NULL);
        g_timeout_add_seconds(20, on_shot_timeout, o);
        gtk_window_present(GTK_WINDOW(win));
        return;
    }
    /* Unsaved edits are autosaved from now on; those a crashed session left are offered in
     * the first window (autosave.h). Not for --screenshot: it edits nothing. */
    pt_error aerr = {{0}};
    gboolean autosave = pt_autosave_session_start(&aerr);
    if (!autosave)
        fprintf(stderr, "pipethreader: %s\n", aerr.msg);
    PtWindow *first = NULL;
    if (o->sources->len == 0) {
        first = pt_window_new(GTK_APPLICATION(app), o->hw);
        gtk_window_present(GTK_WINDOW(first));
    }
    for (guint i = 0; i < o->sources->len; i++) {
        PtWindow *win = pt_window_new(GTK_APPLICATION(app), o->hw);
        gtk_window_present(GTK_WINDOW(win));
        /* As Open does: a saved sProgram over a graph file asks for that file. */
        pt_window_request_open(win, g_ptr_array_index(o->sources, i));
        if (!first)
            first = win;
    }
    if (!autosave)
        pt_window_show_error(first, aerr.msg);
    else
        pt_window_offer_recovery(first);
}

int main(int argc, char **argv)
{
    app_opts o = {.width = 1400, .height = 860};
    o.sources = g_ptr_array_new();
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--ctas")) {
            o.ctas = TRUE;
        } else if (!strcmp(a, "--unroll")) {
            o.unroll = TRUE;
        } else if (!strcmp(a, "--version")) {
            printf("pipethreader %s\n", PT_VERSION);
            return 0;
        } else if (!strcmp(a, "--screenshot") || !strcmp(a, "--size") || !strcmp(a, "--hw") ||
                   !strcmp(a, "--select") || !strcmp(a, "--page")) {
            if (i + 1 >= argc) {
                fprintf(stderr, "pipethreader: %s needs a value\n", a);
                return 2;
            }
            const char *v = argv[++i];
            if (!strcmp(a, "--screenshot")) {
                o.screenshot = v;
            } else if (!strcmp(a, "--hw")) {
                o.hw = v;
            } else if (!strcmp(a, "--select")) {
                o.select = v;
            } else if (!strcmp(a, "--page")) {
                o.page = v;
            } else if (sscanf(v, "%dx%d", &o.width, &o.height) != 2 || o.width < 200 ||
                       o.height < 150 || o.width > 8192 || o.height > 8192) {
                fprintf(stderr, "pipethreader: --size %s: expected WxH, e.g. 1600x1000 "
                                "(200x150 to 8192x8192)\n", v);
                return 2;
            }
        } else if (a[0] == '-' && a[1] == '-') {
            fprintf(stderr, "pipethreader: unknown option %s\n", a);
            usage(stderr);
            return 2;
        } else {
            g_ptr_array_add(o.sources, (gpointer)a);
        }
    }
    if (o.screenshot && o.sources->len != 1) {
        fprintf(stderr, "pipethreader: --screenshot takes exactly one GRAPH\n");
        return 2;
    }
    /* Non-unique: arguments are handled here, not forwarded to another running instance. */
    GtkApplication *app = gtk_application_new(PT_APP_ID, G_APPLICATION_NON_UNIQUE);
    g_signal_connect(app, "startup", G_CALLBACK(on_startup), NULL);
    g_signal_connect(app, "activate", G_CALLBACK(on_activate), &o);
    char *app_argv[] = {argv[0], NULL};
    int rc = g_application_run(G_APPLICATION(app), 1, app_argv);
    g_object_unref(app);
    pt_autosave_session_end(); /* a clean exit: queued writes done, the session lock gone */
    g_ptr_array_free(o.sources, TRUE);
    return rc ? rc : o.status;
}
