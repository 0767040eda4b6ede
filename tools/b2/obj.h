/* SPDX-License-Identifier: BSD-3-Clause */
/* Any Blosc2 object b2 reads, opened whatever its kind (obj.c); python-blosc2's
 * containers b2 does not read, told apart (pystore.c); `info` of an opened
 * frame, sparse frame or b2nd array (info_frame.c). */
#ifndef B2CLI_OBJ_H
#define B2CLI_OBJ_H

#include "b2cli.h"

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
/* Release everything (safe after a failed open). */
void b2cli_obj_close(b2cli_obj *o);

/* ---- python-blosc2's containers b2 does not read (pystore.c) ---- */

/* 1 and the kind ("a python-blosc2 EmbedStore (.b2e)", ...) in buf when the
 * super-chunk is one of python-blosc2's objects built on frames, else 0. */
int b2cli_py_frame_kind(b2_schunk *s, char *buf, size_t cap);
/* 1 and the kind in buf when path is a python-blosc2 store that is no frame
 * (a .b2d directory, a .b2z zip) or another zip file, else 0. */
int b2cli_py_path_kind(const char *path, char *buf, size_t cap);
/* Print the refusal of path holding kind; returns the negative error code. */
int b2cli_py_refuse(const char *path, const char *kind);

/* ---- describing (info_frame.c) ---- */

/* `info` output for frames, sframes and b2nd (info_frame.c). Returns B2_OK or
 * an error (after printing what could be read). */
int b2cli_info_frame(const b2cli_obj *o, int json);

#endif
