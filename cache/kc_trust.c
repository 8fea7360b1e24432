/* kc_trust.c — whether a cache directory may be used at all.
 *
 * A kernel record is code this process will load and run, and its key (XXH3) is no MAC: anyone
 * who can write the directory can plant one. And LMDB opens lock.mdb and data.mdb itself,
 * following symbolic links, and writes both: a link planted in a shared directory makes the
 * next user's cache write the link's target. So a directory is used only when:
 *   - it is owned by this process's effective user and neither group nor others may write it;
 *   - lock.mdb and data.mdb are absent, or regular files (lstat: not links) owned by that user
 *     that neither group nor others may write.
 * Otherwise kc_open does not touch it (memory mode with a warning saying why; an error under
 * `strict`). Parent directories are not checked (see cache/README.md, "Trust"). The check runs
 * before LMDB opens anything; the directory being ours, nobody else can swap a file in between.
 * Our own opens of these files use O_NOFOLLOW besides.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cache/kc_int.h"

static bool owner_only(const struct stat *st, const char *what, char *why, size_t why_size)
{
    if (st->st_uid != geteuid()) {
        snprintf(why, why_size, "%s belongs to uid %lu, not to this user (uid %lu): its owner could plant "
                 "kernels this process would run", what, (unsigned long)st->st_uid, (unsigned long)geteuid());
        return false;
    }
    if (st->st_mode & (S_IWGRP | S_IWOTH)) {
        snprintf(why, why_size, "%s is writable by %s (mode %04o): they could plant kernels this process "
                 "would run", what, (st->st_mode & S_IWOTH) ? "other users" : "its group",
                 (unsigned)(st->st_mode & 07777));
        return false;
    }
    return true;
}

/* A file of the cache: absent, or a regular file of ours. */
static bool file_ok(const char *dir, const char *name, char *why, size_t why_size)
{
    char path[PATH_MAX];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (lstat(path, &st) != 0)
        return errno == ENOENT || errno == ENAMETOOLONG; /* absent (a long name fails later) */
    if (S_ISLNK(st.st_mode)) {
        snprintf(why, why_size, "its %s is a symbolic link: LMDB would write where it points", name);
        return false;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(why, why_size, "its %s is not a regular file", name);
        return false;
    }
    return owner_only(&st, name, why, why_size);
}

bool kc__trusted(const char *dir, const struct stat *st, char *why, size_t why_size)
{
    char reason[KC_WHY_MAX] = "";
    if (owner_only(st, "the directory", reason, sizeof reason) && file_ok(dir, "lock.mdb", reason, sizeof reason) &&
        file_ok(dir, "data.mdb", reason, sizeof reason))
        return true;
    snprintf(why, why_size, "not trusted: %s", reason);
    return false;
}
