/* SPDX-License-Identifier: BSD-3-Clause */
/* b2bench: the comparisons of libb2 with other programs (c-blosc2's
 * ref_bench_frame, HDF5's own filters and calls), a workshop tool of the source
 * tree: built with -DB2_BUILD_BENCH=ON, never installed. `b2 bench FILE...`,
 * our codecs on the user's files, stays in the b2 program. */
#include <string.h>

#include "bench.h"

static const char bench_help[] =
    "b2bench: libb2 against other programs, a workshop tool of libb2's source tree\n"
    "(bench/; built with -DB2_BUILD_BENCH=ON, not installed). One benchmark per run.\n"
    "\n"
    "usage: b2bench --hdf5 [--mib N] [--chunks LIST] [--codec LIST] [--threads LIST]\n"
    "                      [--reps N] [--json] [--plugin-dir DIR]\n"
    "Compare HDF5 filters through the HDF5 C API: our Blosc2 filter 32026, Blosc1's\n"
    "32001 (when HDF5 can load its plugin, e.g. Debian's hdf5-filter-plugin-blosc-serial)\n"
    "and gzip level 4. Two deterministic N x 512 x 512 datasets (N MiB each): a float32\n"
    "smooth field with noise and an int32 ramp with noise. Each case writes a whole file\n"
    "(create + H5Dwrite + close) and reads the dataset back (open + H5Dread + close, checked\n"
    "identical); filters alternate round by round and medians are reported. Blosc filters\n"
    "use shuffle; each thread count runs in its own process with B2_H5_NTHREADS and\n"
    "BLOSC_NTHREADS set. Temporary files go to $TMPDIR (else /tmp).\n"
    "  --mib N             dataset size in MiB, i.e. N (default 64)\n"
    "  --chunks LIST       chunk shapes ZxYxX (default 1x64x512,1x512x512,8x512x512:\n"
    "                      128 KiB, 1 MiB, 8 MiB)\n"
    "  --codec LIST        NAME[:CLEVEL] for both Blosc filters (default lz4:5,zstd:1;\n"
    "                      CLEVEL defaults to 1 for zstd, else 5)\n"
    "  --threads LIST      thread counts (default 1,2); gzip runs once, single-threaded\n"
    "  --reps N            rounds (default 3)\n"
    "  --json              one JSON object per filter and case instead of a table\n"
    "  --plugin-dir DIR    where libH5Zb2.so is (default ../h5plugin next to the directory\n"
    "                      of this program when present, else HDF5_PLUGIN_PATH)\n"
    "The table gives write MB/s, read MB/s and ratio per filter, then ours over Blosc1's\n"
    "speed (> 1: ours faster). Our plugin is searched first, system plugin directories\n"
    "last (for Blosc1).\n"
    "\n"
    "usage: b2bench --hdf5-parallel [FILE.h5:/DATASET] [--mib N] [--chunks ZxYxX]\n"
    "                               [--codec NAME[:CLEVEL]] [--threads N] [--reps N] [--json]\n"
    "Time whole-dataset reads and writes of one dataset of filter 32026 (FILE.h5:/DATASET,\n"
    "else a generated N x 512 x 512 int32 ramp with noise written to $TMPDIR, else /tmp):\n"
    "H5Dread through the filter against the parallel reader (b2_h5_reader) with 1 and N\n"
    "threads, and H5Dwrite against b2_h5_write_box with N threads, each write into a fresh\n"
    "file (H5Dwrite or write_box + H5Dclose + H5Fflush). Every result is checked; methods\n"
    "alternate round by round and medians are reported with ratio = the HDF5 call's median\n"
    "over this one (> 1: faster). H5Dread/H5Dwrite use $B2_H5_NTHREADS filter threads.\n"
    "  --mib N             generated dataset size in MiB (default 64)\n"
    "  --chunks ZxYxX      generated dataset's chunk shape (default 1x512x512, 1 MiB)\n"
    "  --codec NAME[:CLEVEL]  generated dataset's codec (default lz4:5), with shuffle\n"
    "  --threads N         threads of the parallel paths (default: the online CPUs)\n"
    "  --reps N            rounds (default 5)\n"
    "  --json              one JSON object per row: op, method, threads, nbytes,\n"
    "                      chunk_bytes, reps, median_s, mbps, ratio (and path)\n"
    "\n"
    "usage: b2bench --frame [--reps N] [--json] [--dir DIR] [--chunks N] [--only PART]\n"
    "Time super-chunks, frames and b2nd arrays with the scenarios and line names of\n"
    "the reference program ref_bench_frame (c-blosc2), lz4 clevel 5 + shuffle, typesize\n"
    "8, 1 thread: N x 1 MiB appends (float64 1000 sin) to memory, file and sparse\n"
    "frames; open + read one random chunk; 10x10 slices of a 2000x2000 float64 b2nd\n"
    "array (chunks 500x500) per blockshape, in memory and file-backed, against\n"
    "decoding a whole chunk; to_cbuffer of the whole array. Ours only: 64 random\n"
    "chunk reads of the file frame and the file-backed slices through pread and\n"
    "through mmap, alternating, with the median mmap/pread ratio and a closing note\n"
    "on whether mmap was level (within 10%). Every result is checked.\n"
    "Appends: a warm-up, then REPS runs; short operations: 5 x REPS samples of at\n"
    "least 20 ms each. The table gives median/min/max ms, MB/s and the load the rest\n"
    "of the machine put on it (ext load, in cores). Compare with the reference with\n"
    "bench/bench_frame_compare.py.\n"
    "  --reps N            runs per append line; other lines take 5 x N samples\n"
    "                      (default 7)\n"
    "  --json              one JSON object per line: name, median_ms, min_ms, max_ms, n,\n"
    "                      mbps (when bytes are moved), cratio, mmap_pread_ratio, ext_load\n"
    "  --dir DIR           where the temporary files go (default $TMPDIR, else /tmp); a\n"
    "                      private directory is made there and removed afterwards\n"
    "  --chunks N          number of 1 MiB appends (default 100)\n"
    "  --only PART         frame or b2nd: run one part only\n";


int main(int argc, char **argv)
{
    int hdf5 = 0, frame = 0, h5par = 0;
    for (int i = 1; i < argc; i++) {
        if (b2cli_is_help(argv[i])) { /* one help text covers every benchmark */
            fputs(bench_help, stdout);
            return B2CLI_OK;
        }
        hdf5 |= !strcmp(argv[i], "--hdf5");
        frame |= !strcmp(argv[i], "--frame");
        h5par |= !strcmp(argv[i], "--hdf5-parallel");
    }
    if (hdf5 + frame + h5par > 1)
        return b2cli_usage_error("b2bench", "--hdf5, --hdf5-parallel and --frame are different benchmarks");
    if (hdf5 + frame + h5par == 0)
        return b2cli_usage_error("b2bench", "name one benchmark: --frame, --hdf5 or --hdf5-parallel");
    if (h5par) /* parallel HDF5 reads and writes (bench_h5par.c) */
        return b2bench_h5par(argc, argv);
    if (hdf5) /* HDF5 filters (bench_h5.c) */
        return b2bench_h5(argc, argv);
    return b2bench_frame(argc, argv); /* frames and b2nd against the reference's lines */
}
