/* base_build_id.c — the identity of this build's code: the source ID that cmake/source_id.cmake
 * computes at build time over every source, header and template of the library (the generated
 * base_source_id.c). The shared library, the static one and every program linking either get
 * the same ID from one source tree, and any edit changes it: records that describe what this
 * code decides (cached plan recipes) are tied to it.
 */
#include <string.h>

#include "base/base.h"

extern const char base_source_id[];

size_t base_build_id(const uint8_t **out)
{
    *out = (const uint8_t *)base_source_id;
    return strlen(base_source_id);
}
