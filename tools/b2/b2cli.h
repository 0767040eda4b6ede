/* SPDX-License-Identifier: BSD-3-Clause */
/* The core of the b2 program's support library (every file of tools/b2/ but
 * main.c and the commands, cmd_*.c, whose entries only main.c sees, in
 * commands.h): exit codes, messages, timing, option parsing and files (util.c).
 * One header per concern for the rest: obj.h, compress.h, h5.h, select.h,
 * decode.h, progress.h, json.h. The source tree's bench program links the
 * library too. */
#ifndef B2CLI_H
#define B2CLI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* b2 reads what the stable headers do not offer (inspection, zero-copy chunk
 * views, the b2nd metalayer codec): it ships with the library it links. */
#include "b2_chunk_experimental.h"
#include "b2_frame_experimental.h"
#include "b2_helpers_experimental.h"
#include "b2_nd_experimental.h"

/* Exit codes, documented in doc/cli.md and `b2 --help`. */
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
/* "s" unless n is 1: "%lld chunk%s" says "1 chunk", "2 chunks". */
const char *b2cli_plural(int64_t n);
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

/* ---- frames (util.c): b2_schunk_open_with for the three ways b2 uses it ---- */

/* Open the frame file or sparse-frame directory at path; flags B2_OPEN_READONLY
 * or B2_OPEN_WRITE; offset > 0: a frame inside a larger file (read-only). */
int b2cli_frame_open(const char *path, int64_t offset, int flags, b2_schunk **out);
/* Open the len bytes of a frame at buf read-only, borrowing them (buf outlives *out). */
int b2cli_frame_open_buffer(const void *buf, size_t len, b2_schunk **out);
/* Create an empty frame with chunk defaults cp: in memory (path NULL), a frame
 * file at path, or (sparse) a sparse-frame directory at path. */
int b2cli_frame_create(const char *path, int sparse, const b2_cparams *cp, b2_schunk **out);

/* Outputs written under a temporary name next to OUT and renamed into place
 * when complete, so an interruption never leaves a partial OUT (containers,
 * sparse-frame directories included). "OUT.tmp.PID" (malloc'ed). */
char *b2cli_temp_name(const char *out);
/* Remove a file, or a sparse-frame directory with its chunks.b2frame and chunk
 * files (nothing else is deleted: a directory holding more stays). */
void b2cli_temp_remove(const char *path);
/* Rename tmp to out (a sparse frame cannot replace an existing directory: refused,
 * tmp removed). B2_OK or B2_ERR_IO after a message. */
int b2cli_temp_commit(const char *tmp, const char *out);

#endif
