# SPDX-License-Identifier: BSD-3-Clause
"""b2blosc.codecs.Blosc2Zarr, the zarr v3 bytes-to-bytes codec (imported on
first use: it needs zarr >= 3). The settings, their JSON form and the chunk
work are codecs.py's; zarr finds the class through the "zarr.codecs" entry
point named "b2blosc.blosc2", the name the array metadata carries."""
import asyncio
from dataclasses import dataclass, replace

from zarr.abc.codec import BytesBytesCodec
from zarr.core.common import parse_named_configuration

from . import codecs as _c


@dataclass(frozen=True)
class Blosc2Zarr(BytesBytesCodec):
    """zarr v3 codec "b2blosc.blosc2": each chunk's bytes become one Blosc2
    chunk (libb2).

        zarr.create_array(store, shape=..., chunks=..., dtype="f4",
                          compressors=[Blosc2Zarr(cname="zstd", clevel=1)])

    Keywords as b2blosc.codecs.Blosc2 (b2blosc.codecs' docstring). typesize
    None: the array's item size, filled in when zarr evolves the codec for the
    array, so the stored metadata always carries a number. Encoding and
    decoding run in zarr's thread pool (asyncio.to_thread), libb2 with the
    GIL released."""

    is_fixed_size = False

    cname: str
    clevel: int
    filters: object
    typesize: object
    blocksize: int
    splitmode: str
    nthreads: int

    def __init__(self, *, cname=_c.DEFAULTS["cname"], clevel=_c.DEFAULTS["clevel"],
                 filters=_c.DEFAULTS["filters"], typesize=_c.DEFAULTS["typesize"],
                 blocksize=_c.DEFAULTS["blocksize"], splitmode=_c.DEFAULTS["splitmode"],
                 nthreads=_c.DEFAULTS["nthreads"]):
        cfg = _c.normalize_config(cname, clevel, filters, typesize, blocksize, splitmode,
                                  nthreads)
        for k, v in cfg.items():  # frozen: set as the generated __init__ would
            object.__setattr__(self, k, v)

    @property
    def _cfg(self):
        return {k: getattr(self, k) for k in _c.DEFAULTS}

    @classmethod
    def from_dict(cls, data):
        _, config = parse_named_configuration(data, _c.CODEC_ID, require_configuration=False)
        return cls(**_c.config_kwargs(config or {}, "codec %r" % _c.CODEC_ID))

    def to_dict(self):
        return {"name": _c.CODEC_ID, "configuration": _c.json_config(self._cfg)}

    def evolve_from_array_spec(self, array_spec):
        if self.typesize is not None:
            return self
        size = getattr(array_spec.dtype, "item_size", None)
        if size is None:  # a dtype without a fixed size (strings): bytes
            size = 1
        return replace(self, typesize=max(1, int(size)))

    def compute_encoded_size(self, _input_byte_length, _chunk_spec):
        raise NotImplementedError  # variable size, as every compressor

    def _decode_sync(self, chunk_bytes, chunk_spec):
        arr = _c.decode(self._cfg, chunk_bytes.as_numpy_array())
        return chunk_spec.prototype.buffer.from_array_like(arr)

    def _encode_sync(self, chunk_bytes, chunk_spec):
        item = getattr(chunk_spec.dtype, "item_size", None)
        arr = _c.encode(self._cfg, chunk_bytes.as_numpy_array(), item)
        return chunk_spec.prototype.buffer.from_array_like(arr)

    async def _decode_single(self, chunk_bytes, chunk_spec):
        return await asyncio.to_thread(self._decode_sync, chunk_bytes, chunk_spec)

    async def _encode_single(self, chunk_bytes, chunk_spec):
        return await asyncio.to_thread(self._encode_sync, chunk_bytes, chunk_spec)
