/* SPDX-License-Identifier: BSD-3-Clause */
/* Must NOT compile with the frame layer's include path: codecs are two layers
 * down, reached through chunks only. */
#include "codecs.h"
