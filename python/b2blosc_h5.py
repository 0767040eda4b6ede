# SPDX-License-Identifier: BSD-3-Clause
"""Deprecated former name of b2blosc.h5 (fast slicing of Blosc2 HDF5 datasets
from h5py), kept for one release: `import b2blosc_h5` warns (FutureWarning, as
b2blosc.h5.filter_kwargs does; see _deprecated there for why not a
DeprecationWarning) and gives the very module b2blosc.h5, so enable()/disable()
and the per-dataset readers are shared. New code should `import b2blosc.h5`;
this name will go in the release after next.

Since the module now lives in the b2blosc package, this file needs that package
beside it (the source tree's python/ folder, or a pip/cmake install)."""
import sys

import b2blosc.h5 as _h5
from b2blosc.h5 import *  # noqa: F401,F403 (for readers of this file; replaced below)

# stacklevel 3: past _deprecated and this module, the importing line (the
# warnings module skips the import machinery's frames)
_h5._deprecated("import b2blosc_h5", "import b2blosc.h5 (the same module)", stacklevel=3)

sys.modules[__name__] = _h5
