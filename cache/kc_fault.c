/* kc_fault.c — fault injection into the cache's LMDB calls, for the fault tests (tests/fault):
 * the Nth call from kc_test_fault_at on fails with an error LMDB gives at that call, or (damage
 * mode) the Nth record read from LMDB comes back with one byte changed, as from a bad disk.
 *
 * The calls (kc_int.h): kc__txn_begin (a read transaction: MDB_READERS_FULL; a write one: EACCES,
 * what a read-only environment answers), kc__txn_commit (ENOSPC: the disk filled; the transaction
 * is aborted, as LMDB does with a failed commit), and the record path's kc__get (MDB_CORRUPTED) and
 * kc__put (MDB_MAP_FULL). With injection off each is one atomic load in front of the LMDB call.
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
        return MDB_SUCCESS;
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

int kc__get(MDB_txn *txn, MDB_dbi dbi, MDB_val *key, MDB_val *data)
{
    int rc = kc__fault(MDB_CORRUPTED);
    return rc != MDB_SUCCESS ? rc : mdb_get(txn, dbi, key, data);
}

int kc__put(MDB_txn *txn, MDB_dbi dbi, MDB_val *key, MDB_val *data, unsigned flags)
{
    int rc = kc__fault(MDB_MAP_FULL);
    return rc != MDB_SUCCESS ? rc : mdb_put(txn, dbi, key, data, flags);
}
