/* kt_enospc.c — a full disk for one file, as an LD_PRELOAD shim (test_kc_warm.c).
 *
 * With KT_ENOSPC_BYTES=N in the environment, a write to a file named data.mdb (LMDB's data file:
 * pwrite, write or writev, the calls liblmdb makes) that would end past byte N fails with ENOSPC,
 * as on a file system that has room for N bytes of it. Everything else passes through. Built
 * without sanitizers (it runs inside the tool, before its own runtime is set up).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

static long long room(void)
{
    const char *v = getenv("KT_ENOSPC_BYTES");
    return v != NULL ? atoll(v) : -1;
}

static int is_data_file(int fd)
{
    char link[64], path[4096];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, path, sizeof path - 1);
    if (n < 9)
        return 0;
    path[n] = '\0';
    return strcmp(path + n - 9, "/data.mdb") == 0;
}

/* Would a write of n bytes at off (-1: the file offset) pass the room? */
static int full(int fd, off_t off, size_t n)
{
    long long limit = room();
    if (limit < 0 || !is_data_file(fd))
        return 0;
    if (off < 0)
        off = lseek(fd, 0, SEEK_CUR);
    return off >= 0 && (long long)off + (long long)n > limit;
}

/* The next definition of `name` (libc's, or a sanitizer's interceptor) into *fn. */
static void next(const char *name, void *fn)
{
    void *p = dlsym(RTLD_NEXT, name);
    memcpy(fn, &p, sizeof p);
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
    ssize_t (*real)(int, const void *, size_t, off_t);
    next("pwrite", &real);
    if (full(fd, off, n)) {
        errno = ENOSPC;
        return -1;
    }
    return real(fd, buf, n, off);
}

ssize_t write(int fd, const void *buf, size_t n)
{
    ssize_t (*real)(int, const void *, size_t);
    next("write", &real);
    if (full(fd, -1, n)) {
        errno = ENOSPC;
        return -1;
    }
    return real(fd, buf, n);
}

ssize_t writev(int fd, const struct iovec *iov, int count)
{
    ssize_t (*real)(int, const struct iovec *, int);
    next("writev", &real);
    size_t n = 0;
    for (int i = 0; i < count; i++)
        n += iov[i].iov_len;
    if (full(fd, -1, n)) {
        errno = ENOSPC;
        return -1;
    }
    return real(fd, iov, count);
}
