/* SPDX-License-Identifier: BSD-3-Clause */
/* The subcommands of b2 (cmd_*.c), seen by main.c alone: a command is a leaf,
 * which nothing but the dispatcher calls. */
#ifndef B2CLI_COMMANDS_H
#define B2CLI_COMMANDS_H

/* One subcommand: `run` gets argv with argv[0] = the subcommand name. */
typedef struct b2cli_cmd {
    const char *name;
    const char *summary; /* one line for `b2 --help` */
    int (*run)(int argc, char **argv);
} b2cli_cmd;

/* Each runs `b2 NAME ...` (argv[0] = NAME) and returns the exit status. */
int b2cli_cmd_cat(int argc, char **argv);        /* cmd_cat.c: decoded bytes to stdout */
int b2cli_cmd_decompress(int argc, char **argv); /* cmd_cat.c: decoded bytes into a file */
int b2cli_cmd_info(int argc, char **argv);       /* cmd_info.c */
int b2cli_cmd_compress(int argc, char **argv);   /* cmd_compress.c */
int b2cli_cmd_slice(int argc, char **argv);      /* cmd_slice.c */
int b2cli_cmd_verify(int argc, char **argv);     /* cmd_verify.c */
int b2cli_cmd_compact(int argc, char **argv);    /* cmd_compact.c */
int b2cli_cmd_concat(int argc, char **argv);     /* cmd_nd.c */
int b2cli_cmd_rechunk(int argc, char **argv);    /* cmd_nd.c */
int b2cli_cmd_bench(int argc, char **argv);      /* cmd_bench.c */
int b2cli_cmd_convert(int argc, char **argv);    /* cmd_convert.c */

#endif
