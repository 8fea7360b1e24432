/* fz_replay.c — main() for a harness built without libFuzzer (gcc): runs
 * LLVMFuzzerTestOneInput once on every file named on the command line, or in a directory named
 * there (not recursive), each copied into a block of exactly its size so that a sanitizer sees
 * a read past its end. Prints how many inputs ran; exits 1 when none did (a missing corpus).
 * A broken invariant aborts inside the harness, as under libFuzzer.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fz.h"

static unsigned long n_inputs;

static void run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        fprintf(stderr, "fz_replay: cannot open %s\n", path);
        exit(1);
    }
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *buf = malloc(len > 0 ? (size_t)len : 1);
    if (buf == NULL || len < 0 || fread(buf, 1, (size_t)len, f) != (size_t)len) {
        fprintf(stderr, "fz_replay: cannot read %s\n", path);
        exit(1);
    }
    fclose(f);
    LLVMFuzzerTestOneInput(buf, (size_t)len);
    free(buf);
    n_inputs++;
}

static void run_path(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) {
        run_file(path);
        return;
    }
    DIR *d = opendir(path);
    struct dirent *e;
    while (d != NULL && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char child[4096];
        snprintf(child, sizeof child, "%s/%s", path, e->d_name);
        if (stat(child, &st) == 0 && S_ISREG(st.st_mode))
            run_file(child);
    }
    if (d != NULL)
        closedir(d);
}

int main(int argc, char **argv)
{
    LLVMFuzzerInitialize(&argc, &argv);
    for (int i = 1; i < argc; i++)
        run_path(argv[i]);
    printf("fz_replay %s: ran %lu inputs\n", argv[0], n_inputs);
    return n_inputs > 0 ? 0 : 1;
}
