/* test_explorer_issue19.c — issue 19 in a real window under Xvfb: the permanent status bar
 * (generatable by sm90a or exactly why not, registers and shared memory against the limits,
 * predicted kernel time and its change after an edit; MI300X has no generator), the timeline
 * drawn flagged when the sProgram cannot run. */
#include <math.h>

#include "actions.h"
#include "explorer_test.h"
#include "timeline_view.h"

static void activate(const char *action, GVariant *param)
{
    GAction *a = g_action_map_lookup_action(G_ACTION_MAP(win), action);
    g_assert_nonnull(a);
    g_assert_true(g_action_get_enabled(a));
    g_action_activate(a, param);
    iterate();
}

static void load(const char *example)
{
    pt_window_get_model(win)->dirty = FALSE; /* no prompt between cases */
    g_assert_true(pt_window_set_hw(win, "H200"));
    g_assert_true(pt_window_open(win, example));
    iterate();
}

static gboolean status_has(const char *needle)
{
    char *s = pt_window_dup_status_text(win);
    gboolean yes = strstr(s, needle) != NULL;
    if (!yes)
        g_test_message("status lacks \"%s\":\n%s", needle, s);
    g_free(s);
    return yes;
}

static void wait_job(void)
{
    gint64 t0 = g_get_monotonic_time();
    while (pt_actions_job_busy(win)) {
        iterate();
        g_usleep(2000);
        g_assert_cmpint(g_get_monotonic_time() - t0, <, (gint64)60 * 1000000);
    }
    iterate();
}

/* Red frame pixel of the timeline as the widget draws it. */
static gboolean timeline_framed(void)
{
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 600, 200);
    cairo_t *cr = cairo_create(s);
    pt_timeline_view_render(PT_TIMELINE_VIEW(pt_window_get_timeline(win)), cr, 600, 200, FALSE,
                            NULL);
    cairo_destroy(cr);
    cairo_surface_flush(s);
    unsigned char *d = cairo_image_surface_get_data(s);
    int stride = cairo_image_surface_get_stride(s);
    /* The left edge of the frame, half-way down the plot. */
    uint32_t p = *(uint32_t *)(d + 120 * stride + ((int)PT_TL_LABEL_W + 2) * 4) & 0xffffff;
    cairo_surface_destroy(s);
    double r, g, b;
    pt_tl_flag_rgb(false, &r, &g, &b);
    return abs((int)((p >> 16) & 0xff) - (int)lround(r * 255)) <= 2 &&
           abs((int)((p >> 8) & 0xff) - (int)lround(g * 255)) <= 2 &&
           abs((int)(p & 0xff) - (int)lround(b * 255)) <= 2;
}

static void test_generatable(void)
{
    load("gemm_f16");
    g_assert_true(status_has("sm90a: generatable"));
    g_assert_true(status_has("registers/thread"));
    g_assert_true(status_has("shared memory"));
    g_assert_true(status_has("predicted kernel"));
    g_assert_false(pt_window_status_flagged(win));
    g_assert_false(timeline_framed());
}

/* Auto-schedule's default pick for flash_attention: the generator refuses it (184 registers
 * needed, 152 budgeted); the status says so at once, on the Timeline page. */
static void test_auto_schedule_refused(void)
{
    load("flash_attention");
    pt_window_show_page(win, "timeline");
    activate("auto-schedule-run", g_variant_new("(dxib)", 0.0, (gint64)0, 1, FALSE));
    wait_job();
    g_assert_true(status_has("NOT generatable"));
    g_assert_true(status_has("184"));
    g_assert_true(status_has("152"));
    g_assert_true(pt_window_status_flagged(win));
    g_assert_true(timeline_framed());
}

/* A tile of m=100 (50-row wgmma per warpgroup). */
static void test_tile_m100(void)
{
    load("gemm_f16");
    activate("tile", g_variant_new_string("m=100"));
    g_assert_null(pt_window_get_error(win));
    g_assert_true(status_has("NOT generatable"));
    g_assert_true(pt_window_status_flagged(win));
}

/* Dragging convert.C.wg1 onto cuda.wg0: valid, but not what the generator emits. */
static void test_convert_moved(void)
{
    load("gemm_f16");
    g_assert_true(pt_window_select_stask_id(win, "convert.C.wg1"));
    activate("append", g_variant_new("(si)", "cuda.wg0", -1));
    g_assert_null(pt_window_get_error(win));
    g_assert_true(status_has("NOT generatable"));
    /* The change of the predicted time after the edit is shown as a percentage. */
    g_assert_true(status_has("%)"));
    activate("undo", NULL);
    g_assert_true(status_has("sm90a: generatable"));
}

/* MI300X: no generator, said plainly; an sProgram over the 64 KB LDS is flagged. */
static void test_mi300x(void)
{
    load("flash_attention");
    g_assert_true(pt_window_set_hw(win, "MI300X"));
    iterate();
    g_assert_true(status_has("no code generator"));
    g_assert_true(status_has("of 64.0 KB OVER"));
    g_assert_true(pt_window_status_flagged(win));
    g_assert_true(timeline_framed());
    g_assert_true(pt_window_set_hw(win, "H200"));
}

int main(int argc, char **argv)
{
    gtk_test_init(&argc, &argv, NULL);
    g_test_add_func("/issue19/generatable", test_generatable);
    g_test_add_func("/issue19/auto-schedule-refused", test_auto_schedule_refused);
    g_test_add_func("/issue19/tile-m100", test_tile_m100);
    g_test_add_func("/issue19/convert-moved", test_convert_moved);
    g_test_add_func("/issue19/mi300x", test_mi300x);
    return explorer_test_run("org.pipethreader.TestIssue19");
}
