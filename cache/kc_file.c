/* kc_file.c — data.mdb read without LMDB: its meta pages and its pages, for the check before
 * LMDB maps a file (kc_check.c), the tree walk (kc_walk.c) and verify (kc_verify.c).
 *
 * LMDB trusts its file: it maps it, and a page the metadata names beyond the end of a file cut
 * short (a full disk, a partial copy) kills the process with SIGBUS inside mdb_dbi_open; a
 * damaged page header makes it read or copy far outside the page. Everything here reads with
 * pread(2) and checks every number against the file before using it.
 *
 * Owns the on-disk layout of LMDB 0.9 (MDB_DATA_VERSION 1) on 64-bit little-endian hosts, as
 * far as these checks need it (elsewhere they report every file as fine):
 *   page:  pgno u64 @0, pad u16 @8, flags u16 @10, lower u16 @12, upper u16 @14 (an overflow
 *          page: its page count u32 @12), node offsets u16 from @16 (PAGEHDRSZ)
 *   meta:  pages 0 and 1; magic u32 @16, version u32 @20, mapsize u64 @32, the free-list
 *          MDB_db @40 (its first u32 is the page size), the main MDB_db @88, last page u64 @136,
 *          txnid u64 @144; LMDB opens the one with the higher txnid
 *   MDB_db (48 bytes): flags u16 @4, depth u16 @6, root u64 @40 (all ones: empty)
 *   node:  lo u16 @0, hi u16 @2, flags u16 @4, key size u16 @6, key then data from @8; data
 *          size lo | hi << 16; a branch node's child page lo | hi << 16 | flags << 32
 * The tree walk itself is kc_walk.c, the check before LMDB maps the file kc_check.c; this file
 * calls neither (they call it).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cache/kc_int.h"

#define META_BYTES 152
#define MAGIC 0xBEEFC0DEu
#define DATA_VERSION 1u
#define DEVEL_VERSION 999u
#define MIN_PSIZE 512u
#define MAX_PSIZE 32768u
/* x86-64 and AArch64 Linux give a process 2^47 bytes of address space: a larger map cannot be
 * made (mdb_env_open fails with ENOMEM, a bit flipped in a meta page's map size did that), and
 * half of it leaves room for the rest of the process. */
#define MAX_MAP (1ull << 46)

uint16_t kc__u16(const uint8_t *p)
{
    uint16_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

uint32_t kc__u32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

uint64_t kc__u64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

bool kc__file_layout_known(void)
{
    const uint16_t one = 1;
    uint8_t first;
    memcpy(&first, &one, 1);
    return sizeof(size_t) == 8 && first == 1;
}

/* ---- meta pages -------------------------------------------------------------------------------- */

static const char *meta_parse(const uint8_t *b, kc_meta *m, bool *foreign)
{
    if (!(kc__u16(b + 10) & KC_P_META))
        return "a meta page is not marked as one";
    if (kc__u32(b + 16) != MAGIC)
        return "not an LMDB file (bad magic number)";
    if (kc__u32(b + 20) == DEVEL_VERSION) {
        *foreign = true; /* LMDB's development format: LMDB refuses it, our business ends here */
        return "written by another LMDB data version";
    }
    if (kc__u32(b + 20) != DATA_VERSION)
        return "its meta page names no LMDB data version";
    m->psize = kc__u32(b + 40);
    m->mapsize = kc__u64(b + 32);
    m->free_root = kc__u64(b + 40 + KC_DB_ROOT);
    m->main_root = kc__u64(b + 88 + KC_DB_ROOT);
    m->last_pg = kc__u64(b + 136);
    m->txnid = kc__u64(b + 144);
    if (m->psize < MIN_PSIZE || m->psize > MAX_PSIZE || (m->psize & (m->psize - 1)) != 0)
        return "its page size is not a power of two between 512 and 32768";
    if (m->last_pg < 1)
        return "its last page number is below the meta pages";
    if (kc__u16(b + 88 + 4) & (KC_STORE_DUPSORT | KC_STORE_INTEGERKEY))
        return "its main tree is marked as sorted duplicates or integer keys, which hides our tables";
    if (m->mapsize > MAX_MAP || m->last_pg >= MAX_MAP / m->psize)
        return "its map size or last page lies beyond any address space";
    return NULL;
}

/* Meta page `slot` (0 or 1); at slot 1 the page size comes from slot 0. */
static const char *meta_read(kc_file *f, int slot, uint32_t psize, kc_meta *m, bool *foreign)
{
    uint8_t b[META_BYTES];
    off_t at = slot == 0 ? 0 : (off_t)psize;
    ssize_t n = pread(f->fd, b, sizeof b, at);
    if (n != (ssize_t)sizeof b)
        return n < 0 ? "cannot be read" : slot == 0 ? "shorter than its first meta page" : "shorter than its second meta page";
    return meta_parse(b, m, foreign);
}

/* The file's size now; the file only grows, and LMDB writes a snapshot's pages before its meta
 * page, so a size taken after reading a meta page covers every page that meta page names. */
static bool refresh_size(kc_file *f)
{
    struct stat st;
    if (fstat(f->fd, &st) != 0)
        return false;
    f->size = (uint64_t)st.st_size;
    f->pages = f->meta.psize != 0 ? f->size / f->meta.psize : 0;
    return true;
}

kc_file_state kc__file_open(const char *path, kc_file *f, char *why, size_t why_size)
{
    *f = (kc_file){.fd = -1};
    why[0] = '\0';
    f->fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (f->fd < 0 || !refresh_size(f)) {
        snprintf(why, why_size, "%s", strerror(errno));
        return errno == ENOENT ? KC_FILE_ABSENT : KC_FILE_UNREADABLE;
    }
    if (f->size == 0 || !kc__file_layout_known())
        return f->size == 0 ? KC_FILE_EMPTY : KC_FILE_OK; /* LMDB starts an empty file afresh */
    kc_meta m0, m1;
    bool foreign = false;
    const char *bad = meta_read(f, 0, 0, &m0, &foreign);
    if (bad == NULL)
        bad = meta_read(f, 1, m0.psize, &m1, &foreign);
    if (bad != NULL) {
        snprintf(why, why_size, "%s", bad);
        return foreign ? KC_FILE_FOREIGN : KC_FILE_DAMAGED;
    }
    f->meta = m0.txnid < m1.txnid ? m1 : m0; /* as mdb_env_read_header picks */
    if (!refresh_size(f)) {
        snprintf(why, why_size, "%s", strerror(errno));
        return KC_FILE_UNREADABLE;
    }
    return KC_FILE_OK;
}

bool kc__file_meta_slot(kc_file *f, int slot, kc_meta *out)
{
    kc_meta a, b;
    bool foreign = false;
    for (int attempt = 0; attempt < 8; attempt++) { /* a writer may be rewriting it: read it twice */
        memset(&a, 0, sizeof a), memset(&b, 0, sizeof b); /* compared bytewise, padding included */
        if (meta_read(f, slot, f->meta.psize, &a, &foreign) != NULL ||
            meta_read(f, slot, f->meta.psize, &b, &foreign) != NULL)
            return false;
        if (memcmp(&a, &b, sizeof a) == 0 && a.psize == f->meta.psize) {
            *out = a;
            return refresh_size(f);
        }
    }
    return false;
}

void kc__file_close(kc_file *f)
{
    if (f->fd >= 0)
        close(f->fd);
    f->fd = -1;
}

bool kc__file_read(kc_file *f, uint64_t pgno, uint64_t offset, void *buf, size_t len)
{
    uint64_t at = pgno * f->meta.psize + offset;
    uint8_t *p = buf;
    while (len > 0) {
        ssize_t n = pread(f->fd, p, len > (1u << 30) ? (1u << 30) : len, (off_t)at);
        if (n <= 0)
            return false;
        p += n, at += (uint64_t)n, len -= (size_t)n;
    }
    return true;
}
