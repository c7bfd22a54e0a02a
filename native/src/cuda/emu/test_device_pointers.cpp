/* Device pointers through the C API, on the CPU emulation (cuda_emu.h): operands already in
 * ("device") memory are used in place, with leading dimensions beyond the rows, alone or mixed
 * with host operands; the result must equal the host-pointer call's and the CPU executor's
 * bit for bit. Built and run by build_emu.sh. */
#include <random>

#include "cuda_emu.h"
#include "ozblas.h"

static int failures = 0;

static void check(bool ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "FAIL: %s\n", what);
        failures++;
    }
}

static double *to_dev(const std::vector<double> &h)
{
    void *p = NULL;
    if (cudaMalloc(&p, h.size() * sizeof(double)) != cudaSuccess)
        abort();
    memcpy(p, h.data(), h.size() * sizeof(double));
    return (double *)p;
}

static void run(int cx, char ta, char tb, int scaling, bool dev_a, bool dev_b, bool dev_c,
                bool beta_zero)
{
    const int64_t m = 21, n = 13, k = 35, es = cx ? 2 : 1;
    const int64_t ra = ta == 'N' ? m : k, ca = ta == 'N' ? k : m;
    const int64_t rb = tb == 'N' ? k : n, cb = tb == 'N' ? n : k;
    const int64_t lda = ra + 3, ldb = rb + 1, ldc = m + 2;
    std::mt19937_64 g(7 + cx * 100 + ta + 3 * tb);
    std::normal_distribution<double> nd;
    std::vector<double> A(lda * ca * es), B(ldb * cb * es), C(ldc * n * es);
    for (double &x : A)
        x = nd(g) * exp(nd(g));
    for (double &x : B)
        x = nd(g) * exp(nd(g));
    for (double &x : C)
        x = beta_zero ? NAN : nd(g);
    double alpha[2] = {1.5, -0.25}, beta[2] = {beta_zero ? 0.0 : -0.5, beta_zero ? 0.0 : 0.75};

    ozblas_options opt;
    ozblas_options_init(&opt);
    opt.method = OZBLAS_METHOD_OZAKI2;
    opt.moduli = 15;
    opt.scaling = scaling;
    std::vector<double> want = C, host = C;
    ozblas_report rep;
    ozblas_status st;
    opt.executor = OZBLAS_EXECUTOR_CPU;
    st = cx ? ozblas_zgemm(NULL, ta, tb, m, n, k, alpha, A.data(), lda, B.data(), ldb, beta,
                           want.data(), ldc, &opt, &rep)
            : ozblas_dgemm(NULL, ta, tb, m, n, k, alpha[0], A.data(), lda, B.data(), ldb,
                           beta[0], want.data(), ldc, &opt, &rep);
    check(st == OZBLAS_OK && rep.fallback == 0, "cpu call");
    opt.executor = OZBLAS_EXECUTOR_CUDA;
    st = cx ? ozblas_zgemm(NULL, ta, tb, m, n, k, alpha, A.data(), lda, B.data(), ldb, beta,
                           host.data(), ldc, &opt, &rep)
            : ozblas_dgemm(NULL, ta, tb, m, n, k, alpha[0], A.data(), lda, B.data(), ldb,
                           beta[0], host.data(), ldc, &opt, &rep);
    check(st == OZBLAS_OK && rep.executor == OZBLAS_EXECUTOR_CUDA, "cuda call, host pointers");
    double *dA = dev_a ? to_dev(A) : A.data(), *dB = dev_b ? to_dev(B) : B.data();
    std::vector<double> Cd = C;
    double *dC = dev_c ? to_dev(C) : Cd.data();
    st = cx ? ozblas_zgemm(NULL, ta, tb, m, n, k, alpha, dA, lda, dB, ldb, beta, dC, ldc, &opt,
                           &rep)
            : ozblas_dgemm(NULL, ta, tb, m, n, k, alpha[0], dA, lda, dB, ldb, beta[0], dC, ldc,
                           &opt, &rep);
    check(st == OZBLAS_OK, "cuda call, device pointers");
    if (dev_c)
        memcpy(Cd.data(), dC, Cd.size() * sizeof(double));
    char what[160];
    snprintf(what, sizeof what, "bits: cx %d %c%c scaling %d dev %d%d%d beta0 %d", cx, ta, tb,
             scaling, dev_a, dev_b, dev_c, beta_zero);
    /* compare the m rows of each column (rows beyond m must be untouched: compare all) */
    bool same_host = memcmp(host.data(), want.data(), want.size() * 8) == 0;
    bool same_dev = true;
    for (size_t i = 0; i < want.size(); i++) {
        uint64_t a, b;
        memcpy(&a, &Cd[i], 8);
        memcpy(&b, &want[i], 8);
        if (a != b && !(std::isnan(Cd[i]) && std::isnan(want[i])))
            same_dev = false;
    }
    check(same_dev, what);
    check(same_host || beta_zero, "host-pointer result");
    if (dev_a)
        cudaFree(dA);
    if (dev_b)
        cudaFree(dB);
    if (dev_c)
        cudaFree(dC);
}

int main()
{
    int runs = 0;
    for (int cx = 0; cx < 2; cx++)
        for (char ta : {'N', 'T', 'C'})
            for (char tb : {'N', 'T', 'C'})
                for (int scaling = 0; scaling < 2; scaling++)
                    for (int mask = 1; mask < 8; mask += 3) {
                        run(cx, ta, tb, scaling, mask & 1, mask & 2, mask & 4, mask == 7);
                        runs++;
                    }
    /* a pointer on "another device" is refused; not testable with one emulated device */
    printf("device-pointer runs: %d, failures: %d\n", runs, failures);
    return failures ? 1 : 0;
}
