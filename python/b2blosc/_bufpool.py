# SPDX-License-Identifier: BSD-3-Clause
"""Warm output buffers for the codecs.

A fresh 1 MiB NumPy array is fresh memory from the kernel more often than not
(glibc gives large blocks back, per thread arena), and its first write then
takes a page fault per 4 KiB page: on a virtual machine that costs more than
decoding the chunk (measured: 564 µs per 1 MiB lz4+shuffle chunk into fresh
arrays, 208 µs into a reused one). zarr decodes every chunk into a new buffer,
copies it into the array and drops it, so the codecs take their buffers from
this pool: a block comes back when the last array using its memory is gone,
and the next chunk of the same size reuses it, already mapped.

A leased array's memory is owned by a _Lease object (NumPy's base of the
array, kept alive by every view of it, however derived); its __del__ returns
the block. Nothing is reused while any view is alive."""
import os
import threading

import numpy as np

MIN_POOLED = 128 * 1024        # smaller blocks: malloc keeps them warm itself
MAX_FREE_BYTES = 64 * 2 ** 20  # free blocks kept per process, all sizes together


class _Lease:
    """The owner of one pooled block while arrays use it."""
    __slots__ = ("__array_interface__", "_block", "_pool")

    def __init__(self, block, pool):
        self._block, self._pool = block, pool
        self.__array_interface__ = {"shape": (block.nbytes,), "typestr": "|u1",
                                    "data": (block.ctypes.data, False), "version": 3}

    def __del__(self):
        try:
            self._pool.give(self._block)
        except Exception:  # interpreter shutdown: nothing left to keep
            pass


class BufferPool:
    """Free blocks by size, shared by the threads of one process."""

    def __init__(self):
        self.pid = os.getpid()
        self.lock = threading.Lock()
        self.free = {}        # nbytes -> [uint8 arrays]
        self.free_bytes = 0

    def take(self, nbytes):
        """A uint8 block of nbytes (warm when one is free); give() it back."""
        if nbytes >= MIN_POOLED:
            with self.lock:
                blocks = self.free.get(nbytes)
                if blocks:
                    self.free_bytes -= nbytes
                    return blocks.pop()
        return np.empty(nbytes, np.uint8)

    def give(self, block):
        """Keep block for the next take() of its size, within the bound."""
        n = block.nbytes
        if not MIN_POOLED <= n <= MAX_FREE_BYTES:
            return
        with self.lock:
            while self.free_bytes + n > MAX_FREE_BYTES and self.free:
                size, blocks = next(iter(self.free.items()))  # the oldest size first
                blocks.pop()
                self.free_bytes -= size
                if not blocks:
                    del self.free[size]
            self.free.setdefault(n, []).append(block)
            self.free_bytes += n

    def lease(self, nbytes):
        """A uint8 array of nbytes whose block returns to the pool when the
        last array that uses its memory is gone."""
        if nbytes < MIN_POOLED:
            return np.empty(nbytes, np.uint8)
        return np.asarray(_Lease(self.take(nbytes), self))


_pool = None


def pool():
    """This process's pool (a child after fork makes its own: the parent's
    lock may have been held by a thread that the fork did not copy)."""
    global _pool
    p = _pool
    if p is None or p.pid != os.getpid():
        p = _pool = BufferPool()
    return p
