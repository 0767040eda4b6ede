/* SPDX-License-Identifier: BSD-3-Clause */
/* A small persistent worker pool, owned by a context (no global state); its
 * functions are declared in b2_helpers_experimental.h, exported for the HDF5
 * filter and the tools. Worker threads are created on the first run that needs
 * them and then sleep on a condition variable between runs, so a multi-threaded
 * call costs a wakeup instead of a pthread_create + pthread_join per thread. */
#ifndef B2_POOL_H
#define B2_POOL_H

#include "b2_helpers_experimental.h" /* the pool's declarations: exported for the tools */
#include "b2_internal.h"

#endif
