/* SPDX-License-Identifier: BSD-3-Clause */
/* Compressing into frames, sparse frames and b2nd arrays (compress_frame.c)
 * and the compression options `b2 compress` and `b2 convert` share
 * (cparam_opts.c). */
#ifndef B2CLI_COMPRESS_H
#define B2CLI_COMPRESS_H

#include "b2cli.h"

typedef struct b2cli_meta_arg {
    char name[B2_FRAME_MAX_NAME + 1];
    uint8_t *content; /* malloc'ed */
    int32_t len;
} b2cli_meta_arg;

typedef struct b2cli_container_opts {
    int kind;           /* B2_KIND_FRAME, _SFRAME or _B2ND */
    int sparse;         /* b2nd: write a sparse-frame directory */
    const char *in, *out;
    int64_t in_offset;  /* where IN's data start (a .npy file's header is skipped) */
    int64_t chunksize;  /* frames: bytes per chunk */
    int nmeta, nvlmeta;
    b2cli_meta_arg meta[B2_FRAME_MAX_METALAYERS], vlmeta[B2_FRAME_MAX_VLMETALAYERS];
    int ndim;           /* b2nd geometry */
    int64_t shape[B2_ND_MAX_DIM];
    int32_t chunks[B2_ND_MAX_DIM], blocks[B2_ND_MAX_DIM];
    const char *dtype;  /* NULL: "|S<typesize>" */
    int32_t typesize;
    int checksums;      /* --checksums: per-chunk xxh64 (doc/format/checksums.md) */
    int verbose;
} b2cli_container_opts;

/* Compression options shared by `b2 compress` and `b2 convert` (cparam_opts.c):
 * --codec, --codec-meta, --clevel, --blocksize, --splitmode, --threads,
 * --filter, --filters, --filters-meta, --dict. */
typedef struct b2cli_cparam_opts {
    b2_cparams p;
    int nfilter;                   /* --filter options seen */
    uint8_t fid[B2_MAX_FILTERS];   /* their ids and metas, in order given */
    uint8_t fmeta[B2_MAX_FILTERS];
    int filter_opt;                /* some --filter given (even "none") */
    int explicit_filters, explicit_meta;
    int given;                     /* some option other than --threads given */
} b2cli_cparam_opts;
void b2cli_cparam_opts_init(b2cli_cparam_opts *o);
/* When argv[*i] is one of these options, consume it (and its value, advancing
 * *i) and return 0, or a usage exit code (> 0, message printed); -1 when it is
 * not a compression option. */
int b2cli_cparam_opt(const char *cmd, b2cli_cparam_opts *o, int argc, char **argv, int *i);
/* After the last option: check combinations and place --filter lists in the
 * last slots. 0 or a usage exit code. */
int b2cli_cparam_opts_finish(const char *cmd, b2cli_cparam_opts *o);

/* Compress c->in into the container c->out with cparams p. Returns B2_OK or an
 * error (message printed). */
int b2cli_compress_container(const b2cli_container_opts *c, const b2_cparams *p);

#endif
