/* SPDX-License-Identifier: BSD-3-Clause */
/* The comparison benchmarks of the b2bench program (a workshop tool of the
 * source tree, not installed): one entry per benchmark, each parsing its own
 * options from the whole command line. They build on the b2 program's support
 * library (b2cli.h). */
#ifndef B2BENCH_H
#define B2BENCH_H

#include "b2cli.h"

/* `b2bench --frame`: frames and b2nd, the reference's ref_bench_frame lines (bench_frame.c). */
int b2bench_frame(int argc, char **argv);
/* `b2bench --hdf5`: HDF5 filters 32026 vs 32001 vs gzip (bench_h5.c). */
int b2bench_h5(int argc, char **argv);
/* `b2bench --hdf5-parallel`: H5Dread/H5Dwrite vs the parallel reader and
 * b2_h5_write_box (bench_h5par.c). */
int b2bench_h5par(int argc, char **argv);

/* b2bench --frame's b2nd operations (bench_nd_ops.c): reps runs each of
 * copying two saved copies of src, concatenating them along axis 0 into a new
 * file, and rechunking one to 250x1000 chunks into a file; the peak memory of
 * a `b2 rechunk --report` child (the b2 program: $B2_BIN, else the build
 * tree's). Scratch files go to dir. */
typedef struct b2bench_nd_ops_result {
    double t_copy[64], t_concat[64], t_rechunk[64]; /* seconds, reps of each */
    int64_t concat_chunks, concat_blocks_decoded;
    long rechunk_maxrss_kib, info_maxrss_kib; /* b2 rechunk's peak memory, after and before its copy */
    int64_t src_chunk_bytes, file_bytes;
} b2bench_nd_ops_result;
int b2bench_nd_ops(const char *dir, b2_nd_array *src, int reps, b2bench_nd_ops_result *r);

#endif
