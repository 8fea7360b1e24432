/* kc_check.c — the check made before LMDB maps dir/data.mdb (kc_mode.c at open, kc_repair.c
 * again under the exclusive lock before moving a file aside).
 *
 * LMDB trusts its file: a page the metadata names beyond the end of a file cut short kills the
 * process with SIGBUS inside mdb_dbi_open. So both meta pages are read (kc_file.c), then the
 * main tree and the root pages of our tables; when the file is shorter than its last page (LMDB
 * may leave free pages at the end unwritten, so that alone is not damage) every tree is walked
 * (kc_walk.c) for a page past the end. Nothing protects the pages read from reuse by another
 * process's commit, so damage seen while the newest meta page changed is looked at again.
 * Owns the verdict only; reading pages is kc_file.c, walking trees kc_walk.c.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>

#include "cache/kc_int.h"

static void first_damage(void *ctx, int table, uint64_t pgno, const char *why)
{
    char *out = ctx;
    if (out[0] == '\0')
        snprintf(out, KC_WHY_MAX, "page %llu of %s: %s", (unsigned long long)pgno, kc__walk_table_name(table), why);
}

/* One check of the newest meta page's trees; *txnid: that meta page's. */
static kc_file_state check_once(const char *path, char *why, size_t why_size, uint64_t *txnid)
{
    kc_file f;
    kc_file_state s = kc__file_open(path, &f, why, why_size);
    *txnid = f.meta.txnid;
    if (s != KC_FILE_OK || !kc__file_layout_known()) {
        kc__file_close(&f);
        return s == KC_FILE_DAMAGED ? s : KC_FILE_OK; /* LMDB reports the rest itself */
    }
    uint64_t need = (f.meta.last_pg + 1) * (uint64_t)f.meta.psize;
    bool short_file = f.meta.last_pg >= f.pages; /* LMDB may leave free pages at the end unwritten */
    char damage[KC_WHY_MAX] = "";
    kc_walk_ops ops = {.damage = first_damage, .ctx = damage, .tables = short_file ? KC_WALK_ALL : 0};
    int rc = kc__walk(&f, &f.meta, &ops);
    kc__file_close(&f);
    if (damage[0] == '\0' || rc == ENOMEM)
        return KC_FILE_OK;
    if (short_file)
        snprintf(why, why_size, "cut short: %llu bytes where its metadata describes %llu; %s",
                 (unsigned long long)f.size, (unsigned long long)need, damage);
    else
        snprintf(why, why_size, "%s", damage);
    return KC_FILE_DAMAGED;
}

kc_file_state kc__data_check(const char *dir, char *why, size_t why_size)
{
    char path[PATH_MAX], ignored[KC_WHY_MAX];
    if (snprintf(path, sizeof path, "%s/data.mdb", dir) >= (int)sizeof path)
        return KC_FILE_OK; /* kc_open refuses such names earlier */
    for (int attempt = 0; attempt < 4; attempt++) {
        uint64_t txnid;
        kc_file_state s = check_once(path, why, why_size, &txnid);
        kc_file f = {.fd = -1};
        bool moved_on = s == KC_FILE_DAMAGED && kc__file_open(path, &f, ignored, sizeof ignored) == KC_FILE_OK &&
                        f.meta.txnid != txnid;
        kc__file_close(&f);
        if (!moved_on)
            return s;
        /* Another process committed meanwhile, and nothing protects the pages read from reuse: look
         * again. Damage is what stays put. */
    }
    return KC_FILE_OK; /* written all the while: in use, and LMDB copes */
}
