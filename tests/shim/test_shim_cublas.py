"""The preload shim's cuBLAS entries (native/src/shim/shim_cublas.c).

On the CPU: a stand-in libcublas built here with the system C compiler records every call
it receives with all its arguments, and a small C program calls the intercepted names.
Run with and without the shim, every call that must pass through reaches the stand-in
with the same arguments and returns its status; the trace says why it passed through.

With OZ_EMU_DIR naming a build of tests/cuda/emu/build_emu.sh: the routed path end to
end on the emulated CUDA executor, against the CPU executor bit for bit.

On a GPU (marked ``gpu``, skipped with the reason otherwise): CuPy products under the shim
are routed to the CUDA executor and equal the CPU executor's result bit for bit.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import ozblas
from ozblas import shim
from ozblas.testing import standard_normal

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="LD_PRELOAD is Linux")

CC = shutil.which("cc") or shutil.which("gcc")

# The intercepted names and their parameters (h: handle, ta/tb: cublasOperation_t, at/bt/ct:
# cudaDataType, s*: long long strides, nb: batch count).
GEMM = "h ta tb m n k alpha A lda B ldb beta C ldc"
STRIDED = "h ta tb m n k alpha A lda sa B ldb sb beta C ldc sc nb"
GEMMEX = "h ta tb m n k alpha A at lda B bt ldb beta C ct ldc compute algo"
STRIDEDEX = "h ta tb m n k alpha A at lda sa B bt ldb sb beta C ct ldc sc nb compute algo"
ARRAY = "h ta tb m n k alpha A lda B ldb beta C ldc nb"  # A, B, C: device arrays of pointers
ARRAYEX = "h ta tb m n k alpha A at lda B bt ldb beta C ct ldc nb compute algo"
TRSM = "h side uplo ta diag m n alpha A lda B ldb"
TRMM = "h side uplo ta diag m n alpha A lda B ldb C ldc"
RK = "h uplo ta n k alpha A lda beta C ldc"
SYMM = "h side uplo m n alpha A lda B ldb beta C ldc"
R2K = "h uplo ta n k alpha A lda B ldb beta C ldc"
SIGNATURES = {
    **{f"cublas{r}_v2{s}": (SYMM if r.endswith("mm") else R2K, "int64_t" if s else "int")
       for r in ("Dsymm", "Zsymm", "Zhemm", "Dsyr2k", "Zsyr2k", "Zher2k") for s in ("", "_64")},
    "cublasDsyrk_v2": (RK, "int"), "cublasDsyrk_v2_64": (RK, "int64_t"),
    "cublasZsyrk_v2": (RK, "int"), "cublasZsyrk_v2_64": (RK, "int64_t"),
    "cublasZherk_v2": (RK, "int"), "cublasZherk_v2_64": (RK, "int64_t"),
    "cublasDtrsm_v2": (TRSM, "int"), "cublasDtrsm_v2_64": (TRSM, "int64_t"),
    "cublasZtrsm_v2": (TRSM, "int"), "cublasZtrsm_v2_64": (TRSM, "int64_t"),
    "cublasDtrmm_v2": (TRMM, "int"), "cublasDtrmm_v2_64": (TRMM, "int64_t"),
    "cublasZtrmm_v2": (TRMM, "int"), "cublasZtrmm_v2_64": (TRMM, "int64_t"),
    "cublasDgemm_v2": (GEMM, "int"), "cublasDgemm_v2_64": (GEMM, "int64_t"),
    "cublasZgemm_v2": (GEMM, "int"), "cublasZgemm_v2_64": (GEMM, "int64_t"),
    "cublasDgemmStridedBatched": (STRIDED, "int"),
    "cublasDgemmStridedBatched_64": (STRIDED, "int64_t"),
    "cublasZgemmStridedBatched": (STRIDED, "int"),
    "cublasZgemmStridedBatched_64": (STRIDED, "int64_t"),
    "cublasGemmEx": (GEMMEX, "int"), "cublasGemmEx_64": (GEMMEX, "int64_t"),
    "cublasGemmStridedBatchedEx": (STRIDEDEX, "int"),
    "cublasGemmStridedBatchedEx_64": (STRIDEDEX, "int64_t"),
    "cublasDgemmBatched": (ARRAY, "int"), "cublasDgemmBatched_64": (ARRAY, "int64_t"),
    "cublasZgemmBatched": (ARRAY, "int"), "cublasZgemmBatched_64": (ARRAY, "int64_t"),
    "cublasGemmBatchedEx": (ARRAYEX, "int"), "cublasGemmBatchedEx_64": (ARRAYEX, "int64_t"),
}
POINTERS = {"h", "alpha", "A", "B", "beta", "C"}
INTS = {"ta", "tb", "at", "bt", "ct", "compute", "algo", "side", "uplo", "diag"}


def _ctype(p, idx):
    if p in POINTERS:
        return "void *"
    if p in INTS:
        return "int"
    if p.startswith("s"):
        return "long long"
    return idx  # dimensions, leading dimensions, batch count


def _params(name):
    plist, idx = SIGNATURES[name]
    return [(_ctype(p, idx), p) for p in plist.split()]


def _stub_source():
    """libcublas stand-in: each function logs its name and arguments, returns $STUB_STATUS.
    Functions named in -DOMIT_<name> are left out. With STUB_NESTED=1, cublasDgemm_v2 also
    calls cublasGemmEx through the global symbol, as a library calling its own exported
    name through its PLT would."""
    out = [textwrap.dedent("""\
        #include <stdint.h>
        #include <stdio.h>
        #include <stdlib.h>
        #include <string.h>
        static FILE *out(void)
        {
            static FILE *f;
            if (!f) {
                f = fopen(getenv("STUB_LOG"), "a");
                setvbuf(f, NULL, _IOLBF, 0);
            }
            return f;
        }
        static int env(const char *name) { const char *s = getenv(name); return s ? atoi(s) : 0; }
        #ifndef OMIT_cublasGetPointerMode_v2
        int cublasGetPointerMode_v2(void *h, int *mode) { (void)h; *mode = env("STUB_POINTER_MODE"); return 0; }
        #endif
        int cublasGetMathMode(void *h, int *mode) { (void)h; *mode = env("STUB_MATH_MODE"); return 0; }
        int cublasGetStream_v2(void *h, void **s) { (void)h; *s = (void *)0x5; return 0; }
        int cublasGemmEx(void *, int, int, int, int, int, void *, void *, int, int, void *, int, int,
                         void *, void *, int, int, int, int);
        """)]
    for name in SIGNATURES:
        ps = _params(name)
        args = ", ".join(f"{t} {p}" for t, p in ps)
        fmt = " ".join("%p" if t == "void *" else "%lld" for t, p in ps)
        vals = ", ".join(p if t == "void *" else f"(long long){p}" for t, p in ps)
        nested = ""
        if name == "cublasDgemm_v2":
            nested = ("#ifndef OMIT_cublasGemmEx\n    if (env(\"STUB_NESTED\"))\n        cublasGemmEx(h, ta, "
                      "tb, m, n, k, alpha, A, 1, lda, B, 1, ldb, beta, C, 1, ldc, 70, -1);\n#endif")
        out.append(f"#ifndef OMIT_{name}\nint {name}({args})\n{{\n"
                   f"    fprintf(out(), \"{name} {fmt}\\n\", {vals});\n{nested}\n"
                   f"    return env(\"STUB_STATUS\");\n}}\n#endif\n")
    return "\n".join(out)


# The trsm/trmm function types, in both C programs below.
TR_TYPEDEFS = r"""
typedef int (*trsm_t)(void *, int, int, int, int, int, int, const void *, const void *, int,
                      void *, int);
typedef int (*trsm64_t)(void *, int, int, int, int, int64_t, int64_t, const void *, const void *,
                        int64_t, void *, int64_t);
typedef int (*trmm_t)(void *, int, int, int, int, int, int, const void *, const void *, int,
                      void *, int, void *, int);
typedef int (*trmm64_t)(void *, int, int, int, int, int64_t, int64_t, const void *, const void *,
                        int64_t, void *, int64_t, void *, int64_t);
typedef int (*rk_t)(void *, int, int, int, int, const void *, const void *, int, const void *,
                    void *, int);
typedef int (*rk64_t)(void *, int, int, int64_t, int64_t, const void *, const void *, int64_t,
                      const void *, void *, int64_t);
/* symm/hemm (h, side, uplo, m, n, ...) and syr2k/her2k (h, uplo, trans, n, k, ...) */
typedef int (*l3_t)(void *, int, int, int, int, const void *, const void *, int, const void *,
                    int, const void *, void *, int);
typedef int (*l3_64_t)(void *, int, int, int64_t, int64_t, const void *, const void *, int64_t,
                       const void *, int64_t, const void *, void *, int64_t);
"""

# The includes and cuBLAS GEMM entry types both C programs below start with.
GEMM_DECLS = r"""
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int (*gemm_t)(void *, int, int, int, int, int, const void *, const void *, int,
                      const void *, int, const void *, void *, int);
typedef int (*gemm64_t)(void *, int, int, int64_t, int64_t, int64_t, const void *, const void *,
                        int64_t, const void *, int64_t, const void *, void *, int64_t);
typedef int (*sb_t)(void *, int, int, int, int, int, const void *, const void *, int, long long,
                    const void *, int, long long, const void *, void *, int, long long, int);
typedef int (*sb64_t)(void *, int, int, int64_t, int64_t, int64_t, const void *, const void *,
                      int64_t, long long, const void *, int64_t, long long, const void *, void *,
                      int64_t, long long, int64_t);
typedef int (*ex_t)(void *, int, int, int, int, int, const void *, const void *, int, int,
                    const void *, int, int, const void *, void *, int, int, int, int);
/* the batched forms with arrays of pointers */
typedef int (*ba_t)(void *, int, int, int, int, int, const void *, void *const *, int,
                    void *const *, int, const void *, void *const *, int, int);
typedef int (*ba64_t)(void *, int, int, int64_t, int64_t, int64_t, const void *, void *const *,
                      int64_t, void *const *, int64_t, const void *, void *const *, int64_t,
                      int64_t);
typedef int (*baex_t)(void *, int, int, int, int, int, const void *, void *const *, int, int,
                      void *const *, int, int, const void *, void *const *, int, int, int, int,
                      int);
typedef int (*baex64_t)(void *, int, int, int64_t, int64_t, int64_t, const void *, void *const *,
                        int, int64_t, void *const *, int, int64_t, const void *, void *const *,
                        int, int64_t, int64_t, int, int);
"""

# The program: each argument names one call, made through the global lookup (the shim's
# name when preloaded, the stand-in's otherwise); prints "<call> <status>". Host memory
# stands for device memory: nothing but the shim's reading of alpha and beta touches it.
# With STUB_POINTER_MODE=1 alpha and beta are addresses that must never be read.
PROG = GEMM_DECLS + r"""
typedef int (*ex64_t)(void *, int, int, int64_t, int64_t, int64_t, const void *, const void *,
                      int, int64_t, const void *, int, int64_t, const void *, void *, int,
                      int64_t, int, int);
typedef int (*sbex_t)(void *, int, int, int, int, int, const void *, const void *, int, int,
                      long long, const void *, int, int, long long, const void *, void *, int,
                      int, long long, int, int, int);
typedef int (*sbex64_t)(void *, int, int, int64_t, int64_t, int64_t, const void *, const void *,
                        int, int64_t, long long, const void *, int, int64_t, long long,
                        const void *, void *, int, int64_t, long long, int64_t, int, int);

/*TR_TYPEDEFS*/

static void *fn(const char *name)
{
    void *f = dlsym(RTLD_DEFAULT, name);
    if (!f) {
        printf("%s unresolved\n", name);
        exit(3);
    }
    return f;
}

int main(int argc, char **argv)
{
    static double A[256], B[256], C[256], al[2] = {1.5, 0.25}, be[2] = {0.5, -1.0}, z0[2];
    /* "device" arrays of pointers: never read by a call that passes through */
    static void *PA[4] = {A, A + 64, A + 128, A}, *PB[4] = {B, B + 64, B + 128, B + 192},
                *PC[4] = {C, C + 64, C + 128, C + 192};
    void *h = (void *)0x1234;
    const void *alpha = al, *beta = be, *zero = z0;
    if (getenv("STUB_POINTER_MODE") && atoi(getenv("STUB_POINTER_MODE"))) {
        alpha = (const void *)16; /* "device" scalars: reading them would crash */
        beta = (const void *)32;
    }
    for (int i = 1; i < argc; i++) {
        const char *c = argv[i];
        int st;
        if (!strcmp(c, "dgemm"))
            st = ((gemm_t)fn("cublasDgemm_v2"))(h, 0, 1, 4, 3, 2, alpha, A, 4, B, 3, beta, C, 4);
        else if (!strcmp(c, "dgemm64"))
            st = ((gemm64_t)fn("cublasDgemm_v2_64"))(h, 1, 0, 5, 6, 7, alpha, A, 7, B, 7, beta, C, 5);
        else if (!strcmp(c, "zgemm"))
            st = ((gemm_t)fn("cublasZgemm_v2"))(h, 2, 0, 3, 3, 3, alpha, A, 3, B, 3, beta, C, 3);
        else if (!strcmp(c, "zgemm64"))
            st = ((gemm64_t)fn("cublasZgemm_v2_64"))(h, 0, 2, 3, 2, 4, alpha, A, 3, B, 2, beta, C, 3);
        else if (!strcmp(c, "dsb"))
            st = ((sb_t)fn("cublasDgemmStridedBatched"))(h, 0, 0, 2, 3, 4, alpha, A, 2, 8, B, 4, 12,
                                                          beta, C, 2, 6, 3);
        else if (!strcmp(c, "dsb64"))
            st = ((sb64_t)fn("cublasDgemmStridedBatched_64"))(h, 1, 1, 2, 3, 4, alpha, A, 4, 8, B,
                                                              3, 12, beta, C, 2, 6, 2);
        else if (!strcmp(c, "zsb"))
            st = ((sb_t)fn("cublasZgemmStridedBatched"))(h, 2, 1, 3, 3, 2, alpha, A, 2, 6, B, 3, 6,
                                                          beta, C, 3, 9, 4);
        else if (!strcmp(c, "zsb64"))
            st = ((sb64_t)fn("cublasZgemmStridedBatched_64"))(h, 0, 0, 3, 3, 2, alpha, A, 3, 6, B,
                                                              2, 6, beta, C, 3, 9, 2);
        else if (!strcmp(c, "ex_d"))
            st = ((ex_t)fn("cublasGemmEx"))(h, 0, 0, 4, 3, 2, alpha, A, 1, 4, B, 1, 2, beta, C, 1, 4,
                                            70, -1);
        else if (!strcmp(c, "ex_z"))
            st = ((ex_t)fn("cublasGemmEx"))(h, 1, 2, 3, 3, 3, alpha, A, 5, 3, B, 5, 3, beta, C, 5, 3,
                                            70, 99);
        else if (!strcmp(c, "ex_pedantic"))
            st = ((ex_t)fn("cublasGemmEx"))(h, 0, 0, 4, 3, 2, alpha, A, 1, 4, B, 1, 2, beta, C, 1, 4,
                                            71, -1);
        else if (!strcmp(c, "ex_i8"))
            st = ((ex_t)fn("cublasGemmEx"))(h, 1, 0, 4, 4, 8, alpha, A, 3, 8, B, 3, 8, beta, C, 10, 4,
                                            72, -1);
        else if (!strcmp(c, "ex_mixed"))
            st = ((ex_t)fn("cublasGemmEx"))(h, 0, 0, 4, 3, 2, alpha, A, 1, 4, B, 1, 2, beta, C, 0, 4,
                                            70, -1);
        else if (!strcmp(c, "ex64_d"))
            st = ((ex64_t)fn("cublasGemmEx_64"))(h, 0, 1, 4, 3, 2, alpha, A, 1, 4, B, 1, 3, beta, C,
                                                 1, 4, 70, -1);
        else if (!strcmp(c, "sbex_d"))
            st = ((sbex_t)fn("cublasGemmStridedBatchedEx"))(h, 0, 0, 2, 3, 4, alpha, A, 1, 2, 8, B,
                                                            1, 4, 12, beta, C, 1, 2, 6, 3, 70, -1);
        else if (!strcmp(c, "sbex_i8"))
            st = ((sbex_t)fn("cublasGemmStridedBatchedEx"))(h, 1, 0, 4, 4, 8, alpha, A, 3, 8, 32, B,
                                                            3, 8, 32, beta, C, 10, 4, 16, 2, 72, -1);
        else if (!strcmp(c, "sbex64_z"))
            st = ((sbex64_t)fn("cublasGemmStridedBatchedEx_64"))(h, 0, 1, 3, 3, 2, alpha, A, 5, 3, 6,
                                                                 B, 5, 3, 6, beta, C, 5, 3, 9, 2,
                                                                 70, -1);
        else if (!strcmp(c, "dba"))
            st = ((ba_t)fn("cublasDgemmBatched"))(h, 0, 1, 4, 3, 2, alpha, PA, 4, PB, 3, beta, PC, 4,
                                                   3);
        else if (!strcmp(c, "dba64"))
            st = ((ba64_t)fn("cublasDgemmBatched_64"))(h, 1, 0, 2, 3, 4, alpha, PA, 4, PB, 4, beta,
                                                       PC, 2, 4);
        else if (!strcmp(c, "zba"))
            st = ((ba_t)fn("cublasZgemmBatched"))(h, 2, 0, 3, 3, 2, alpha, PA, 2, PB, 2, beta, PC, 3,
                                                   2);
        else if (!strcmp(c, "zba64"))
            st = ((ba64_t)fn("cublasZgemmBatched_64"))(h, 0, 2, 3, 2, 4, alpha, PA, 3, PB, 2, beta,
                                                       PC, 3, 3);
        else if (!strcmp(c, "baex_d"))
            st = ((baex_t)fn("cublasGemmBatchedEx"))(h, 0, 0, 4, 3, 2, alpha, PA, 1, 4, PB, 1, 2,
                                                      beta, PC, 1, 4, 2, 70, -1);
        else if (!strcmp(c, "baex_i8"))
            st = ((baex_t)fn("cublasGemmBatchedEx"))(h, 1, 0, 4, 4, 8, alpha, PA, 3, 8, PB, 3, 8,
                                                      beta, PC, 10, 4, 2, 72, -1);
        else if (!strcmp(c, "baex64_z"))
            st = ((baex64_t)fn("cublasGemmBatchedEx_64"))(h, 1, 0, 3, 3, 2, alpha, PA, 5, 2, PB, 5,
                                                          2, beta, PC, 5, 3, 4, 70, -1);
        else if (!strcmp(c, "dtrsm"))
            st = ((trsm_t)fn("cublasDtrsm_v2"))(h, 0, 1, 0, 0, 4, 3, alpha, A, 4, B, 4);
        else if (!strcmp(c, "dtrsm64"))
            st = ((trsm64_t)fn("cublasDtrsm_v2_64"))(h, 1, 0, 1, 1, 3, 5, alpha, A, 5, B, 4);
        else if (!strcmp(c, "ztrsm"))
            st = ((trsm_t)fn("cublasZtrsm_v2"))(h, 0, 0, 2, 0, 3, 2, alpha, A, 3, B, 3);
        else if (!strcmp(c, "ztrsm64"))
            st = ((trsm64_t)fn("cublasZtrsm_v2_64"))(h, 1, 1, 0, 1, 2, 3, alpha, A, 3, B, 2);
        else if (!strcmp(c, "dtrmm"))
            st = ((trmm_t)fn("cublasDtrmm_v2"))(h, 0, 1, 0, 0, 4, 3, alpha, A, 4, B, 4, B, 4);
        else if (!strcmp(c, "dtrmm64"))
            st = ((trmm64_t)fn("cublasDtrmm_v2_64"))(h, 1, 1, 2, 1, 3, 4, alpha, A, 4, B, 3, B, 3);
        else if (!strcmp(c, "ztrmm"))
            st = ((trmm_t)fn("cublasZtrmm_v2"))(h, 0, 0, 1, 0, 3, 3, alpha, A, 3, B, 3, B, 3);
        else if (!strcmp(c, "ztrmm64"))
            st = ((trmm64_t)fn("cublasZtrmm_v2_64"))(h, 1, 0, 0, 0, 2, 3, alpha, A, 3, B, 2, B, 2);
        else if (!strcmp(c, "dsyrk"))
            st = ((rk_t)fn("cublasDsyrk_v2"))(h, 0, 0, 4, 3, alpha, A, 4, beta, C, 4);
        else if (!strcmp(c, "dsyrk64"))
            st = ((rk64_t)fn("cublasDsyrk_v2_64"))(h, 1, 2, 3, 5, alpha, A, 5, beta, C, 3);
        else if (!strcmp(c, "zsyrk"))
            st = ((rk_t)fn("cublasZsyrk_v2"))(h, 1, 1, 3, 2, alpha, A, 2, beta, C, 3);
        else if (!strcmp(c, "zsyrk64"))
            st = ((rk64_t)fn("cublasZsyrk_v2_64"))(h, 0, 0, 2, 4, alpha, A, 2, beta, C, 2);
        else if (!strcmp(c, "zherk"))
            st = ((rk_t)fn("cublasZherk_v2"))(h, 0, 2, 3, 4, alpha, A, 4, beta, C, 3);
        else if (!strcmp(c, "zherk64"))
            st = ((rk64_t)fn("cublasZherk_v2_64"))(h, 1, 0, 4, 2, alpha, A, 4, beta, C, 4);
        else if (!strcmp(c, "zherk_badtrans"))
            st = ((rk_t)fn("cublasZherk_v2"))(h, 0, 1, 3, 4, alpha, A, 4, beta, C, 3);
        else if (!strcmp(c, "dsymm"))
            st = ((l3_t)fn("cublasDsymm_v2"))(h, 0, 1, 4, 3, alpha, A, 4, B, 4, beta, C, 4);
        else if (!strcmp(c, "dsymm64"))
            st = ((l3_64_t)fn("cublasDsymm_v2_64"))(h, 1, 0, 3, 5, alpha, A, 5, B, 3, beta, C, 3);
        else if (!strcmp(c, "zsymm"))
            st = ((l3_t)fn("cublasZsymm_v2"))(h, 0, 0, 3, 2, alpha, A, 3, B, 3, beta, C, 3);
        else if (!strcmp(c, "zsymm64"))
            st = ((l3_64_t)fn("cublasZsymm_v2_64"))(h, 1, 1, 2, 3, alpha, A, 3, B, 2, beta, C, 2);
        else if (!strcmp(c, "zhemm"))
            st = ((l3_t)fn("cublasZhemm_v2"))(h, 0, 1, 3, 3, alpha, A, 3, B, 3, beta, C, 3);
        else if (!strcmp(c, "zhemm64"))
            st = ((l3_64_t)fn("cublasZhemm_v2_64"))(h, 1, 0, 4, 2, alpha, A, 2, B, 4, beta, C, 4);
        else if (!strcmp(c, "dsyr2k"))
            st = ((l3_t)fn("cublasDsyr2k_v2"))(h, 0, 0, 4, 3, alpha, A, 4, B, 4, beta, C, 4);
        else if (!strcmp(c, "dsyr2k64"))
            st = ((l3_64_t)fn("cublasDsyr2k_v2_64"))(h, 1, 2, 3, 5, alpha, A, 5, B, 5, beta, C, 3);
        else if (!strcmp(c, "zsyr2k"))
            st = ((l3_t)fn("cublasZsyr2k_v2"))(h, 1, 1, 3, 2, alpha, A, 2, B, 2, beta, C, 3);
        else if (!strcmp(c, "zsyr2k64"))
            st = ((l3_64_t)fn("cublasZsyr2k_v2_64"))(h, 0, 0, 2, 4, alpha, A, 2, B, 2, beta, C, 2);
        else if (!strcmp(c, "zher2k"))
            st = ((l3_t)fn("cublasZher2k_v2"))(h, 0, 2, 3, 4, alpha, A, 4, B, 4, beta, C, 3);
        else if (!strcmp(c, "zher2k64"))
            st = ((l3_64_t)fn("cublasZher2k_v2_64"))(h, 1, 0, 4, 2, alpha, A, 4, B, 4, beta, C, 4);
        else if (!strcmp(c, "symm_argerr")) /* lda 2 < m */
            st = ((l3_t)fn("cublasDsymm_v2"))(h, 0, 1, 4, 3, alpha, A, 2, B, 4, beta, C, 4);
        else if (!strcmp(c, "symm_badside"))
            st = ((l3_t)fn("cublasZhemm_v2"))(h, 5, 1, 4, 3, alpha, A, 4, B, 4, beta, C, 4);
        else if (!strcmp(c, "her2k_badtrans")) /* zher2k takes N or C */
            st = ((l3_t)fn("cublasZher2k_v2"))(h, 0, 1, 3, 4, alpha, A, 4, B, 4, beta, C, 3);
        else if (!strcmp(c, "syr2k_badldb"))
            st = ((l3_t)fn("cublasDsyr2k_v2"))(h, 0, 0, 4, 3, alpha, A, 4, B, 3, beta, C, 4);
        else if (!strcmp(c, "symm_quick"))
            st = ((l3_t)fn("cublasDsymm_v2"))(h, 0, 1, 4, 0, alpha, A, 4, B, 4, beta, C, 4);
        else if (!strcmp(c, "syr2k_quick"))
            st = ((l3_t)fn("cublasZsyr2k_v2"))(h, 0, 0, 0, 3, alpha, A, 1, B, 1, beta, C, 1);
        else if (!strcmp(c, "symm_alpha0"))
            st = ((l3_t)fn("cublasZsymm_v2"))(h, 0, 1, 4, 3, zero, A, 4, B, 4, beta, C, 4);
        else if (!strcmp(c, "syr2k_k0"))
            st = ((l3_t)fn("cublasDsyr2k_v2"))(h, 0, 0, 4, 0, alpha, A, 4, B, 4, beta, C, 4);
        else if (!strcmp(c, "trmm_oop"))
            st = ((trmm_t)fn("cublasDtrmm_v2"))(h, 0, 1, 0, 0, 4, 3, alpha, A, 4, B, 4, C, 4);
        else if (!strcmp(c, "trsm_argerr"))
            st = ((trsm_t)fn("cublasDtrsm_v2"))(h, 0, 1, 0, 0, 4, 3, alpha, A, 2, B, 4);
        else if (!strcmp(c, "trsm_badside"))
            st = ((trsm_t)fn("cublasDtrsm_v2"))(h, 7, 1, 0, 0, 4, 3, alpha, A, 4, B, 4);
        else if (!strcmp(c, "trsm_alpha0"))
            st = ((trsm_t)fn("cublasDtrsm_v2"))(h, 0, 1, 0, 0, 4, 3, zero, A, 4, B, 4);
        else if (!strcmp(c, "trsm_quick"))
            st = ((trsm_t)fn("cublasDtrsm_v2"))(h, 0, 1, 0, 0, 0, 3, alpha, A, 1, B, 1);
        else if (!strcmp(c, "quick"))
            st = ((gemm_t)fn("cublasDgemm_v2"))(h, 0, 0, 0, 3, 2, alpha, A, 1, B, 2, beta, C, 1);
        else if (!strcmp(c, "batch0"))
            st = ((sb_t)fn("cublasDgemmStridedBatched"))(h, 0, 0, 2, 3, 4, alpha, A, 2, 8, B, 4, 12,
                                                          beta, C, 2, 6, 0);
        else if (!strcmp(c, "batch0_array"))
            st = ((ba_t)fn("cublasZgemmBatched"))(h, 0, 0, 2, 3, 4, alpha, PA, 2, PB, 4, beta, PC, 2,
                                                   0);
        else if (!strcmp(c, "batchneg_array"))
            st = ((ba_t)fn("cublasDgemmBatched"))(h, 0, 0, 2, 3, 4, alpha, PA, 2, PB, 4, beta, PC, 2,
                                                   -1);
        else if (!strcmp(c, "argerr"))
            st = ((gemm_t)fn("cublasDgemm_v2"))(h, 0, 0, 4, 3, 2, alpha, A, 3, B, 2, beta, C, 4);
        else {
            printf("%s unknown\n", c);
            return 2;
        }
        printf("%s %d\n", c, st);
    }
    return 0;
}
"""

PROG = PROG.replace("/*TR_TYPEDEFS*/", TR_TYPEDEFS)

# Every call; those traced (FP64) with the routine and sizes the trace must show.
PASS_CALLS = ["dgemm", "dgemm64", "zgemm", "zgemm64", "dsb", "dsb64", "zsb", "zsb64", "ex_d", "ex_z",
              "ex_pedantic", "ex_i8", "ex_mixed", "ex64_d", "sbex_d", "sbex_i8", "sbex64_z",
              "dba", "dba64", "zba", "zba64", "baex_d", "baex_i8", "baex64_z", "argerr",
              "dtrsm", "dtrsm64", "ztrsm", "ztrsm64", "dtrmm", "dtrmm64", "ztrmm", "ztrmm64",
              "dsyrk", "dsyrk64", "zsyrk", "zsyrk64", "zherk", "zherk64",
              "dsymm", "dsymm64", "zsymm", "zsymm64", "zhemm", "zhemm64",
              "dsyr2k", "dsyr2k64", "zsyr2k", "zsyr2k64", "zher2k", "zher2k64"]
TRACED = {
    "dgemm": ("dgemm", "cublasDgemm_v2", 4, 3, 2), "dgemm64": ("dgemm", "cublasDgemm_v2_64", 5, 6, 7),
    "zgemm": ("zgemm", "cublasZgemm_v2", 3, 3, 3), "zgemm64": ("zgemm", "cublasZgemm_v2_64", 3, 2, 4),
    "dsb": ("dgemm", "cublasDgemmStridedBatched", 2, 3, 4),
    "dsb64": ("dgemm", "cublasDgemmStridedBatched_64", 2, 3, 4),
    "zsb": ("zgemm", "cublasZgemmStridedBatched", 3, 3, 2),
    "zsb64": ("zgemm", "cublasZgemmStridedBatched_64", 3, 3, 2),
    "ex_d": ("dgemm", "cublasGemmEx", 4, 3, 2), "ex_z": ("zgemm", "cublasGemmEx", 3, 3, 3),
    "ex_pedantic": ("dgemm", "cublasGemmEx", 4, 3, 2), "ex64_d": ("dgemm", "cublasGemmEx_64", 4, 3, 2),
    "sbex_d": ("dgemm", "cublasGemmStridedBatchedEx", 2, 3, 4),
    "sbex64_z": ("zgemm", "cublasGemmStridedBatchedEx_64", 3, 3, 2),
    "dba": ("dgemm", "cublasDgemmBatched", 4, 3, 2), "dba64": ("dgemm", "cublasDgemmBatched_64", 2, 3, 4),
    "zba": ("zgemm", "cublasZgemmBatched", 3, 3, 2), "zba64": ("zgemm", "cublasZgemmBatched_64", 3, 2, 4),
    "baex_d": ("dgemm", "cublasGemmBatchedEx", 4, 3, 2),
    "baex64_z": ("zgemm", "cublasGemmBatchedEx_64", 3, 3, 2),
    "argerr": ("dgemm", "cublasDgemm_v2", 4, 3, 2),
    # trsm/trmm: m, n and the triangle's order
    "dtrsm": ("dtrsm", "cublasDtrsm_v2", 4, 3, 4), "dtrsm64": ("dtrsm", "cublasDtrsm_v2_64", 3, 5, 5),
    "ztrsm": ("ztrsm", "cublasZtrsm_v2", 3, 2, 3), "ztrsm64": ("ztrsm", "cublasZtrsm_v2_64", 2, 3, 3),
    "dtrmm": ("dtrmm", "cublasDtrmm_v2", 4, 3, 4), "dtrmm64": ("dtrmm", "cublasDtrmm_v2_64", 3, 4, 4),
    "ztrmm": ("ztrmm", "cublasZtrmm_v2", 3, 3, 3), "ztrmm64": ("ztrmm", "cublasZtrmm_v2_64", 2, 3, 3),
    # syrk/herk: n, n, k
    "dsyrk": ("dsyrk", "cublasDsyrk_v2", 4, 4, 3), "dsyrk64": ("dsyrk", "cublasDsyrk_v2_64", 3, 3, 5),
    "zsyrk": ("zsyrk", "cublasZsyrk_v2", 3, 3, 2), "zsyrk64": ("zsyrk", "cublasZsyrk_v2_64", 2, 2, 4),
    "zherk": ("zherk", "cublasZherk_v2", 3, 3, 4), "zherk64": ("zherk", "cublasZherk_v2_64", 4, 4, 2),
    # symm/hemm: m, n and the order of A; syr2k/her2k: n, n, k
    "dsymm": ("dsymm", "cublasDsymm_v2", 4, 3, 4), "dsymm64": ("dsymm", "cublasDsymm_v2_64", 3, 5, 5),
    "zsymm": ("zsymm", "cublasZsymm_v2", 3, 2, 3), "zsymm64": ("zsymm", "cublasZsymm_v2_64", 2, 3, 3),
    "zhemm": ("zhemm", "cublasZhemm_v2", 3, 3, 3), "zhemm64": ("zhemm", "cublasZhemm_v2_64", 4, 2, 2),
    "dsyr2k": ("dsyr2k", "cublasDsyr2k_v2", 4, 4, 3), "dsyr2k64": ("dsyr2k", "cublasDsyr2k_v2_64", 3, 3, 5),
    "zsyr2k": ("zsyr2k", "cublasZsyr2k_v2", 3, 3, 2), "zsyr2k64": ("zsyr2k", "cublasZsyr2k_v2_64", 2, 2, 4),
    "zher2k": ("zher2k", "cublasZher2k_v2", 3, 3, 4), "zher2k64": ("zher2k", "cublasZher2k_v2_64", 4, 4, 2),
}


def _cuda_usable():
    return ozblas.info()["executors"]["cuda"]["available"]


# Where the shim sees a usable CUDA executor (a GPU machine), this program has no CUDA
# context, so the last check before routing is the one that stops it.
NO_GPU = "no current primary CUDA context" if _cuda_usable() else "no usable CUDA executor"


def _stub_dir(tmp_path_factory, name, prog):
    """A fresh directory holding the stand-in cuBLAS source and a program's."""
    if not CC:
        pytest.skip("no C compiler")
    d = tmp_path_factory.mktemp(name)
    (d / "stub.c").write_text(_stub_source())
    (d / "prog.c").write_text(prog)
    return d


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    d = _stub_dir(tmp_path_factory, "cublas_stub", PROG)
    libs = {}
    for tag, extra in (("full", []), ("partial", ["-DOMIT_cublasZgemm_v2", "-DOMIT_cublasGemmEx",
                                                  "-DOMIT_cublasGetPointerMode_v2"])):
        sub = d / tag
        sub.mkdir()
        r = subprocess.run([CC, "-shared", "-fPIC", "-O1", *extra, "-o", str(sub / "libcublas.so.99"),
                            str(d / "stub.c")], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        # linked as libcublas is by CuPy's and PyTorch's modules: a DT_NEEDED dependency;
        # not position independent, so that its arrays have the same address in every run
        r = subprocess.run([CC, "-O1", "-no-pie", "-o", str(sub / "prog"), str(d / "prog.c"),
                            "-Wl,--no-as-needed", str(sub / "libcublas.so.99"),
                            f"-Wl,-rpath,{sub}", "-ldl"], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        libs[tag] = sub / "prog"
    return libs


def _run(prog, tmp_path, calls, preload, tag, **env_extra):
    log = tmp_path / f"stub_{tag}.log"
    trace = tmp_path / f"trace_{tag}.log"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OZBLAS_", "STUB_")) and k != "LD_PRELOAD"}
    # OZBLAS_LAPACK_NB=2: the trsm/trmm calls' small triangles are more than one block
    env.update(OZBLAS_METHOD="ozaki2", OZBLAS_MIN_SIZE="0", OZBLAS_TRACE=str(trace), STUB_LOG=str(log),
               OMP_NUM_THREADS="1", OZBLAS_LAPACK_NB="2")
    env.update(env_extra)
    if preload:
        env["LD_PRELOAD"] = shim.library_path()
    p = subprocess.run([str(prog), *calls], env=env, capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stdout + p.stderr
    lines = []
    if trace.exists():
        for line in trace.read_text().splitlines():
            assert line.startswith("ozblas-trace "), line
            lines.append(dict(re.findall(r'(\w+)=("[^"]*"|\S+)', line)))
    stub = log.read_text().splitlines() if log.exists() else []
    return p.stdout.splitlines(), stub, lines, p.stderr


# (settings, reason for every traced call but argerr and ex_pedantic, and those two's)
CASES = {
    "no_executor": ({}, NO_GPU, "compute type not CUBLAS_COMPUTE_64F"),
    "method_native": ({"OZBLAS_METHOD": "native"}, "OZBLAS_METHOD=native", "OZBLAS_METHOD=native"),
    "min_size": ({"OZBLAS_MIN_SIZE": "1000"}, "below OZBLAS_MIN_SIZE=1000", "below OZBLAS_MIN_SIZE=1000"),
    "disable": ({"OZBLAS_DISABLE": "1"}, "OZBLAS_DISABLE=1", "OZBLAS_DISABLE=1"),
    "routines": ({"OZBLAS_ROUTINES": "-*"}, "OZBLAS_ROUTINES leaves it (or its caller) native",
                 "OZBLAS_ROUTINES leaves it (or its caller) native"),
    "device_pointer_mode": ({"STUB_POINTER_MODE": "1"}, "device pointer mode", "device pointer mode"),
    "pedantic_math": ({"STUB_MATH_MODE": "18"}, "pedantic math mode", "compute type not CUBLAS_COMPUTE_64F"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_calls_pass_through_with_identical_arguments(built, tmp_path, case):
    env, reason, pedantic_reason = CASES[case]
    env = dict(env, STUB_STATUS="13")  # the stand-in's status must come back unchanged
    out0, stub0, trace0, _ = _run(built["full"], tmp_path, PASS_CALLS, False, "plain", **env)
    out1, stub1, trace1, err1 = _run(built["full"], tmp_path, PASS_CALLS, True, "preloaded", **env)
    assert out0 == [f"{c} 13" for c in PASS_CALLS]
    assert out1 == out0
    assert len(stub0) == len(PASS_CALLS)
    assert stub1 == stub0  # same functions, same arguments, same order
    assert trace0 == []
    assert err1 == ""
    # one trace line per FP64 call, none for the INT8 and mixed-type GemmEx
    want = [c for c in PASS_CALLS if c in TRACED]
    assert len(trace1) == len(want), trace1
    for c, t in zip(want, trace1):
        routine, symbol, m, n, k = TRACED[c]
        assert (t["routine"], t["symbol"], t["m"], t["n"], t["k"]) == (routine, symbol, str(m), str(n), str(k))
        assert (t["route"], t["executor"], t["method"]) == ("native", "cublas", "native")
        if c == "argerr" and case not in ("device_pointer_mode",):
            assert t["reason"] == '"argument error"'
        elif c == "ex_pedantic":
            assert t["reason"] == f'"{pedantic_reason}"'
        else:
            assert t["reason"] == f'"{reason}"', (c, t)


def test_routines_leave_only_the_named_cublas_routines_native(built, tmp_path):
    """OZBLAS_ROUTINES=-gemm: every GEMM form (cuBLAS calls count as dgemm and zgemm) passes
    through for that reason; trsm, syrk, symm and the others are decided as before."""
    calls = ["dgemm", "zsb", "ex_d", "dba64", "dtrsm", "zherk", "dsymm", "zher2k"]
    out, stub, trace, err = _run(built["full"], tmp_path, calls, True, "r", OZBLAS_ROUTINES="-gemm",
                                 STUB_STATUS="13")
    assert out == [f"{c} 13" for c in calls] and len(stub) == len(calls) and err == ""
    reasons = {t["symbol"]: t["reason"] for t in trace}
    for c in calls:
        routine, symbol = TRACED[c][:2]
        want = "OZBLAS_ROUTINES leaves it (or its caller) native" if routine.endswith("gemm") else NO_GPU
        assert reasons[symbol] == f'"{want}"', (c, reasons[symbol])


def test_quick_returns_do_not_reach_cublas(built, tmp_path):
    out, stub, trace, _ = _run(built["full"], tmp_path, ["quick", "batch0", "batch0_array"], True, "q")
    assert out == ["quick 0", "batch0 0", "batch0_array 0"]
    assert stub == []
    assert [(t["symbol"], t["route"], t["executor"]) for t in trace] == [
        ("cublasDgemm_v2", "quick", "cublas"), ("cublasDgemmStridedBatched", "quick", "cublas"),
        ("cublasZgemmBatched", "quick", "cublas")]


def test_negative_batch_count_reaches_cublas_unchanged(built, tmp_path):
    _, stub0, _, _ = _run(built["full"], tmp_path, ["batchneg_array"], False, "plain", STUB_STATUS="7")
    out, stub, trace, _ = _run(built["full"], tmp_path, ["batchneg_array"], True, "pre", STUB_STATUS="7")
    assert out == ["batchneg_array 7"] and stub == stub0 and len(stub) == 1
    assert [(t["symbol"], t["route"], t["reason"]) for t in trace] == [
        ("cublasDgemmBatched", "native", '"argument error"')]


def test_trsm_trmm_special_cases(built, tmp_path):
    """Argument errors (a zherk with trans T too) reach cuBLAS with the caller's arguments
    (and cuBLAS's status comes back), m = 0 returns at once, alpha = 0, trmm out of place
    (C != B) and a triangle within one block pass through, each with its reason."""
    calls = ["trsm_argerr", "trsm_badside", "trsm_quick", "trsm_alpha0", "trmm_oop", "dtrsm",
             "zherk_badtrans"]
    out0, stub0, _, _ = _run(built["full"], tmp_path, calls, False, "plain", STUB_STATUS="7")
    out, stub, trace, _ = _run(built["full"], tmp_path, calls, True, "pre", STUB_STATUS="7",
                               OZBLAS_LAPACK_NB="4")
    assert out0 == [f"{c} 7" for c in calls]
    assert out == [f"{c} {0 if c == 'trsm_quick' else 7}" for c in calls]
    assert len(stub0) == len(calls) and stub == stub0[:2] + stub0[3:]  # the quick one: not called
    assert [(t["symbol"], t["route"], t.get("reason")) for t in trace] == [
        ("cublasDtrsm_v2", "native", '"argument error"'),
        ("cublasDtrsm_v2", "native", '"argument error"'),
        ("cublasDtrsm_v2", "quick", '"quick return"'),
        ("cublasDtrsm_v2", "native", '"alpha or k zero"'),
        ("cublasDtrmm_v2", "native", '"cuBLAS trmm out of place (C != B)"'),
        ("cublasDtrsm_v2", "native", '"one block (order <= the LAPACK block size)"'),
        ("cublasZherk_v2", "native", '"argument error"')]


def test_symm_syr2k_special_cases(built, tmp_path):
    """symm/hemm and syr2k/her2k: argument errors (a bad side, lda or ldb, zher2k with trans
    T) reach cuBLAS with the caller's arguments and its status comes back; m, n or (syr2k) n
    zero returns at once without reaching it; alpha = 0 and k = 0 pass through, each with its
    reason; a valid call on the CPU-only machine stops at the executor check."""
    calls = ["symm_argerr", "symm_badside", "her2k_badtrans", "syr2k_badldb", "symm_quick",
             "syr2k_quick", "symm_alpha0", "syr2k_k0", "dsymm", "zher2k"]
    quick = {"symm_quick", "syr2k_quick"}
    out0, stub0, _, _ = _run(built["full"], tmp_path, calls, False, "plain", STUB_STATUS="7")
    out, stub, trace, _ = _run(built["full"], tmp_path, calls, True, "pre", STUB_STATUS="7")
    assert out0 == [f"{c} 7" for c in calls]
    assert out == [f"{c} {0 if c in quick else 7}" for c in calls]
    assert stub == [line for c, line in zip(calls, stub0) if c not in quick]
    assert [(t["symbol"], t["route"], t.get("reason")) for t in trace] == [
        ("cublasDsymm_v2", "native", '"argument error"'),
        ("cublasZhemm_v2", "native", '"argument error"'),
        ("cublasZher2k_v2", "native", '"argument error"'),
        ("cublasDsyr2k_v2", "native", '"argument error"'),
        ("cublasDsymm_v2", "quick", '"quick return"'),
        ("cublasZsyr2k_v2", "quick", '"quick return"'),
        ("cublasZsymm_v2", "native", '"alpha or k zero"'),
        ("cublasDsyr2k_v2", "native", '"alpha or k zero"'),
        ("cublasDsymm_v2", "native", f'"{NO_GPU}"'),
        ("cublasZher2k_v2", "native", f'"{NO_GPU}"')]
    assert [t["routine"] for t in trace] == ["dsymm", "zhemm", "zher2k", "dsyr2k", "dsymm", "zsyr2k",
                                             "zsymm", "dsyr2k", "dsymm", "zher2k"]


def test_nested_call_from_cublas_goes_straight_through(built, tmp_path):
    """A cuBLAS function calling another intercepted name (through its PLT) while the shim
    passes a call to it: the inner call reaches the real function and is not traced."""
    _, stub0, _, _ = _run(built["full"], tmp_path, ["dgemm"], False, "plain", STUB_NESTED="1")
    out, stub1, trace, _ = _run(built["full"], tmp_path, ["dgemm"], True, "pre", STUB_NESTED="1")
    assert out == ["dgemm 0"]
    assert len(stub0) == 2 and stub0[1].startswith("cublasGemmEx ")
    assert stub1 == stub0
    assert [t["symbol"] for t in trace] == ["cublasDgemm_v2"]


def test_missing_real_function_is_a_status_and_one_message(built, tmp_path):
    calls = ["zgemm", "zgemm", "ex_i8", "ex_d", "dgemm"]
    out, stub, trace, err = _run(built["partial"], tmp_path, calls, True, "missing")
    # CUBLAS_STATUS_NOT_INITIALIZED (1) where the real function is missing
    assert out == ["zgemm 1", "zgemm 1", "ex_i8 1", "ex_d 1", "dgemm 0"]
    assert err.count("no real cublasZgemm_v2 found among the loaded objects") == 1, err
    assert err.count("no real cublasGemmEx found among the loaded objects") == 1, err
    assert len(stub) == 1 and stub[0].startswith("cublasDgemm_v2 ")
    reasons = [(t["symbol"], t["reason"]) for t in trace]
    # no cublasGetPointerMode_v2 in this stand-in: nothing is read, everything passes through
    assert reasons == [("cublasZgemm_v2", '"real routine not found; C unchanged"')] * 2 + [
        ("cublasGemmEx", '"real routine not found; C unchanged"'),
        ("cublasDgemm_v2", '"cuBLAS handle query failed"')]


def test_cublas_calls_are_counted_as_dgemm_and_zgemm(built, tmp_path):
    """ozblas.stats() in a process that loaded the shim itself: cuBLAS calls count in the
    dgemm and zgemm rows, a strided batch with the flops of all its products."""
    body = f"""
        import ctypes, json, ozblas
        from ozblas.shim import library_path
        ctypes.CDLL({str(built["full"].parent / "libcublas.so.99")!r}, ctypes.RTLD_GLOBAL)
        lib = ctypes.CDLL(library_path())
        one = ctypes.c_double(1.0)
        ref = ctypes.byref(one)
        h, A = ctypes.c_void_p(0x1234), ctypes.c_void_p(0x1000)
        # 3 products of 2 x 3 x 4, then one complex 3 x 3 x 3
        lib.cublasDgemmStridedBatched(h, 0, 0, 2, 3, 4, ref, A, 2, ctypes.c_longlong(8), A, 4,
                                      ctypes.c_longlong(12), ref, A, 2, ctypes.c_longlong(6), 3)
        lib.cublasZgemm_v2(h, 0, 0, 3, 3, 3, ref, A, 3, A, 3, ref, A, 3)
        print(json.dumps(ozblas.stats()))
    """
    (tmp_path / "child.py").write_text(textwrap.dedent(body))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OZBLAS_", "STUB_")) and k != "LD_PRELOAD"}
    env.update(OZBLAS_METHOD="ozaki2", OZBLAS_MIN_SIZE="0", STUB_LOG=str(tmp_path / "stub.log"))
    p = subprocess.run([sys.executable, str(tmp_path / "child.py")], env=env, capture_output=True,
                       text=True, timeout=60)
    assert p.returncode == 0, p.stdout + p.stderr
    st = json.loads(p.stdout)
    d, z = st["routines"]["dgemm"], st["routines"]["zgemm"]
    assert (d["calls"], d["native"], d["flops"]) == (1, 1, 3 * 2 * 2 * 3 * 4)
    assert (z["calls"], z["native"], z["flops"]) == (1, 1, 8 * 3 * 3 * 3)
    assert list(d["routes"]) == [f"native: {NO_GPU}"] and list(z["routes"]) == [f"native: {NO_GPU}"]
    assert len((tmp_path / "stub.log").read_text().splitlines()) == 2  # both passed through


def test_library_exports_the_cublas_names():
    out = subprocess.run(["nm", "-D", "--defined-only", shim.library_path()], capture_output=True,
                         text=True).stdout if shutil.which("nm") else ""
    if not out:
        pytest.skip("nm not available")
    names = set(line.split()[-1] for line in out.splitlines())
    assert set(SIGNATURES) <= names
    # the legacy cublas.h API has another signature: never exported under its names
    assert not {"cublasDgemm", "cublasZgemm", "cublasDgemm_64"} & names


# ---- routed calls on the emulated CUDA executor ------------------------------------------------

# A CUDA driver as the shim's checks see it: a current primary context on device $FAKE_DEVICE
# (0 by default), no graph capture, operands in device memory.
FAKE_DRIVER = r"""
int cuCtxGetCurrent(void **c) { *c = (void *)0x77; return 0; }
int cuCtxGetDevice(int *d) { *d = env("FAKE_DEVICE"); return 0; }
int cuDevicePrimaryCtxGetState(int d, unsigned *f, int *a) { (void)d; *f = 0; *a = 1; return 0; }
int cuDevicePrimaryCtxRetain(void **c, int d) { (void)d; *c = (void *)0x77; return 0; }
int cuDevicePrimaryCtxRelease_v2(int d) { (void)d; return 0; }
int cuStreamIsCapturing(void *s, int *st) { (void)s; *st = 0; return 0; }
int cuPointerGetAttribute(void *data, int attr, unsigned long long p)
{
    (void)p;
    *(unsigned *)data = attr == 2 ? 2 : 0; /* MEMORY_TYPE: DEVICE */
    return 0;
}
/* "device" memory is the program's own: a copy is a memcpy, queued on no stream */
int cuMemcpyDtoHAsync_v2(void *dst, unsigned long long src, size_t n, void *s)
{
    (void)s;
    memcpy(dst, (const void *)(uintptr_t)src, n);
    return 0;
}
int cuStreamSynchronize(void *s) { (void)s; return 0; }
"""

# Each intercepted form once, on host memory (the emulated executor copies it like host
# operands), against ozblas's CPU executor with the same settings: prints "<name> same"
# or "<name> different".
EMU_PROG = GEMM_DECLS + r"""#include "ozblas.h"
typedef int (*sbex_t)(void *, int, int, int, int, int, const void *, const void *, int, int,
                      long long, const void *, int, int, long long, const void *, void *, int,
                      int, long long, int, int, int);
/*TR_TYPEDEFS*/

enum { M = 37, N = 29, K = 53, NB = 3, TN = 29, TR = 13 };
static double A[2 * K * M * NB + 64], B[2 * K * N * NB + 64], C[2 * (M + 2) * N * NB + 64],
    R[sizeof C / sizeof C[0]];

static void fill(double *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        x[i] = ((double)rand() / RAND_MAX - 0.5) * (rand() % 7 ? 1.0 : 30.0);
}
static void start(void)
{
    fill(C, sizeof C / sizeof C[0]);
    memcpy(R, C, sizeof C);
}
static void report(const char *name) { printf("%s %s\n", name, memcmp(C, R, sizeof C) ? "different" : "same"); }
static void *fn(const char *name) { return dlsym(RTLD_DEFAULT, name); }

int main(void)
{
    ozblas_context *ctx;
    ozblas_context_create(&ctx);
    ozblas_options o;
    ozblas_options_init(&o);
    o.method = OZBLAS_METHOD_OZAKI2;
    o.moduli = 16;
    o.executor = OZBLAS_EXECUTOR_CPU;
    void *h = (void *)0x1234;
    double al[2] = {1.25, -0.5}, be[2] = {0.75, 0.25};
    /* strides (in elements) with gaps, beta != 0: a batch computed twice or misplaced shows */
    long long sa = (long long)K * M + 5, sb = (long long)K * N + 3, sc = (long long)(M + 2) * N + 1;
    srand(3);
    fill(A, sizeof A / sizeof A[0]);
    fill(B, sizeof B / sizeof B[0]);

    start();
    ((gemm_t)fn("cublasDgemm_v2"))(h, 1, 0, M, N, K, al, A, K, B, K, be, C, M);
    ozblas_dgemm(ctx, 'T', 'N', M, N, K, al[0], A, K, B, K, be[0], R, M, &o, NULL);
    report("cublasDgemm_v2");
    start();
    ((gemm64_t)fn("cublasZgemm_v2_64"))(h, 2, 1, M, N, K, al, A, K, B, N, be, C, M);
    ozblas_zgemm(ctx, 'C', 'T', M, N, K, al, A, K, B, N, be, R, M, &o, NULL);
    report("cublasZgemm_v2_64");
    start();
    ((ex_t)fn("cublasGemmEx"))(h, 0, 0, M, N, K, al, A, 1, M, B, 1, K, be, C, 1, M, 70, -1);
    ozblas_dgemm(ctx, 'N', 'N', M, N, K, al[0], A, M, B, K, be[0], R, M, &o, NULL);
    report("cublasGemmEx");
    start();
    ((ex_t)fn("cublasGemmEx"))(h, 0, 2, M, N, K, al, A, 5, M, B, 5, N, be, C, 5, M, 70, -1);
    ozblas_zgemm(ctx, 'N', 'C', M, N, K, al, A, M, B, N, be, R, M, &o, NULL);
    report("cublasGemmEx");
    start();
    ((sb_t)fn("cublasDgemmStridedBatched"))(h, 0, 1, M, N, K, al, A, M, sa, B, N, sb, be, C, M + 2,
                                            sc, NB);
    for (int b = 0; b < NB; b++)
        ozblas_dgemm(ctx, 'N', 'T', M, N, K, al[0], A + b * sa, M, B + b * sb, N, be[0],
                     R + b * sc, M + 2, &o, NULL);
    report("cublasDgemmStridedBatched");
    start();
    ((sb64_t)fn("cublasZgemmStridedBatched_64"))(h, 1, 0, M, N, K, al, A, K, sa / 2, B, K, sb / 2,
                                                 be, C, M, sc / 2, NB);
    for (int b = 0; b < NB; b++)
        ozblas_zgemm(ctx, 'T', 'N', M, N, K, al, A + 2 * b * (sa / 2), K, B + 2 * b * (sb / 2), K,
                     be, R + 2 * b * (sc / 2), M, &o, NULL);
    report("cublasZgemmStridedBatched_64");
    start();
    ((sbex_t)fn("cublasGemmStridedBatchedEx"))(h, 0, 0, M, N, K, al, A, 1, M, sa, B, 1, K, sb, be,
                                               C, 1, M, sc, NB, 70, -1);
    for (int b = 0; b < NB; b++)
        ozblas_dgemm(ctx, 'N', 'N', M, N, K, al[0], A + b * sa, M, B + b * sb, K, be[0],
                     R + b * sc, M, &o, NULL);
    report("cublasGemmStridedBatchedEx");
    {
        /* arrays of pointers ("device" arrays): any matrices, one A twice, C out of order */
        void *pa[NB] = {A + 2 * sa, A, A + 2 * sa}, *pb[NB] = {B, B + sb, B + 2 * sb},
             *pc[NB] = {C + 2 * sc, C, C + sc};
        start();
        ((ba_t)fn("cublasDgemmBatched"))(h, 1, 0, M, N, K, al, pa, K, pb, K, be, pc, M, NB);
        for (int b = 0; b < NB; b++)
            ozblas_dgemm(ctx, 'T', 'N', M, N, K, al[0], (double *)pa[b], K, (double *)pb[b], K,
                         be[0], R + ((double *)pc[b] - C), M, &o, NULL);
        report("cublasDgemmBatched");
        start();
        ((baex_t)fn("cublasGemmBatchedEx"))(h, 0, 1, M, N, K, al, pa, 1, M, pb, 1, N, be, pc, 1,
                                            M + 2, NB, 70, -1);
        for (int b = 0; b < NB; b++)
            ozblas_dgemm(ctx, 'N', 'T', M, N, K, al[0], (double *)pa[b], M, (double *)pb[b], N,
                         be[0], R + ((double *)pc[b] - C), M + 2, &o, NULL);
        report("cublasGemmBatchedEx");
        /* complex: even offsets, in doubles */
        void *za[NB] = {A, A + 2 * (sa / 2), A}, *zb[NB] = {B + 2 * (sb / 2), B, B},
             *zc[NB] = {C, C + 2 * (sc / 2), C + 4 * (sc / 2)};
        start();
        ((ba64_t)fn("cublasZgemmBatched_64"))(h, 2, 0, M, N, K, al, za, K, zb, K, be, zc, M, NB);
        for (int b = 0; b < NB; b++)
            ozblas_zgemm(ctx, 'C', 'N', M, N, K, al, (double *)za[b], K, (double *)zb[b], K, be,
                         R + ((double *)zc[b] - C), M, &o, NULL);
        report("cublasZgemmBatched_64");
    }

    /* trsm and trmm: the blocked drivers (OZBLAS_LAPACK_NB=8) with their diagonal blocks on
       the host LAPACK loaded from $OZ_HOST_LAPACK; A a well-conditioned triangle */
    if (!dlopen(getenv("OZ_HOST_LAPACK"), RTLD_NOW | RTLD_GLOBAL)) {
        printf("no host LAPACK: %s\n", dlerror());
        return 1;
    }
    for (int i = 0; i < TN; i++)
        A[2 * (i + i * TN)] += 8.0;
    int64_t info = 0;
    start();
    ((trsm_t)fn("cublasDtrsm_v2"))(h, 0, 1, 0, 0, TN, TR, al, A, TN, C, TN);
    ozblas_dtrsm(ctx, 'L', 'U', 'N', 'N', TN, TR, al[0], A, TN, R, TN, &info, 0, &o, NULL);
    report("cublasDtrsm_v2");
    start();
    ((trsm64_t)fn("cublasZtrsm_v2_64"))(h, 1, 0, 2, 1, TR, TN, al, A, TN, C, TR);
    ozblas_ztrsm(ctx, 'R', 'L', 'C', 'U', TR, TN, al, A, TN, R, TR, &info, 0, &o, NULL);
    report("cublasZtrsm_v2_64");
    start();
    ((trmm64_t)fn("cublasDtrmm_v2_64"))(h, 0, 0, 1, 0, TN, TR, al, A, TN, C, TN, C, TN);
    ozblas_dtrmm(ctx, 'L', 'L', 'T', 'N', TN, TR, al[0], A, TN, R, TN, &info, 0, &o, NULL);
    report("cublasDtrmm_v2_64");
    start();
    ((trmm_t)fn("cublasZtrmm_v2"))(h, 1, 1, 0, 1, TR, TN, al, A, TN, C, TR, C, TR);
    ozblas_ztrmm(ctx, 'R', 'U', 'N', 'U', TR, TN, al, A, TN, R, TR, &info, 0, &o, NULL);
    report("cublasZtrmm_v2");
    start();
    ((rk_t)fn("cublasDsyrk_v2"))(h, 1, 1, TN, TR, al, A, TR, be, C, TN);
    ozblas_dsyrk(ctx, 'U', 'T', TN, TR, al[0], A, TR, be[0], R, TN, &info, 0, &o, NULL);
    report("cublasDsyrk_v2");
    start();
    ((rk64_t)fn("cublasZsyrk_v2_64"))(h, 0, 0, TN, TR, al, A, TN, be, C, TN);
    ozblas_zsyrk(ctx, 'L', 'N', TN, TR, al, A, TN, be, R, TN, &info, 0, &o, NULL);
    report("cublasZsyrk_v2_64");
    start();
    ((rk_t)fn("cublasZherk_v2"))(h, 0, 2, TN, TR, al, A, TR, be, C, TN);
    ozblas_zherk(ctx, 'L', 'C', TN, TR, al[0], A, TR, be[0], R, TN, &info, 0, &o, NULL);
    report("cublasZherk_v2");
    start();
    ((l3_t)fn("cublasDsymm_v2"))(h, 0, 1, TN, TR, al, A, TN, B, TN, be, C, TN);
    ozblas_dsymm(ctx, 'L', 'U', TN, TR, al[0], A, TN, B, TN, be[0], R, TN, &info, 0, &o, NULL);
    report("cublasDsymm_v2");
    start();
    ((l3_t)fn("cublasZsymm_v2"))(h, 0, 0, TN, TR, al, A, TN, B, TN, be, C, TN);
    ozblas_zsymm(ctx, 'L', 'L', TN, TR, al, A, TN, B, TN, be, R, TN, &info, 0, &o, NULL);
    report("cublasZsymm_v2");
    start();
    ((l3_64_t)fn("cublasZhemm_v2_64"))(h, 1, 0, TR, TN, al, A, TN, B, TR, be, C, TR);
    ozblas_zhemm(ctx, 'R', 'L', TR, TN, al, A, TN, B, TR, be, R, TR, &info, 0, &o, NULL);
    report("cublasZhemm_v2_64");
    start();
    ((l3_64_t)fn("cublasDsyr2k_v2_64"))(h, 0, 1, TN, TR, al, A, TR, B, TR, be, C, TN);
    ozblas_dsyr2k(ctx, 'L', 'T', TN, TR, al[0], A, TR, B, TR, be[0], R, TN, &info, 0, &o, NULL);
    report("cublasDsyr2k_v2_64");
    start();
    ((l3_t)fn("cublasZsyr2k_v2"))(h, 1, 0, TN, TR, al, A, TN, B, TN, be, C, TN);
    ozblas_zsyr2k(ctx, 'U', 'N', TN, TR, al, A, TN, B, TN, be, R, TN, &info, 0, &o, NULL);
    report("cublasZsyr2k_v2");
    start();
    ((l3_t)fn("cublasZher2k_v2"))(h, 0, 2, TN, TR, al, A, TR, B, TR, be, C, TN);
    ozblas_zher2k(ctx, 'L', 'C', TN, TR, al, A, TR, B, TR, be[0], R, TN, &info, 0, &o, NULL);
    report("cublasZher2k_v2");

    /* the shim's host LAPACK entry (NumPy's ILP64 name) on host memory: with a forced method
       and a usable (emulated) CUDA executor, device-resident (trace: device=uploaded) */
    typedef void (*getrf_t)(const int64_t *, const int64_t *, double *, const int64_t *,
                            int64_t *, int64_t *);
    int64_t tn = TN, ip[TN], ip2[TN], inf = 0;
    start();
    ((getrf_t)fn("scipy_dgetrf_64_"))(&tn, &tn, C, &tn, ip, &inf);
    ozblas_dgetrf(ctx, TN, TN, R, TN, ip2, &info, 0, &o, NULL);
    printf("scipy_dgetrf_64_ %s\n", memcmp(C, R, sizeof C) || memcmp(ip, ip2, sizeof ip) ||
                                           inf != info ? "different" : "same");
    return 0;
}
"""


EMU_PROG = EMU_PROG.replace("/*TR_TYPEDEFS*/", TR_TYPEDEFS)


def _host_lapack():
    """NumPy's OpenBLAS (ILP64 LAPACK), for a C program that has no LAPACK of its own."""
    import glob

    import numpy

    libs = glob.glob(os.path.join(os.path.dirname(numpy.__file__), os.pardir, "numpy.libs",
                                  "libscipy_openblas64_*.so"))
    return os.path.abspath(libs[0]) if libs else None

EMU = os.environ.get("OZ_EMU_DIR")  # a build of tests/cuda/emu/build_emu.sh


@pytest.mark.skipif(not EMU, reason="set OZ_EMU_DIR to a build of tests/cuda/emu/build_emu.sh "
                    "(the CUDA executor emulated on the CPU; about 5 minutes to build)")
def test_routed_calls_on_the_emulated_cuda_executor(tmp_path):
    """The whole routed path without a GPU: the shim built against the emulated executor,
    a stand-in cuBLAS and driver. Every form, strided batches, trsm/trmm, syrk/herk, symm/hemm
    and syr2k/her2k (the blocked drivers, host memory standing for the device's) included, gives the CPU executor's bits; where ozblas fails (the driver names device 1, which the emulation
    lacks), the call goes to the stand-in instead."""
    if not CC:
        pytest.skip("no C compiler")
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir, "native")
    lib = os.path.join(EMU, "ozblas")
    (tmp_path / "stub.c").write_text(_stub_source() + FAKE_DRIVER)
    (tmp_path / "prog.c").write_text(EMU_PROG)
    steps = [
        [CC, "-std=c11", "-O2", "-fPIC", "-shared", "-fvisibility=hidden", f"-I{root}/include",
         f"{root}/src/shim/shim.c", f"{root}/src/shim/shim_blas.c", f"{root}/src/shim/shim_cublas.c",
         f"{root}/src/shim/shim_lapack.c", "-o", "libozblas_preload.so",
         f"-L{lib}", "-l:libozblas.so", f"-Wl,-rpath,{lib}", "-ldl", "-lpthread"],
        [CC, "-shared", "-fPIC", "-O1", "-o", "libcublas.so.99", "stub.c"],
        [CC, "-O1", f"-I{root}/include", "prog.c", "-o", "prog", "-Wl,--no-as-needed",
         "./libcublas.so.99", f"-L{lib}", "-l:libozblas.so", f"-Wl,-rpath,{tmp_path}:{lib}", "-ldl"],
    ]
    for cmd in steps:
        r = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
    names = ["cublasDgemm_v2", "cublasZgemm_v2_64", "cublasGemmEx", "cublasGemmEx",
             "cublasDgemmStridedBatched", "cublasZgemmStridedBatched_64", "cublasGemmStridedBatchedEx",
             "cublasDgemmBatched", "cublasGemmBatchedEx", "cublasZgemmBatched_64",
             "cublasDtrsm_v2", "cublasZtrsm_v2_64", "cublasDtrmm_v2_64", "cublasZtrmm_v2",
             "cublasDsyrk_v2", "cublasZsyrk_v2_64", "cublasZherk_v2", "cublasDsymm_v2",
             "cublasZsymm_v2", "cublasZhemm_v2_64", "cublasDsyr2k_v2_64", "cublasZsyr2k_v2",
             "cublasZher2k_v2"]
    lapack = "scipy_dgetrf_64_"
    host_lapack = _host_lapack()
    if not host_lapack:
        pytest.skip("NumPy's OpenBLAS not found (the trsm/trmm drivers' host LAPACK)")

    def run(tag, **extra):
        env = {k: v for k, v in os.environ.items() if not k.startswith(("OZBLAS_", "STUB_", "FAKE_"))}
        env.update(OZBLAS_METHOD="ozaki2", OZBLAS_MIN_SIZE="0", OZBLAS_MODULI="16",
                   OZBLAS_TRACE=str(tmp_path / f"trace_{tag}"), STUB_LOG=str(tmp_path / f"stub_{tag}"),
                   LD_PRELOAD=str(tmp_path / "libozblas_preload.so"), OMP_NUM_THREADS="2",
                   OZBLAS_LAPACK_NB="8", OZ_HOST_LAPACK=host_lapack, **extra)
        p = subprocess.run(["./prog"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
        assert p.returncode == 0, p.stdout + p.stderr
        trace = [dict(re.findall(r'(\w+)=("[^"]*"|\S+)', line))
                 for line in (tmp_path / f"trace_{tag}").read_text().splitlines()]
        stub = tmp_path / f"stub_{tag}"
        return p.stdout.splitlines(), trace, stub.read_text().splitlines() if stub.exists() else []

    out, trace, stub = run("routed")
    assert out == [f"{n} same" for n in names + [lapack]]
    assert stub == []
    assert [t["symbol"] for t in trace] == names + [lapack]
    from ozblas._native import lib

    cx16 = str(lib.ozblas_ozaki2_complex_count(0, 16))  # 16 moduli' bits on the complex set
    for t in trace[:-1]:
        assert (t["route"], t["method"], t["executor"], t["fallback"]) == \
            ("ozblas", "ozaki2", "cuda", '"none"'), t
        assert t["moduli"] == (cx16 if t["routine"].startswith(("z", "c")) else "16"), t
    assert (trace[-1]["route"], trace[-1]["method"], trace[-1]["moduli"], trace[-1]["executor"],
            trace[-1]["device"]) == ("ozblas", "ozaki2", "16-16", "cuda", "uploaded"), trace[-1]

    out, trace, stub = run("failed", FAKE_DEVICE="1")
    assert out[:-1] == [f"{n} different" for n in names]  # the stand-in computes nothing
    assert [line.split()[0] for line in stub] == names
    for t in trace[:-1]:
        assert t["route"] == "native" and t["executor"] == "cublas", t
        assert t["reason"] == '"ozblas failed (OZBLAS_ERR_INVALID_ARGUMENT)"', t


# ---- on a GPU: CuPy under the shim --------------------------------------------------------------

CUPY_CHILD = """
import sys, numpy as np, cupy as cp
d = np.load(sys.argv[1] + "/in.npz")
out = {}
for key in ("d", "z", "batched"):
    a, b = cp.asarray(d[key + "_a"]), cp.asarray(d[key + "_b"])
    out[key] = cp.asnumpy(a @ b)
np.savez(sys.argv[1] + "/out.npz", **out)
"""


def _bits(x):
    return np.ascontiguousarray(x).view(np.uint64)


def _reference(a, b, routed):
    """The CPU executor's product in the orientation the cuBLAS call had: C = A B, or (as
    CuPy's row-major arrays give) C^T = B^T A^T. Ozaki II's accurate scaling depends on
    which operand's rows it scales, so the orientation matters for the bits."""
    kw = dict(method="ozaki2", moduli=16, executor="cpu")
    m, n = int(routed["m"]), int(routed["n"])
    if (m, n) == (a.shape[0], b.shape[1]):
        return ozblas.matmul(a, b, **kw)
    assert (m, n) == (b.shape[1], a.shape[0]), routed
    return ozblas.matmul(b.T, a.T, **kw).T


@pytest.mark.gpu  # skipped by conftest.py, with the reason, where no CUDA executor is usable
def test_cupy_products_are_routed_and_equal_the_cpu_executor(tmp_path):
    pytest.importorskip("cupy")
    from ozblas.testing import make_matrix

    ins = {}
    for key, (m, k, n), dt in (("d", (96, 80, 64), np.float64), ("z", (72, 40, 56), np.complex128)):
        ins[key + "_a"] = make_matrix(m, k, 1.0, seed=1, dtype=dt)
        ins[key + "_b"] = make_matrix(k, n, 1.0, seed=2, dtype=dt)
    ins["batched_a"] = np.stack([make_matrix(48, 32, 1.0, seed=3 + i) for i in range(3)])
    ins["batched_b"] = np.stack([make_matrix(32, 40, 1.0, seed=6 + i) for i in range(3)])
    np.savez(tmp_path / "in.npz", **ins)
    (tmp_path / "child.py").write_text(CUPY_CHILD)
    trace = tmp_path / "trace.log"
    env = {k: v for k, v in os.environ.items() if not k.startswith("OZBLAS_") and k != "LD_PRELOAD"}
    env.update(OZBLAS_METHOD="ozaki2", OZBLAS_MIN_SIZE="0", OZBLAS_MODULI="16", OZBLAS_TRACE=str(trace),
               LD_PRELOAD=shim.library_path())
    p = subprocess.run([sys.executable, str(tmp_path / "child.py"), str(tmp_path)], env=env,
                       capture_output=True, text=True, timeout=180)
    assert p.returncode == 0, p.stdout + p.stderr
    lines = [dict(re.findall(r'(\w+)=("[^"]*"|\S+)', line)) for line in trace.read_text().splitlines()]
    cublas = [t for t in lines if t["symbol"].startswith("cublas")]
    assert cublas, lines
    for t in cublas:
        assert t["route"] == "ozblas", t
        assert (t["method"], t["moduli"], t["executor"], t["fallback"]) == ("ozaki2", "16", "cuda", '"none"')
    o = np.load(tmp_path / "out.npz")

    def routed(routine, a, b, batched=False):
        dims = {(a.shape[-2], b.shape[-1]), (b.shape[-1], a.shape[-2])}
        hits = [t for t in cublas if t["routine"] == routine and (int(t["m"]), int(t["n"])) in dims
                and int(t["k"]) == a.shape[-1] and ("StridedBatched" in t["symbol"]) == batched]
        assert hits, (routine, cublas)
        return hits[0]

    for key, routine in (("d", "dgemm"), ("z", "zgemm")):
        a, b = ins[key + "_a"], ins[key + "_b"]
        want = _reference(a, b, routed(routine, a, b))
        assert np.array_equal(_bits(o[key]), _bits(want)), key
    a, b = ins["batched_a"], ins["batched_b"]
    t = routed("dgemm", a, b, batched=True)
    for i in range(a.shape[0]):
        assert np.array_equal(_bits(o["batched"][i]), _bits(_reference(a[i], b[i], t))), i


BATCHED_CHILD = """
import ctypes, sys, numpy as np, cupy as cp
d = np.load(sys.argv[1] + "/in.npz")
out = {}
for key in ("bd", "bz"):  # CuPy's matmul on 3-D stacks: cuBLAS's strided batched GEMMs
    out[key] = cp.asnumpy(cp.matmul(cp.asarray(d[key + "_a"]), cp.asarray(d[key + "_b"])))
# the forms with arrays of pointers, called as a program calls them (the global lookup: the
# shim's names); A_i and B_i column-major, stored as C-ordered (k, m) and (n, k) arrays
lib = ctypes.CDLL(None)
h = ctypes.c_void_p(cp.cuda.device.get_cublas_handle())
one, zero = (ctypes.c_double * 2)(1.0, 0.0), (ctypes.c_double * 2)(0.0, 0.0)
for key in ("pd", "pz"):
    a, b = cp.asarray(d[key + "_a"]), cp.asarray(d[key + "_b"])
    nb, k, m = a.shape
    n = b.shape[1]
    c = cp.zeros((nb, n, m), dtype=a.dtype)
    arr = [cp.array([x[i].data.ptr for i in range(nb)], dtype=cp.uint64) for x in (a, b, c)]
    pa, pb, pc = (ctypes.c_void_p(x.data.ptr) for x in arr)
    if key == "pz":
        st = lib.cublasGemmBatchedEx(h, 0, 0, m, n, k, one, pa, 5, m, pb, 5, k, zero, pc, 5, m,
                                     nb, 70, -1)
    else:
        st = lib.cublasDgemmBatched(h, 0, 0, m, n, k, one, pa, m, pb, k, zero, pc, m, nb)
    cp.cuda.Device().synchronize()
    assert st == 0, (key, st)
    out[key] = cp.asnumpy(c)
np.savez(sys.argv[1] + "/out.npz", **out)
"""

TORCH_CHILD = """
import sys, numpy as np, torch
d = np.load(sys.argv[1] + "/in.npz")
c = torch.bmm(torch.from_numpy(d["bd_a"]).cuda(), torch.from_numpy(d["bd_b"]).cuda())
np.savez(sys.argv[1] + "/out.npz", torch=c.cpu().numpy())
"""


def _preloaded_child(tmp_path, body, ins):
    """Runs body (argv[1]: tmp_path, its in.npz from ins) under the preloaded shim with 16
    moduli; returns its outputs and the trace's cuBLAS lines."""
    np.savez(tmp_path / "in.npz", **ins)
    (tmp_path / "child.py").write_text(body)
    trace = tmp_path / "trace.log"
    env = {k: v for k, v in os.environ.items() if not k.startswith("OZBLAS_") and k != "LD_PRELOAD"}
    env.update(OZBLAS_METHOD="ozaki2", OZBLAS_MIN_SIZE="0", OZBLAS_MODULI="16", OZBLAS_TRACE=str(trace),
               LD_PRELOAD=shim.library_path())
    p = subprocess.run([sys.executable, str(tmp_path / "child.py"), str(tmp_path)], env=env,
                       capture_output=True, text=True, timeout=180)
    assert p.returncode == 0, p.stdout + p.stderr
    lines = [dict(re.findall(r'(\w+)=("[^"]*"|\S+)', line)) for line in trace.read_text().splitlines()]
    return np.load(tmp_path / "out.npz"), [t for t in lines if t["symbol"].startswith("cublas")]


@pytest.mark.gpu
def test_batched_products_from_cupy_are_routed_and_equal_the_cpu_executor(tmp_path):
    """CuPy's batched matmul (strided batched GEMMs) on float64 and complex128 stacks, and the
    forms with arrays of device pointers (cublasDgemmBatched, cublasGemmBatchedEx): routed to
    the CUDA executor as batches, each matrix equal to its single product on the CPU."""
    pytest.importorskip("cupy")
    from ozblas.testing import make_matrix

    ins = {}
    for key, dt in (("d", np.float64), ("z", np.complex128)):
        ins[f"b{key}_a"] = np.stack([make_matrix(40, 24, 1.0, seed=3 + i, dtype=dt) for i in range(4)])
        ins[f"b{key}_b"] = np.stack([make_matrix(24, 36, 1.0, seed=9 + i, dtype=dt) for i in range(4)])
        # column-major A_i (m x k) and B_i (k x n) stored as C-ordered (k, m) and (n, k)
        ins[f"p{key}_a"] = np.stack([make_matrix(33, 20, 1.0, seed=20 + i, dtype=dt).T for i in range(3)])
        ins[f"p{key}_b"] = np.stack([make_matrix(20, 28, 1.0, seed=30 + i, dtype=dt).T for i in range(3)])
    o, cublas = _preloaded_child(tmp_path, BATCHED_CHILD, ins)
    assert cublas and all((t["route"], t["executor"], t["moduli"], t["fallback"]) ==
                          ("ozblas", "cuda", "16", '"none"') for t in cublas), cublas
    syms = {t["symbol"] for t in cublas}
    assert {"cublasDgemmBatched", "cublasGemmBatchedEx"} <= syms, syms
    for key, routine in (("bd", "dgemm"), ("bz", "zgemm")):
        a, b = ins[key + "_a"], ins[key + "_b"]
        t = [t for t in cublas if t["routine"] == routine and "Batched" in t["symbol"] and
             int(t["k"]) == a.shape[-1]][0]
        for i in range(a.shape[0]):
            assert np.array_equal(_bits(o[key][i]), _bits(_reference(a[i], b[i], t))), (key, i)
    kw = dict(method="ozaki2", moduli=16, executor="cpu")
    for key in ("pd", "pz"):
        for i in range(ins[key + "_a"].shape[0]):
            want = ozblas.matmul(ins[key + "_a"][i].T, ins[key + "_b"][i].T, **kw)
            assert np.array_equal(_bits(o[key][i].T), _bits(want)), (key, i)


@pytest.mark.gpu
def test_torch_bmm_is_routed_and_equals_the_cpu_executor(tmp_path):
    """PyTorch's float64 bmm (its own process: one cuBLAS library in it) under the shim."""
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("PyTorch sees no CUDA device")
    from ozblas.testing import make_matrix

    ins = {"bd_a": np.stack([make_matrix(30, 26, 1.0, seed=40 + i) for i in range(3)]),
           "bd_b": np.stack([make_matrix(26, 22, 1.0, seed=50 + i) for i in range(3)])}
    o, cublas = _preloaded_child(tmp_path, TORCH_CHILD, ins)
    hits = [t for t in cublas if "Batched" in t["symbol"] and t["routine"] == "dgemm"]
    assert hits and all((t["route"], t["executor"]) == ("ozblas", "cuda") for t in hits), cublas
    for i in range(3):
        want = _reference(ins["bd_a"][i], ins["bd_b"][i], hits[0])
        assert np.array_equal(_bits(o["torch"][i]), _bits(want)), i


@pytest.mark.gpu
def test_libcublas_binds_its_own_gemm_names_internally():
    """The depth guard in shim_cublas.c covers libcublas calling an intercepted name while
    the shim is inside a call. A call made outside the shim (the executor's native path
    run from the Python API in a preloaded process) relies on libcublas not calling its own
    exported GEMM names through relocations the preload could take over: checked here on
    the libcublas CuPy loads."""
    cp = pytest.importorskip("cupy")
    readelf = shutil.which("readelf")
    if not readelf:
        pytest.skip("readelf not available")
    cp.cuda.device.get_cublas_handle()
    paths = {line.split()[-1] for line in open("/proc/self/maps")
             if re.search(r"/libcublas\.so[.\d]*$", line.strip())}
    assert paths, "libcublas not loaded by CuPy"
    for path in paths:
        relocs = subprocess.run([readelf, "-rW", path], capture_output=True, text=True).stdout
        bound = {w for line in relocs.splitlines() for w in line.split() if w.split("@")[0] in SIGNATURES}
        assert not bound, (path, sorted(bound))


TRSM_CHILD = """
import sys, numpy as np, cupy as cp
from cupyx.scipy.linalg import solve_triangular
d = np.load(sys.argv[1] + "/in.npz")
x = solve_triangular(cp.asarray(d["t"]), cp.asarray(d["b"]), lower=True)
np.savez(sys.argv[1] + "/out.npz", x=cp.asnumpy(x))
"""


@pytest.mark.gpu
def test_cupy_solve_triangular_is_routed(tmp_path):
    """cupyx.scipy.linalg.solve_triangular (cuBLAS trsm) under the shim: routed to the
    blocked drivers on the device (trace), with a backward error at FP64 level."""
    pytest.importorskip("cupyx.scipy.linalg")
    rng = np.random.default_rng(4)
    n = 300
    t = np.tril(standard_normal(rng, (n, n))) + n * np.eye(n)
    b = standard_normal(rng, (n, 40))
    np.savez(tmp_path / "in.npz", t=t, b=b)
    (tmp_path / "child.py").write_text(TRSM_CHILD)
    trace = tmp_path / "trace.log"
    env = {k: v for k, v in os.environ.items() if not k.startswith("OZBLAS_") and k != "LD_PRELOAD"}
    env.update(OZBLAS_METHOD="ozaki2", OZBLAS_MIN_SIZE="0", OZBLAS_MODULI="16", OZBLAS_LAPACK_NB="64",
               OZBLAS_TRACE=str(trace), LD_PRELOAD=shim.library_path())
    p = subprocess.run([sys.executable, str(tmp_path / "child.py"), str(tmp_path)], env=env,
                       capture_output=True, text=True, timeout=180)
    assert p.returncode == 0, p.stdout + p.stderr
    lines = [dict(re.findall(r'(\w+)=("[^"]*"|\S+)', line)) for line in trace.read_text().splitlines()]
    tr = [t_ for t_ in lines if t_["symbol"].startswith("cublasDtrsm")]
    assert tr and all((t_["route"], t_["executor"]) == ("ozblas", "cuda") for t_ in tr), lines
    x = np.load(tmp_path / "out.npz")["x"]
    assert np.linalg.norm(t @ x - b) / (np.linalg.norm(t) * np.linalg.norm(x)) < 1e-14


# cuSOLVER under the shim (issue 12, item 5). libcusolver.so.12 of CUDA 13 (the
# nvidia-cusolver 12.4.1.2 wheel) calls cuBLAS through its dynamic imports: `nm -D
# --undefined-only` lists 144 of them with a version reference, `cublasDgemm_v2@libcublas.so.13`,
# 19 among the intercepted names (cublasDgemm_v2, cublasDtrsm_v2, the _64 forms of gemm,
# trsm, trmm, syrk, symm, syr2k and their Z/herk/hemm/her2k twins, cublasGemmEx). The
# loader gives a versioned reference the first definition in the global scope when that
# object has no version information, which the shim has none of: so a preloaded shim
# receives the solver's inner calls and treats them as any other cuBLAS call (in-process
# activation patches no cuBLAS name, so there cuBLAS and cuSOLVER stay untouched). The
# stand-ins reproduce that linkage: a versioned libcublas.so.13 and a solver library
# linked against it, calling a triangular solve and a trailing update.
SOLVER = r"""
int cublasDgemm_v2(void *, int, int, int, int, int, const double *, const double *, int,
                   const double *, int, const double *, double *, int);
int cublasDtrsm_v2(void *, int, int, int, int, int, int, const double *, const double *, int,
                   double *, int);

int cusolverStandIn(void *h, double *A, double *B, double *C)
{
    static const double one = 1.0, minus = -1.0;
    int s = cublasDtrsm_v2(h, 0, 1, 0, 1, 4, 3, &one, A, 4, B, 4);
    return s ? s : cublasDgemm_v2(h, 0, 0, 4, 3, 2, &minus, A, 4, B, 2, &one, C, 4);
}
"""

SOLVER_PROG = r"""
#include <stdio.h>
int cusolverStandIn(void *, double *, double *, double *);
int main(void)
{
    static double A[64], B[64], C[64];
    printf("solver %d\n", cusolverStandIn((void *)0x1234, A, B, C));
    return 0;
}
"""


@pytest.fixture(scope="module")
def solver_built(tmp_path_factory):
    d = _stub_dir(tmp_path_factory, "cusolver_stub", SOLVER_PROG)
    (d / "cublas.map").write_text("libcublas.so.13 { global: *; };\n")
    (d / "solver.c").write_text(SOLVER)
    steps = [
        [CC, "-shared", "-fPIC", "-O1", "-Wl,-soname,libcublas.so.13",
         f"-Wl,--version-script={d / 'cublas.map'}", "-o", str(d / "libcublas.so.13"),
         str(d / "stub.c")],
        [CC, "-shared", "-fPIC", "-O1", "-o", str(d / "libcusolver_stub.so"), str(d / "solver.c"),
         str(d / "libcublas.so.13"), f"-Wl,-rpath,{d}"],
        [CC, "-O1", "-o", str(d / "prog"), str(d / "prog.c"), str(d / "libcusolver_stub.so"),
         f"-Wl,-rpath,{d}"],
    ]
    for cmd in steps:
        r = subprocess.run(cmd, capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
    return d


def test_solver_imports_are_versioned_like_libcusolver(solver_built):
    """The premise: the stand-in solver's cuBLAS imports carry the version reference that
    libcusolver's do."""
    nm = shutil.which("nm")
    if not nm:
        pytest.skip("nm not available")
    out = subprocess.run([nm, "-D", "--undefined-only", str(solver_built / "libcusolver_stub.so")],
                         capture_output=True, text=True).stdout
    assert "cublasDgemm_v2@libcublas.so.13" in out and "cublasDtrsm_v2@libcublas.so.13" in out, out


def test_solver_inner_calls_reach_the_shim(solver_built, tmp_path):
    """Preloaded, the shim receives the solver's inner trsm and gemm, traces them and (no
    GPU here) passes both to the real routines with the arguments unchanged (addresses in
    the solver library move between runs: compared where they do not); without it the
    solver reaches libcublas directly."""
    prog = solver_built / "prog"
    out0, stub0, trace0, _ = _run(prog, tmp_path, [], False, "solver_plain")
    out1, stub1, trace1, _ = _run(prog, tmp_path, [], True, "solver_pre")
    assert out0 == out1 == ["solver 0"]
    assert [s.split()[:2] for s in stub0] == [["cublasDtrsm_v2", "0x1234"],
                                              ["cublasDgemm_v2", "0x1234"]]

    def fixed(lines):
        return [re.sub(r"0x[0-9a-f]{5,}", "ptr", s) for s in lines]

    assert fixed(stub1) == fixed(stub0)
    assert trace0 == []
    assert [(t["symbol"], t["route"]) for t in trace1] == [("cublasDtrsm_v2", "native"),
                                                           ("cublasDgemm_v2", "native")], trace1


SOLVER_CHILD = """
import sys, numpy as np, cupy as cp
d = np.load(sys.argv[1] + "/in.npz")
x = cp.linalg.solve(cp.asarray(d["a"]), cp.asarray(d["b"]))
l = cp.linalg.cholesky(cp.asarray(d["s"]))
np.savez(sys.argv[1] + "/out.npz", x=cp.asnumpy(x), l=cp.asnumpy(l))
"""


@pytest.mark.gpu
def test_cupy_solvers_inner_calls_are_routed_and_right(tmp_path):
    """CuPy's linalg.solve and cholesky (cusolverDn getrf/getrs, potrf) under the preloaded
    shim: their inner cuBLAS calls reach the interception (traced under the intercepted
    names; CuPy itself makes no cuBLAS call here) and the results keep FP64-level backward
    errors."""
    pytest.importorskip("cupy")
    rng = np.random.default_rng(5)
    n = 1024
    a = standard_normal(rng, (n, n))
    b = standard_normal(rng, (n, 8))
    g = standard_normal(rng, (n, n))
    spd = g @ g.T + n * np.eye(n)
    np.savez(tmp_path / "in.npz", a=a, b=b, s=spd)
    (tmp_path / "child.py").write_text(SOLVER_CHILD)
    trace = tmp_path / "trace.log"
    env = {k: v for k, v in os.environ.items() if not k.startswith("OZBLAS_") and k != "LD_PRELOAD"}
    env.update(OZBLAS_METHOD="ozaki2", OZBLAS_MIN_SIZE="0", OZBLAS_TRACE=str(trace),
               LD_PRELOAD=shim.library_path())
    p = subprocess.run([sys.executable, str(tmp_path / "child.py"), str(tmp_path)], env=env,
                       capture_output=True, text=True, timeout=180)
    assert p.returncode == 0, p.stdout + p.stderr
    out = np.load(tmp_path / "out.npz")
    x, l_ = out["x"], out["l"]
    assert np.linalg.norm(a @ x - b) / (np.linalg.norm(a) * np.linalg.norm(x)) < 1e-14
    assert np.linalg.norm(l_ @ l_.T - spd) / np.linalg.norm(spd) < 1e-14
    assert np.allclose(l_, np.tril(l_))
    lines = [dict(re.findall(r'(\w+)=("[^"]*"|\S+)', line))
             for line in trace.read_text().splitlines()] if trace.exists() else []
    assert lines, "cuSOLVER's inner cuBLAS calls did not reach the shim"
    assert all(t["symbol"] in SIGNATURES for t in lines), lines
