/* base_build_id.c — the GNU build ID of the object (shared library or program) this code is
 * linked into. The linker derives it from the object's contents, so it changes whenever any of
 * its code does: records that describe what this build's code does (cached plan recipes) are
 * tied to it.
 */
#define _GNU_SOURCE
#include <link.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "base/base.h"

#define NOTE_GNU_BUILD_ID 3

static uint8_t id[BASE_BUILD_ID_MAX];
static size_t id_len;
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* The build-ID note among the notes at [p, end), copied to id. */
static void scan_notes(const uint8_t *p, const uint8_t *end)
{
    while (p + 12 <= end) {
        uint32_t namesz, descsz, type;
        memcpy(&namesz, p, 4), memcpy(&descsz, p + 4, 4), memcpy(&type, p + 8, 4);
        const uint8_t *name = p + 12, *desc = name + ((namesz + 3u) & ~3u);
        const uint8_t *next = desc + ((descsz + 3u) & ~3u);
        if (next > end || next < p)
            return;
        if (type == NOTE_GNU_BUILD_ID && namesz == 4 && memcmp(name, "GNU", 4) == 0 && descsz > 0) {
            id_len = descsz < sizeof id ? descsz : sizeof id;
            memcpy(id, desc, id_len);
            return;
        }
        p = next;
    }
}

/* dl_iterate_phdr callback: stops at the object whose loaded segments hold `data`. */
static int visit(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    uintptr_t addr = (uintptr_t)data;
    bool mine = false;
    for (int i = 0; i < info->dlpi_phnum && !mine; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t start = info->dlpi_addr + ph->p_vaddr;
        mine = ph->p_type == PT_LOAD && addr >= start && addr < start + ph->p_memsz;
    }
    if (!mine)
        return 0;
    for (int i = 0; i < info->dlpi_phnum && id_len == 0; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_NOTE) {
            const uint8_t *p = (const uint8_t *)(info->dlpi_addr + ph->p_vaddr);
            scan_notes(p, p + ph->p_memsz);
        }
    }
    return 1;
}

static void find_id(void) { dl_iterate_phdr(visit, (void *)(uintptr_t)&find_id); }

size_t base_build_id(const uint8_t **out)
{
    pthread_once(&once, find_id);
    *out = id;
    return id_len;
}
