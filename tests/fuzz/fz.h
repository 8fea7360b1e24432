/* fz.h — what the fuzz harnesses of tests/fuzz/ share.
 *
 * Each harness is one file defining LLVMFuzzerTestOneInput (and LLVMFuzzerInitialize): built
 * with clang's libFuzzer (-fsanitize=fuzzer) when the sanitizer build has it, else with
 * fz_replay.c, a main that runs every file of the corpus once. Harnesses check invariants with
 * FZ_CHECK, which prints the failed condition and aborts: libFuzzer reports that as a crash and
 * keeps the input. Inputs are read through fz_in, a cursor that yields zeros once the bytes run
 * out, so every input is a complete program.
 *
 * Implementation: fz.c (public API, C library).
 */
#ifndef HIPDNN_TESTS_FZ_H
#define HIPDNN_TESTS_FZ_H

#include <hipdnn_backend.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* fz.c defines a weak LLVMFuzzerInitialize that calls fz_environment(). */
int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FZ_CHECK(cond, ...)                                                                      \
    do {                                                                                        \
        if (!(cond))                                                                            \
            fz_fail(__FILE__, __LINE__, #cond, __VA_ARGS__);                                    \
    } while (0)

/* Prints "file:line: invariant `cond` broken: <message>" and the last error, then aborts. */
_Noreturn void fz_fail(const char *file, int line, const char *cond, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Quiet, self-contained runs that behave alike on every machine: logging off, the process-wide
 * kernel cache disabled (nothing is written under $HOME), no GPU platform (nothing is compiled
 * or launched). Call from LLVMFuzzerInitialize, before any library call. */
void fz_environment(void);
/* A handle made on first use, kept for the process. */
hipdnnHandle_t fz_handle(void);
/* The calling thread's last error (peeked: not cleared), in a per-thread buffer. */
const char *fz_last_error(void);
/* Clears the calling thread's last error (before a call whose refusal must set one). */
void fz_clear_error(void);
/* Checks a refused call: a failure status and a non-empty last error. */
void fz_check_refusal(hipdnnStatus_t st, const char *call);

/* ---- reading the input ----------------------------------------------------------------------- */

typedef struct fz_in {
    const uint8_t *p;
    size_t n, at;
} fz_in;

bool fz_more(const fz_in *in);
uint8_t fz_u8(fz_in *in);
uint16_t fz_u16(fz_in *in);
uint32_t fz_u32(fz_in *in);
uint64_t fz_u64(fz_in *in);
/* Copies n bytes (zeros past the end). */
void fz_bytes(fz_in *in, void *out, size_t n);

/* ---- graphs (both graph readers) ------------------------------------------------------------- */

/* What a graph reader's output holds before the call; a refusal must leave it so. */
#define FZ_UNTOUCHED ((hipdnnBackendDescriptor_t)(uintptr_t)0x5eed)

/* Checks what a graph reader (`call`, its last error cleared before) did with an input. A
 * refusal: BAD_PARAM or NOT_SUPPORTED, a message, g still FZ_UNTOUCHED. An accepted graph g: its
 * FlatBuffer and JSON forms read back and write the same bytes again; finalized (on
 * fz_handle) it and both copies agree on the status and, when they finalize, on the graph
 * key. Destroys what it read. */
void fz_graph_read(hipdnnStatus_t st, hipdnnBackendDescriptor_t g, const char *call);

#endif
