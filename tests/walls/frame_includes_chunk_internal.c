/* SPDX-License-Identifier: BSD-3-Clause */
/* Must NOT compile with the frame layer's include path: the frame layer uses
 * chunks through b2_chunk.h only, not the chunk layer's internals. */
#include "chunk_internal.h"
