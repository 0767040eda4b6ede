// SPDX-License-Identifier: BSD-3-Clause
// Cross-check with h5wasm + h5wasm-plugins (the HDFGroup Blosc2 filter built to
// WebAssembly), driven by tests/py/test_h5plugin_h5wasm.py. Usage:
//   node h5wasm_interop.mjs write FILE   write datasets with filter 32026; prints
//                                        {name: sha256 of the data written} as JSON
//   node h5wasm_interop.mjs read FILE    prints {name: {sha256, shape, filters}} as JSON
import { createHash } from "node:crypto";

const h5wasm = await import("h5wasm/node");
const plugins = await import("h5wasm-plugins");
const Module = await h5wasm.ready;
plugins.install_local_plugins(Module); // the wasm plugins shipped in node_modules

const [mode, file] = process.argv.slice(2);

// No zlib (codec 4): the wasm plugin cannot resolve zlib's compress2 in h5wasm 0.8.11.
// h5wasm spells dtypes like Python's struct module: H = uint16, b = int8, d = float64
// ("<f8" would silently make a float32 dataset).
// name, dtype, typed array, shape, chunks, compression_opts, value(i)
const CASES = [
  ["w_f4_2d", "<f4", Float32Array, [120, 90], [50, 40], [0, 0, 0, 0, 5, 1, 5], (i) => Math.sin(i / 100)],
  ["w_i4_1d", "<i4", Int32Array, [30001], [4096], [0, 0, 0, 0, 1, 2, 1], (i) => Math.floor(i / 3)],
  ["w_u2_3d", "<H", Uint16Array, [20, 30, 40], [7, 8, 9], [0, 0, 0, 0, 9, 0, 0], (i) => i % 1000],
  ["w_f8_2d", "<d", Float64Array, [101, 57], [25, 20], [0, 0, 0, 0, 9, 3, 2], (i) => i * 0.25],
  ["w_i1_1d", "<b", Int8Array, [9999], [1000], [0, 0, 0, 0, 5, 1, 2], (i) => (i % 7) - 3],
  ["w_f4_4d", "<f4", Float32Array, [6, 7, 8, 9], [3, 4, 5, 9], [0, 0, 0, 0, 5, 2, 0], (i) => (i % 77) * 0.5],
];

const sha = (v) => createHash("sha256").update(Buffer.from(v.buffer, v.byteOffset, v.byteLength)).digest("hex");

if (mode === "write") {
  const f = new h5wasm.File(file, "w");
  const out = {};
  for (const [name, dtype, T, shape, chunks, opts, gen] of CASES) {
    const n = shape.reduce((a, b) => a * b, 1);
    const a = new T(n);
    for (let i = 0; i < n; i++) a[i] = gen(i);
    f.create_dataset({ name, data: a, shape, dtype, chunks, compression: 32026, compression_opts: opts });
    out[name] = sha(a);
  }
  f.close();
  console.log(JSON.stringify(out));
} else if (mode === "read") {
  const f = new h5wasm.File(file, "r");
  const out = {};
  for (const name of f.keys()) {
    const d = f.get(name);
    out[name] = { sha256: sha(d.value), shape: d.shape, filters: d.filters.map((x) => x.id) };
  }
  f.close();
  console.log(JSON.stringify(out));
} else {
  console.error("usage: node h5wasm_interop.mjs write|read FILE");
  process.exit(2);
}
