/* SPDX-License-Identifier: BSD-3-Clause */
/* Opening any Blosc2 object the tool understands into one handle: a chunk (kept
 * in memory), a contiguous frame (opened from its file so big frames are read
 * lazily, or from memory when it comes on stdin), a sparse-frame directory, or a
 * b2nd array (a frame carrying a "b2nd"/"caterva" metalayer). */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "b2cli.h"
#include "h5.h"
#include "obj.h"

/* A frame was opened as o->schunk: make it an array when the library said it
 * is one. A python-blosc2 object on frames is refused unless allow_py (then
 * named in o->pykind): its frames are an index or a carrier, not the data. */
static int attach_b2nd(b2cli_obj *o, int allow_py)
{
    int rc;
    /* every command reads with verification: a frame holding checksums fails a
     * damaged chunk's read with 'checksum mismatch' naming it (doc/format/checksums.md) */
    b2_schunk_set_verify(o->schunk, 1);
    if (b2cli_py_frame_kind(o->schunk, o->pykind, sizeof o->pykind) && !allow_py)
        return b2cli_py_refuse(o->path, o->pykind);
    if (o->kind != B2_KIND_B2ND)
        return B2_OK;
    rc = b2_nd_from_schunk(o->schunk, &o->arr);
    if (rc < 0)
        b2cli_data_error(o->path, "bad b2nd array: %s", b2cli_err(rc));
    return rc;
}

static int open_frame_path(b2cli_obj *o, const char *fpath, int allow_py)
{
    int rc = b2cli_frame_open(fpath, 0, B2_OPEN_READONLY, &o->schunk);
    if (rc < 0) {
        b2cli_data_error(o->path, "cannot open %s: %s",
                         o->kind == B2_KIND_SFRAME ? "sparse frame" : "frame", b2cli_err(rc));
        o->schunk = NULL;
        return rc;
    }
    return attach_b2nd(o, allow_py);
}

static int is_frame_kind(int kind)
{
    return kind == B2_KIND_FRAME || kind == B2_KIND_SFRAME || kind == B2_KIND_B2ND;
}

/* "; it looks like <kind>" for a few well-known non-Blosc2 files, else "". */
static const char *looks_like(const uint8_t *p, size_t n)
{
    if (n >= 6 && !memcmp(p, "\x93NUMPY", 6))
        return "; it looks like an .npy array";
    if (n >= 4 && !memcmp(p, "PK\x03\x04", 4))
        return "; it looks like a zip archive";
    return n >= 2 && p[0] == 0x1f && p[1] == 0x8b ? "; it looks like gzip data" : "";
}

static int obj_open(b2cli_obj *o, const char *path, int allow_py)
{
    struct stat st;
    int rc, on_disk;

    memset(o, 0, sizeof *o);
    o->path = path;
    if (b2cli_h5_is_hdf5(path)) {
        b2cli_data_error(path, "HDF5 file: 'b2 info' and 'b2 verify' read its Blosc2 datasets, "
                               "this command does not");
        return B2_ERR_UNSUPPORTED;
    }
    /* python-blosc2's .b2d/.b2z stores (and other zips) hold no frame of their own */
    if (strcmp(path, "-") && b2cli_py_path_kind(path, o->pykind, sizeof o->pykind))
        return b2cli_py_refuse(path, o->pykind);
    /* Files and directories: the library says what they hold (frames then open
     * from the path, read lazily); anything else (stdin, a pipe) is read whole. */
    on_disk = strcmp(path, "-") && stat(path, &st) == 0 && (S_ISREG(st.st_mode) || S_ISDIR(st.st_mode));
    if (on_disk) {
        o->kind = b2_inspect_path(path);
        if (o->kind < 0) {
            rc = o->kind;
            o->kind = B2_KIND_UNKNOWN;
            return b2cli_data_error(path, "cannot open: %s", b2cli_err(rc)), rc;
        }
        if (is_frame_kind(o->kind))
            return open_frame_path(o, path, allow_py);
        if (S_ISDIR(st.st_mode)) {
            b2cli_data_error(path, "is a directory without chunks.b2frame (not a sparse frame)");
            return B2_ERR_FORMAT;
        }
    }
    /* A chunk (which must be read whole anyway), or anything on stdin/a pipe. */
    if ((rc = b2cli_read_file(path, &o->data, &o->size)) < 0)
        return rc;
    o->file_size = (int64_t)o->size;
    if (!on_disk) {
        int kind = b2_inspect_buffer(o->data, o->size);
        if (kind < 0 && o->size > 0) /* empty input: the chunk message below */
            return b2cli_data_error(path, "cannot open: %s", b2cli_err(kind)), kind;
        o->kind = kind < 0 ? B2_KIND_UNKNOWN : kind;
    }
    if (o->kind == B2_KIND_FRAME || o->kind == B2_KIND_B2ND) {
        rc = b2cli_frame_open_buffer(o->data, o->size, &o->schunk);
        if (rc < 0) {
            o->schunk = NULL;
            return b2cli_data_error(path, "cannot open frame: %s", b2cli_err(rc)), rc;
        }
        return attach_b2nd(o, allow_py);
    }
    if (o->kind == B2_KIND_CHUNK)
        return B2_OK;
    {
        b2_chunk_info info;
        int e = b2_chunk_get_info(o->data, o->size, &info);
        if (e == B2_ERR_TRUNCATED && o->data[0] >= 1 && o->data[0] <= B2_VERSION_FORMAT_VL)
            b2cli_data_error(path, "truncated: %zu bytes, a chunk's header alone has %d", o->size,
                             o->size > 2 && (o->data[2] & 0x05) == 0x05 ? B2_HEADER_LEN : B2_MIN_HEADER_LEN);
        else if (e < 0)
            b2cli_data_error(path, "not a Blosc2 file (neither a frame nor a chunk%s)",
                             looks_like(o->data, o->size));
        else if ((size_t)info.cbytes > o->size)
            b2cli_data_error(path, "truncated chunk (%zu of %ld bytes)", o->size, (long)info.cbytes);
        else
            b2cli_data_error(path, "not a Blosc2 file (a chunk header says %ld bytes, the file has %zu)",
                             (long)info.cbytes, o->size);
    }
    return B2_ERR_FORMAT;
}

int b2cli_obj_open(b2cli_obj *o, const char *path) { return obj_open(o, path, 0); }

int b2cli_obj_open_frames(b2cli_obj *o, const char *path) { return obj_open(o, path, 1); }

void b2cli_obj_close(b2cli_obj *o)
{
    if (o->arr)
        b2_nd_free(o->arr); /* owns the super-chunk */
    else
        b2_schunk_free(o->schunk);
    free(o->data);
    memset(o, 0, sizeof *o);
}
