/* menu_place.c — keeping the context menu inside the window (see menu_place.h). */
#include "menu_place.h"

void pt_menu_place(double px, double py, double mw, double mh, double ww, double wh,
                   double margin, double *ax, double *ay, bool *above)
{
    double lo = margin + mw / 2, hi = ww - margin - mw / 2;
    *ax = hi < lo ? ww / 2 : px < lo ? lo : px > hi ? hi : px;
    double below = wh - margin - py, over = py - margin;
    *above = mh > below && over > below;
    /* A menu taller than the room on its side still starts inside: its own scrolling takes
     * the rest. */
    *ay = py < margin ? margin : py > wh - margin ? wh - margin : py;
}
