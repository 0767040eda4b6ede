/* SPDX-License-Identifier: BSD-3-Clause */
/* Must compile with the b2nd layer's include path: what b2nd may use. */
#include "b2_nd.h"
#include "b2nd_internal.h"
#include "frame_reader.h"
#include "nd_shapes.h"

int b2_wall_check(void);
int b2_wall_check(void) { return 0; }
