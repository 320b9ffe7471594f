/* base64.c — the encodings a trace buffer travels in: base64 (RFC 4648) and od's hex. */
#include "run_parts.h"

#include <stdlib.h>

static int b64_val(int c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    if (c == '+')
        return 62;
    if (c == '/')
        return 63;
    return -1;
}

bool pt_base64_decode(const char *text, size_t len, unsigned char **out, size_t *out_len)
{
    unsigned char *o = malloc(len / 4 * 3 + 4);
    if (!o)
        return false;
    size_t n = 0;
    uint32_t acc = 0;
    int bits = 0, pad = 0;
    for (size_t i = 0; i < len; i++) {
        int c = (unsigned char)text[i];
        if (c == ' ' || c == '\n' || c == '\r' || c == '\t')
            continue;
        if (c == '=') {
            pad++;
            continue;
        }
        int v = b64_val(c);
        if (v < 0 || pad) { /* a bad character, or data after padding */
            free(o);
            return false;
        }
        acc = (acc << 6) | (uint32_t)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            o[n++] = (unsigned char)(acc >> bits);
        }
    }
    if (pad > 2 || bits >= 6) {
        free(o);
        return false;
    }
    *out = o;
    *out_len = n;
    return true;
}

char *pt_base64_encode(const unsigned char *data, size_t len)
{
    static const char a[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t chars = (len + 2) / 3 * 4;
    char *o = malloc(chars + chars / 76 + 2);
    if (!o)
        return NULL;
    size_t n = 0, col = 0;
    for (size_t i = 0; i < len; i += 3) {
        uint32_t v = (uint32_t)data[i] << 16;
        if (i + 1 < len)
            v |= (uint32_t)data[i + 1] << 8;
        if (i + 2 < len)
            v |= data[i + 2];
        char q[4] = {a[(v >> 18) & 63], a[(v >> 12) & 63], i + 1 < len ? a[(v >> 6) & 63] : '=',
                     i + 2 < len ? a[v & 63] : '='};
        for (int k = 0; k < 4; k++) {
            o[n++] = q[k];
            if (++col == 76) {
                o[n++] = '\n';
                col = 0;
            }
        }
    }
    if (col)
        o[n++] = '\n';
    o[n] = 0;
    return o;
}

bool run_hex_decode(const char *text, size_t len, unsigned char **out, size_t *out_len)
{
    unsigned char *o = malloc(len / 2 + 1);
    if (!o)
        return false;
    size_t n = 0;
    int hi = -1;
    for (size_t i = 0; i < len; i++) {
        int c = (unsigned char)text[i], v;
        if (c == ' ' || c == '\n' || c == '\r' || c == '\t') {
            if (hi >= 0) { /* od prints two digits per byte */
                free(o);
                return false;
            }
            continue;
        }
        if (c >= '0' && c <= '9')
            v = c - '0';
        else if (c >= 'a' && c <= 'f')
            v = c - 'a' + 10;
        else if (c >= 'A' && c <= 'F')
            v = c - 'A' + 10;
        else {
            free(o);
            return false;
        }
        if (hi < 0)
            hi = v;
        else {
            o[n++] = (unsigned char)(hi << 4 | v);
            hi = -1;
        }
    }
    if (hi >= 0) {
        free(o);
        return false;
    }
    *out = o;
    *out_len = n;
    return true;
}
