# SPDX-License-Identifier: BSD-3-Clause
"""`python -m b2blosc`: what this b2blosc runs on (versions, files, SIMD
kernels, HDF5, threads), to paste into a bug report; --json for
b2blosc.get_config() as JSON."""
import argparse
import json
import sys


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m b2blosc",
                                 description="Print b2blosc's configuration for bug reports.")
    ap.add_argument("--json", action="store_true", help="print b2blosc.get_config() as JSON")
    args = ap.parse_args(argv)
    import b2blosc
    from b2blosc import _config
    cfg = b2blosc.get_config()
    if args.json:
        json.dump(cfg, sys.stdout, indent=2, sort_keys=True)
        print()
    else:
        print(_config.format_config(cfg))
    return 0


if __name__ == "__main__":
    sys.exit(main())
