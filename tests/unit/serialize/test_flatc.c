/* test_flatc.c — our graph FlatBuffers against the official FlatBuffers compiler.
 *
 * Owns: (a) the bytes of hipdnnBackendGetSerializedBinaryGraph_ext, turned into JSON by
 * `flatc --json --strict-json --raw-binary <schema.bfbs> -- g.bin`, equal to our JSON model
 * of the graph (reals within 6e-7: flatc prints floats with 6 decimals); (b) bytes made by
 * `flatc -b --force-defaults <schema.fbs> g.json` from our JSON, read through the public API
 * into a graph whose JSON model equals the original; for every operation type, a graph of all of
 * them, the schema's sample and a graph with an SDPA score modifier (a nested Graph table).
 * The schema is serialize/schema/hipdnn_graph.fbs; flatc 2.0.8 needs its compiled .bfbs to
 * print binaries (serialize/schema/README.md). flatc comes from PATH; without it every test
 * skips and the program exits 77 (ctest: skipped).
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <dirent.h>
#include <fcntl.h>
#include <jansson.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../common/tu.h"
#include "sz_util.h"

#define SCHEMA HIPDNN_SOURCE_DIR "/serialize/schema/hipdnn_graph.fbs"

extern char **environ;

static bool flatc_on_path(void)
{
    const char *path = getenv("PATH");
    char file[4200];
    while (path != NULL && *path != '\0') {
        size_t n = strcspn(path, ":");
        snprintf(file, sizeof file, "%.*s/flatc", (int)n, n > 0 ? path : ".");
        if (access(file, X_OK) == 0)
            return true;
        path += n + (path[n] == ':');
    }
    return false;
}

/* Runs flatc with args (NULL-terminated), its output appended to dir/flatc.log. */
static int flatc(const char *dir, char *const args[])
{
    char log[4200];
    pid_t pid;
    int status = -1;
    posix_spawn_file_actions_t fa;
    snprintf(log, sizeof log, "%s/flatc.log", dir);
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, log, O_WRONLY | O_CREAT | O_APPEND, 0644);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    int err = posix_spawnp(&pid, "flatc", &fa, NULL, args, environ);
    posix_spawn_file_actions_destroy(&fa);
    cr_assert_eq(err, 0, "posix_spawnp flatc: %s", strerror(err));
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void flatc_ok(const char *dir, char *const args[])
{
    int rc = flatc(dir, args);
    if (rc != 0) {
        char log[4200];
        size_t n = 0;
        snprintf(log, sizeof log, "%s/flatc.log", dir);
        char *text = tu_read_file(log, &n);
        cr_assert_fail("flatc %s ... exited %d:\n%s", args[1], rc, text != NULL ? text : "");
    }
}

static void write_file(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f, "%s", path);
    cr_assert_eq(fwrite(data, 1, len, f), len);
    cr_assert_eq(fclose(f), 0);
}

static char tmpdir[64];
static hipdnnHandle_t handle;

static void setup(void)
{
    if (!flatc_on_path())
        cr_skip_test("flatc is not on PATH (apt-get install flatbuffers-compiler)");
    const char *tmp = getenv("TMPDIR");
    snprintf(tmpdir, sizeof tmpdir, "%.40s/hipdnn_flatc.XXXXXX", tmp != NULL && *tmp ? tmp : "/tmp");
    cr_assert_not_null(mkdtemp(tmpdir), "mkdtemp %s", tmpdir);
    /* the binary schema, for printing binaries */
    char *args[] = {"flatc", "-b", "--schema", "-o", tmpdir, SCHEMA, NULL};
    flatc_ok(tmpdir, args);
    TU_OK(hipdnnCreate(&handle));
}

static void teardown(void)
{
    char path[4200];
    DIR *d = opendir(tmpdir);
    for (struct dirent *e; d != NULL && (e = readdir(d)) != NULL;) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", tmpdir, e->d_name);
        unlink(path);
    }
    if (d != NULL)
        closedir(d);
    rmdir(tmpdir);
    if (handle != NULL)
        hipdnnDestroy(handle);
}

/* Our bytes, printed by flatc, equal our JSON model. */
static void ours_read_by_flatc(hipdnnBackendDescriptor_t g, const char *what)
{
    char bin_path[128], json_path[128], bfbs[128];
    size_t len = 0;
    uint8_t *bin = sz_binary(g, &len);
    snprintf(bin_path, sizeof bin_path, "%s/ours.bin", tmpdir);
    snprintf(json_path, sizeof json_path, "%s/ours.json", tmpdir);
    snprintf(bfbs, sizeof bfbs, "%s/hipdnn_graph.bfbs", tmpdir);
    write_file(bin_path, bin, len);
    free(bin);
    unlink(json_path);
    char *args[] = {"flatc", "--json", "--strict-json", "--raw-binary", "-o", tmpdir, bfbs, "--",
                    bin_path, NULL};
    flatc_ok(tmpdir, args);
    json_error_t err;
    json_t *theirs = json_load_file(json_path, 0, &err);
    cr_assert_not_null(theirs, "%s: flatc's JSON does not parse: %s", what, err.text);
    json_t *ours = sz_json(g);
    char ctx[200];
    snprintf(ctx, sizeof ctx, "%s: flatc's reading of our bytes", what);
    sz_same_loose(ours, theirs, ctx);
    json_decref(ours);
    json_decref(theirs);
}

/* flatc's bytes from our JSON give back the same graph. */
static void flatc_bytes_read_by_us(hipdnnBackendDescriptor_t g, const char *what)
{
    char json_path[128], bin_path[128];
    char *text = sz_json_text(g);
    snprintf(json_path, sizeof json_path, "%s/graph.json", tmpdir);
    snprintf(bin_path, sizeof bin_path, "%s/graph.bin", tmpdir);
    write_file(json_path, text, strlen(text));
    free(text);
    unlink(bin_path);
    char *args[] = {"flatc", "-b", "--strict-json", "--force-defaults", "-o", tmpdir, SCHEMA,
                    json_path, NULL};
    flatc_ok(tmpdir, args);
    size_t len = 0;
    char *bytes = tu_read_file(bin_path, &len);
    cr_assert_not_null(bytes, "%s: flatc wrote no binary", what);
    hipdnnBackendDescriptor_t back = NULL;
    hipdnnStatus_t st = hipdnnBackendCreateAndDeserializeGraph_ext(&back, (const uint8_t *)bytes, len);
    free(bytes);
    cr_assert_eq(st, HIPDNN_STATUS_SUCCESS, "%s: flatc's bytes -> %s [%s]", what, tu_st(st),
                 tu_msg());
    json_t *want = sz_json(g), *got = sz_json(back);
    char ctx[200];
    snprintf(ctx, sizeof ctx, "%s: our reading of flatc's bytes", what);
    sz_same(want, got, ctx);
    json_decref(want);
    json_decref(got);
    TU_OK(hipdnnBackendSetAttribute(back, HIPDNN_ATTR_OPERATIONGRAPH_HANDLE, HIPDNN_TYPE_HANDLE, 1,
                                    &handle));
    TU_OK(hipdnnBackendFinalize(back));
    TU_OK(hipdnnBackendDestroyDescriptor(back));
}

static int op_index[32];

ParameterizedTestParameters(flatc, every_operation_type_both_ways)
{
    const rc_desc *specs[32];
    int n = sz_op_specs(specs, 32);
    for (int i = 0; i < n; i++)
        op_index[i] = i;
    return cr_make_param_array(int, op_index, (size_t)n);
}
ParameterizedTest(int *k, flatc, every_operation_type_both_ways, .init = setup, .fini = teardown)
{
    const rc_desc *specs[32];
    sz_op_specs(specs, 32);
    tu_seed("flatc::every_operation_type_both_ways");
    for (int var = 0; var < rc_variants(specs[*k]); var++) {
        sz_graph g;
        sz_build(&g, handle, &specs[*k], 1, var, true);
        ours_read_by_flatc(g.graph, specs[*k]->name);
        flatc_bytes_read_by_us(g.graph, specs[*k]->name);
        sz_free(&g);
    }
}

Test(flatc, graph_of_every_operation_type_both_ways, .init = setup, .fini = teardown)
{
    const rc_desc *specs[32];
    tu_seed("flatc::graph_of_every_operation_type_both_ways");
    int n = sz_op_specs(specs, 32);
    sz_graph g;
    sz_build(&g, handle, specs, n, (int)tu_range(0, 1), true);
    ours_read_by_flatc(g.graph, "all operations");
    flatc_bytes_read_by_us(g.graph, "all operations");
    sz_free(&g);
}

/* The schema's own sample, written by flatc, read by us and printed by flatc again. */
Test(flatc, schema_sample_both_ways, .init = setup, .fini = teardown)
{
    char *args[] = {"flatc", "-b", "--strict-json", "-o", tmpdir, SCHEMA,
                    HIPDNN_SOURCE_DIR "/serialize/schema/sample_layernorm.json", NULL};
    flatc_ok(tmpdir, args);
    char bin_path[128];
    snprintf(bin_path, sizeof bin_path, "%s/sample_layernorm.bin", tmpdir);
    size_t len = 0;
    char *bytes = tu_read_file(bin_path, &len);
    cr_assert_not_null(bytes);
    hipdnnBackendDescriptor_t g = NULL;
    TU_OK(hipdnnBackendCreateAndDeserializeGraph_ext(&g, (const uint8_t *)bytes, len));
    free(bytes);
    json_error_t err;
    json_t *sample = json_load_file(HIPDNN_SOURCE_DIR "/serialize/schema/sample_layernorm.json", 0,
                                    &err);
    cr_assert_not_null(sample, "%s", err.text);
    json_t *ours = sz_json(g);
    sz_same_loose(sample, ours, "sample_layernorm.json via flatc bytes");
    json_decref(sample);
    json_decref(ours);
    ours_read_by_flatc(g, "sample_layernorm");
    TU_OK(hipdnnBackendDestroyDescriptor(g));
}

/* A graph with an SDPA score modifier (a nested Graph table): examples/graphs/sdpa_softcap.json. */
Test(flatc, score_modifier_example_both_ways, .init = setup, .fini = teardown)
{
    hipdnnBackendDescriptor_t g = tu_example_graph(handle, "sdpa_softcap.json");
    ours_read_by_flatc(g, "sdpa_softcap");
    flatc_bytes_read_by_us(g, "sdpa_softcap");
    TU_OK(hipdnnBackendDestroyDescriptor(g));
}
