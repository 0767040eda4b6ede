/* SPDX-License-Identifier: BSD-3-Clause */
/* HDF5 files using the Blosc2 filter 32026 (h5.c): info, verify and slices. */
#ifndef B2CLI_H5_H
#define B2CLI_H5_H

#include "b2cli.h"

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

#endif
