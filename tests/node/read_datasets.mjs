// SPDX-License-Identifier: BSD-3-Clause
// Read every dataset of an HDF5 file with h5wasm + h5wasm-plugins (the HDFGroup
// Blosc2 filter built to WebAssembly), for tests/py/test_h5wasm_*.py. Usage:
//   node read_datasets.mjs FILE
// prints one JSON object {name: {sha256, nbytes, shape, dtype} or {error}}: the
// SHA-256 is of the values in C order as h5wasm returns them (little-endian).
import { createHash } from "node:crypto";

const h5wasm = await import("h5wasm/node");
const plugins = await import("h5wasm-plugins");
const Module = await h5wasm.ready;
plugins.install_local_plugins(Module);

const file = process.argv[2];
if (!file) {
  console.error("usage: node read_datasets.mjs FILE");
  process.exit(2);
}
const f = new h5wasm.File(file, "r");
const out = {};
for (const name of f.keys()) {
  try {
    const d = f.get(name);
    const v = d.value;
    const bytes = Buffer.from(v.buffer, v.byteOffset, v.byteLength);
    out[name] = {
      sha256: createHash("sha256").update(bytes).digest("hex"),
      nbytes: v.byteLength,
      shape: d.shape,
      dtype: d.dtype,
    };
  } catch (e) {
    // one failed read must not hide the others
    out[name] = { error: String(e && e.message ? e.message : e).slice(0, 300) };
  }
}
f.close();
console.log(JSON.stringify(out));
