/* SPDX-License-Identifier: BSD-3-Clause */
/* `b2 compress` into containers: a contiguous frame (.b2frame), a sparse frame
 * directory (--sparse) or a b2nd array (.b2nd). The output is built under a
 * temporary name next to OUT and renamed into place only when complete, so an
 * interrupted run never leaves a half-written OUT. Frames are filled while the
 * input streams in (memory: one chunk); b2nd arrays need the whole input, which
 * is then compressed one chunk row (along the first dimension) at a time. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "b2cli.h"
#include "compress.h"
#include "progress.h"

/* Size of the input when it is a regular file (for the progress bar), else -1. */
static int64_t input_size(const char *in)
{
    struct stat st;
    if (strcmp(in, "-") && stat(in, &st) == 0 && S_ISREG(st.st_mode))
        return (int64_t)st.st_size;
    return -1;
}

static int add_metas(b2_schunk *s, const b2cli_container_opts *c, const char *out)
{
    for (int i = 0; i < c->nmeta; i++) {
        int rc = b2_schunk_meta_add(s, c->meta[i].name, c->meta[i].content, c->meta[i].len);
        if (rc < 0)
            return b2cli_data_error(out, "cannot add metalayer '%s': %s", c->meta[i].name,
                                    b2cli_err(rc)), rc;
    }
    return B2_OK;
}

/* --checksums: hash every chunk once it is written (doc/format/checksums.md). */
static int add_checksums(b2_schunk *s, const b2cli_container_opts *c)
{
    int rc = c->checksums ? b2_schunk_set_checksums(s, B2_CHECKSUMS_ON) : B2_OK;
    if (rc < 0)
        b2cli_data_error(c->out, "cannot add checksums: %s", b2cli_err(rc));
    return rc;
}

static int add_vlmetas(b2_schunk *s, const b2cli_container_opts *c, const char *out)
{
    for (int i = 0; i < c->nvlmeta; i++) {
        int rc = b2_schunk_vlmeta_add(s, c->vlmeta[i].name, c->vlmeta[i].content, c->vlmeta[i].len);
        if (rc < 0)
            return b2cli_data_error(out, "cannot add vlmetalayer '%s': %s", c->vlmeta[i].name,
                                    b2cli_err(rc)), rc;
    }
    return B2_OK;
}

/* Stream the input into s, one chunk of c->chunksize bytes at a time. */
static int fill_frame(b2_schunk *s, const b2cli_container_opts *c, int64_t *nbytes)
{
    FILE *in = strcmp(c->in, "-") ? fopen(c->in, "rb") : stdin;
    uint8_t *buf;
    b2cli_progress pr;
    int rc = B2_OK;
    *nbytes = 0;
    if (!in)
        return b2cli_data_error(c->in, "cannot open: %s", strerror(errno)), B2_ERR_IO;
    if (c->in_offset > 0 && fseek(in, (long)c->in_offset, SEEK_SET) != 0) { /* past a .npy header */
        fclose(in);
        return b2cli_data_error(c->in, "cannot seek past the .npy header"), B2_ERR_IO;
    }
    if (!(buf = malloc((size_t)c->chunksize))) {
        if (in != stdin)
            fclose(in);
        return b2cli_data_error(c->in, "out of memory"), B2_ERR_NOMEM;
    }
    b2cli_progress_start(&pr, "compress", input_size(c->in));
    for (;;) {
        size_t got = fread(buf, 1, (size_t)c->chunksize, in);
        if (got > 0) {
            int64_t r = b2_schunk_append_buffer(s, buf, (int32_t)got);
            if (r < 0) {
                rc = (int)r;
                b2cli_data_error(c->out, "cannot append chunk %lld: %s",
                                 (long long)b2_schunk_nchunks(s), b2cli_err(rc));
                break;
            }
            *nbytes += (int64_t)got;
            b2cli_progress_add(&pr, (int64_t)got);
        }
        if (got < (size_t)c->chunksize) {
            if (ferror(in)) {
                rc = B2_ERR_IO;
                b2cli_data_error(c->in, "read error");
            }
            break;
        }
    }
    b2cli_progress_end(&pr);
    free(buf);
    if (in != stdin)
        fclose(in);
    return rc;
}

static int compress_frame(const b2cli_container_opts *c, const b2_cparams *p, int64_t *nbytes,
                          int64_t *cbytes)
{
    int to_stdout = !strcmp(c->out, "-");
    char *tmp = to_stdout ? NULL : b2cli_temp_name(c->out);
    b2_schunk *s = NULL;
    int rc;

    if (!to_stdout && !tmp)
        rc = B2_ERR_NOMEM;
    else
        rc = b2cli_frame_create(to_stdout ? NULL : tmp, c->kind == B2_KIND_SFRAME, p, &s);
    if (rc < 0) {
        b2cli_data_error(c->out, "cannot create output: %s", b2cli_err(rc));
        free(tmp);
        return rc;
    }
    b2_schunk_set_sync(s, 0); /* durability comes from the final rename */
    if ((rc = add_metas(s, c, c->out)) == B2_OK && (rc = fill_frame(s, c, nbytes)) == B2_OK &&
        (rc = add_vlmetas(s, c, c->out)) == B2_OK)
        rc = add_checksums(s, c);
    /* A file frame grown chunk by chunk keeps superseded indexes and trailers as
     * dead space (it never overwrites live data); the finished file is written
     * compact, chunks in order, as the reference lays it out. */
    if (rc == B2_OK && !to_stdout && c->kind == B2_KIND_FRAME && b2_schunk_nchunks(s) > 0 &&
        (rc = b2_schunk_compact(s)) < 0)
        b2cli_data_error(c->out, "cannot compact frame: %s", b2cli_err(rc));
    *cbytes = rc == B2_OK ? b2_schunk_cbytes(s) : 0;
    if (rc == B2_OK && to_stdout) {
        uint8_t *buf;
        size_t len;
        if ((rc = b2_schunk_to_buffer(s, &buf, &len)) < 0) {
            b2cli_data_error(c->out, "cannot serialize frame: %s", b2cli_err(rc));
        } else {
            if ((rc = b2cli_write_all(stdout, buf, len)) < 0 || fflush(stdout) != 0)
                b2cli_data_error(c->out, "write error on stdout"), rc = B2_ERR_IO;
            free(buf);
        }
    }
    b2_schunk_free(s);
    if (tmp) {
        if (rc == B2_OK)
            rc = b2cli_temp_commit(tmp, c->out);
        else
            b2cli_temp_remove(tmp);
    }
    free(tmp);
    return rc;
}

/* The array parameters of the options (um: room for their metalayers). */
static void nd_params_of(const b2cli_container_opts *c, const b2_cparams *p, b2_nd_params *np,
                         b2_nd_user_meta *um)
{
    memset(np, 0, sizeof *np);
    np->ndim = c->ndim;
    for (int d = 0; d < c->ndim; d++) {
        np->shape[d] = c->shape[d];
        np->chunkshape[d] = c->chunks[d];
        np->blockshape[d] = c->blocks[d];
    }
    np->typesize = c->typesize;
    np->dtype = c->dtype;
    np->cparams = p;
    for (int i = 0; i < c->nmeta; i++) {
        um[i].name = c->meta[i].name;
        um[i].content = c->meta[i].content;
        um[i].len = c->meta[i].len;
    }
    np->nmetalayers = c->nmeta;
    np->metalayers = um;
}

/* The input's bytes (a .npy header dropped), checked against shape and dtype. */
static int read_array_input(const b2cli_container_opts *c, int64_t nitems, uint8_t **src,
                            size_t *len)
{
    if (b2cli_read_file(c->in, src, len) < 0)
        return B2_ERR_IO;
    if (c->in_offset > 0) { /* drop a .npy header: the data follow it */
        size_t off = (size_t)c->in_offset < *len ? (size_t)c->in_offset : *len;
        memmove(*src, *src + off, *len - off);
        *len -= off;
    }
    if ((int64_t)*len != nitems * c->typesize) {
        b2cli_data_error(c->in, "has %zu bytes; shape and dtype want %lld", *len,
                         (long long)(nitems * c->typesize));
        free(*src);
        *src = NULL;
        return B2_ERR_INVALID_PARAM;
    }
    return B2_OK;
}

/* Fill the array from src one chunk row at a time: the progress bar moves and
 * every chunk is written once. */
static int fill_rows(b2_nd_array *a, const b2cli_container_opts *c, int64_t nitems,
                     const uint8_t *src, size_t len)
{
    int rc = B2_OK;
    int64_t rowbytes = c->typesize;
    for (int d = 1; d < c->ndim; d++)
        rowbytes *= c->shape[d];
    b2cli_progress pr;
    b2cli_progress_start(&pr, "compress", (int64_t)len);
    if (c->ndim == 0 || nitems == 0) {
        int64_t none[1] = {0};
        if (nitems > 0)
            rc = b2_nd_set_slice_cbuffer(a, none, none, src, len);
    } else {
        int64_t start[B2_ND_MAX_DIM] = {0}, stop[B2_ND_MAX_DIM];
        const int32_t *cs = b2_nd_chunkshape(a);
        memcpy(stop, c->shape, sizeof(int64_t) * c->ndim);
        for (int64_t r = 0; r < c->shape[0] && rc >= 0;) {
            int64_t next = r + cs[0] < c->shape[0] ? r + cs[0] : c->shape[0];
            start[0] = r;
            stop[0] = next;
            rc = b2_nd_set_slice_cbuffer(a, start, stop, src + r * rowbytes,
                                        (size_t)((next - r) * rowbytes));
            b2cli_progress_add(&pr, (next - r) * rowbytes);
            r = next;
        }
    }
    b2cli_progress_end(&pr);
    return rc;
}

/* Write the finished array to stdout, or to c->out through a temporary file. */
static int write_array(b2_nd_array *a, const b2cli_container_opts *c)
{
    int rc;
    if (!strcmp(c->out, "-")) {
        uint8_t *buf;
        size_t blen;
        if ((rc = b2_nd_to_frame_buffer(a, &buf, &blen)) < 0) {
            b2cli_data_error(c->out, "cannot serialize array: %s", b2cli_err(rc));
            return rc;
        }
        if ((rc = b2cli_write_all(stdout, buf, blen)) < 0 || fflush(stdout) != 0)
            b2cli_data_error(c->out, "write error on stdout"), rc = B2_ERR_IO;
        free(buf);
        return rc;
    }
    char *tmp = b2cli_temp_name(c->out);
    if (!tmp)
        return B2_ERR_NOMEM;
    b2_nd_storage st = {c->sparse ? B2_STORAGE_SPARSE : B2_STORAGE_FILE, tmp};
    if ((rc = b2_nd_save(a, &st)) < 0) {
        b2cli_data_error(c->out, "cannot write array: %s", b2cli_err(rc));
        b2cli_temp_remove(tmp);
    } else {
        rc = b2cli_temp_commit(tmp, c->out);
    }
    free(tmp);
    return rc;
}

static int compress_b2nd(const b2cli_container_opts *c, const b2_cparams *p, int64_t *nbytes,
                         int64_t *cbytes)
{
    b2_nd_params np;
    b2_nd_user_meta um[B2_FRAME_MAX_METALAYERS];
    b2_nd_storage mem = {B2_STORAGE_MEMORY, NULL};
    b2_nd_array *a = NULL;
    uint8_t *src = NULL;
    size_t len = 0;
    int64_t nitems = 1;
    int rc;

    nd_params_of(c, p, &np, um);
    for (int d = 0; d < c->ndim; d++)
        nitems *= c->shape[d];
    if ((rc = b2_nd_default_shapes(&np)) < 0)
        return b2cli_usage_error("compress", "bad array shape: %s", b2cli_err(rc));
    if ((rc = read_array_input(c, nitems, &src, &len)) < 0)
        return rc;
    *nbytes = (int64_t)len;
    if ((rc = b2_nd_create(&np, &mem, B2_ND_FILL_ZEROS, NULL, &a)) < 0) {
        b2cli_data_error(c->out, "cannot create array: %s", b2cli_err(rc));
        free(src);
        return rc;
    }
    b2_nd_set_nthreads(a, p->nthreads);
    rc = fill_rows(a, c, nitems, src, len);
    free(src);
    if (rc < 0) {
        b2cli_data_error(c->out, "cannot fill array: %s", b2cli_err(rc));
        goto done;
    }
    if ((rc = add_vlmetas(b2_nd_schunk(a), c, c->out)) < 0 ||
        (rc = add_checksums(b2_nd_schunk(a), c)) < 0)
        goto done;
    /* Chunks replaced the zero-filled ones one by one: write the array compact,
     * chunks in order, as a frame made from a buffer should be. */
    if (b2_schunk_dead_bytes(b2_nd_schunk(a)) > 0 && (rc = b2_schunk_compact(b2_nd_schunk(a))) < 0) {
        b2cli_data_error(c->out, "cannot compact array: %s", b2cli_err(rc));
        goto done;
    }
    *cbytes = b2_schunk_cbytes(b2_nd_schunk(a));
    rc = write_array(a, c);
done:
    b2_nd_free(a);
    return rc;
}

int b2cli_compress_container(const b2cli_container_opts *c, const b2_cparams *p)
{
    int64_t nbytes = 0, cbytes = 0;
    int rc = c->kind == B2_KIND_B2ND ? compress_b2nd(c, p, &nbytes, &cbytes)
                                        : compress_frame(c, p, &nbytes, &cbytes);
    if (rc == B2_OK && c->verbose)
        fprintf(stderr, "%s: %lld -> %lld bytes of chunks (ratio %.3f)\n",
                strcmp(c->in, "-") ? c->in : "(stdin)", (long long)nbytes, (long long)cbytes,
                cbytes > 0 ? (double)nbytes / (double)cbytes : 0.0);
    return rc;
}
