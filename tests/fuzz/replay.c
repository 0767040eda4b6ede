/* SPDX-License-Identifier: BSD-3-Clause */
/* Runs a fuzz target over files without libFuzzer: every regular file named, or
 * found in a named directory (one level, in name order), is passed to
 * LLVMFuzzerTestOneInput (B2_FUZZ_VERBOSE=1 names each on stderr first).
 * ctest replays the seed corpora and tests/fuzz/regressions/ this way in every
 * build, so a crasher kept there fails the ordinary test run (under ASan too).
 * `--make-seeds OUTDIR paths...` instead writes the harness's own seed inputs
 * (fuzz_make_seeds, when the harness has one) into OUTDIR. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz_common.h"

static long nfiles;

static void run_file(const char *path, void *ud)
{
    (void)ud;
    struct stat st;
    size_t len = 0;
    uint8_t *buf = stat(path, &st) == 0 && S_ISREG(st.st_mode) ? fuzz_read_file(path, &len) : NULL;
    if (!buf)
        return;
    if (getenv("B2_FUZZ_VERBOSE")) /* which input a failure comes from */
        fprintf(stderr, "%s\n", path);
    LLVMFuzzerTestOneInput(buf, len);
    free(buf);
    nfiles++;
}

int main(int argc, char **argv)
{
    if (argc >= 3 && !strcmp(argv[1], "--make-seeds")) {
        mkdir(argv[2], 0755);
        int n = fuzz_make_seeds ? fuzz_make_seeds(argv[2], argc - 3, argv + 3) : 0;
        printf("%s: %d seeds written to %s\n", argv[0], n, argv[2]);
        return n < 0;
    }
    for (int i = 1; i < argc; i++)
        fuzz_each_path(argv[i], run_file, NULL);
    printf("%s: %ld inputs replayed\n", argv[0], nfiles);
    return nfiles > 0 ? 0 : 77;
}
