/* public_only_probe.c — part of no tool: one translation unit built with exactly the tools' and
 * benchmarks' compile settings (it links hipdnn_backend and nothing else) that includes a
 * private header of the library. The ctest test `public_only:tools_bench` builds it and passes
 * only when the compiler cannot find that header: the proof that tools/ and bench/ can include
 * nothing but include/ (the source root is on no include path of theirs). */
#include "cache/kc.h"

int public_only_probe(void);
int public_only_probe(void) { return KC_KEY_SIZE; }
