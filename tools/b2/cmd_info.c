/* SPDX-License-Identifier: BSD-3-Clause */
/* `b2 info FILE... [--json]`: what an object's header says, in words or as one
 * JSON object per file (key names are documented in doc/cli.md and stable). */
#include <stdlib.h>
#include <string.h>

#include "b2cli.h"
#include "h5.h"
#include "json.h"
#include "obj.h"

static const char info_help[] =
    "usage: b2 info [--json] FILE...\n"
    "Describe each FILE; its kind is detected from its content:\n"
    "  chunk         format version, codec, filter pipeline, sizes, blocks, flags.\n"
    "                The compression level is not stored in a chunk (unknown).\n"
    "  frame, sparse frame (directory), b2nd array\n"
    "                the header fields (header and frame size, format version,\n"
    "                flags, default codec/clevel/filters for new chunks, splitmode,\n"
    "                typesize, blocksize, chunksize), nchunks, nbytes, cbytes,\n"
    "                ratio, every metalayer and vlmetalayer (name, size, content as\n"
    "                JSON when it is msgpack, else hex), for b2nd the shape,\n"
    "                chunkshape, blockshape, dtype and array size, and a table of\n"
    "                chunks (index, nbytes, cbytes, special kind).\n"
    "  FILE.h5[:/dataset]\n"
    "                HDF5 datasets using the Blosc2 filter (32026): shape, filter\n"
    "                position, cd_values decoded, and every stored chunk (offset,\n"
    "                stored size, frame or b2nd payload, its nbytes and cbytes).\n"
    "  --json   one JSON object per file instead of text (keys listed in doc/cli.md)\n"
    "Exit status: 0 success, 1 unreadable or corrupt input, 2 bad arguments.\n";

static const char *yesno(int v) { return v ? "yes" : "no"; }

/* Names for output; buf (32 bytes) holds "user codec N" and the like. */
static const char *codec_name(int id, char *buf)
{
    const char *n = b2cli_codec_label(id, buf, 32);
    return n ? n : "unknown";
}

static const char *filter_name(int id, char *buf)
{
    const char *n = b2cli_filter_label(id, buf, 32);
    return n ? n : "unknown";
}

/* trunc_prec and int_trunc store a signed bit count; every other meta is an unsigned byte. */
static int filter_meta_value(int id, uint8_t meta)
{
    return id == B2_FILTER_TRUNC_PREC || id == B2_FILTER_INT_TRUNC ? (int)(int8_t)meta : (int)meta;
}

static double ratio(const b2_chunk_info *ci)
{
    return ci->cbytes > 0 ? (double)ci->nbytes / (double)ci->cbytes : 0.0;
}

static void chunk_text(const char *path, const b2_chunk_info *ci)
{
    int nfilters = 0;
    char buf[32];
    printf("%s: Blosc chunk\n", path);
    printf("  format version   %d\n", ci->version);
    printf("  versionlz        %d\n", ci->versionlz);
    printf("  codec            %s (id %d, format %d)\n", codec_name(ci->compcode, buf), ci->compcode,
           ci->codec_format);
    printf("  clevel           unknown (not stored in a chunk)\n");
    printf("  filters         ");
    for (int i = 0; i < B2_MAX_FILTERS; i++) {
        if (ci->filters[i] == B2_FILTER_NONE)
            continue;
        printf(" %d:%s(%d)", i, filter_name(ci->filters[i], buf),
               filter_meta_value(ci->filters[i], ci->filters_meta[i]));
        nfilters++;
    }
    printf("%s\n", nfilters ? "" : " none");
    printf("  typesize         %d\n", ci->typesize);
    printf("  nbytes           %ld\n", (long)ci->nbytes);
    printf("  cbytes           %ld\n", (long)ci->cbytes);
    printf("  ratio            %.3f\n", ratio(ci));
    printf("  blocksize        %ld%s\n", (long)ci->blocksize,
           ci->vlblocks ? " (VL-block chunk: this is the number of blocks)" : "");
    printf("  blocks           %ld\n", (long)ci->nblocks);
    printf("  leftover         %ld\n", (long)ci->leftover);
    printf("  split            %s\n", yesno(ci->split));
    printf("  memcpy           %s\n", yesno(ci->memcpyed));
    printf("  dictionary       %s\n", yesno(ci->has_dict));
    printf("  vl-blocks        %s\n", yesno(ci->vlblocks));
    printf("  special          %s\n", b2_special_name(ci->special) ? b2_special_name(ci->special) : "unknown");
    printf("  header length    %d (%s)\n", ci->header_len, ci->header_len == B2_HEADER_LEN ? "Blosc2" : "Blosc1");
    printf("  flags            0x%02x (blosc2_flags 0x%02x, blosc2_flags2 0x%02x)\n", ci->flags,
           ci->blosc2_flags, ci->blosc2_flags2);
}

static void chunk_json(const char *path, const b2_chunk_info *ci)
{
    b2cli_json j;
    char buf[32];
    b2cli_json_begin(&j, stdout);
    b2cli_json_str(&j, "file", path);
    b2cli_json_str(&j, "kind", "chunk");
    b2cli_json_int(&j, "version", ci->version);
    b2cli_json_int(&j, "versionlz", ci->versionlz);
    b2cli_json_str(&j, "codec", b2cli_codec_label(ci->compcode, buf, sizeof buf));
    b2cli_json_int(&j, "codec_id", ci->compcode);
    b2cli_json_int(&j, "codec_format", ci->codec_format);
    b2cli_json_int(&j, "compcode_meta", ci->compcode_meta);
    b2cli_json_str(&j, "clevel", NULL);
    b2cli_json_array_begin(&j, "filters");
    for (int i = 0; i < B2_MAX_FILTERS; i++)
        b2cli_json_array_int(&j, ci->filters[i]);
    b2cli_json_array_end(&j);
    b2cli_json_array_begin(&j, "filters_meta");
    for (int i = 0; i < B2_MAX_FILTERS; i++)
        b2cli_json_array_int(&j, ci->filters_meta[i]);
    b2cli_json_array_end(&j);
    b2cli_json_array_begin(&j, "filters_names");
    for (int i = 0; i < B2_MAX_FILTERS; i++)
        b2cli_json_array_str(&j, b2cli_filter_label(ci->filters[i], buf, sizeof buf));
    b2cli_json_array_end(&j);
    b2cli_json_int(&j, "typesize", ci->typesize);
    b2cli_json_int(&j, "nbytes", ci->nbytes);
    b2cli_json_int(&j, "cbytes", ci->cbytes);
    b2cli_json_num(&j, "ratio", ratio(ci));
    b2cli_json_int(&j, "blocksize", ci->blocksize);
    b2cli_json_int(&j, "nblocks", ci->nblocks);
    b2cli_json_int(&j, "leftover", ci->leftover);
    b2cli_json_bool(&j, "split", ci->split);
    b2cli_json_bool(&j, "memcpy", ci->memcpyed);
    b2cli_json_bool(&j, "dict", ci->has_dict);
    b2cli_json_bool(&j, "vlblocks", ci->vlblocks);
    b2cli_json_bool(&j, "lazy", ci->lazy);
    b2cli_json_str(&j, "special", b2_special_name(ci->special));
    b2cli_json_int(&j, "header_len", ci->header_len);
    b2cli_json_int(&j, "flags", ci->flags);
    b2cli_json_int(&j, "blosc2_flags", ci->blosc2_flags);
    b2cli_json_int(&j, "blosc2_flags2", ci->blosc2_flags2);
    b2cli_json_end(&j);
}

/* Describe one path. Returns B2_OK or an error (message printed). */
static int info_path(const char *path, int json)
{
    b2cli_obj o;
    int rc;
    if (b2cli_h5_is_hdf5(path))
        return b2cli_h5_info(path, json);
    rc = b2cli_obj_open_frames(&o, path); /* python-blosc2's objects are named, not refused */
    if (rc == B2_OK) {
        if (o.kind == B2_KIND_CHUNK) {
            b2_chunk_info ci;
            rc = b2_chunk_get_info(o.data, o.size, &ci);
            if (rc == B2_OK) {
                if (json)
                    chunk_json(path, &ci);
                else
                    chunk_text(path, &ci);
            }
        } else {
            rc = b2cli_info_frame(&o, json);
        }
    }
    b2cli_obj_close(&o);
    return rc;
}

int b2cli_cmd_info(int argc, char **argv)
{
    int json = 0, nfiles = 0, failed = 0;
    for (int i = 1; i < argc; i++) {
        if (b2cli_is_help(argv[i])) {
            fputs(info_help, stdout);
            return B2CLI_OK;
        } else if (!strcmp(argv[i], "--json")) {
            json = 1;
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            return b2cli_usage_error("info", "unknown option '%s'", argv[i]);
        } else {
            nfiles++;
        }
    }
    if (nfiles == 0)
        return b2cli_usage_error("info", "missing input file");
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--json") || (argv[i][0] == '-' && argv[i][1] != '\0'))
            continue;
        if (info_path(argv[i], json) < 0)
            failed = 1;
    }
    if (fflush(stdout) != 0)
        failed = 1;
    return failed ? B2CLI_EXIT_DATA : B2CLI_OK;
}
