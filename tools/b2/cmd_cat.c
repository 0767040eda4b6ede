/* `b2 cat FILE` (decoded bytes to stdout) and `b2 decompress IN OUT` (the same
 * into a file, written atomically). The kind of input is detected from its
 * content; each kind has one decode function below. */
#include <stdlib.h>
#include <string.h>

#include "b2cli.h"

static const char cat_help[] =
    "usage: b2 cat FILE [--threads N]\n"
    "Write the decoded content of FILE to standard output (binary).\n"
    "FILE may be '-' for standard input. The kind of FILE is detected from its\n"
    "content: currently a single Blosc2/Blosc1 chunk. An 'uninit' special chunk\n"
    "(content unspecified) is written as zero bytes.\n"
    "  --threads N   decompression threads (default 1)\n";

static const char decompress_help[] =
    "usage: b2 decompress IN OUT [--threads N]\n"
    "Like 'b2 cat IN' but writes to OUT (atomically: a temporary file is renamed).\n"
    "IN and OUT may be '-' for standard input/output.\n"
    "  --threads N   decompression threads (default 1)\n";

/* Decode a whole chunk and write it to out. Returns B2_OK or an error (message printed). */
static int cat_chunk(const char *path, const uint8_t *data, size_t size, int nthreads, FILE *out)
{
    b2_chunk_info info;
    b2_dctx *dctx;
    uint8_t *buf;
    int rc = b2_chunk_get_info(data, size, &info);
    if (rc < 0) {
        b2cli_data_error(path, "bad chunk header: %s", b2_strerror(rc));
        return rc;
    }
    if (info.special == B2_SPECIAL_UNINIT) {
        /* Content is unspecified; zeros are the one deterministic choice. */
        rc = b2cli_write_zeros(out, (size_t)info.nbytes);
        if (rc < 0)
            b2cli_data_error(path, "write error on output");
        return rc;
    }
    buf = malloc(info.nbytes > 0 ? (size_t)info.nbytes : 1);
    dctx = b2_dctx_new(nthreads);
    if (!buf || !dctx) {
        free(buf);
        b2_dctx_free(dctx);
        b2cli_data_error(path, "out of memory (%ld bytes)", (long)info.nbytes);
        return B2_ERR_NOMEM;
    }
    rc = b2_chunk_decompress(dctx, data, size, buf, (size_t)info.nbytes);
    b2_dctx_free(dctx);
    if (rc < 0) {
        b2cli_data_error(path, "cannot decompress chunk: %s", b2_strerror(rc));
    } else if (rc != info.nbytes) {
        b2cli_data_error(path, "decompressed %d bytes, header says %ld", rc, (long)info.nbytes);
        rc = B2_ERR_CORRUPT;
    } else {
        rc = b2cli_write_all(out, buf, (size_t)info.nbytes);
        if (rc < 0)
            b2cli_data_error(path, "write error on output");
    }
    free(buf);
    return rc;
}

/* Decode whatever path holds to out. Returns B2_OK or an error (message printed). */
static int decode_path(const char *path, int nthreads, FILE *out)
{
    uint8_t *data;
    size_t size;
    int kind, rc;

    if (strcmp(path, "-") && (kind = b2cli_detect_dir(path)) != B2CLI_KIND_UNKNOWN) {
        b2cli_data_error(path, "%s input is not supported by this version yet", b2cli_kind_name(kind));
        return B2_ERR_UNSUPPORTED;
    }
    rc = b2cli_read_file(path, &data, &size);
    if (rc < 0)
        return rc;
    kind = b2cli_detect_buffer(data, size);
    switch (kind) {
    case B2CLI_KIND_CHUNK:
        rc = cat_chunk(path, data, size, nthreads, out);
        break;
    case B2CLI_KIND_UNKNOWN: {
        /* Say why it is not a chunk: that is the most likely intent. */
        b2_chunk_info info;
        int e = b2_chunk_get_info(data, size, &info);
        if (e < 0)
            b2cli_data_error(path, "not a Blosc2 object (chunk header: %s)", b2_strerror(e));
        else
            b2cli_data_error(path, "not a Blosc2 object (chunk header says %ld bytes, file has %zu)",
                             (long)info.cbytes, size);
        rc = B2_ERR_FORMAT;
        break;
    }
    default:
        b2cli_data_error(path, "%s input is not supported by this version yet", b2cli_kind_name(kind));
        rc = B2_ERR_UNSUPPORTED;
    }
    free(data);
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
