/* render_check.h — what the display-free render tests share: the project's check macros
 * (tests/ptest.h) and reading one pixel of a cairo image surface. */
#ifndef RENDER_CHECK_H
#define RENDER_CHECK_H

#include <cairo.h>
#include <stdint.h>

#include "../ptest.h"

/* RGB of pixel (x, y) of an ARGB32/RGB24 image surface (flushed by the caller). */
static inline uint32_t pixel(cairo_surface_t *s, int x, int y)
{
    unsigned char *d = cairo_image_surface_get_data(s);
    int stride = cairo_image_surface_get_stride(s);
    return *(uint32_t *)(d + y * stride + x * 4) & 0xffffff;
}

#endif
