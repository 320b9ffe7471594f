/* menu_place.h — where the timeline's context menu opens so that all of it stays inside the
 * window (issue 19: near the right or bottom edge it was cut off). GTK places a popover's popup
 * against the monitor only, not the window: the owner picks the point and side itself. Plain C,
 * no GTK, so the rule is tested without a display. */
#ifndef PT_MENU_PLACE_H
#define PT_MENU_PLACE_H

#include <stdbool.h>

/* The pointer at (px, py) and a menu of mw x mh, all in the window's coordinates (0..ww,
 * 0..wh), kept `margin` from its edges. The menu is centred on *ax (below the point *ay, or
 * above it when *above): *ax is the pointer's x slid just enough to keep the menu in, *ay the
 * pointer's y; it opens above when it does not fit below and there is more room above. */
void pt_menu_place(double px, double py, double mw, double mh, double ww, double wh,
                   double margin, double *ax, double *ay, bool *above);

#endif
