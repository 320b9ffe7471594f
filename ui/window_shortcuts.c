/* window_shortcuts.c — PtWindow's keyboard-shortcuts window (Ctrl+?, "Keyboard Shortcuts" in
 * the primary menu). Kept apart because it is a long UI description, not logic. */
#include "window_private.h"

/* Every shortcut of the window and its views (Ctrl+? shows it; keep in step with main.c's
 * accelerators and the views' key handlers). max-height keeps them all on one page: with a
 * second page GTK 4.8's page switcher measures its label at -4 px and warns twice each time the
 * window opens. */
static const char help_overlay_ui[] =
    "<interface><object class='GtkShortcutsWindow' id='help_overlay'><property name='modal'>1"
    "</property><child><object class='GtkShortcutsSection'><property name='section-name'>main"
    "</property><property name='max-height'>20</property>"
    "<child><object class='GtkShortcutsGroup'><property name='title'>General</property>"
    "<child><object class='GtkShortcutsShortcut'><property name='title'>Open a graph, sProgram or trace (or drop a file on the window)</property>"
    "<property name='accelerator'>&lt;Control&gt;o</property></object></child>"
    "<child><object class='GtkShortcutsShortcut'><property name='title'>Save / Save As</property>"
    "<property name='accelerator'>&lt;Control&gt;s &lt;Control&gt;&lt;Shift&gt;s</property></object></child>"
    "<child><object class='GtkShortcutsShortcut'><property name='title'>Undo / Redo</property>"
    "<property name='accelerator'>&lt;Control&gt;z &lt;Control&gt;&lt;Shift&gt;z</property></object></child>"
    "<child><object class='GtkShortcutsShortcut'><property name='title'>Keyboard shortcuts</property>"
    "<property name='accelerator'>&lt;Control&gt;question</property></object></child>"
    "<child><object class='GtkShortcutsShortcut'><property name='title'>Quit</property>"
    "<property name='accelerator'>&lt;Control&gt;q</property></object></child>"
    "</object></child>"
    "<child><object class='GtkShortcutsGroup'><property name='title'>Editing (the selected sTask)</property>"
    "<child><object class='GtkShortcutsShortcut'><property name='title'>Add a Wait (choose the sTask and distance)</property>"
    "<property name='accelerator'>&lt;Control&gt;d</property></object></child>"
    "<child><object class='GtkShortcutsShortcut'><property name='title'>Remove its last Wait</property>"
    "<property name='accelerator'>&lt;Control&gt;&lt;Shift&gt;d</property></object></child>"
    "<child><object class='GtkShortcutsShortcut'><property name='title'>Context menu of the selected bar (all its Waits)</property>"
    "<property name='accelerator'>&lt;Shift&gt;F10 Menu</property></object></child>"
    "</object></child>"
    "<child><object class='GtkShortcutsGroup'><property name='title'>View</property>"
    "<child><object class='GtkShortcutsShortcut'><property name='title'>Critical path and idle gaps</property>"
    "<property name='accelerator'>&lt;Control&gt;1</property></object></child>"
    "<child><object class='GtkShortcutsShortcut'><property name='title'>Several CTAs / waves as lane groups</property>"
    "<property name='accelerator'>&lt;Control&gt;2</property></object></child>"
    "<child><object class='GtkShortcutsShortcut'><property name='title'>Unroll the loop in the sTask-graph (or double-click the loop body)</property>"
    "<property name='accelerator'>&lt;Control&gt;3</property></object></child>"
    "<child><object class='GtkShortcutsShortcut'><property name='title'>Fit the timeline</property>"
    "<property name='accelerator'>&lt;Control&gt;0</property></object></child>"
    "<child><object class='GtkShortcutsShortcut'><property name='title'>Find sTasks on the timeline, or text on the Code page (Enter / Shift+Enter: next / previous)</property>"
    "<property name='accelerator'>&lt;Control&gt;f</property></object></child>"
    "<child><object class='GtkShortcutsShortcut'><property name='title'>Close the search, else clear the time range, else the selection</property>"
    "<property name='accelerator'>Escape</property></object></child>"
    "<child><object class='GtkShortcutsShortcut'><property name='title'>Show or hide the sidebar</property>"
    "<property name='accelerator'>F9</property></object></child>"
    "</object></child>"
    "<child><object class='GtkShortcutsGroup'><property name='title'>Actions</property>"
    "<child><object class='GtkShortcutsShortcut'><property name='title'>Auto-schedule</property>"
    "<property name='accelerator'>&lt;Control&gt;&lt;Shift&gt;a</property></object></child>"
    "<child><object class='GtkShortcutsShortcut'><property name='title'>Compile &amp; Profile</property>"
    "<property name='accelerator'>&lt;Control&gt;&lt;Shift&gt;p</property></object></child>"
    "<child><object class='GtkShortcutsShortcut'><property name='title'>Job log</property>"
    "<property name='accelerator'>&lt;Control&gt;&lt;Shift&gt;l</property></object></child>"
    "<child><object class='GtkShortcutsShortcut'><property name='title'>Preferences (remote command, timeouts)</property>"
    "<property name='accelerator'>&lt;Control&gt;comma</property></object></child>"
    "</object></child>"
    "<child><object class='GtkShortcutsGroup'><property name='title'>Timeline</property>"
    "<child><object class='GtkShortcutsShortcut'><property name='title'>Zoom in / out (Ctrl+wheel: about the pointer)</property>"
    "<property name='accelerator'>w s</property></object></child>"
    "<child><object class='GtkShortcutsShortcut'><property name='title'>Pan left / right (Shift+wheel too)</property>"
    "<property name='accelerator'>a d</property></object></child>"
    "<child><object class='GtkShortcutsShortcut'><property name='title'>Fit to window</property>"
    "<property name='accelerator'>f</property></object></child>"
    "<child><object class='GtkShortcutsShortcut'><property name='title'>Zoom to the time range (drag on the ruler or Shift+drag to select one)</property>"
    "<property name='accelerator'>z</property></object></child>"
    "<child><object class='GtkShortcutsShortcut'><property name='title'>Previous / next bar of the selected bar's lane (none selected: pan)</property>"
    "<property name='accelerator'>Left Right</property></object></child>"
    "<child><object class='GtkShortcutsShortcut'><property name='title'>The nearest bar on the lane above / below</property>"
    "<property name='accelerator'>Up Down</property></object></child>"
    "</object></child>"
    "</object></child></object></interface>";

void win_install_help_overlay(PtWindow *self)
{
    GtkBuilder *b = gtk_builder_new_from_string(help_overlay_ui, -1);
    GtkShortcutsWindow *overlay = GTK_SHORTCUTS_WINDOW(gtk_builder_get_object(b, "help_overlay"));
    gtk_application_window_set_help_overlay(GTK_APPLICATION_WINDOW(self), overlay);
    g_object_unref(b);
}
