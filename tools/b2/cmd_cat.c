/* SPDX-License-Identifier: BSD-3-Clause */
/* `b2 cat FILE` (decoded bytes to stdout) and `b2 decompress IN OUT` (the same
 * into a file, written atomically). The kind of input is detected from its
 * content; each kind has one decode function below. */
#include <stdlib.h>
#include <string.h>

#include "b2cli.h"
#include "decode.h"
#include "obj.h"

static const char cat_help[] =
    "usage: b2 cat FILE [--threads N]\n"
    "Write the decoded content of FILE to standard output (binary).\n"
    "FILE may be '-' for standard input. The kind of FILE is detected from its\n"
    "content, never its name:\n"
    "  chunk        one Blosc2/Blosc1 chunk: its decompressed bytes\n"
    "  frame        a contiguous frame (.b2frame): every chunk in order\n"
    "  sparse frame a directory holding chunks.b2frame: every chunk in order\n"
    "  b2nd         an N-dimensional array (frame with a 'b2nd' metalayer, file or\n"
    "               directory): the logical array in C order, without padding\n"
    "'uninit' special chunks (content unspecified) are written as zero bytes.\n"
    "Exit status: 0 success, 1 unreadable or corrupt input, 2 bad arguments.\n"
    "  --threads N   decompression threads (default 1)\n";

static const char decompress_help[] =
    "usage: b2 decompress IN OUT [--threads N]\n"
    "Like 'b2 cat IN' but writes to OUT (atomically: a temporary file is renamed).\n"
    "IN and OUT may be '-' for standard input/output. IN is any kind 'b2 cat'\n"
    "reads (chunk, frame, sparse frame, b2nd array).\n"
    "  --threads N   decompression threads (default 1)\n"
    "Exit status: 0 success, 1 unreadable or corrupt input, 2 bad arguments.\n";

/* Decode whatever path holds to out. Returns B2_OK or an error (message printed). */
static int decode_path(const char *path, int nthreads, FILE *out)
{
    b2cli_obj o;
    int rc = b2cli_obj_open(&o, path);
    if (rc == B2_OK)
        rc = b2cli_decode_obj(&o, nthreads, out);
    b2cli_obj_close(&o);
    return rc;
}

/* Shared option parsing: positional arguments go to pos[], --threads to *nthreads. */
static int parse_args(const char *cmd, int argc, char **argv, const char **pos, int npos,
                      int *nthreads)
{
    int got = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (b2cli_opt_is(a, "--threads") || b2cli_opt_is(a, "-t")) {
            int64_t v;
            const char *s = b2cli_opt_value(cmd, argc, argv, &i, "--threads");
            if (!s)
                return B2CLI_EXIT_USAGE;
            if (b2cli_parse_int(s, 1, 256, 0, &v) < 0)
                return b2cli_usage_error(cmd, "--threads wants a number 1..256, not '%s'", s);
            *nthreads = (int)v;
        } else if (a[0] == '-' && a[1] != '\0') {
            return b2cli_usage_error(cmd, "unknown option '%s'", a);
        } else {
            if (got == npos)
                return b2cli_usage_error(cmd, "too many arguments");
            pos[got++] = a;
        }
    }
    if (got != npos)
        return b2cli_usage_error(cmd, "missing %s", got == 0 ? "input file" : "output file");
    return B2CLI_OK;
}

int b2cli_cmd_cat(int argc, char **argv)
{
    const char *pos[1];
    int nthreads = 1, rc;
    if (argc >= 2 && b2cli_is_help(argv[1])) {
        fputs(cat_help, stdout);
        return B2CLI_OK;
    }
    rc = parse_args("cat", argc, argv, pos, 1, &nthreads);
    if (rc)
        return rc;
    rc = decode_path(pos[0], nthreads, stdout);
    if (rc == B2_OK && fflush(stdout) != 0) {
        b2cli_data_error("-", "write error on stdout");
        rc = B2_ERR_IO;
    }
    return rc < 0 ? B2CLI_EXIT_DATA : B2CLI_OK;
}

int b2cli_cmd_decompress(int argc, char **argv)
{
    const char *pos[2];
    b2cli_outfile out;
    int nthreads = 1, rc;
    if (argc >= 2 && b2cli_is_help(argv[1])) {
        fputs(decompress_help, stdout);
        return B2CLI_OK;
    }
    rc = parse_args("decompress", argc, argv, pos, 2, &nthreads);
    if (rc)
        return rc;
    if (b2cli_out_open(&out, pos[1]) < 0)
        return B2CLI_EXIT_DATA;
    rc = decode_path(pos[0], nthreads, out.f);
    if (rc < 0) {
        b2cli_out_abort(&out);
        return B2CLI_EXIT_DATA;
    }
    return b2cli_out_commit(&out) < 0 ? B2CLI_EXIT_DATA : B2CLI_OK;
}
