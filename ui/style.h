/* style.h — follow the desktop's light/dark preference without libadwaita: read the
 * freedesktop portal's org.freedesktop.appearance color-scheme (and its SettingChanged
 * signal), else GSettings org.gnome.desktop.interface color-scheme when that schema is
 * installed, and set GtkSettings gtk-application-prefer-dark-theme; the timeline and graph
 * views redraw with their `dark` colours when it changes. */
#ifndef PT_STYLE_H
#define PT_STYLE_H

#include <gtk/gtk.h>

/* Start following (once per process; asynchronous, never blocks start-up). */
void pt_style_follow_system(void);
/* The portal's color-scheme value (0 no preference, 1 prefer dark, 2 prefer light) → dark. */
gboolean pt_style_portal_is_dark(guint32 value);
/* GSettings' color-scheme string ("default", "prefer-dark", "prefer-light") → dark. */
gboolean pt_style_gsettings_is_dark(const char *value);
/* Whether widget w is drawn in a dark style: the dark preference is set, or the theme gives w
 * light text (GTK_THEME=Adwaita:dark, a dark theme or CSS — no preference flag is set then).
 * The views' own drawing (timeline, sTask-graph, code) follows this, not only the flag. */
gboolean pt_style_widget_is_dark(GtkWidget *w);
/* Call cb(data) whenever the dark preference or the theme changes (for as long as data lives). */
void pt_style_connect_changed(GObject *data, GCallback cb);
/* Set the flag the views read. */
void pt_style_set_dark(gboolean dark);

#endif
