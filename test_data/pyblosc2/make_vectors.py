# SPDX-License-Identifier: BSD-3-Clause
"""Writes the python-blosc2 containers of this folder (README.md): run it with
python-blosc2 4.14.1 (the peer venv of tests/peers has it) from this folder:
    BUILD/peers/hdf5-1.14/bin/python make_vectors.py
Small on purpose: each file is well under 8 KiB."""
import dataclasses
import os
import shutil

import numpy as np

import blosc2

assert blosc2.__version__ == "4.14.1", blosc2.__version__
HERE = os.path.dirname(os.path.abspath(__file__))


def fresh(name):
    p = os.path.join(HERE, name)
    if os.path.isdir(p):
        shutil.rmtree(p)
    elif os.path.exists(p):
        os.remove(p)
    return p


def stores(arr):
    for cls, name in ((blosc2.EmbedStore, "embed.b2e"), (blosc2.DictStore, "dict.b2d"),
                      (blosc2.DictStore, "dict.b2z"), (blosc2.TreeStore, "tree.b2d"),
                      (blosc2.TreeStore, "tree.b2z")):
        with cls(fresh(name), mode="w") as s:
            s["/x"] = arr
            s["/y"] = blosc2.asarray(arr * 2)


@dataclasses.dataclass
class Row:
    a: int = blosc2.field(blosc2.int32())
    b: float = blosc2.field(blosc2.float64())


def tables():
    for name in ("table.b2d", "table.b2z"):
        t = blosc2.CTable(Row, urlpath=fresh(name), mode="w", expected_size=16)
        t.extend([(1, 2.0), (3, 4.0)])
        t.close()


def vlblocks():
    b = blosc2.BatchArray(urlpath=fresh("batch.b2frame"), mode="w")
    b.append([1, 2, 3])
    b.append(["x", "y"])
    del b
    o = blosc2.ObjectArray(urlpath=fresh("object.b2frame"), mode="w")
    o.append({"k": 1})
    o.append([1, 2])
    del o


def lazy(arr):
    a1 = blosc2.asarray(arr, urlpath=fresh("operand1.b2nd"), mode="w")
    a2 = blosc2.asarray(arr, urlpath=fresh("operand2.b2nd"), mode="w")
    (a1 + a2 * 2).save(urlpath=fresh("lazyexpr.b2nd"))

    @blosc2.dsl_kernel
    def kern(x, y):
        return x + y
    blosc2.lazyudf(kern, (a1, a2), dtype=np.float64).save(urlpath=fresh("lazyudf.b2nd"))
    p = blosc2.Proxy(a1, urlpath=fresh("proxy.b2nd"), mode="w")
    del p


def main():
    arr = np.arange(10, dtype="f8")
    stores(arr)
    tables()
    vlblocks()
    lazy(arr)


if __name__ == "__main__":
    main()
