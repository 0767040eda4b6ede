/* SPDX-License-Identifier: BSD-3-Clause */
/* Must NOT compile with the common layer's include path: common/ is the bottom
 * layer and reaches no codec, filter, chunk or frame internals. */
#include "codecs.h"
