/* SPDX-License-Identifier: BSD-3-Clause */
/* Must NOT compile with the b2nd layer's include path (tests/CMakeLists.txt,
 * layer_wall_*): the b2nd layer reaches the frame layer only through
 * frame/export/. */
#include "frame_internal.h"
