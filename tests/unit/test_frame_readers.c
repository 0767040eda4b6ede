/* Readers of a frame that a writer goes on modifying: the ways a reader went
 * wrong, replayed step by step (tests/faults/fault_reader.c found them with
 * real processes).
 *
 * 1. A file frame grows while a reader opens it: the reader took the file's
 *    size, then read a header a writer had committed since, which describes
 *    more bytes than that size. Opening failed ("frame_len ... but ... bytes
 *    available") although every byte was there.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "frame_internal.h"
#include "scratch.h"

static void chunk_data(int32_t *d, int n, int v)
{
    for (int i = 0; i < n; i++)
        d[i] = v * 100000 + i;
}

/* chunk i of s holds chunk_data(v)? */
static int holds(b2_schunk *s, int64_t i, int v)
{
    int32_t got[1000], want[1000];
    chunk_data(want, 1000, v);
    return b2_schunk_decompress_chunk(s, i, got, sizeof got) == (int)sizeof got &&
           !memcmp(got, want, sizeof got);
}

static void stale_size(const char *path)
{
    b2_cparams cp;
    b2_cparams_init(&cp);
    cp.typesize = 4;
    b2_schunk *w, *r;
    int32_t d[1000];
    CHECK(b2_schunk_create_file(path, &cp, &w) >= 0, "create %s", path);
    chunk_data(d, 1000, 1);
    b2_schunk_append_buffer(w, d, sizeof d);
    struct stat st;
    stat(path, &st);
    /* the reader has taken the size; the writer commits an append */
    chunk_data(d, 1000, 2);
    CHECK(b2_schunk_append_buffer(w, d, sizeof d) == 2, "append");
    r = b2_schunk_alloc(NULL);
    r->storage = B2_STORAGE_FILE;
    r->path = strdup(path);
    r->fd = open(path, O_RDONLY);
    int rc = b2_frame_load(r, (int64_t)st.st_size);
    CHECK(rc == 0, "opening with the size from before the commit: %s", b2_last_error_message());
    CHECK(rc < 0 || (b2_schunk_nchunks(r) == 2 && holds(r, 0, 1) && holds(r, 1, 2)),
          "the frame read is not the committed one");
    b2_schunk_free(r);
    b2_schunk_free(w);
    unlink(path);
}

int main(void)
{
    char tmp[] = "/tmp/b2_frame_readersXXXXXX";
    char *d = mkdtemp(tmp);
    char path[4200];
    snprintf(path, sizeof path, "%s/cf.b2frame", d);
    stale_size(path);
    rmdir(d);
    return b2t_summary("frame readers");
}
