/* SPDX-License-Identifier: BSD-3-Clause */
/* Helpers of the real-fault tests (tests/faults/): scratch directories, the b2
 * program's verify, copies of frames, clocks. */
#ifndef B2_FAULT_HARNESS_H
#define B2_FAULT_HARNESS_H

#include <stddef.h>
#include <stdint.h>

/* A new private directory under $TMPDIR (or /tmp); exits on failure. */
char *fu_scratch(const char *prefix);
/* Run `$B2_BIN verify -q path`. Returns 0 when it passes, 1 when it fails
 * (its messages in msg), -1 when B2_BIN is not set (the b2 program is not built). */
int fu_b2_verify(const char *path, char *msg, size_t cap);
/* Copy a frame file or a sparse-frame directory (one level) to dst, which must not exist. */
int fu_copy(const char *src, const char *dst);
/* Microseconds of a monotonic clock. */
int64_t fu_now_us(void);
/* A seed from $B2_FAULT_SEED, else from the clock; printed so a run can be repeated. */
uint64_t fu_seed(const char *test);
/* An integer from the environment, or dflt. */
long fu_env_long(const char *name, long dflt);

#endif
