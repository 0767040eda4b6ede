# SPDX-License-Identifier: BSD-3-Clause
"""Former name of b2blosc.h5 (fast slicing of Blosc2 HDF5 datasets from h5py),
kept for one release: `import b2blosc_h5` gives the very module b2blosc.h5, so
enable()/disable() and the per-dataset readers are shared. New code should
`import b2blosc.h5`; this name will go in the release after next.

Since the module now lives in the b2blosc package, this file needs that package
beside it (the source tree's python/ folder, or a pip/cmake install)."""
import sys

import b2blosc.h5 as _h5
from b2blosc.h5 import *  # noqa: F401,F403 (for readers of this file; replaced below)

sys.modules[__name__] = _h5
