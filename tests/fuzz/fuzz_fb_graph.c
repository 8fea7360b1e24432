/* fuzz_fb_graph.c — libFuzzer harness: the FlatBuffer graph reader,
 * hipdnnBackendCreateAndDeserializeGraph_ext (serialize/fe_fb.c, fe_fb_graph.c, fe_json_model.c), on
 * raw bytes (a Graph, or an HDGP container holding one).
 * Invariants: a refusal is BAD_PARAM or NOT_SUPPORTED with a message and leaves the output
 * untouched; an accepted graph round-trips (fz_graph_read: its FlatBuffer and JSON forms
 * read back and write the same bytes, and every copy finalizes alike, to one graph key).
 * Seeds: corpus/fb_graph/ (the example graphs, written by fz_seeds).
 */
#include "fz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_clear_error();
    hipdnnBackendDescriptor_t g = FZ_UNTOUCHED;
    hipdnnStatus_t st = hipdnnBackendCreateAndDeserializeGraph_ext(&g, data, size);
    fz_graph_read(st, g, "hipdnnBackendCreateAndDeserializeGraph_ext");
    return 0;
}
