/* SPDX-License-Identifier: BSD-3-Clause */
/* b2: command-line front end of libb2. Dispatches to one function per
 * subcommand (cmd_*.c); adding a subcommand means adding a row to `commands`. */
#include <string.h>

#include "b2cli.h"
#include "commands.h"

static const b2cli_cmd commands[] = {
    {"cat", "write the decoded content of a Blosc2 object to stdout", b2cli_cmd_cat},
    {"info", "describe a Blosc2 object or HDF5 Blosc2 datasets (--json)", b2cli_cmd_info},
    {"compress", "compress a file into a chunk, frame, sparse frame or b2nd array",
     b2cli_cmd_compress},
    {"decompress", "decode a Blosc2 object into a file", b2cli_cmd_decompress},
    {"slice", "write the bytes of a box of a b2nd array (or items of a frame)", b2cli_cmd_slice},
    {"verify", "decode everything and report each bad chunk (exit 1 if any)", b2cli_cmd_verify},
    {"convert", "move an array between an HDF5 dataset and a b2nd file (raw chunks when possible)",
     b2cli_cmd_convert},
    {"compact", "rewrite frame files without dead space", b2cli_cmd_compact},
    {"concat", "join two b2nd arrays along an axis (chunks copied when the grids line up)",
     b2cli_cmd_concat},
    {"rechunk", "copy a b2nd array with new chunk and block shapes, chunk by chunk",
     b2cli_cmd_rechunk},
    {"bench", "measure ratio and speed per the shared benchmark protocol", b2cli_cmd_bench},
};

static void usage(FILE *f)
{
    fprintf(f, "usage: b2 COMMAND [options] [args]\n"
               "Read and write Blosc2 data (libb2 %s).\n\ncommands:\n", b2_version());
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  %-12s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "\n'b2 COMMAND --help' describes a command. The kind of an input (chunk,\n"
               "frame, ...) is detected from its content, not its name.\n"
               "Exit status: 0 success, 1 bad or unreadable data, 2 bad command line.\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return B2CLI_EXIT_USAGE;
    }
    if (b2cli_is_help(argv[1]) || !strcmp(argv[1], "help")) {
        usage(stdout);
        return B2CLI_OK;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("b2 (libb2) %s, SIMD kernels: %s\n", b2_version(), b2_simd_name());
        return B2CLI_OK;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(argv[1], commands[i].name))
            return commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "b2: unknown command '%s' (see 'b2 --help')\n", argv[1]);
    return B2CLI_EXIT_USAGE;
}
