/* kc_walk.c — walking data.mdb's B-trees without LMDB, every number checked before it is used.
 *
 * From one meta page: the main tree (it names our three tables: "kernels", "plans",
 * "last_used"), then on request the free-page list and each table, depth first, pages read with
 * pread(2) (kc_file.c). A page is damaged when its number is out of range (below 2, past the
 * meta's last page, or past the end of the file), it was reached before (a cycle or a shared
 * page), its header does not match (number, kind, free-space bounds), or a node does not fit in
 * it; an overflow run must lie within the file and start with a matching header. A damaged page
 * is reported (ops->damage) and skipped with everything below it; the walk goes on with the rest.
 * With ops->values, each record of our tables is handed to ops->record: the key and the value,
 * read from the leaf or its overflow pages (the value buffer is the walker's, valid during the
 * call). The free list's values (page-number lists) are checked too: every listed page in range.
 *
 * Used by the open check (kc_check.c: structure only) and by verify and its repair (kc_verify.c,
 * kc_repair.c). It never writes. Not owned: what a record means (kc_record.c).
 */
#include <errno.h>
#include <string.h>

#include "cache/kc_int.h"

#define DEPTH_MAX 32 /* LMDB's cursor stack */
#define F_BIGDATA 0x01
#define F_SUBDATA 0x02
#define F_DUPDATA 0x04
#define NODESIZE 8

typedef struct walker {
    kc_file *f;
    const kc_meta *m;
    const kc_walk_ops *ops;
    uint8_t *seen;                 /* a bit per page below min(last_pg + 1, pages in the file) */
    uint8_t *buf[DEPTH_MAX];       /* one page per level */
    uint8_t *val;                  /* an overflow value */
    size_t val_cap;
    uint64_t roots[KC_N_DBI];      /* from the main tree; KC_NO_PAGE: absent or empty */
    int rc;                        /* 0, ENOMEM or what ops->record returned: stop */
} walker;

const char *kc__walk_table_name(int t)
{
    switch (t) {
    case KC_WALK_T_MAIN: return "the main tree";
    case KC_WALK_T_FREE: return "the free-page list";
    case KC_DBI_KERNEL: return "the kernels table";
    case KC_DBI_PLAN: return "the plans table";
    case KC_DBI_ATIME: return "the last_used table";
    }
    return "an unknown tree";
}

static void damage(walker *w, int t, uint64_t pgno, const char *why)
{
    if (w->ops->damage != NULL)
        w->ops->damage(w->ops->ctx, t, pgno, why);
}

static bool seen(const walker *w, uint64_t pg) { return (w->seen[pg / 8] >> (pg % 8)) & 1; }
static void mark(walker *w, uint64_t pg) { w->seen[pg / 8] |= (uint8_t)(1u << (pg % 8)); }

/* Why pages first .. first + n - 1 cannot be part of the tree, or NULL (then they are marked). */
static const char *claim(walker *w, uint64_t first, uint64_t n)
{
    if (first < 2)
        return "a reference to a meta page";
    if (n == 0 || first > w->m->last_pg || n - 1 > w->m->last_pg - first)
        return "a page number past the last page in use";
    if (first >= w->f->pages || n > w->f->pages - first)
        return "a page past the end of the file (the file was cut short)";
    for (uint64_t p = first; p < first + n; p++)
        if (seen(w, p))
            return "a page reached twice (a loop or a shared page)";
    for (uint64_t p = first; p < first + n; p++)
        mark(w, p);
    return NULL;
}

/* Checks a tree page's header; its key count in *nkeys. */
static const char *page_header(const walker *w, const uint8_t *p, uint64_t pgno, bool *leaf, unsigned *nkeys)
{
    uint16_t flags = kc__u16(p + 10), lower = kc__u16(p + 12), upper = kc__u16(p + 14);
    uint16_t kind = flags & (KC_P_BRANCH | KC_P_LEAF | KC_P_OVERFLOW | KC_P_META | KC_P_LEAF2 | KC_P_SUBP);
    if (kc__u64(p) != pgno)
        return "its header names another page";
    if (kind != KC_P_BRANCH && kind != KC_P_LEAF)
        return "neither a branch nor a plain leaf page";
    if (lower < KC_PAGEHDRSZ || (lower - KC_PAGEHDRSZ) % 2 != 0 || lower > upper || upper > w->m->psize)
        return "its free-space bounds are impossible";
    *leaf = kind == KC_P_LEAF;
    *nkeys = (lower - KC_PAGEHDRSZ) / 2u;
    return *nkeys == 0 && !*leaf ? "a branch page without children" : NULL;
}

/* The node at index i of a page; NULL (and *why) when it does not fit. */
static const uint8_t *node_at(const walker *w, const uint8_t *p, unsigned i, const char **why)
{
    uint32_t psize = w->m->psize;
    uint16_t off = kc__u16(p + KC_PAGEHDRSZ + 2 * i);
    if (off < kc__u16(p + 14) || (uint32_t)off + NODESIZE > psize) {
        *why = "a node offset outside the page's node area";
        return NULL;
    }
    if ((uint32_t)off + NODESIZE + kc__u16(p + off + 6) > psize) {
        *why = "a key running past the end of its page";
        return NULL;
    }
    return p + off;
}

static bool val_room(walker *w, size_t n)
{
    if (n <= w->val_cap)
        return true;
    uint8_t *v = base_realloc(w->val, n);
    if (v == NULL) {
        w->rc = ENOMEM;
        return false;
    }
    w->val = v, w->val_cap = n;
    return true;
}

/* A big value's overflow run: checked, claimed, and (when wanted) read into w->val. */
static const char *overflow(walker *w, uint64_t ovpg, uint64_t size, bool want)
{
    uint32_t psize = w->m->psize;
    uint64_t n = (KC_PAGEHDRSZ - 1 + size) / psize + 1;
    uint8_t hdr[KC_PAGEHDRSZ];
    if (ovpg < 2 || ovpg >= w->f->pages)
        return claim(w, ovpg, n);
    if (!kc__file_read(w->f, ovpg, 0, hdr, sizeof hdr))
        return "an overflow page that cannot be read";
    uint64_t pages = kc__u32(hdr + 12);
    if (kc__u64(hdr) != ovpg || !(kc__u16(hdr + 10) & KC_P_OVERFLOW) || pages < n)
        return "an overflow run whose header does not match its value";
    const char *why = claim(w, ovpg, pages);
    if (why != NULL || !want)
        return why;
    if (!val_room(w, size > 0 ? (size_t)size : 1))
        return NULL;
    return kc__file_read(w->f, ovpg, KC_PAGEHDRSZ, w->val, (size_t)size) ? NULL : "an overflow run that cannot be read";
}

/* A free-list value: a count, then that many page numbers, each in range. */
static const char *idl_check(const walker *w, const uint8_t *v, uint64_t size)
{
    if (size < 8 || size % 8 != 0 || kc__u64(v) != size / 8 - 1)
        return "a free-page list whose count does not match its size";
    for (uint64_t i = 1; i < size / 8; i++) {
        uint64_t pg = kc__u64(v + 8 * i);
        if (pg < 2 || pg > w->m->last_pg)
            return "a free-page list naming a page out of range";
    }
    return NULL;
}

/* A main-tree entry: one of our tables (a sub-database record) is noted. */
static const char *main_entry(walker *w, const uint8_t *node, const uint8_t *data, uint64_t size)
{
    static const char *const names[KC_N_DBI] = {"kernels", "plans", "last_used"};
    uint16_t flags = kc__u16(node + 4), ksize = kc__u16(node + 6);
    int i = 0;
    while (i < KC_N_DBI && !(ksize == strlen(names[i]) && memcmp(node + NODESIZE, names[i], ksize) == 0))
        i++;
    if (i == KC_N_DBI)
        return NULL; /* not one of our tables: not ours to judge */
    if ((flags & (F_SUBDATA | F_DUPDATA | F_BIGDATA)) != F_SUBDATA || size != KC_DB_SIZE)
        return "the record of one of our tables has the wrong kind or size";
    if (kc__u16(data + 4) != 0)
        return "one of our tables has flags it was never created with";
    w->roots[i] = kc__u64(data + KC_DB_ROOT);
    return NULL;
}

/* A leaf node of tree t: its value checked (and read), then handed on. */
static const char *leaf_node(walker *w, int t, const uint8_t *p, const uint8_t *node)
{
    uint16_t flags = kc__u16(node + 4), ksize = kc__u16(node + 6);
    uint64_t size = kc__u16(node) | (uint64_t)kc__u16(node + 2) << 16;
    size_t at = (size_t)(node - p) + NODESIZE + ksize;
    bool ours = t >= 0, want = (w->ops->values && ours) || t == KC_WALK_T_FREE;
    if (flags & (t == KC_WALK_T_MAIN ? 0 : F_SUBDATA | F_DUPDATA))
        return "a node marked as holding duplicates or a table";
    const uint8_t *data = node + NODESIZE + ksize;
    if (flags & F_BIGDATA) {
        if (at + 8 > w->m->psize)
            return "an overflow reference running past its page";
        const char *why = overflow(w, kc__u64(data), size, want);
        if (why != NULL || w->rc != 0)
            return why;
        data = w->val;
    } else if (at + size > w->m->psize) {
        return "a value running past the end of its page";
    }
    if (t == KC_WALK_T_MAIN)
        return main_entry(w, node, data, size);
    if (t == KC_WALK_T_FREE)
        return want ? idl_check(w, data, size) : NULL;
    if (want && w->ops->record != NULL)
        w->rc = w->ops->record(w->ops->ctx, t, node + NODESIZE, ksize, data, (size_t)size);
    return NULL;
}

/* ---- key order --------------------------------------------------------------------------------
 * LMDB finds a key by binary search through the branch pages' separator keys: a flipped byte
 * there hides records from every lookup, though each record is intact. So within a page the keys
 * must rise, and lie within the range the parent's separators give the page: [lo, hi). Keys
 * compare as LMDB's default does (bytes, then length). Not checked in the free-page list (its
 * keys are integers). A page out of order is reported, and its children are still walked (with
 * the parent's range): their records carry their own keys and are checked one by one. */

typedef struct span {
    const uint8_t *lo, *hi;      /* NULL: unbounded */
    size_t lo_len, hi_len;
} span;

static int key_cmp(const uint8_t *a, size_t al, const uint8_t *b, size_t bl)
{
    int d = memcmp(a, b, al < bl ? al : bl);
    return d != 0 ? d : al < bl ? -1 : al > bl;
}

static const uint8_t *key_of(const walker *w, const uint8_t *p, unsigned i, size_t *len)
{
    const char *why;
    const uint8_t *node = node_at(w, p, i, &why);
    *len = node != NULL ? kc__u16(node + 6) : 0;
    return node != NULL ? node + NODESIZE : NULL;
}

static bool in_order(const walker *w, const uint8_t *p, unsigned n, bool leaf, span s)
{
    const uint8_t *prev = s.lo;
    size_t prev_len = s.lo_len;
    for (unsigned i = leaf ? 0 : 1; i < n; i++) { /* a branch's first key is empty: its range's lo */
        size_t len;
        const uint8_t *k = key_of(w, p, i, &len);
        if (k == NULL)
            continue; /* reported by the walk */
        int c = prev != NULL ? key_cmp(prev, prev_len, k, len) : -1;
        if (c > 0 || (c == 0 && prev != s.lo) || (s.hi != NULL && key_cmp(k, len, s.hi, s.hi_len) >= 0))
            return false;
        prev = k, prev_len = len;
    }
    return true;
}

/* Child i's range: between separators i and i + 1 (the page's own range at the ends). */
static span child_span(const walker *w, const uint8_t *p, unsigned i, unsigned n, span s, bool ordered)
{
    span c = s;
    if (!ordered)
        return c;
    if (i > 0)
        c.lo = key_of(w, p, i, &c.lo_len);
    if (i + 1 < n)
        c.hi = key_of(w, p, i + 1, &c.hi_len);
    return c;
}

/* ---- pages ------------------------------------------------------------------------------------ */

static void visit(walker *w, int t, uint64_t pgno, int level, span s);

static void visit_nodes(walker *w, int t, uint64_t pgno, int level, const uint8_t *p, bool leaf, unsigned n,
                        span s)
{
    bool ordered = t == KC_WALK_T_FREE || in_order(w, p, n, leaf, s);
    if (!ordered)
        damage(w, t, pgno, "keys out of order (lookups would miss records)");
    for (unsigned i = 0; i < n && w->rc == 0; i++) {
        const char *why = NULL;
        const uint8_t *node = node_at(w, p, i, &why);
        if (node == NULL) {
            damage(w, t, pgno, why);
            continue;
        }
        if (!leaf)
            visit(w, t, kc__u16(node) | (uint64_t)kc__u16(node + 2) << 16 | (uint64_t)kc__u16(node + 4) << 32,
                  level + 1, child_span(w, p, i, n, s, ordered));
        else if ((why = leaf_node(w, t, p, node)) != NULL)
            damage(w, t, pgno, why);
    }
}

static void visit(walker *w, int t, uint64_t pgno, int level, span s)
{
    if (w->rc != 0)
        return;
    const char *why = level >= DEPTH_MAX ? "a tree deeper than LMDB allows" : claim(w, pgno, 1);
    if (why == NULL && w->buf[level] == NULL && (w->buf[level] = base_malloc(w->m->psize)) == NULL) {
        w->rc = ENOMEM;
        return;
    }
    uint8_t *p = why == NULL ? w->buf[level] : NULL;
    if (why == NULL && !kc__file_read(w->f, pgno, 0, p, w->m->psize))
        why = "a page that cannot be read";
    bool leaf = false;
    unsigned n = 0;
    if (why == NULL)
        why = page_header(w, p, pgno, &leaf, &n);
    if (why != NULL) {
        damage(w, t, pgno, why);
        return;
    }
    visit_nodes(w, t, pgno, level, p, leaf, n, s);
}

/* A tree that is not walked: its root page's header only. */
static void root_only(walker *w, int t, uint64_t root)
{
    uint8_t hdr[KC_PAGEHDRSZ];
    bool leaf;
    unsigned n;
    const char *why = claim(w, root, 1);
    if (why == NULL && !kc__file_read(w->f, root, 0, hdr, sizeof hdr))
        why = "a page that cannot be read";
    if (why == NULL)
        why = page_header(w, hdr, root, &leaf, &n);
    if (why != NULL)
        damage(w, t, root, why);
}

static void tree(walker *w, int t, unsigned bit, uint64_t root)
{
    if (root == KC_NO_PAGE || w->rc != 0)
        return;
    if (w->ops->tables & bit)
        visit(w, t, root, 0, (span){0});
    else
        root_only(w, t, root);
}

static int walk_trees(walker *w)
{
    visit(w, KC_WALK_T_MAIN, w->m->main_root, 0, (span){0}); /* finds our tables' roots */
    tree(w, KC_WALK_T_FREE, KC_WALK_FREE, w->m->free_root);
    for (int t = 0; t < KC_N_DBI; t++)
        tree(w, t, 1u << t, w->roots[t]);
    return w->rc;
}

int kc__walk(kc_file *f, const kc_meta *m, const kc_walk_ops *ops)
{
    if (!kc__file_layout_known())
        return 0;
    walker w = {.f = f, .m = m, .ops = ops};
    for (int t = 0; t < KC_N_DBI; t++)
        w.roots[t] = KC_NO_PAGE;
    uint64_t bits = m->last_pg + 1 < f->pages ? m->last_pg + 1 : f->pages;
    w.seen = base_calloc((size_t)(bits / 8 + 1), 1);
    if (w.seen == NULL)
        return ENOMEM;
    int rc = m->main_root == KC_NO_PAGE ? 0 : walk_trees(&w); /* no main tree: no tables yet */
    for (int i = 0; i < DEPTH_MAX; i++)
        base_free(w.buf[i]);
    base_free(w.val);
    base_free(w.seen);
    return rc;
}
