/* fuzz_json_graph.c — libFuzzer harness: the JSON graph reader,
 * hipdnnBackendCreateAndDeserializeJsonGraph_ext (serialize/fe_json_model.c on jansson's parse), on
 * raw text (not NUL-terminated: the length is the input's).
 * Invariants: a refusal is BAD_PARAM or NOT_SUPPORTED with a message and leaves the output
 * untouched; an accepted graph round-trips (fz_graph_read: its FlatBuffer and JSON forms
 * read back and write the same bytes, and every copy finalizes alike, to one graph key).
 * Seeds: corpus/json_graph/ (examples/graphs/ (every .json) and the same graphs as the library writes
 * them, from fz_seeds).
 */
#include "fz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_clear_error();
    hipdnnBackendDescriptor_t g = FZ_UNTOUCHED;
    hipdnnStatus_t st = hipdnnBackendCreateAndDeserializeJsonGraph_ext(&g, (const char *)data, size);
    fz_graph_read(st, g, "hipdnnBackendCreateAndDeserializeJsonGraph_ext");
    return 0;
}
