# SPDX-License-Identifier: BSD-3-Clause
"""b2blosc.codecs.Blosc2, the numcodecs codec (imported on first use: it needs
numcodecs). The settings, their JSON form and the chunk work are codecs.py's."""
import numpy as np
from numcodecs.abc import Codec

from . import codecs as _c


class Blosc2(Codec):
    """numcodecs codec "b2blosc.blosc2": each buffer becomes one Blosc2 chunk
    (libb2), readable by c-blosc2, python-blosc2 and imagecodecs.

        Blosc2(cname="lz4", clevel=5, filters="shuffle", typesize=None,
               blocksize=0, splitmode="forward_compat", nthreads=1)

    The keywords and their values are b2blosc.codecs' (its docstring lists
    them); get_config() gives them back in canonical JSON form with "id".
    typesize None: the input array's itemsize (1 for bytes).
    decode(buf, out=None) returns a uint8 array, or out filled in."""

    codec_id = _c.CODEC_ID

    def __init__(self, cname=_c.DEFAULTS["cname"], clevel=_c.DEFAULTS["clevel"],
                 filters=_c.DEFAULTS["filters"], typesize=_c.DEFAULTS["typesize"],
                 blocksize=_c.DEFAULTS["blocksize"], splitmode=_c.DEFAULTS["splitmode"],
                 nthreads=_c.DEFAULTS["nthreads"]):
        cfg = _c.normalize_config(cname, clevel, filters, typesize, blocksize, splitmode,
                                  nthreads)
        self._cfg = cfg
        for k, v in _c.json_config(cfg).items():
            setattr(self, k, v)

    def encode(self, buf):
        if isinstance(buf, np.ndarray) and not buf.flags.c_contiguous:
            buf = np.ascontiguousarray(buf)
        # the compressed bytes are copied once into a bytes object, what
        # numcodecs' stores expect; compression is what costs
        return _c.encode_bytes(self._cfg, buf)

    def decode(self, buf, out=None):
        return _c.decode(self._cfg, buf, out)

    def get_config(self):
        return {"id": self.codec_id, **_c.json_config(self._cfg)}

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        config.pop("id", None)
        return cls(**_c.config_kwargs(config, "b2blosc.codecs.Blosc2"))

    def __getstate__(self):
        return self.get_config()

    def __setstate__(self, state):
        state = dict(state)
        state.pop("id", None)
        self.__init__(**state)

    def __repr__(self):
        return "Blosc2(%s)" % ", ".join("%s=%r" % kv for kv in _c.json_config(self._cfg).items())
