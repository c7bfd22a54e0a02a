"""The preload shim's cublasLtMatmul (native/src/shim/shim_cublas.c, last section).

Everywhere: the library exports it, and with no cuBLASLt loaded a call returns
CUBLAS_STATUS_NOT_INITIALIZED with one message.

On a GPU (marked ``gpu``; never run on one yet): a raw FP64 cublasLtMatmul through ctypes on
CuPy arrays, and PyTorch's fused float64 ``addmm``, routed and equal to the CPU executor.

With OZ_EMU_DIR naming a build of tests/cuda/emu/build_emu.sh: a C program calls cuBLASLt
through its own API, the harness's stand-in (libcublasLt_emu.so, which computes FP64 and
complex FP64 matmuls on the CPU), with the shim preloaded and without. Each call is one case
(a descriptor combination): a routed case gives the CPU executor's bits (the program computes
them in the same process with ozblas_dgemm/zgemm, one product at a time); a case passed
through gives the stand-in's own result and status, bit for bit, with its reason in the trace
(none for data types that are not FP64, and for descriptors that cannot be read). Host memory
stands for device memory (a fake driver says it is), as in test_shim_cublas.py.
"""

import os
import re
import shutil
import subprocess

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import numpy as np

import ozblas
from ozblas import shim
from test_shim_cublas import CC, FAKE_DRIVER, _bits, _preloaded_child

EMU = os.environ.get("OZ_EMU_DIR")  # a build of tests/cuda/emu/build_emu.sh
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir)

needs_emu = pytest.mark.skipif(
    not EMU, reason="set OZ_EMU_DIR to a build of tests/cuda/emu/build_emu.sh (the CUDA executor "
    "and a stand-in cuBLASLt emulated on the CPU; about 5 minutes to build)")

# A case: the fields of one cublasLtMatmul, in the program's order.
FIELDS = ("cplx ta tb m n k batch pad stride_pad cd beta0 alpha0 pmode epilogue order compute "
          "scale_type atype scale_ptr bad bias_stride").split()
BASE = dict(cplx=0, ta=0, tb=0, m=13, n=11, k=17, batch=1, pad=0, stride_pad=0, cd=0, beta0=0,
            alpha0=0, pmode=0, epilogue=1, order=0, compute=70, scale_type=-1, atype=-1,
            scale_ptr=0, bad=0, bias_stride=0)

# cuMemcpy2DAsync_v2 on "device" memory that is the program's own: row by row, at once.
FAKE_COPY_2D = r"""
typedef struct {
    size_t sx, sy; int st; const void *sh; unsigned long long sd; void *sa; size_t sp;
    size_t dx, dy; int dt; void *dh; unsigned long long dd; void *da; size_t dp;
    size_t w, h;
} copy2d;
int cuMemcpy2DAsync_v2(const copy2d *p, void *s)
{
    (void)s;
    if (p->st != 4 || p->dt != 4 || p->sx || p->sy || p->dx || p->dy)
        return 1;
    for (size_t r = 0; r < p->h; r++)
        memcpy((char *)(uintptr_t)p->dd + r * p->dp, (const char *)(uintptr_t)p->sd + r * p->sp, p->w);
    return 0;
}
"""

PROG = r"""
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ozblas.h"

typedef int (*create_t)(void **);
typedef int (*desc_create_t)(void **, int, int);
typedef int (*set_t)(void *, int, const void *, size_t);
typedef int (*layout_create_t)(void **, int, uint64_t, uint64_t, int64_t);
typedef int (*destroy_t)(void *);
typedef int (*matmul_t)(void *, void *, const void *, const void *, void *, const void *, void *,
                        const void *, const void *, void *, void *, void *, const void *, void *,
                        size_t, void *);
static void *fn(const char *name)
{
    void *f = dlsym(RTLD_DEFAULT, name);
    if (!f) {
        printf("%s unresolved\n", name);
        exit(3);
    }
    return f;
}

enum { CPLX, TA, TB, M, N, K, BATCH, PAD, STRIDE_PAD, CD, BETA0, ALPHA0, PMODE, EPILOGUE, ORDER,
       COMPUTE, SCALE_TYPE, ATYPE, SCALE_PTR, BAD, BIAS_STRIDE, NF };

static void fill(double *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        x[i] = ((double)rand() / RAND_MAX - 0.5) * (rand() % 7 ? 1.0 : 30.0);
}

/* one case: prints "<status> <same|different>" (D against the CPU executor's result) and
 * writes D's buffer to out */
static void run(const int *f, const char *out, ozblas_context *ctx, const ozblas_options *o)
{
    const int es = f[CPLX] ? 2 : 1, type = f[CPLX] ? 5 : 1, nb = f[BATCH];
    const int64_t m = f[M], n = f[N], k = f[K];
    const int64_t ar = f[TA] ? k : m, ac = f[TA] ? m : k, br = f[TB] ? n : k, bc = f[TB] ? k : n;
    /* A in row order: the same rows and columns, ld along a row */
    const int64_t lda = (f[ORDER] ? ac : ar) + f[PAD], ldb = (br ? br : 1) + 2 * f[PAD], ldd = m + f[PAD] + 1;
    const int64_t ldc = f[CD] == 3 ? ldd + 1 : f[CD] == 0 ? ldd : m + 3 * f[PAD];
    const int64_t sa = lda * (f[ORDER] ? ar : ac) + f[STRIDE_PAD], sb = ldb * bc + 2 * f[STRIDE_PAD];
    const int64_t sd = ldd * n + f[STRIDE_PAD], sc = f[CD] == 0 ? sd : ldc * n + 3 * f[STRIDE_PAD];
    const size_t na = (size_t)(sa * nb) * es, nbb = (size_t)(sb * nb) * es;
    const size_t nd = (size_t)((sd > sc ? sd : sc) * nb + ldc * n + 8) * es;
    const size_t nc = (size_t)(sc * nb) * es;
    /* never empty (k = 0): a NULL operand would be an argument error */
    double *A = malloc(8 * na + 16), *B = malloc(8 * nbb + 16), *D = malloc(8 * nd),
           *R = malloc(8 * nd), *Cown = malloc(8 * nc + 16);
    /* BIAS_STRIDE: the bias of product b at bias + b BIAS_STRIDE */
    const size_t nbias = (size_t)((m + (int64_t)f[BIAS_STRIDE] * nb) * es);
    double *bias = malloc(8 * nbias);
    fill(A, na), fill(B, nbb), fill(D, nd), fill(Cown, nc), fill(bias, nbias);
    memcpy(R, D, 8 * nd);
    /* C: D itself (0), its own memory (1), D one element on (2: overlapping), D with another
       leading dimension (3) */
    const double *C = f[CD] == 1 ? Cown : f[CD] == 2 ? D + es : D;
    double al[2] = {f[ALPHA0] ? 0.0 : 1.25, f[ALPHA0] ? 0.0 : -0.5};
    /* BETA0: 0 for beta = 0.75 + 0.25i, 1 for beta = 0, 2 for beta = 1 */
    double be[2] = {f[BETA0] == 1 ? 0.0 : f[BETA0] == 2 ? 1.0 : 0.75, f[BETA0] ? 0.0 : 0.25};
    int stype = f[SCALE_TYPE] >= 0 ? f[SCALE_TYPE] : type, atype = f[ATYPE] >= 0 ? f[ATYPE] : type;
    int32_t ta = f[TA], tb = f[TB], pmode = f[PMODE], order = f[ORDER];
    uint32_t epi = f[EPILOGUE];
    const void *scale = A;
    void *h = NULL, *d = NULL, *la = NULL, *lb = NULL, *lc = NULL, *ld = NULL;
    ((create_t)fn("cublasLtCreate"))(&h);
    ((desc_create_t)fn("cublasLtMatmulDescCreate"))(&d, f[COMPUTE], stype);
    set_t dset = (set_t)fn("cublasLtMatmulDescSetAttribute"),
          lset = (set_t)fn("cublasLtMatrixLayoutSetAttribute");
    dset(d, 3, &ta, 4), dset(d, 4, &tb, 4), dset(d, 2, &pmode, 4), dset(d, 7, &epi, 4);
    if (epi & 4) {
        const int64_t bstride = f[BIAS_STRIDE];
        dset(d, 8, (const void *)&bias, sizeof bias);
        dset(d, 10, &bstride, 8);
    }
    if (f[SCALE_PTR])
        dset(d, 17, &scale, sizeof scale);
    layout_create_t lcreate = (layout_create_t)fn("cublasLtMatrixLayoutCreate");
    lcreate(&la, atype, ar, ac, lda);
    lcreate(&lb, type, br + (f[BAD] == 3), bc, ldb);
    lcreate(&lc, type, m, n, ldc);
    lcreate(&ld, type, m, n, ldd);
    if (order)
        lset(la, 1, &order, 4);
    const int64_t strides[4] = {sa, sb, sc, sd};
    void *lays[4] = {la, lb, lc, ld};
    for (int i = 0; i < 4 && nb > 1; i++) {
        int32_t count = nb;
        lset(lays[i], 5, &count, 4);
        lset(lays[i], 6, &strides[i], 8);
    }
    int st = ((matmul_t)fn("cublasLtMatmul"))(h, f[BAD] == 1 ? NULL : d, al, A, f[BAD] == 2 ? NULL : la,
                                             B, lb, be, C, lc, D, ld, NULL, NULL, 0, NULL);
    /* the CPU executor, product by product, on R: C copied into R's D first where distinct;
       with a bias, D = alpha op(A) op(B) + bias as one product with beta 1 on the broadcast bias */
    double one[2] = {1.0, 0.0};
    const double *beta = epi & 4 ? one : be;
    for (int b = 0; b < nb; b++) {
        double *r = R + b * sd * es;
        const double *c = f[CD] == 1 ? Cown + b * sc * es : r;
        for (int64_t j = 0; j < n && c != r; j++)
            memcpy(r + j * ldd * es, c + j * ldc * es, 8 * (size_t)(m * es));
        for (int64_t j = 0; j < n && (epi & 4); j++)
            memcpy(r + j * ldd * es, bias + b * f[BIAS_STRIDE] * es, 8 * (size_t)(m * es));
        char opa = "NTC"[ta], opb = "NTC"[tb];
        if (f[CPLX])
            ozblas_zgemm(ctx, opa, opb, m, n, k, al, A + b * sa * es, lda, B + b * sb * es, ldb,
                         beta, r, ldd, o, NULL);
        else
            ozblas_dgemm(ctx, opa, opb, m, n, k, al[0], A + b * sa * es, lda, B + b * sb * es, ldb,
                         beta[0], r, ldd, o, NULL);
    }
    printf("%d %s\n", st, memcmp(D, R, 8 * nd) ? "different" : "same");
    FILE *fo = fopen(out, "wb");
    fwrite(D, 8, nd, fo);
    fclose(fo);
    ((destroy_t)fn("cublasLtMatrixLayoutDestroy"))(la);
    ((destroy_t)fn("cublasLtMatrixLayoutDestroy"))(lb);
    ((destroy_t)fn("cublasLtMatrixLayoutDestroy"))(lc);
    ((destroy_t)fn("cublasLtMatrixLayoutDestroy"))(ld);
    ((destroy_t)fn("cublasLtMatmulDescDestroy"))(d);
    ((destroy_t)fn("cublasLtDestroy"))(h);
    free(A), free(B), free(D), free(R), free(Cown), free(bias);
}

/* argv: an output folder, then one case per argument (NF integers, comma-separated) */
int main(int argc, char **argv)
{
    ozblas_context *ctx;
    ozblas_context_create(&ctx);
    ozblas_options o;
    ozblas_options_init(&o);
    o.method = OZBLAS_METHOD_OZAKI2;
    o.moduli = 16;
    o.executor = OZBLAS_EXECUTOR_CPU;
    for (int i = 2; i < argc; i++) {
        int f[NF], n = 0;
        for (char *p = argv[i]; n < NF; p++) {
            f[n++] = (int)strtol(p, &p, 10);
            if (*p != ',')
                break;
        }
        if (n != NF) {
            printf("bad case %s\n", argv[i]);
            return 2;
        }
        char out[4096];
        snprintf(out, sizeof out, "%s/D%d.bin", argv[1], i - 2);
        srand(7 + i);
        run(f, out, ctx, &o);
    }
    return 0;
}
"""


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    if not CC:
        pytest.skip("no C compiler")
    d = tmp_path_factory.mktemp("cublaslt")
    native = os.path.join(ROOT, "native")
    lib = os.path.join(EMU, "ozblas")
    head = "#include <stdint.h>\n#include <stdlib.h>\n#include <string.h>\n"
    head += 'static int env(const char *name) { const char *s = getenv(name); return s ? atoi(s) : 0; }\n'
    (d / "driver.c").write_text(head + FAKE_DRIVER + FAKE_COPY_2D)
    (d / "prog.c").write_text(PROG)
    steps = [
        [CC, "-std=c11", "-O2", "-fPIC", "-shared", "-fvisibility=hidden", f"-I{native}/include",
         f"{native}/src/shim/shim.c", f"{native}/src/shim/shim_blas.c",
         f"{native}/src/shim/shim_cublas.c", f"{native}/src/shim/shim_lapack.c", "-o",
         "libozblas_preload.so", f"-L{lib}", "-l:libozblas.so", f"-Wl,-rpath,{lib}", "-ldl",
         "-lpthread"],
        [CC, "-shared", "-fPIC", "-O1", "-o", "libcuda.so.99", "driver.c"],
        # linked as PyTorch's and XLA's modules link cuBLASLt: a DT_NEEDED dependency
        [CC, "-O1", f"-I{native}/include", "prog.c", "-o", "prog", "-Wl,--no-as-needed",
         "./libcuda.so.99", f"{lib}/libcublasLt_emu.so", f"-L{lib}", "-l:libozblas.so",
         f"-Wl,-rpath,{d}:{lib}", "-ldl"],
    ]
    for cmd in steps:
        r = subprocess.run(cmd, cwd=d, capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
    return d


def _spec(case):
    return ",".join(str(case[f]) for f in FIELDS)


def _run(built, tmp_path, cases, preload, tag, **extra):
    out = tmp_path / tag
    out.mkdir()
    trace = tmp_path / f"trace_{tag}"
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("OZBLAS_", "FAKE_")) and k != "LD_PRELOAD"}
    env.update(OZBLAS_METHOD="ozaki2", OZBLAS_MIN_SIZE="0", OZBLAS_MODULI="16",
               OZBLAS_TRACE=str(trace), OMP_NUM_THREADS="2")
    env.update(extra)
    if preload:
        env["LD_PRELOAD"] = str(built / "libozblas_preload.so")
    p = subprocess.run([str(built / "prog"), str(out), *[_spec(c) for c in cases]], cwd=built,
                       env=env, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stdout + p.stderr
    lines = p.stdout.splitlines()
    assert len(lines) == len(cases), p.stdout + p.stderr
    results = [(line.split()[0], line.split()[1], (out / f"D{i}.bin").read_bytes())
               for i, line in enumerate(lines)]
    lines = []
    if trace.exists():
        lines = [dict(re.findall(r'(\w+)=("[^"]*"|\S+)', line))
                 for line in trace.read_text().splitlines()]
    return results, lines


def case(**kw):
    return dict(BASE, **kw)


# Routed: every transpose (conjugate for complex), strided batches with gaps, C in place or
# distinct (beta zero or not), alpha and beta on the host or the device.
ROUTED = {
    "d_nn": case(),
    "d_tn_batch": case(ta=1, batch=3, stride_pad=5, pad=2),
    "d_nt_distinct": case(tb=1, cd=1, pad=1),
    "d_tt_distinct_beta0": case(ta=1, tb=1, cd=1, beta0=1, batch=2, stride_pad=3),
    "d_device_scalars": case(pmode=1, cd=1, batch=2),
    "z_cn": case(cplx=1, ta=2),
    "z_nc_distinct_batch": case(cplx=1, tb=2, cd=1, batch=3, stride_pad=1, pad=1),
    "z_tc_device": case(cplx=1, ta=1, tb=2, pmode=1),
    "z_ct_inplace_batch": case(cplx=1, ta=2, tb=1, batch=2, pad=3),
    # PyTorch's fused addmm: beta 0, the bias broadcast to the columns (one per product or shared)
    "d_bias": case(epilogue=4, beta0=1, n=37),
    "d_bias_batch_distinct": case(epilogue=4, beta0=1, cd=1, batch=3, bias_stride=15, pad=1),
    "z_bias_shared_device": case(cplx=1, epilogue=4, beta0=1, batch=2, pmode=1, n=8),
}

EPILOGUE = "cuBLASLt epilogue not DEFAULT, or BIAS with beta != 0"

# Passed through (the stand-in computes or refuses them), with the trace's reason; None: not
# traced (not FP64, or layouts that cannot be read).
PASSED = {
    "bias_beta": (case(epilogue=4), EPILOGUE),
    "relu_bias_batch": (case(epilogue=6, batch=2, cd=1, beta0=1), EPILOGUE),
    "relu": (case(epilogue=2), EPILOGUE),
    "z_bias_beta_distinct": (case(cplx=1, epilogue=4, cd=1), EPILOGUE),
    "bias_alpha0_beta1": (case(epilogue=4, alpha0=1, beta0=2), "alpha or k zero"),
    "row_order": (case(order=1, ta=1, pad=2), "cuBLASLt layout not column order"),
    "pedantic": (case(compute=71), "compute type not CUBLAS_COMPUTE_64F"),
    "compute_32f": (case(compute=68), "compute type not CUBLAS_COMPUTE_64F"),
    "scale_type": (case(scale_type=0), "cuBLASLt scale type, scale or amax pointer"),
    "scale_pointer": (case(scale_ptr=1), "cuBLASLt scale type, scale or amax pointer"),
    "vector_pointer_mode": (case(pmode=2), "cuBLASLt vector pointer mode"),
    "overlap": (case(cd=2), "cuBLASLt C overlaps D without being D"),
    "inplace_other_ld": (case(cd=3), "cuBLASLt C overlaps D without being D"),
    "shape_mismatch": (case(bad=3), "argument error"),
    "alpha0_distinct": (case(alpha0=1, cd=1), "alpha or k zero"),
    "alpha0_beta1_distinct": (case(alpha0=1, cd=1, beta0=2), "alpha or k zero"),
    "k0": (case(k=0, cd=1), "alpha or k zero"),
    "null_desc": (case(bad=1), "cuBLASLt descriptor attribute unreadable"),
    "null_layout": (case(bad=2), None),
    "fp32_a": (case(atype=0), None),
}


def _routine(c):
    return "zgemm" if c["cplx"] else "dgemm"


@needs_emu
def test_routed_cases_equal_the_cpu_executor(built, tmp_path):
    from ozblas._native import lib

    # 16 moduli' bits: on the complex set (two products per modulus) its own count
    _moduli = lambda c: str(lib.ozblas_ozaki2_complex_count(0, 16) if c["cplx"] else 16)  # noqa: E731
    cases = list(ROUTED.values())
    res, trace = _run(built, tmp_path, cases, True, "routed")
    native, none = _run(built, tmp_path, cases, False, "native")
    assert none == []
    for name, c, (st, same, _), t in zip(ROUTED, cases, res, trace):
        assert (st, same) == ("0", "same"), name
        assert (t["symbol"], t["routine"], t["route"], t["executor"], t["method"], t["moduli"]) == \
            ("cublasLtMatmul", _routine(c), "ozblas", "cuda", "ozaki2", _moduli(c)), (name, t)
        assert (t["m"], t["n"], t["k"]) == (str(c["m"]), str(c["n"]), str(c["k"])), (name, t)
    assert len(trace) == len(cases)
    # the stand-in's own FP64 product is a different computation: the check can fail
    assert all(st == "0" and same == "different" for st, same, _ in native)


@needs_emu
def test_passed_through_cases_equal_the_stand_in(built, tmp_path):
    cases = [c for c, _ in PASSED.values()]
    res, trace = _run(built, tmp_path, cases, True, "pre")
    native, _ = _run(built, tmp_path, cases, False, "native")
    assert [(st, d) for st, _, d in res] == [(st, d) for st, _, d in native]
    # the stand-in computed the ones it supports (status 0), refused the others
    statuses = dict(zip(PASSED, (st for st, _, _ in native)))
    assert statuses["bias_beta"] == statuses["relu_bias_batch"] == statuses["row_order"] == "0"
    assert statuses["null_desc"] != "0" and statuses["shape_mismatch"] != "0"
    traced = [(n, r) for n, (_, r) in PASSED.items() if r is not None]
    assert [(t["symbol"], t["route"], t["executor"], t["reason"]) for t in trace] == \
        [("cublasLtMatmul", "native", "cublas", f'"{r}"') for _, r in traced]
    assert [t["routine"] for t in trace] == [_routine(PASSED[n][0]) for n, _ in traced]


@needs_emu
@pytest.mark.parametrize("settings_, reason", [
    ({"OZBLAS_MIN_SIZE": "1000"}, "below OZBLAS_MIN_SIZE=1000"),
    ({"OZBLAS_DISABLE": "1"}, "OZBLAS_DISABLE=1"),
    ({"OZBLAS_METHOD": "native"}, "OZBLAS_METHOD=native"),
    ({"FAKE_DEVICE": "1"}, "ozblas failed (OZBLAS_ERR_INVALID_ARGUMENT)"),
])
def test_settings_and_failures_leave_the_call_to_cublaslt(built, tmp_path, settings_, reason):
    """The shim's settings apply as for every entry; where ozblas fails (the driver names a
    device the emulation lacks), the real cublasLtMatmul runs the whole call, in place or not,
    and gives its own result."""
    cases = [ROUTED["d_tn_batch"], ROUTED["z_nc_distinct_batch"], ROUTED["d_device_scalars"]]
    res, trace = _run(built, tmp_path, cases, True, "pre", **settings_)
    native, _ = _run(built, tmp_path, cases, False, "native")
    assert [(st, d) for st, _, d in res] == [(st, d) for st, _, d in native]
    assert [(t["route"], t["reason"]) for t in trace] == [("native", f'"{reason}"')] * len(cases)


@needs_emu
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(cplx=st.integers(0, 1), ta=st.integers(0, 2), tb=st.integers(0, 2),
       m=st.integers(1, 40), n=st.integers(1, 40), k=st.integers(1, 40), batch=st.integers(1, 3),
       pad=st.integers(0, 3), stride_pad=st.integers(0, 4), cd=st.integers(0, 1),
       beta0=st.integers(0, 1), pmode=st.integers(0, 1), bias=st.booleans(),
       bias_stride=st.integers(0, 2))
def test_routed_shapes_equal_the_cpu_executor(built, tmp_path_factory, bias, **kw):
    c = case(**kw)
    if bias:  # routed with beta 0 only
        c.update(epilogue=4, beta0=1, bias_stride=c["bias_stride"] * c["m"])
    if not c["cplx"] and c["ta"] == 2:
        c["ta"] = 1  # CUBLAS_OP_C on real data is CUBLAS_OP_T
    if not c["cplx"] and c["tb"] == 2:
        c["tb"] = 1
    tmp = tmp_path_factory.mktemp("shapes")
    res, trace = _run(built, tmp, [c], True, "pre")
    assert res[0][:2] == ("0", "same"), c
    assert (trace[0]["route"], trace[0]["executor"]) == ("ozblas", "cuda"), (c, trace)


def test_library_exports_cublaslt_matmul():
    out = subprocess.run(["nm", "-D", "--defined-only", shim.library_path()], capture_output=True,
                         text=True).stdout if shutil.which("nm") else ""
    if not out:
        pytest.skip("nm not available")
    assert "cublasLtMatmul" in set(line.split()[-1] for line in out.splitlines())


def test_no_cublaslt_loaded_is_a_status_and_one_message(tmp_path):
    """No cuBLASLt among the loaded objects: nothing is read (the descriptors are never
    touched), each call returns CUBLAS_STATUS_NOT_INITIALIZED, one message names the symbol."""
    if not CC:
        pytest.skip("no C compiler")
    (tmp_path / "prog.c").write_text(r"""
        #include <dlfcn.h>
        #include <stdio.h>
        typedef int (*matmul_t)(void *, void *, const void *, const void *, void *, const void *,
                                void *, const void *, const void *, void *, void *, void *,
                                const void *, void *, size_t, void *);
        int main(void)
        {
            matmul_t f = (matmul_t)dlsym(RTLD_DEFAULT, "cublasLtMatmul");
            if (!f)
                return 3;
            /* descriptors that would crash whoever read them */
            void *bad = (void *)16;
            for (int i = 0; i < 2; i++)
                printf("%d\n", f(bad, bad, bad, bad, bad, bad, bad, bad, bad, bad, bad, bad, NULL,
                                 NULL, 0, NULL));
            return 0;
        }
        """)
    r = subprocess.run([CC, "-O1", "prog.c", "-o", "prog", "-ldl"], cwd=tmp_path,
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    env = {k: v for k, v in os.environ.items() if not k.startswith("OZBLAS_")}
    env.update(LD_PRELOAD=shim.library_path(), OZBLAS_TRACE=str(tmp_path / "trace"))
    p = subprocess.run(["./prog"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60)
    assert (p.returncode, p.stdout.split()) == (0, ["1", "1"]), p.stdout + p.stderr
    assert p.stderr.count("no real cublasLtMatmul found among the loaded objects") == 1, p.stderr
    assert not (tmp_path / "trace").exists() or (tmp_path / "trace").read_text() == ""


# ---- on a GPU: the real cuBLASLt -------------------------------------------------------------

# A raw FP64 cublasLtMatmul (TRANSA T, C distinct from D, beta != 0, host scalars) on CuPy
# arrays, then the same with the RELU epilogue (passed through). The descriptor functions are
# the real library's (CuPy's cuBLAS loaded it); cublasLtMatmul is called through the global
# scope, where the preloaded shim's name is.
RAW_LT_CHILD = r"""
import ctypes, sys, numpy as np, cupy as cp
d = np.load(sys.argv[1] + "/in.npz")
a, b, c = (cp.asfortranarray(cp.asarray(d[x])) for x in ("a", "b", "c"))
(a @ a.T).sum()  # loads CuPy's cuBLAS, and cuBLASLt with it
cp.cuda.Device().synchronize()
path = next(line.split()[-1] for line in open("/proc/self/maps") if "libcublasLt.so" in line)
L, G = ctypes.CDLL(path), ctypes.CDLL(None)
vp, i32, u64, i64, sz = ctypes.c_void_p, ctypes.c_int32, ctypes.c_uint64, ctypes.c_int64, ctypes.c_size_t
k, m = a.shape
n = b.shape[1]
h, desc = vp(), vp()
assert L.cublasLtCreate(ctypes.byref(h)) == 0
assert L.cublasLtMatmulDescCreate(ctypes.byref(desc), 70, 1) == 0
L.cublasLtMatmulDescSetAttribute.argtypes = [vp, ctypes.c_int, vp, sz]
ta = i32(1)
assert L.cublasLtMatmulDescSetAttribute(desc, 3, ctypes.addressof(ta), 4) == 0
L.cublasLtMatrixLayoutCreate.argtypes = [vp, ctypes.c_int, u64, u64, i64]
def layout(rows, cols):
    lay = vp()
    assert L.cublasLtMatrixLayoutCreate(ctypes.byref(lay), 1, rows, cols, rows) == 0
    return lay
la, lb, lc, ld = layout(k, m), layout(k, n), layout(m, n), layout(m, n)
G.cublasLtMatmul.argtypes = [vp] * 14 + [sz, vp]
alpha, beta = ctypes.c_double(1.25), ctypes.c_double(0.5)
out = {}
for name, epilogue in (("plain", 1), ("relu", 2)):
    e = ctypes.c_uint32(epilogue)
    assert L.cublasLtMatmulDescSetAttribute(desc, 7, ctypes.addressof(e), 4) == 0
    dd = cp.zeros((m, n), order="F")
    st = G.cublasLtMatmul(h, desc, ctypes.addressof(alpha), a.data.ptr, la, b.data.ptr, lb,
                          ctypes.addressof(beta), c.data.ptr, lc, dd.data.ptr, ld, None, None, 0,
                          cp.cuda.get_current_stream().ptr)
    cp.cuda.Device().synchronize()
    assert st == 0 or name == "relu", st  # cuBLASLt may not have an FP64 ReLU
    out[name] = cp.asnumpy(dd)
out["c"] = cp.asnumpy(c)
np.savez(sys.argv[1] + "/out.npz", **out)
"""

# PyTorch's fused addmm: bias + a @ b with a 1-D bias (cuBLASLt with the BIAS epilogue, beta 0).
TORCH_ADDMM_CHILD = """
import sys, numpy as np, torch
d = np.load(sys.argv[1] + "/in.npz")
a, b, bias = (torch.from_numpy(d[x]).cuda() for x in ("a", "b", "bias"))
out = torch.addmm(bias, a, b)
torch.cuda.synchronize()
np.savez(sys.argv[1] + "/out.npz", torch=out.cpu().numpy())
"""

GPU_KW = dict(method="ozaki2", moduli=16, executor="cpu")


def _gpu_lt_ready(module):
    lib = pytest.importorskip(module)
    ok = lib.cuda.is_available() if module == "torch" else lib.cuda.runtime.getDeviceCount() > 0
    if not ok:
        pytest.skip(f"{module} sees no CUDA device")


@pytest.mark.gpu
def test_raw_cublaslt_fp64_matmul_is_routed_and_equals_the_cpu_executor(tmp_path):
    """Never run on a GPU yet (benchmarks/device_check.sh runs it with the other gpu tests)."""
    _gpu_lt_ready("cupy")
    from ozblas.testing import make_matrix

    ins = {"a": make_matrix(40, 33, 1.0, seed=61), "b": make_matrix(40, 29, 1.0, seed=62),
           "c": make_matrix(33, 29, 1.0, seed=63)}
    o, calls = _preloaded_child(tmp_path, RAW_LT_CHILD, ins)
    lt = [t for t in calls if t["symbol"] == "cublasLtMatmul"]
    assert [(t["route"], t["executor"]) for t in lt] == [("ozblas", "cuda"), ("native", "cublas")], lt
    assert lt[1]["reason"] == f'"{EPILOGUE}"'
    want = ozblas.dgemm(1.25, ins["a"], ins["b"], 0.5, ins["c"], trans_a=1, **GPU_KW)
    assert np.array_equal(_bits(o["plain"]), _bits(want))
    assert np.array_equal(_bits(o["c"]), _bits(ins["c"]))  # C is only read


@pytest.mark.gpu
def test_torch_fused_addmm_is_routed_and_equals_the_cpu_executor(tmp_path):
    """Never run on a GPU yet. PyTorch's column-major view: D (n x m) = b^T a^T + bias."""
    _gpu_lt_ready("torch")
    from ozblas.testing import make_matrix

    ins = {"a": make_matrix(45, 38, 1.0, seed=71), "b": make_matrix(38, 31, 1.0, seed=72),
           "bias": make_matrix(31, 1, 1.0, seed=73)[:, 0].copy()}
    o, calls = _preloaded_child(tmp_path, TORCH_ADDMM_CHILD, ins)
    lt = [t for t in calls if t["symbol"] == "cublasLtMatmul"]
    assert lt and all((t["route"], t["executor"], t["m"], t["n"]) == ("ozblas", "cuda", "31", "45")
                      for t in lt), calls
    broadcast = np.tile(ins["bias"][:, None], (1, 45))
    want = ozblas.dgemm(1.0, ins["b"].T, ins["a"].T, 1.0, broadcast, **GPU_KW).T
    assert np.array_equal(_bits(o["torch"]), _bits(want))
