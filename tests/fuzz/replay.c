/* Runs a fuzz target over files without libFuzzer: every regular file named, or
 * found in a named directory (one level), is passed to LLVMFuzzerTestOneInput.
 * ctest replays the seed corpora and tests/fuzz/regressions/ this way in every
 * build, so a crasher kept there fails the ordinary test run (under ASan too). */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz_common.h"

static long nfiles;

static void run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return;
    uint8_t *buf = NULL;
    size_t len = 0, cap = 0, got;
    uint8_t tmp[65536];
    while ((got = fread(tmp, 1, sizeof tmp, f)) > 0) {
        if (len + got > cap) {
            cap = 2 * (len + got);
            uint8_t *nb = realloc(buf, cap);
            if (!nb)
                break;
            buf = nb;
        }
        memcpy(buf + len, tmp, got);
        len += got;
    }
    fclose(f);
    LLVMFuzzerTestOneInput(buf ? buf : tmp, len);
    free(buf);
    nfiles++;
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0)
            continue;
        if (!S_ISDIR(st.st_mode)) {
            run_file(argv[i]);
            continue;
        }
        DIR *d = opendir(argv[i]);
        struct dirent *e;
        while (d && (e = readdir(d))) {
            char p[4096];
            snprintf(p, sizeof p, "%s/%s", argv[i], e->d_name);
            if (e->d_name[0] != '.' && stat(p, &st) == 0 && S_ISREG(st.st_mode))
                run_file(p);
        }
        if (d)
            closedir(d);
    }
    printf("%s: %ld inputs replayed\n", argv[0], nfiles);
    return nfiles > 0 ? 0 : 77;
}
