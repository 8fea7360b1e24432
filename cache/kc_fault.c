/* kc_fault.c — fault injection into the cache's store calls, for the fault tests (tests/fault):
 * the Nth call from kc_test_fault_at on fails with an error LMDB gives at that call (its code
 * under kc_store.h's name), or (damage mode) the Nth record read from the store comes back with
 * one byte changed, as from a bad disk.
 *
 * The calls (kc_int.h): kc__txn_begin (a read transaction: KC_STORE_READERS_FULL; a write one:
 * EACCES, what a read-only environment answers), kc__txn_commit (ENOSPC: the disk filled; the
 * transaction is aborted, as LMDB does with a failed commit), and the record path's kc__get
 * (KC_STORE_CORRUPTED) and kc__put (KC_STORE_MAP_FULL). With injection off each is one atomic
 * load in front of the store call.
 */
#include <errno.h>
#include <stdatomic.h>

#include "cache/kc_int.h"

static atomic_long calls, fail_at, fired;
static atomic_int last_err; /* the error the last fault injected (0: a damaged read) */
static atomic_bool damage_mode;

void kc_test_fault_at(long nth, bool damage)
{
    atomic_store(&fail_at, 0);
    atomic_store(&damage_mode, damage);
    if (nth > 0)
        atomic_store(&fail_at, atomic_load(&calls) + nth);
}

long kc_test_faults(void) { return atomic_load(&fired); }

int kc_test_fault_error(void) { return atomic_load(&last_err); }

/* Counts a call of the mode's kind; true when it is the one to fail. */
static bool hit(bool damage)
{
    if (atomic_load(&fail_at) == 0 || atomic_load(&damage_mode) != damage)
        return false;
    bool now = atomic_fetch_add(&calls, 1) + 1 == atomic_load(&fail_at);
    if (now)
        atomic_fetch_add(&fired, 1);
    return now;
}

int kc__fault(int err)
{
    if (!hit(false))
        return KC_STORE_OK;
    atomic_store(&last_err, err);
    return err;
}

bool kc__fault_damage(void)
{
    if (!hit(true))
        return false;
    atomic_store(&last_err, 0);
    return true;
}

int kc__get(kc_txn *txn, int table, const kc_val *key, kc_val *val)
{
    int rc = kc__fault(KC_STORE_CORRUPTED);
    return rc != KC_STORE_OK ? rc : kc__store_get(txn, table, key, val);
}

int kc__put(kc_txn *txn, int table, const kc_val *key, const kc_val *val)
{
    int rc = kc__fault(KC_STORE_MAP_FULL);
    return rc != KC_STORE_OK ? rc : kc__store_put(txn, table, key, val);
}
