/* Shared declarations of the b2 command-line program: the subcommand table,
 * exit codes, file helpers, object-kind detection and the JSON writer. */
#ifndef B2CLI_H
#define B2CLI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "b2_chunk.h"

/* Exit codes, documented in README.md and `b2 --help`. */
#define B2CLI_OK 0
#define B2CLI_EXIT_DATA 1  /* unreadable, corrupt or unsupported input, I/O failure */
#define B2CLI_EXIT_USAGE 2 /* bad command line */

/* One subcommand: `run` gets argv with argv[0] = the subcommand name. */
typedef struct b2cli_cmd {
    const char *name;
    const char *summary; /* one line for `b2 --help` */
    int (*run)(int argc, char **argv);
} b2cli_cmd;

int b2cli_cmd_cat(int argc, char **argv);
int b2cli_cmd_decompress(int argc, char **argv);
int b2cli_cmd_info(int argc, char **argv);
int b2cli_cmd_compress(int argc, char **argv);

/* ---- messages (util.c) ---- */

/* Print "b2 CMD: message" on stderr; returns B2CLI_EXIT_USAGE. */
int b2cli_usage_error(const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Print "b2: FILE: message" on stderr; returns B2CLI_EXIT_DATA. */
int b2cli_data_error(const char *file, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* True when arg is "-h" or "--help". */
int b2cli_is_help(const char *arg);

/* ---- argument parsing (util.c) ---- */

/* Parse a decimal integer in [lo, hi] (optional k/M/G suffix when allow_suffix).
 * Returns 0 on success, -1 when malformed or out of range. */
int b2cli_parse_int(const char *s, int64_t lo, int64_t hi, int allow_suffix, int64_t *out);
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

/* ---- object kinds (detect.c) ---- */

enum b2cli_kind {
    B2CLI_KIND_UNKNOWN = 0,
    B2CLI_KIND_CHUNK,  /* one chunk filling the whole file */
    B2CLI_KIND_CFRAME, /* contiguous frame */
    B2CLI_KIND_SFRAME, /* sparse-frame directory (chunks.b2frame inside) */
    B2CLI_KIND_B2ND,   /* frame carrying a b2nd metalayer */
};

/* Name of a kind ("chunk", "cframe", ...). */
const char *b2cli_kind_name(int kind);
/* Kind of a path that is a directory (sparse frame) or UNKNOWN. */
int b2cli_detect_dir(const char *path);
/* Kind of a file from its contents (never from its name). */
int b2cli_detect_buffer(const uint8_t *data, size_t size);

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
/* Arrays of values; pair with b2cli_json_array_end. */
void b2cli_json_array_begin(b2cli_json *j, const char *key);
void b2cli_json_array_int(b2cli_json *j, int64_t val);
void b2cli_json_array_str(b2cli_json *j, const char *val);
void b2cli_json_array_end(b2cli_json *j);
/* Write s as a JSON string literal (quotes and escapes included). */
void b2cli_json_write_string(FILE *f, const char *s);

#endif
