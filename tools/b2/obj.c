/* SPDX-License-Identifier: BSD-3-Clause */
/* Opening any Blosc2 object the tool understands into one handle: a chunk (kept
 * in memory), a contiguous frame (opened from its file so big frames are read
 * lazily, or from memory when it comes on stdin), a sparse-frame directory, or a
 * b2nd array (a frame carrying a "b2nd"/"caterva" metalayer). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "b2cli.h"

/* Read up to n bytes from the start of a file; returns the count or -1. */
static long read_prefix(const char *path, uint8_t *buf, size_t n)
{
    FILE *f = fopen(path, "rb");
    size_t got;
    if (!f)
        return -1;
    got = fread(buf, 1, n, f);
    fclose(f);
    return (long)got;
}

/* A frame was opened as o->schunk: make it a b2nd array when it says it is one. */
static int attach_b2nd(b2cli_obj *o)
{
    uint8_t *m = NULL;
    int32_t mlen;
    int rc;
    if (b2_schunk_meta_get(o->schunk, "b2nd", &m, &mlen) < 0 &&
        b2_schunk_meta_get(o->schunk, "caterva", &m, &mlen) < 0)
        return B2_OK;
    free(m);
    rc = b2_nd_from_schunk(o->schunk, &o->arr);
    if (rc < 0) {
        b2cli_data_error(o->path, "bad b2nd array: %s", b2cli_err(rc));
        return rc;
    }
    o->kind = B2CLI_KIND_B2ND;
    return B2_OK;
}

static int open_frame_path(b2cli_obj *o, const char *fpath)
{
    int rc = b2_schunk_open(fpath, B2_OPEN_READONLY, &o->schunk);
    if (rc < 0) {
        b2cli_data_error(o->path, "cannot open %s: %s",
                         o->kind == B2CLI_KIND_SFRAME ? "sparse frame" : "frame", b2cli_err(rc));
        o->schunk = NULL;
    }
    return rc;
}

int b2cli_obj_open(b2cli_obj *o, const char *path)
{
    struct stat st;
    int rc;

    memset(o, 0, sizeof *o);
    o->path = path;
    if (b2cli_h5_is_hdf5(path)) {
        b2cli_data_error(path, "HDF5 file: 'b2 info' and 'b2 verify' read its Blosc2 datasets, "
                               "this command does not");
        return B2_ERR_UNSUPPORTED;
    }
    if (strcmp(path, "-") && stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        char fpath[4096];
        if (b2cli_detect_dir(path) != B2CLI_KIND_SFRAME) {
            b2cli_data_error(path, "is a directory without chunks.b2frame (not a sparse frame)");
            return B2_ERR_FORMAT;
        }
        snprintf(fpath, sizeof fpath, "%s/chunks.b2frame", path);
        o->kind = B2CLI_KIND_SFRAME;
        o->hdr_len = (int)read_prefix(fpath, o->hdr, sizeof o->hdr);
        if ((rc = open_frame_path(o, path)) < 0)
            return rc;
        return attach_b2nd(o);
    }
    if (strcmp(path, "-") && stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
        long n = read_prefix(path, o->hdr, sizeof o->hdr);
        if (n < 0) {
            b2cli_data_error(path, "cannot open: %s", strerror(errno));
            return B2_ERR_IO;
        }
        o->hdr_len = (int)n;
        o->file_size = (int64_t)st.st_size;
        if (b2cli_is_frame(o->hdr, (size_t)n)) {
            o->kind = B2CLI_KIND_CFRAME;
            if ((rc = open_frame_path(o, path)) < 0)
                return rc;
            return attach_b2nd(o);
        }
    }
    /* A chunk (which must be read whole anyway), or anything on stdin/a pipe. */
    if ((rc = b2cli_read_file(path, &o->data, &o->size)) < 0)
        return rc;
    o->file_size = (int64_t)o->size;
    if (b2cli_is_frame(o->data, o->size)) {
        o->kind = B2CLI_KIND_CFRAME;
        o->hdr_len = (int)(o->size < sizeof o->hdr ? o->size : sizeof o->hdr);
        memcpy(o->hdr, o->data, (size_t)o->hdr_len);
        rc = b2_schunk_open_buffer(o->data, o->size, 0, &o->schunk);
        if (rc < 0) {
            o->schunk = NULL;
            return b2cli_data_error(path, "cannot open frame: %s", b2cli_err(rc)), rc;
        }
        return attach_b2nd(o);
    }
    o->kind = b2cli_detect_buffer(o->data, o->size);
    if (o->kind == B2CLI_KIND_CHUNK)
        return B2_OK;
    {
        b2_chunk_info info;
        int e = b2_chunk_get_info(o->data, o->size, &info);
        if (e < 0)
            b2cli_data_error(path, "not a Blosc2 object (chunk header: %s)", b2cli_err(e));
        else
            b2cli_data_error(path, "not a Blosc2 object (chunk header says %ld bytes, file has %zu)",
                             (long)info.cbytes, o->size);
    }
    return B2_ERR_FORMAT;
}

void b2cli_obj_close(b2cli_obj *o)
{
    if (o->arr)
        b2_nd_free(o->arr); /* owns the super-chunk */
    else
        b2_schunk_free(o->schunk);
    free(o->data);
    memset(o, 0, sizeof *o);
}
