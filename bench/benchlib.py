# SPDX-License-Identifier: BSD-3-Clause
"""What every bench driver prints with its figures: the machine they come from.

Figures from two machines are never compared, and the same model differs by
its SIMD flags (some have AVX-512, some not), so each table names the CPU
model, the flags that decide which kernels run, and the load while it ran.
The drivers import this file from their own folder (python puts a script's
folder first on sys.path)."""
import os
import platform

# the flags that decide which kernels libb2, c-blosc2 and the codec libraries run
SIMD_FLAGS = ("sse2", "ssse3", "sse4_1", "sse4_2", "avx", "avx2", "bmi2", "gfni", "avx512f",
              "avx512dq", "avx512cd", "avx512bw", "avx512vl", "avx512_vnni", "avx512_vbmi2",
              "avx512_bf16", "avx512_fp16", "neon", "asimd", "sve")


def _cpuinfo():
    """(model name, flags) from /proc/cpuinfo's first processor."""
    model, flags = "", []
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                key, _, value = line.partition(":")
                key = key.strip()
                if key in ("model name", "Model") and not model:
                    model = value.strip()
                elif key in ("flags", "Features") and not flags:
                    flags = value.split()
    except OSError:
        pass
    return model, flags


def cpu_model():
    """The CPU's model name ("unknown" when the system does not say)."""
    return _cpuinfo()[0] or platform.processor() or "unknown"


def cpu_flags():
    """The SIMD flags of SIMD_FLAGS this CPU has, space-separated ("none")."""
    have = set(_cpuinfo()[1])
    return " ".join(f for f in SIMD_FLAGS if f in have) or "none"


def loadavg():
    """The 1, 5 and 15 minute load averages, as "0.12 0.34 0.56"."""
    return " ".join("%.2f" % x for x in os.getloadavg())


def machine_line():
    """One line naming the CPU, its logical CPUs, SIMD flags and the load."""
    return "CPU: %s (%d logical CPUs); SIMD: %s; load: %s" % (
        cpu_model(), os.cpu_count() or 0, cpu_flags(), loadavg())
