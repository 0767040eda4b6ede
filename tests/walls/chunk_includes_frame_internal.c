/* SPDX-License-Identifier: BSD-3-Clause */
/* Must NOT compile with the chunk layer's include path: the frame layer is above
 * the chunk layer. */
#include "frame_internal.h"
