/* SPDX-License-Identifier: BSD-3-Clause */
/* Must NOT compile with the filters layer's include path: the chunk layer is
 * above the filters. */
#include "chunk_internal.h"
