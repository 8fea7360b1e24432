/* base_b64.c — base64 (RFC 4648, standard alphabet, padded) for binary blobs carried in JSON. */
#include <string.h>

#include "base/base.h"

static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

void base_b64_encode(const void *data, size_t n, base_sb *out)
{
    const uint8_t *p = data;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16;
        if (i + 1 < n)
            v |= (uint32_t)p[i + 1] << 8;
        if (i + 2 < n)
            v |= p[i + 2];
        char q[4] = {alphabet[v >> 18], alphabet[(v >> 12) & 63], i + 1 < n ? alphabet[(v >> 6) & 63] : '=',
                     i + 2 < n ? alphabet[v & 63] : '='};
        base_sb_putn(out, q, 4);
    }
}

static int digit(char c)
{
    const char *at = c != '\0' ? strchr(alphabet, c) : NULL;
    return at != NULL ? (int)(at - alphabet) : -1;
}

bool base_b64_decode(const char *text, size_t n, base_sb *out)
{
    if (n % 4 != 0)
        return false;
    for (size_t i = 0; i < n; i += 4) {
        bool last = i + 4 == n;
        int pad = last ? (text[i + 3] == '=') + (text[i + 2] == '=') : 0;
        if (pad == 1 && text[i + 2] == '=') /* "x=y=" style: not base64 */
            return false;
        uint32_t v = 0;
        for (int j = 0; j < 4 - pad; j++) {
            int d = digit(text[i + j]);
            if (d < 0)
                return false;
            v |= (uint32_t)d << (18 - 6 * j);
        }
        char b[3] = {(char)(v >> 16), (char)(v >> 8), (char)v};
        base_sb_putn(out, b, (size_t)(3 - pad));
    }
    return !out->oom;
}
