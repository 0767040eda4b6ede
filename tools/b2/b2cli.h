/* SPDX-License-Identifier: BSD-3-Clause */
/* The support library of the b2 command-line program (every file of tools/b2/
 * but main.c and the commands, cmd_*.c, whose entries only main.c sees, in
 * commands.h): exit codes, messages, option parsing, file helpers, opening any
 * object (its kind told by the library), decoding, slicing, HDF5 access and the
 * JSON writer. The source tree's bench program links it too. */
#ifndef B2CLI_H
#define B2CLI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "b2_chunk.h"
#include "b2_frame.h"
#include "b2_nd.h"

/* Exit codes, documented in README.md and `b2 --help`. */
#define B2CLI_OK 0
#define B2CLI_EXIT_DATA 1  /* unreadable, corrupt or unsupported input, I/O failure */
#define B2CLI_EXIT_USAGE 2 /* bad command line */

/* ---- messages (util.c) ---- */

/* Print "b2 CMD: message" on stderr; returns B2CLI_EXIT_USAGE. A cmd starting
 * with "b2" names a whole program (the bench program's "b2bench"): then
 * "CMD: message". */
int b2cli_usage_error(const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Print "b2: FILE: message" on stderr; returns B2CLI_EXIT_DATA. */
int b2cli_data_error(const char *file, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Text for a libb2 failure rc: the library's detailed message of the failing call
 * ("<b2_strerror>: <detail> (<function>)") when it is about rc, else b2_strerror(rc). */
const char *b2cli_err(int rc);
/* Name of a codec / filter id for output: the library's name (built-in,
 * plugin, registered), "user codec N" / "user filter N" for an unregistered id
 * 160..255 (written into buf), NULL for any other unknown id. */
const char *b2cli_codec_label(int id, char *buf, size_t cap);
const char *b2cli_filter_label(int id, char *buf, size_t cap);
/* Codec / filter id from a name (the library's, '-' accepted for '_', as in
 * zfp-acc) or a number 0..255 ("none" is filter 0). Returns the id or -1. */
int b2cli_codec_id(const char *s);
int b2cli_filter_id(const char *s);
/* True when arg is "-h" or "--help". */
int b2cli_is_help(const char *arg);

/* ---- timing (util.c) ---- */

/* Monotonic seconds. */
double b2cli_now(void);
/* Median of v's n values (sorts v). */
double b2cli_median(double *v, int n);

/* ---- argument parsing (util.c) ---- */

/* Parse a decimal integer in [lo, hi] (optional k/M/G suffix when allow_suffix).
 * Returns 0 on success, -1 when malformed or out of range. */
int b2cli_parse_int(const char *s, int64_t lo, int64_t hi, int allow_suffix, int64_t *out);
/* Parse a comma-separated list of 0..16 numbers in [lo, hi] for option opt of
 * command cmd ("", "scalar" and "()": none). 0 or a usage exit code. */
int b2cli_parse_dims(const char *cmd, const char *opt, const char *val, int64_t lo, int64_t hi,
                     int64_t *out, int *n);
/* Option value: for "--opt=value" returns "value"; for "--opt value" consumes the
 * next argument (advancing *i). NULL (after a usage message) when missing. */
const char *b2cli_opt_value(const char *cmd, int argc, char **argv, int *i, const char *opt);
/* True when argv[i] is the option `opt`, spelled alone or as "opt=...". */
int b2cli_opt_is(const char *arg, const char *opt);

/* ---- files (util.c) ---- */

/* Whole contents of a file ("-" = stdin) in a malloc'ed buffer. Returns B2_OK or
 * a negative error (message printed). */
int b2cli_read_file(const char *path, uint8_t **data, size_t *size);
/* Write everything to a stream; returns B2_OK or B2_ERR_IO. */
int b2cli_write_all(FILE *f, const void *data, size_t size);
/* Write size zero bytes to a stream; returns B2_OK or B2_ERR_IO. */
int b2cli_write_zeros(FILE *f, size_t size);

/* A file written atomically: data goes to a temporary file next to the target,
 * which is renamed over the target by commit and removed by abort. "-" = stdout. */
typedef struct b2cli_outfile {
    FILE *f;
    char *path, *tmp; /* tmp is NULL for stdout */
} b2cli_outfile;
int b2cli_out_open(b2cli_outfile *o, const char *path);
int b2cli_out_commit(b2cli_outfile *o);
void b2cli_out_abort(b2cli_outfile *o);

/* Outputs written under a temporary name next to OUT and renamed into place
 * when complete, so an interruption never leaves a partial OUT (containers,
 * sparse-frame directories included). "OUT.tmp.PID" (malloc'ed). */
char *b2cli_temp_name(const char *out);
/* Remove a temporary file or sparse-frame directory (only files directly inside). */
void b2cli_temp_remove(const char *path);
/* Rename tmp to out (a sparse frame cannot replace an existing directory: refused,
 * tmp removed). B2_OK or B2_ERR_IO after a message. */
int b2cli_temp_commit(const char *tmp, const char *out);

/* ---- any object, opened (obj.c) ---- */

typedef struct b2cli_obj {
    int kind;          /* enum b2_kind (b2_inspect_path): chunk, frame, sframe or b2nd */
    const char *path;
    uint8_t *data;     /* whole input: chunks, and frames read from stdin */
    size_t size;
    int64_t file_size; /* contiguous inputs: bytes in the file */
    b2_schunk *schunk; /* frames, sframes and b2nd (then owned by arr) */
    b2_nd_array *arr;   /* b2nd only */
    char pykind[200];  /* frames holding a python-blosc2 object: what it is (pystore.c), else "" */
} b2cli_obj;

/* Open path ("-" = stdin) whatever Blosc2 object it holds. Returns B2_OK or a
 * negative error after printing a one-line message naming the file. A frame
 * holding a python-blosc2 object (a store, BatchArray, saved expression, ...)
 * is refused naming it; python-blosc2's .b2d/.b2z stores and HDF5 files are
 * refused always. */
int b2cli_obj_open(b2cli_obj *o, const char *path);
/* The same, but a frame holding a python-blosc2 object opens, with o->pykind
 * naming it (`b2 info` describes such frames, `b2 verify` checks them). */
int b2cli_obj_open_frames(b2cli_obj *o, const char *path);

/* ---- python-blosc2's containers b2 does not read (pystore.c) ---- */

/* 1 and the kind ("a python-blosc2 EmbedStore (.b2e)", ...) in buf when the
 * super-chunk is one of python-blosc2's objects built on frames, else 0. */
int b2cli_py_frame_kind(b2_schunk *s, char *buf, size_t cap);
/* 1 and the kind in buf when path is a python-blosc2 store that is no frame
 * (a .b2d directory, a .b2z zip) or another zip file, else 0. */
int b2cli_py_path_kind(const char *path, char *buf, size_t cap);
/* Print the refusal of path holding kind; returns the negative error code. */
int b2cli_py_refuse(const char *path, const char *kind);
/* Release everything (safe after a failed open). */
void b2cli_obj_close(b2cli_obj *o);

/* `info` output for frames, sframes and b2nd (info_frame.c). Returns B2_OK or
 * an error (after printing what could be read). */
int b2cli_info_frame(const b2cli_obj *o, int json);

/* ---- compressing into frames, sframes, b2nd (compress_frame.c) ---- */


typedef struct b2cli_meta_arg {
    char name[B2_FRAME_MAX_NAME + 1];
    uint8_t *content; /* malloc'ed */
    int32_t len;
} b2cli_meta_arg;

typedef struct b2cli_container_opts {
    int kind;           /* B2_KIND_FRAME, _SFRAME or _B2ND */
    int sparse;         /* b2nd: write a sparse-frame directory */
    const char *in, *out;
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

/* ---- HDF5 files using the Blosc2 filter 32026 (h5.c) ---- */

/* True when spec ("FILE" or "FILE:/dataset") names an HDF5 file. */
int b2cli_h5_is_hdf5(const char *spec);
/* Split "FILE:/path" into file (capacity cap) and *dset (NULL: whole file). */
int b2cli_h5_split(const char *spec, char *file, size_t cap, const char **dset);
/* `info` of the Blosc2 datasets (or the one named); B2_OK or an error. */
int b2cli_h5_info(const char *spec, int json);
/* Check every stored chunk of every Blosc2 dataset and decode all of it (the
 * parallel b2_h5_reader with nthreads threads, 0: $B2_H5_NTHREADS, in slabs of
 * about 64 MiB); B2_OK or an error. */
int b2cli_h5_verify(const char *spec, int quiet, int nthreads);
/* `b2 slice FILE.h5:/DATASET SPEC`: write the box's bytes to out (a b2_h5_reader
 * of nthreads threads, 0: its default $B2_H5_NTHREADS; slabs of about 64 MiB);
 * report != 0 describes the read on stderr. 0, a usage exit code (> 0) or an error. */
int b2cli_h5_slice(const char *spec, const char *box, FILE *out, int report, int nthreads);

/* ---- boxes and orthogonal selections (select.c) ---- */

/* Parse a box SPEC (START:STOP per dimension, see `b2 slice --help`) for ndim
 * dimensions of the given shape. 0 or a usage exit code (message printed). */
int b2cli_parse_box(const char *spec, int ndim, const int64_t *shape, int64_t *start, int64_t *stop);

/* One index list per dimension (malloc'ed; b2cli_selection_free). */
typedef struct b2cli_selection {
    int64_t *idx[B2_ND_MAX_DIM];
    int64_t n[B2_ND_MAX_DIM];
} b2cli_selection;
/* Whether SPEC names index lists ('[' in it) rather than a box. */
int b2cli_spec_is_selection(const char *spec);
/* Parse SPEC: per dimension [I,J,..], START:STOP or I (ranges become lists,
 * dimensions left out are whole). 0 or a usage exit code (message printed). */
int b2cli_parse_selection(const char *spec, int ndim, const int64_t *shape, b2cli_selection *s);
void b2cli_selection_free(b2cli_selection *s);
/* Write the selection's items in C order to out, in pieces of about 16 MiB. */
int b2cli_b2nd_write_selection(const b2cli_obj *o, const b2cli_selection *s, FILE *out);

/* ---- decoding (decode.c) ---- */

/* Write the decoded content of o to out (messages printed). */
int b2cli_decode_obj(const b2cli_obj *o, int nthreads, FILE *out);
/* Write the box [start, stop) of a b2nd object in C order to out. */
int b2cli_b2nd_write_box(const b2cli_obj *o, const int64_t *start, const int64_t *stop, FILE *out);
/* Decode chunk i of s into *buf (grown to *cap as needed; uninit -> zeros).
 * Returns the chunk's nbytes or an error code (no message). */
int b2cli_schunk_decode(b2_schunk *s, int64_t i, uint8_t **buf, size_t *cap);

/* ---- progress bar on stderr (progress.c) ---- */

/* Shown only when stderr is a terminal and total >= B2_PROGRESS_MIN_BYTES
 * (environment; default 100 MB). */
typedef struct b2cli_progress {
    int active;
    int64_t total, done;
    int last_permille;
    double start;
    const char *label;
} b2cli_progress;
void b2cli_progress_start(b2cli_progress *p, const char *label, int64_t total);
void b2cli_progress_add(b2cli_progress *p, int64_t n);
/* Erase the bar (leaves the terminal line clean). */
void b2cli_progress_end(b2cli_progress *p);

/* ---- JSON output (json.c) ---- */

/* A minimal streaming writer for one flat or nested JSON object. */
typedef struct b2cli_json {
    FILE *f;
    int depth;
    int need_comma;
} b2cli_json;
void b2cli_json_begin(b2cli_json *j, FILE *f);          /* writes "{" */
void b2cli_json_end(b2cli_json *j);                     /* writes "}\n" */
void b2cli_json_str(b2cli_json *j, const char *key, const char *val); /* NULL -> null */
void b2cli_json_int(b2cli_json *j, const char *key, int64_t val);
void b2cli_json_num(b2cli_json *j, const char *key, double val);
void b2cli_json_bool(b2cli_json *j, const char *key, int val);
/* Nested objects (key NULL inside an array); pair with b2cli_json_object_end. */
void b2cli_json_object_begin(b2cli_json *j, const char *key);
void b2cli_json_object_end(b2cli_json *j);
/* Start a member (key NULL inside an array) whose value the caller writes itself
 * to the returned stream (e.g. msgpack converted to JSON). */
FILE *b2cli_json_raw(b2cli_json *j, const char *key);
/* Arrays of values (key NULL inside an array); pair with b2cli_json_array_end. */
void b2cli_json_array_begin(b2cli_json *j, const char *key);
void b2cli_json_array_int(b2cli_json *j, int64_t val);
void b2cli_json_array_str(b2cli_json *j, const char *val);
void b2cli_json_array_end(b2cli_json *j);
/* Write s as a JSON string literal (quotes and escapes included). */
void b2cli_json_write_string(FILE *f, const char *s);

/* Write n bytes as a JSON string (valid UTF-8 kept, other bytes as \u00XX). */
void b2cli_json_write_mem(FILE *f, const void *p, size_t n);
/* Write n bytes as lowercase hex digits. */
void b2cli_write_hex(FILE *f, const void *p, size_t n);
/* When data is exactly one msgpack value, write it as JSON and return 1;
 * otherwise write nothing and return 0. */
int b2cli_msgpack_to_json(FILE *f, const void *data, size_t len);

#endif
