/* base_sb.c — a growable NUL-terminated string builder (used by dumps, JSON, messages). */
#include <stdio.h>
#include <string.h>

#include "base/base.h"

static bool grow(base_sb *sb, size_t extra)
{
    if (sb->oom)
        return false;
    if (sb->len + extra + 1 <= sb->cap)
        return true;
    size_t cap = sb->cap ? sb->cap : 64;
    while (cap < sb->len + extra + 1)
        cap *= 2;
    char *p = base_realloc(sb->p, cap);
    if (p == NULL) {
        sb->oom = true;
        return false;
    }
    sb->p = p;
    sb->cap = cap;
    return true;
}

void base_sb_putn(base_sb *sb, const char *s, size_t n)
{
    if (!grow(sb, n))
        return;
    memcpy(sb->p + sb->len, s, n);
    sb->len += n;
    sb->p[sb->len] = '\0';
}

void base_sb_puts(base_sb *sb, const char *s) { base_sb_putn(sb, s, strlen(s)); }

void base_sb_printf(base_sb *sb, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || !grow(sb, (size_t)n))
        return;
    va_start(ap, fmt);
    vsnprintf(sb->p + sb->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    sb->len += (size_t)n;
}

void base_sb_free(base_sb *sb)
{
    base_free(sb->p);
    *sb = (base_sb){0};
}

const char *base_sb_str(const base_sb *sb) { return sb->p ? sb->p : ""; }
