/* SPDX-License-Identifier: BSD-3-Clause */
/* `b2 verify FILE...`: decode everything and report each bad piece by index
 * with the library's reason. Unlike cat it keeps going after a bad chunk, so
 * one run lists all the damage. Exit 0 when every file is sound, 1 otherwise. */
#include <stdlib.h>
#include <string.h>

#include "b2cli.h"
#include "decode.h"
#include "h5.h"
#include "obj.h"
#include "progress.h"

#define CMD "verify"

static const char verify_help[] =
    "usage: b2 verify [-q] [--threads N] FILE...\n"
    "Decode every chunk of each FILE (a chunk, a frame, a sparse frame, a b2nd\n"
    "array, or an HDF5 file: every chunk of every dataset using the Blosc2 filter\n"
    "32026) and check it against what the headers announce, and against its\n"
    "checksum when the frame holds checksums (b2 compress --checksums); chunks a\n"
    "writer without checksums changed since are counted as stale. Every bad chunk is\n"
    "reported on standard error as 'b2: FILE: chunk I: reason'; the check goes on\n"
    "after it. A summary line per file goes to standard output; it says what was\n"
    "checked: 'checksums match', which chunks had checksums, or 'decoded, no\n"
    "checksums to check' (data that decode need not be the data written: bytes\n"
    "overwritten inside a compressed chunk often still decode).\n"
    "  -q, --quiet   no summary lines, only the problems\n"
    "  --threads N   decompression threads (default 1; HDF5 files: the threads of\n"
    "                the parallel reader that decodes each dataset, in slabs of\n"
    "                about 64 MiB, default $B2_H5_NTHREADS, else 1)\n"
    "When checking at least 100 MB (B2_PROGRESS_MIN_BYTES in the environment sets\n"
    "another threshold) and standard error is a terminal, a progress bar is drawn.\n"
    "Exit status: 0 all data good, 1 some data bad or unreadable, 2 bad arguments.\n";

/* Check metalayers and vlmetalayers can be read. Returns the number of bad ones. */
static int verify_metas(const b2cli_obj *o)
{
    int bad = 0;
    for (int vl = 0; vl < 2; vl++) {
        int n = vl ? b2_schunk_vlmeta_count(o->schunk) : b2_schunk_meta_count(o->schunk);
        for (int i = 0; i < n; i++) {
            const char *name = vl ? b2_schunk_vlmeta_name(o->schunk, i) : b2_schunk_meta_name(o->schunk, i);
            uint8_t *c = NULL;
            int32_t len;
            int rc = vl ? b2_schunk_vlmeta_get(o->schunk, name, &c, &len)
                        : b2_schunk_meta_get(o->schunk, name, &c, &len);
            free(c);
            if (rc < 0) {
                b2cli_data_error(o->path, "%s '%s': %s", vl ? "vlmetalayer" : "metalayer",
                                 name ? name : "?", b2cli_err(rc));
                bad++;
            }
        }
    }
    return bad;
}

/* The summary of a sound frame, saying what was checked: checksums (all, or
 * which chunks), or only that everything decoded, which catches no damage
 * inside a codec's literal bytes (doc/format/checksums.md). */
static void print_ok(const b2cli_obj *o, int64_t n, int64_t total, int sums, int64_t stale)
{
    printf("%s: ok (%s, %lld chunk%s, %lld bytes", o->path, b2_kind_name(o->kind), (long long)n,
           b2cli_plural(n), (long long)total);
    if (!sums)
        printf("; decoded, no checksums to check)\n");
    else if (!stale)
        printf(", checksums match)\n");
    else
        printf("; checksums match for %lld chunk%s, %lld chunk%s stale: decoded only)\n",
               (long long)(n - stale), b2cli_plural(n - stale), (long long)stale, b2cli_plural(stale));
}

static int verify_schunk(const b2cli_obj *o, int nthreads, int quiet)
{
    b2_schunk *s = o->schunk;
    int64_t n = b2_schunk_nchunks(s), total = 0, bad = 0, stale = 0;
    int sums = b2_schunk_has_checksums(s);
    uint8_t *buf = NULL;
    size_t cap = 0;
    b2cli_progress pr;
    b2_schunk_set_nthreads(s, nthreads);
    bad += verify_metas(o);
    b2cli_progress_start(&pr, "verify", b2_schunk_nbytes(s));
    for (int64_t i = 0; i < n; i++) {
        int st = sums ? b2_schunk_checksum_state(s, i) : B2_CHECKSUM_NONE;
        stale += st == B2_CHECKSUM_STALE;
        int got = st == B2_ERR_CHECKSUM ? st : b2cli_schunk_decode(s, i, &buf, &cap);
        if (got < 0) {
            b2cli_progress_end(&pr);
            b2cli_data_error(o->path, "chunk %lld: %s", (long long)i, b2cli_err(got));
            b2cli_progress_start(&pr, "verify", pr.total);
            pr.done = total;
            bad++;
            continue;
        }
        total += got;
        b2cli_progress_add(&pr, got);
    }
    b2cli_progress_end(&pr);
    free(buf);
    if (bad == 0 && total != b2_schunk_nbytes(s)) {
        b2cli_data_error(o->path, "chunks decode to %lld bytes, the header says %lld", (long long)total,
                         (long long)b2_schunk_nbytes(s));
        bad++;
    }
    if (stale)
        fprintf(stderr, "b2: %s: %lld of %lld chunk%s changed since their checksums were written "
                "(stale: not checked)\n", o->path, (long long)stale, (long long)n,
                b2cli_plural(n));
    if (!quiet) {
        if (bad)
            printf("%s: BAD (%lld of %lld chunk%s or metalayers bad)\n", o->path, (long long)bad,
                   (long long)n, b2cli_plural(n));
        else
            print_ok(o, n, total, sums, stale);
    }
    return bad ? B2_ERR_CORRUPT : B2_OK;
}

static int verify_chunk(const b2cli_obj *o, int nthreads, int quiet)
{
    b2_chunk_info info;
    b2_dctx *d;
    uint8_t *buf;
    int rc = b2_chunk_get_info(o->data, o->size, &info);
    if (rc < 0)
        return b2cli_data_error(o->path, "chunk header: %s", b2cli_err(rc)), rc;
    buf = malloc(info.nbytes > 0 ? (size_t)info.nbytes : 1);
    d = b2_dctx_new(nthreads);
    if (!buf || !d)
        rc = B2_ERR_NOMEM;
    else
        rc = b2_chunk_decompress(d, o->data, o->size, buf, (size_t)info.nbytes);
    free(buf);
    b2_dctx_free(d);
    if (rc >= 0 && rc != info.nbytes)
        rc = B2_ERR_CORRUPT;
    if (rc < 0)
        return b2cli_data_error(o->path, "chunk 0: %s", b2cli_err(rc)), rc;
    if (!quiet)
        printf("%s: ok (chunk, %d bytes; decoded, no checksums to check)\n", o->path, info.nbytes);
    return B2_OK;
}

int b2cli_cmd_verify(int argc, char **argv)
{
    int quiet = 0, nthreads = 1, h5threads = 0, nfiles = 0, failed = 0;
    for (int i = 1; i < argc; i++)
        if (b2cli_is_help(argv[i])) {
            fputs(verify_help, stdout);
            return B2CLI_OK;
        }
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
            quiet = 1;
        } else if (b2cli_opt_is(a, "--threads") || b2cli_opt_is(a, "-t")) {
            int64_t v;
            const char *s = b2cli_opt_value(CMD, argc, argv, &i, "--threads");
            if (!s)
                return B2CLI_EXIT_USAGE;
            if (b2cli_parse_int(s, 1, 256, 0, &v) < 0)
                return b2cli_usage_error(CMD, "--threads wants a number 1..256, not '%s'", s);
            nthreads = h5threads = (int)v;
        } else if (a[0] == '-' && a[1] != '\0') {
            return b2cli_usage_error(CMD, "unknown option '%s'", a);
        } else {
            argv[++nfiles] = (char *)a; /* compact the file names in place */
        }
    }
    if (nfiles == 0)
        return b2cli_usage_error(CMD, "missing input file");
    for (int i = 1; i <= nfiles; i++) {
        b2cli_obj o;
        int rc;
        if (b2cli_h5_is_hdf5(argv[i])) {
            if (b2cli_h5_verify(argv[i], quiet, h5threads) < 0)
                failed = 1;
            continue;
        }
        rc = b2cli_obj_open_frames(&o, argv[i]); /* a python-blosc2 object's frames verify too */
        if (rc == B2_OK)
            rc = o.kind == B2_KIND_CHUNK ? verify_chunk(&o, nthreads, quiet)
                                            : verify_schunk(&o, nthreads, quiet);
        if (rc < 0)
            failed = 1;
        b2cli_obj_close(&o);
    }
    fflush(stdout);
    return failed ? B2CLI_EXIT_DATA : B2CLI_OK;
}
