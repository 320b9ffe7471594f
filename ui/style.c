/* style.c — the system's light/dark preference (see style.h). */
#include "style.h"

#include <string.h>

gboolean pt_style_portal_is_dark(guint32 value)
{
    return value == 1;
}

gboolean pt_style_gsettings_is_dark(const char *value)
{
    return value && strcmp(value, "prefer-dark") == 0;
}

gboolean pt_style_widget_is_dark(GtkWidget *w)
{
    gboolean dark = FALSE;
    GtkSettings *s = w ? gtk_widget_get_settings(w) : gtk_settings_get_default();
    if (s)
        g_object_get(s, "gtk-application-prefer-dark-theme", &dark, NULL);
    if (dark)
        return TRUE;
    if (!w) {
        const char *t = g_getenv("GTK_THEME");
        return t && g_str_has_suffix(t, ":dark");
    }
    GdkRGBA c;
#if GTK_CHECK_VERSION(4, 10, 0)
    gtk_widget_get_color(w, &c);
#else
    gtk_style_context_get_color(gtk_widget_get_style_context(w), &c);
#endif
    return 0.2126 * c.red + 0.7152 * c.green + 0.0722 * c.blue > 0.5;
}

void pt_style_connect_changed(GObject *data, GCallback cb)
{
    GtkSettings *s = gtk_settings_get_default();
    if (!s)
        return;
    g_signal_connect_object(s, "notify::gtk-application-prefer-dark-theme", cb, data,
                            G_CONNECT_SWAPPED);
    g_signal_connect_object(s, "notify::gtk-theme-name", cb, data, G_CONNECT_SWAPPED);
}

void pt_style_set_dark(gboolean dark)
{
    GtkSettings *s = gtk_settings_get_default();
    if (s)
        g_object_set(s, "gtk-application-prefer-dark-theme", dark, NULL);
}

/* Read's reply is (v) holding v holding u in the current portal; unwrap variants to the u. */
static gboolean unwrap_u32(GVariant *v, guint32 *out)
{
    GVariant *cur = g_variant_ref(v);
    while (g_variant_is_of_type(cur, G_VARIANT_TYPE_VARIANT) ||
           g_variant_is_of_type(cur, G_VARIANT_TYPE_TUPLE)) {
        if (g_variant_is_of_type(cur, G_VARIANT_TYPE_TUPLE) && g_variant_n_children(cur) != 1)
            break;
        GVariant *inner = g_variant_is_of_type(cur, G_VARIANT_TYPE_VARIANT)
                              ? g_variant_get_variant(cur) : g_variant_get_child_value(cur, 0);
        g_variant_unref(cur);
        cur = inner;
    }
    gboolean ok = g_variant_is_of_type(cur, G_VARIANT_TYPE_UINT32);
    if (ok)
        *out = g_variant_get_uint32(cur);
    g_variant_unref(cur);
    return ok;
}

static void on_gsettings_changed(GSettings *gs, const char *key, gpointer data)
{
    (void)data;
    char *v = g_settings_get_string(gs, key);
    pt_style_set_dark(pt_style_gsettings_is_dark(v));
    g_free(v);
}

/* No portal: GSettings, when GNOME's schema is installed (looking it up first, since
 * g_settings_new aborts on a missing schema). */
static void follow_gsettings(void)
{
    GSettingsSchemaSource *src = g_settings_schema_source_get_default();
    GSettingsSchema *schema = src ? g_settings_schema_source_lookup(
                                        src, "org.gnome.desktop.interface", TRUE) : NULL;
    if (!schema)
        return;
    gboolean has = g_settings_schema_has_key(schema, "color-scheme");
    g_settings_schema_unref(schema);
    if (!has)
        return;
    static GSettings *gs; /* lives as long as the process follows it */
    gs = g_settings_new("org.gnome.desktop.interface");
    g_signal_connect(gs, "changed::color-scheme", G_CALLBACK(on_gsettings_changed), NULL);
    on_gsettings_changed(gs, "color-scheme", NULL);
}

static void on_setting_changed(GDBusConnection *c, const char *sender, const char *path,
                               const char *iface, const char *signal, GVariant *params,
                               gpointer data)
{
    (void)c, (void)sender, (void)path, (void)iface, (void)signal, (void)data;
    const char *ns = NULL, *key = NULL;
    GVariant *value = NULL;
    if (!g_variant_is_of_type(params, G_VARIANT_TYPE("(ssv)")))
        return;
    g_variant_get(params, "(&s&sv)", &ns, &key, &value);
    guint32 u;
    if (strcmp(ns, "org.freedesktop.appearance") == 0 && strcmp(key, "color-scheme") == 0 &&
        unwrap_u32(value, &u))
        pt_style_set_dark(pt_style_portal_is_dark(u));
    g_variant_unref(value);
}

static void on_read(GObject *src, GAsyncResult *res, gpointer data)
{
    (void)data;
    GDBusConnection *bus = G_DBUS_CONNECTION(src);
    GError *e = NULL;
    GVariant *reply = g_dbus_connection_call_finish(bus, res, &e);
    guint32 u;
    if (reply && unwrap_u32(reply, &u)) {
        pt_style_set_dark(pt_style_portal_is_dark(u));
        g_dbus_connection_signal_subscribe(bus, "org.freedesktop.portal.Desktop",
                                           "org.freedesktop.portal.Settings", "SettingChanged",
                                           "/org/freedesktop/portal/desktop", NULL,
                                           G_DBUS_SIGNAL_FLAGS_NONE, on_setting_changed, NULL,
                                           NULL);
    } else {
        follow_gsettings();
    }
    if (reply)
        g_variant_unref(reply);
    g_clear_error(&e);
}

void pt_style_follow_system(void)
{
    static gboolean started;
    if (started)
        return;
    started = TRUE;
    GError *e = NULL;
    GDBusConnection *bus = g_bus_get_sync(G_BUS_TYPE_SESSION, NULL, &e);
    if (!bus) { /* no session bus (e.g. under Xvfb in tests) */
        g_clear_error(&e);
        follow_gsettings();
        return;
    }
    g_dbus_connection_call(bus, "org.freedesktop.portal.Desktop",
                           "/org/freedesktop/portal/desktop", "org.freedesktop.portal.Settings",
                           "Read", g_variant_new("(ss)", "org.freedesktop.appearance",
                                                 "color-scheme"),
                           NULL, G_DBUS_CALL_FLAGS_NONE, 2000, NULL, on_read, NULL);
    /* bus is kept: the subscription made in on_read lives as long as the process. */
}
