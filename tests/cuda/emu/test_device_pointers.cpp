/* Device pointers through the C API, on the CPU emulation (cuda_emu.h): operands already in
 * ("device") memory are used in place, with leading dimensions beyond the rows, alone or mixed
 * with host operands; the result must equal the host-pointer call's and the CPU executor's
 * bit for bit. Then the same with less device memory than the call needs (the test hook
 * oz_cuda_test_cap_workspace): tiled, with k split, still bit for bit; and below the
 * smallest tile, OZBLAS_ERR_DEVICE with C untouched. With two emulated devices: a device list
 * (cuda:all) leaves device operands on the first device, and operands on another device
 * than the call's are refused, or run there with cuda:1. Exact products (exact_run) and
 * split calls (split_run) too.
 * Built and run by build_emu.sh. */
#include <algorithm>
#include <random>

#include "cuda_emu.h"
#include "ozblas.h"

/* test hooks of the library (staging.cu), not in ozblas.h */
extern "C" void oz_cuda_test_cap_workspace(size_t bytes);
extern "C" void oz_cuda_test_last_plan(int64_t out[9]);

static int failures = 0;

static void check(bool ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "FAIL: %s\n", what);
        failures++;
    }
}

/* Copies to and from device memory, which the host cannot touch (cuda_emu.h). */
static void copy(void *dst, const void *src, size_t bytes)
{
    if (cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, 0) != cudaSuccess ||
        cudaStreamSynchronize(0) != cudaSuccess)
        abort();
}

static double *to_dev(const std::vector<double> &h)
{
    void *p = NULL;
    if (cudaMalloc(&p, h.size() * sizeof(double)) != cudaSuccess)
        abort();
    copy(p, h.data(), h.size() * sizeof(double));
    return (double *)p;
}

static bool same_words(const std::vector<double> &x, const std::vector<double> &y)
{
    for (size_t i = 0; i < x.size(); i++) {
        uint64_t a, b;
        memcpy(&a, &x[i], 8);
        memcpy(&b, &y[i], 8);
        if (a != b && !(std::isnan(x[i]) && std::isnan(y[i])))
            return false;
    }
    return true;
}

/* ozblas_zgemm for cx, else ozblas_dgemm with the real parts of alpha and beta */
static ozblas_status gemm(int cx, char ta, char tb, int64_t m, int64_t n, int64_t k,
                          const double *alpha, const double *A, int64_t lda, const double *B,
                          int64_t ldb, const double *beta, double *C, int64_t ldc,
                          const ozblas_options *opt, ozblas_report *rep)
{
    return cx ? ozblas_zgemm(NULL, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, opt, rep)
              : ozblas_dgemm(NULL, ta, tb, m, n, k, alpha[0], A, lda, B, ldb, beta[0], C, ldc,
                             opt, rep);
}

/* Random op(A) (m x k), op(B) (k x n) and C (m x n) for trans ta, tb, stored with leading
 * dimensions pad_a, pad_b, pad_c beyond their rows; normal draws times exp(spread * normal). */
static void make_inputs(int cx, char ta, char tb, int64_t m, int64_t n, int64_t k, int pad_a,
                        int pad_b, int pad_c, unsigned seed, double spread,
                        std::vector<double> &A, std::vector<double> &B, std::vector<double> &C,
                        int64_t &lda, int64_t &ldb, int64_t &ldc)
{
    const int64_t es = cx ? 2 : 1;
    const int64_t ra = ta == 'N' ? m : k, ca = ta == 'N' ? k : m;
    const int64_t rb = tb == 'N' ? k : n, cb = tb == 'N' ? n : k;
    lda = ra + pad_a;
    ldb = rb + pad_b;
    ldc = m + pad_c;
    std::mt19937_64 g(seed);
    std::normal_distribution<double> nd;
    A.assign(lda * ca * es, 0.0);
    B.assign(ldb * cb * es, 0.0);
    C.assign(ldc * n * es, 0.0);
    for (double &x : A)
        x = nd(g) * exp(spread * nd(g));
    for (double &x : B)
        x = nd(g) * exp(spread * nd(g));
    for (double &x : C)
        x = nd(g);
}

/* tiled: instead of the plain device-pointer call, walk the workspace cap down: at the
 * first cap where the product is tiled (Ozaki II: with k split; Ozaki I never splits k),
 * compare with the CPU; at the first cap where the call fails, it must fail with
 * OZBLAS_ERR_DEVICE and leave C as it was. ozaki1: Ozaki I (hybrid, or RN for scaling 1)
 * instead of Ozaki II. */
static void run(int cx, char ta, char tb, int scaling, bool dev_a, bool dev_b, bool dev_c,
                bool beta_zero, bool tiled = false, bool ozaki1 = false)
{
    const int64_t m = 21, n = 13, k = tiled ? 135 : 35; /* k > 64 can split */
    std::vector<double> A, B, C;
    int64_t lda, ldb, ldc;
    make_inputs(cx, ta, tb, m, n, k, 3, 1, 2, 7 + cx * 100 + ta + 3 * tb, 1.0, A, B, C, lda, ldb,
                ldc);
    if (beta_zero)
        std::fill(C.begin(), C.end(), NAN);
    double alpha[2] = {1.5, -0.25}, beta[2] = {beta_zero ? 0.0 : -0.5, beta_zero ? 0.0 : 0.75};

    ozblas_options opt;
    ozblas_options_init(&opt);
    opt.method = ozaki1 ? OZBLAS_METHOD_OZAKI1 : OZBLAS_METHOD_OZAKI2;
    opt.moduli = 15;
    opt.slices = 7;
    opt.ozaki1_variant = scaling ? OZBLAS_OZAKI1_RN : OZBLAS_OZAKI1_HYBRID;
    opt.scaling = scaling;
    std::vector<double> want = C, host = C;
    ozblas_report rep;
    ozblas_status st;
    opt.executor = OZBLAS_EXECUTOR_CPU;
    st = gemm(cx, ta, tb, m, n, k, alpha, A.data(), lda, B.data(), ldb,
              beta, want.data(), ldc, &opt, &rep);
    check(st == OZBLAS_OK && rep.fallback == 0, "cpu call");
    opt.executor = OZBLAS_EXECUTOR_CUDA;
    st = gemm(cx, ta, tb, m, n, k, alpha, A.data(), lda, B.data(), ldb,
              beta, host.data(), ldc, &opt, &rep);
    check(st == OZBLAS_OK && rep.executor == OZBLAS_EXECUTOR_CUDA, "cuda call, host pointers");
    double *dA = dev_a ? to_dev(A) : A.data(), *dB = dev_b ? to_dev(B) : B.data();
    std::vector<double> Cd = C;
    double *dC = dev_c ? to_dev(C) : Cd.data();
    auto call = [&]() {
        if (dev_c)
            copy(dC, C.data(), C.size() * sizeof(double));
        else
            Cd = C;
        ozblas_status s = gemm(cx, ta, tb, m, n, k, alpha, dA, lda, dB, ldb,
                               beta, dC, ldc, &opt, &rep);
        if (dev_c)
            copy(Cd.data(), dC, Cd.size() * sizeof(double));
        return s;
    };
    char what[160];
    snprintf(what, sizeof what, "bits: cx %d %c%c scaling %d dev %d%d%d beta0 %d tiled %d o1 %d",
             cx, ta, tb, scaling, dev_a, dev_b, dev_c, beta_zero, tiled, ozaki1);
    if (!tiled) {
        st = call();
        check(st == OZBLAS_OK, "cuda call, device pointers");
        /* compare the m rows of each column (rows beyond m must be untouched: compare all) */
        check(same_words(Cd, want), what);
        check(memcmp(host.data(), want.data(), want.size() * 8) == 0 || beta_zero,
              "host-pointer result");
        opt.devices = UINT64_MAX; /* cuda:all: device operands are not spread */
        st = call();
        check(st == OZBLAS_OK && rep.devices_used == 1 && same_words(Cd, want),
              "device list, device pointers: on the first device");
        opt.devices = 0;
    } else {
        bool split = false, failed = false;
        for (size_t cap = (size_t)(ozaki1 ? 384 : 96) << 10; cap > 256 && !failed;
             cap = cap * 3 / 4) {
            int64_t plan[9];
            oz_cuda_test_cap_workspace(cap);
            st = call();
            oz_cuda_test_last_plan(plan);
            oz_cuda_test_cap_workspace(0);
            if (st != OZBLAS_OK) {
                failed = true;
                check(st == OZBLAS_ERR_DEVICE, "too little memory: OZBLAS_ERR_DEVICE");
                check(same_words(Cd, C), "too little memory: C untouched");
            } else if (!split && (ozaki1 ? plan[3] * plan[4] > 1 : plan[5] > 1)) {
                split = true;
                check(rep.executor == OZBLAS_EXECUTOR_CUDA, "tiled call on the device");
                check(same_words(Cd, want), what);
            }
        }
        check(split, what);
        check(failed, "a cap below the smallest tile");
    }
    if (dev_a)
        cudaFree(dA);
    if (dev_b)
        cudaFree(dB);
    if (dev_c)
        cudaFree(dC);
}

/* A on device 1: refused by a call on device 0 (C untouched), computed by one on device 1. */
static void other_device()
{
    const int64_t m = 9, n = 7, k = 11;
    std::mt19937_64 g(3);
    std::normal_distribution<double> nd;
    std::vector<double> A(m * k), B(k * n), C(m * n), want(m * n);
    for (double &x : A)
        x = nd(g);
    for (double &x : B)
        x = nd(g);
    ozblas_options opt;
    ozblas_options_init(&opt);
    opt.method = OZBLAS_METHOD_OZAKI2;
    opt.moduli = 12;
    opt.executor = OZBLAS_EXECUTOR_CPU;
    ozblas_report rep;
    check(ozblas_dgemm(NULL, 'N', 'N', m, n, k, 1.0, A.data(), m, B.data(), k, 0.0, want.data(),
                       m, &opt, &rep) == OZBLAS_OK, "other device: cpu call");
    check(cudaSetDevice(1) == cudaSuccess, "other device: cudaSetDevice(1)");
    double *dA = to_dev(A);
    check(cudaSetDevice(0) == cudaSuccess, "other device: cudaSetDevice(0)");
    opt.executor = OZBLAS_EXECUTOR_CUDA;
    std::vector<double> c0 = C;
    check(ozblas_dgemm(NULL, 'N', 'N', m, n, k, 1.0, dA, m, B.data(), k, 0.0, C.data(), m, &opt,
                       &rep) == OZBLAS_ERR_INVALID_ARGUMENT && same_words(C, c0),
          "other device: refused on device 0, C untouched");
    opt.device = 1;
    check(ozblas_dgemm(NULL, 'N', 'N', m, n, k, 1.0, dA, m, B.data(), k, 0.0, C.data(), m, &opt,
                       &rep) == OZBLAS_OK && rep.devices_used == 2 && same_words(C, want),
          "other device: computed on device 1");
    cudaSetDevice(1);
    cudaFree(dA);
    cudaSetDevice(0);
}

/* Exact products (accuracy "correct", and the double-double ozblas_*gemm_dd) with operands
 * and results in device memory: the bits of the same call with host pointers (which equal
 * the CPU executor's: tests/cuda/test_cuda_exact.py; this program has no host BLAS); executor
 * auto runs them on the device because an operand is there. */
static void exact_run(int cx, char ta, char tb, bool dev_a, bool dev_b, bool dev_c)
{
    const int64_t m = 9, n = 7, k = 19, es = cx ? 2 : 1;
    std::vector<double> A, B, C;
    int64_t lda, ldb, ldc;
    make_inputs(cx, ta, tb, m, n, k, 2, 1, 3, 11 + cx * 100 + ta + 3 * tb, 4.0, A, B, C, lda, ldb,
                ldc);
    double alpha[2] = {0.75, -0.5}, beta[2] = {-1.25, 0.5};
    ozblas_options opt;
    ozblas_options_init(&opt);
    opt.accuracy = OZBLAS_ACCURACY_CORRECT;
    opt.executor = OZBLAS_EXECUTOR_CUDA;
    ozblas_report rep;
    std::vector<double> want = C, whi(ldc * n * es, 5.0), wlo = whi;
    ozblas_status st = gemm(cx, ta, tb, m, n, k, alpha, A.data(), lda, B.data(), ldb,
                            beta, want.data(), ldc, &opt, &rep);
    check(st == OZBLAS_OK && rep.executor == OZBLAS_EXECUTOR_CUDA, "exact: host pointers");
    st = (cx ? ozblas_zgemm_dd : ozblas_dgemm_dd)(NULL, ta, tb, m, n, k, A.data(), lda, B.data(),
                                                   ldb, whi.data(), ldc, wlo.data(), ldc, &opt,
                                                   &rep);
    check(st == OZBLAS_OK && rep.executor == OZBLAS_EXECUTOR_CUDA, "exact: dd, host pointers");
    opt.executor = OZBLAS_EXECUTOR_AUTO;
    double *dA = dev_a ? to_dev(A) : A.data(), *dB = dev_b ? to_dev(B) : B.data();
    double *dC = dev_c ? to_dev(C) : NULL;
    std::vector<double> got = C, hi(whi.size(), 5.0), lo = hi;
    double *pc = dev_c ? dC : got.data();
    st = gemm(cx, ta, tb, m, n, k, alpha, dA, lda, dB, ldb, beta, pc, ldc, &opt, &rep);
    if (dev_c)
        copy(got.data(), dC, got.size() * sizeof(double));
    char what[120];
    snprintf(what, sizeof what, "exact bits: cx %d %c%c dev %d%d%d", cx, ta, tb, dev_a, dev_b,
             dev_c);
    check(st == OZBLAS_OK && rep.executor == OZBLAS_EXECUTOR_CUDA && same_words(got, want), what);
    double *dhi = dev_c ? to_dev(hi) : hi.data(), *dlo = dev_c ? to_dev(lo) : lo.data();
    st = (cx ? ozblas_zgemm_dd : ozblas_dgemm_dd)(NULL, ta, tb, m, n, k, dA, lda, dB, ldb, dhi,
                                                   ldc, dlo, ldc, &opt, &rep);
    if (dev_c) {
        copy(hi.data(), dhi, hi.size() * sizeof(double));
        copy(lo.data(), dlo, lo.size() * sizeof(double));
    }
    snprintf(what, sizeof what, "exact dd bits: cx %d %c%c dev %d%d%d", cx, ta, tb, dev_a, dev_b,
             dev_c);
    check(st == OZBLAS_OK && rep.executor == OZBLAS_EXECUTOR_CUDA && same_words(hi, whi) &&
              same_words(lo, wlo), what);
    for (double *p : {dev_a ? dA : NULL, dev_b ? dB : NULL, dC, dev_c ? dhi : NULL,
                      dev_c ? dlo : NULL})
        if (p)
            cudaFree(p);
}

/* Split calls (issue 14, core/driver_split.c) with operands in device memory: the inner
 * index l scaled by 2^(+-300) in op(A) and back in op(B), so no count covers a row; the
 * device-pointer call is split as the host-pointer one (the bands cut on host copies) and
 * gives its bits. */
static void split_run(int cx, char ta, char tb, bool ozaki1, bool dev_a, bool dev_b, bool dev_c)
{
    const int64_t m = 7, n = 5, k = 20, es = cx ? 2 : 1;
    std::vector<double> A, B, C;
    int64_t lda, ldb, ldc;
    make_inputs(cx, ta, tb, m, n, k, 2, 1, 3, 13 + cx * 100 + ta + 3 * tb, 0.5, A, B, C, lda, ldb,
                ldc);
    for (int64_t l = 0; l < k; l++) {
        const int e = (int)((l * 7919) % 601) - 300;
        for (int64_t i = 0; i < m; i++)
            for (int64_t r = 0; r < es; r++) {
                double &a = A[es * (ta == 'N' ? i + l * lda : l + i * lda) + r];
                a = ldexp(a, e);
            }
        for (int64_t j = 0; j < n; j++)
            for (int64_t r = 0; r < es; r++) {
                double &b = B[es * (tb == 'N' ? l + j * ldb : j + l * ldb) + r];
                b = ldexp(b, -e);
            }
    }
    double alpha[2] = {1.25, 0.5}, beta[2] = {-0.75, 0.25};
    ozblas_options opt;
    ozblas_options_init(&opt);
    opt.method = ozaki1 ? OZBLAS_METHOD_OZAKI1 : OZBLAS_METHOD_OZAKI2;
    opt.executor = OZBLAS_EXECUTOR_CUDA;
    ozblas_report rep;
    std::vector<double> want = C, got = C;
    ozblas_status st = gemm(cx, ta, tb, m, n, k, alpha, A.data(), lda, B.data(), ldb,
                            beta, want.data(), ldc, &opt, &rep);
    check(st == OZBLAS_OK && rep.fallback == 0 && rep.split_parts >= 2, "split: host pointers");
    const int parts = rep.split_parts;
    double *dA = dev_a ? to_dev(A) : A.data(), *dB = dev_b ? to_dev(B) : B.data();
    double *dC = dev_c ? to_dev(C) : got.data();
    st = gemm(cx, ta, tb, m, n, k, alpha, dA, lda, dB, ldb, beta, dC, ldc, &opt, &rep);
    if (dev_c)
        copy(got.data(), dC, got.size() * sizeof(double));
    char what[120];
    snprintf(what, sizeof what, "split bits: cx %d %c%c o1 %d dev %d%d%d", cx, ta, tb, ozaki1,
             dev_a, dev_b, dev_c);
    check(st == OZBLAS_OK && rep.fallback == 0 && rep.split_parts == parts &&
              same_words(got, want), what);
    for (double *p : {dev_a ? dA : NULL, dev_b ? dB : NULL, dev_c ? dC : NULL})
        if (p)
            cudaFree(p);
}

int main()
{
    setenv("OZ_EMU_DEVICES", "2", 1); /* before the executor first counts its devices */
    int runs = 0;
    for (int cx = 0; cx < 2; cx++)
        for (char ta : {'N', 'T', 'C'})
            for (char tb : {'N', 'T', 'C'})
                for (int scaling = 0; scaling < 2; scaling++)
                    for (int mask = 1; mask < 8; mask += 3) {
                        run(cx, ta, tb, scaling, mask & 1, mask & 2, mask & 4, mask == 7);
                        runs++;
                    }
    /* less device memory than the call needs: tiles of device operands, then a clean error */
    for (int cx = 0; cx < 2; cx++)
        for (int scaling = 0; scaling < 2; scaling++)
            for (int mask = 1; mask < 8; mask += 2) {
                run(cx, cx ? 'C' : 'T', 'N', scaling, mask & 1, mask & 2, mask & 4, mask == 5,
                    true);
                run(cx, 'N', cx ? 'C' : 'T', scaling, mask & 1, mask & 2, mask & 4, mask == 3,
                    true, true);
                runs += 2;
            }
    other_device();
    runs++;
    for (int cx = 0; cx < 2; cx++)
        for (char ta : {'N', 'T', 'C'})
            for (int mask = 1; mask < 8; mask += 2) {
                exact_run(cx, ta, cx ? 'C' : 'T', mask & 1, mask & 2, mask & 4);
                runs++;
            }
    for (int cx = 0; cx < 2; cx++)
        for (int o1 = 0; o1 < 2; o1++)
            for (int mask = 1; mask < 8; mask += 3) {
                split_run(cx, cx ? 'C' : 'T', 'N', o1, mask & 1, mask & 2, mask & 4);
                runs++;
            }
    printf("device-pointer runs: %d, failures: %d\n", runs, failures);
    return failures ? 1 : 0;
}
