"""The Python-side cost of one kc launch over the same launch from C.

Runs, in one process and on one backend, n launches of an empty kernel
from C (a loop compiled by kcc into the test kernels' library) and from
Python (Kernel.for_ with a ctypes functor, and the prepared form that
reuses one policy and functor), and prints microseconds per launch and the
difference.  Usage:

    KC_BACKEND=threads python3 python/bench_launch.py [n] [len]
"""

import ctypes
import os
import sys
import time

import kc

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "tests"))
from conftest import Saxpy  # noqa: E402


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
    length = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    with kc.init():
        lib = kc.build(os.path.join(HERE, "tests", "kernels", "pyk.kc.c"),
                       depends=[os.path.join(HERE, "tests", "kernels",
                                             "pyk.h")])
        cfn = lib.cdll.pyk_c_launches
        cfn.restype, cfn.argtypes = ctypes.c_double, [ctypes.c_int,
                                                      ctypes.c_int64]
        k = lib["pyk_empty"]
        f = Saxpy()
        p = kc.range(0, length)
        rows = []
        for rep in range(5):  # interleaved repetitions; medians below
            c_ns = cfn(n, length)
            t0 = time.perf_counter()
            for _ in range(n):
                k.for_(p, f)
            kc.fence()
            py_ns = (time.perf_counter() - t0) * 1e9 / n
            t0 = time.perf_counter()
            for _ in range(n):
                k(length, f)
            kc.fence()
            py2_ns = (time.perf_counter() - t0) * 1e9 / n
            launch = k.bind(p, f)
            t0 = time.perf_counter()
            for _ in range(n):
                launch()
            kc.fence()
            py3_ns = (time.perf_counter() - t0) * 1e9 / n
            rows.append((c_ns, py_ns, py2_ns, py3_ns))
        med = [sorted(col)[len(col) // 2] for col in zip(*rows)]
        print("backend %s, %d launches of an empty kernel over [0, %d), "
              "median of 5" % (kc.backend(), n, length))
        print("%-40s %10s %12s" % ("launch from", "us/launch",
                                   "extra vs C"))
        print("%-40s %10.2f %12s" % ("C (kc_parallel_for loop)",
                                     med[0] / 1e3, "-"))
        print("%-40s %10.2f %12.2f" % ("Python k.for_(policy, functor)",
                                       med[1] / 1e3, (med[1] - med[0]) / 1e3))
        print("%-40s %10.2f %12.2f" % ("Python k(n, functor)",
                                       med[2] / 1e3, (med[2] - med[0]) / 1e3))
        print("%-40s %10.2f %12.2f" % ("Python k.bind(policy, functor)()",
                                       med[3] / 1e3, (med[3] - med[0]) / 1e3))


if __name__ == "__main__":
    main()
