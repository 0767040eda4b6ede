/* SPDX-License-Identifier: BSD-3-Clause */
/* `b2 compact FILE...`: rewrite contiguous frame files (and b2nd arrays stored
 * in them) without dead space. The library writes to a temporary file and
 * renames it into place, so an interruption leaves the old or the new frame. */
#include <string.h>

#include "b2cli.h"

#define CMD "compact"

static const char compact_help[] =
    "usage: b2 compact [-q] FILE...\n"
    "Rewrite each contiguous frame FILE (a .b2frame or .b2nd file) without dead\n"
    "space: the bytes that updates, deletes and earlier indexes left unused in its\n"
    "chunks section (b2 info shows them as 'dead bytes'). Chunks keep their order\n"
    "and content. The file is rewritten to a temporary file and renamed into place,\n"
    "so an interruption leaves the old or the new frame. Files without dead space\n"
    "and sparse frames are left as they are. One line per file reports the sizes.\n"
    "  -q, --quiet   no report lines\n"
    "Exit status: 0 success, 1 a file could not be compacted, 2 bad arguments.\n";

/* Returns 0, or -1 after printing why the file was not compacted. */
static int compact_one(const char *path, int quiet)
{
    b2_schunk *s = NULL;
    int rc = b2cli_frame_open(path, 0, B2_OPEN_WRITE, &s);
    if (rc < 0) {
        b2cli_data_error(path, "cannot open for writing: %s", b2cli_err(rc));
        return -1;
    }
    int64_t before = b2_schunk_frame_len(s), dead = b2_schunk_dead_bytes(s);
    if (dead < 0) {
        rc = (int)dead;
    } else if (b2_schunk_storage(s) == B2_STORAGE_SPARSE) {
        if (!quiet)
            printf("%s: sparse frame, nothing to compact\n", path);
    } else if (dead == 0) {
        /* left as it is: a rewrite could re-encode the index of another writer */
        if (!quiet)
            printf("%s: no dead space, left as it is\n", path);
    } else if ((rc = b2_schunk_compact(s)) >= 0 && !quiet) {
        printf("%s: %lld -> %lld bytes (%lld dead bytes reclaimed)\n", path, (long long)before,
               (long long)b2_schunk_frame_len(s), (long long)dead);
    }
    b2_schunk_free(s);
    if (rc < 0) {
        b2cli_data_error(path, "cannot compact: %s", b2cli_err(rc));
        return -1;
    }
    return 0;
}

int b2cli_cmd_compact(int argc, char **argv)
{
    int quiet = 0, nfiles = 0, failed = 0;
    for (int i = 1; i < argc; i++)
        if (b2cli_is_help(argv[i])) {
            fputs(compact_help, stdout);
            return B2CLI_OK;
        }
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-q") || !strcmp(a, "--quiet"))
            quiet = 1;
        else if (a[0] == '-')
            return b2cli_usage_error(CMD, "unknown option '%s'", a);
        else
            argv[++nfiles] = (char *)a; /* compact the file names in place */
    }
    if (nfiles == 0)
        return b2cli_usage_error(CMD, "missing input file");
    for (int i = 1; i <= nfiles; i++)
        if (compact_one(argv[i], quiet) < 0)
            failed = 1;
    fflush(stdout);
    return failed ? B2CLI_EXIT_DATA : B2CLI_OK;
}
