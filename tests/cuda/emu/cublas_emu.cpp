/* A CPU stand-in for the few cuBLAS entry points the CUDA executor uses (see cuda_emu.h).
 * A handle holds its stream; each product is queued there and runs with the stream's queue.
 * The INT8 product also checks what the real IMMA path requires and what the executor
 * claims: TN layout, alpha = 1, beta = 0, m, k and leading dimensions multiples of 4,
 * 4-byte aligned pointers, and INT32 results that cannot overflow. */
#include <algorithm>
#include <complex>

#include "cuda_emu.h"
#include "cuda/cublas_dyn.h"

struct emu_handle {
    cudaStream_t st;
    int dev; /* the device current when it was created */
};
static emu_handle *H(oz_cublas_handle h) { return (emu_handle *)h; }

static oz_cublas_status emu_create(oz_cublas_handle *h)
{
    *h = (oz_cublas_handle) new emu_handle{NULL, oz_emu::current_device};
    return 0;
}
static oz_cublas_status emu_destroy(oz_cublas_handle h)
{
    delete H(h);
    return 0;
}
static oz_cublas_status emu_set_stream(oz_cublas_handle h, cudaStream_t st)
{
    oz_emu::Lock lk(oz_emu::sched().mu);
    if (oz_emu::stream_of(st)->dev != H(h)->dev) { /* a stream of another device */
        fprintf(stderr, "cublas_emu: device %d's handle given device %d's stream\n", H(h)->dev,
                oz_emu::stream_of(st)->dev);
        return 7; /* CUBLAS_STATUS_INVALID_VALUE */
    }
    H(h)->st = st;
    return 0;
}

static void enqueue(oz_cublas_handle h, std::function<void()> op)
{
    oz_emu::Lock lk(oz_emu::sched().mu);
    oz_emu::enqueue(H(h)->st, std::move(op));
}
static oz_cublas_status emu_set_math(oz_cublas_handle, int) { return 0; }
static oz_cublas_status emu_version(oz_cublas_handle, int *v)
{
    *v = 130000;
    return 0;
}

static void gemm_i8_now(int m, int n, int k, const int8_t *a, int lda, const int8_t *b, int ldb,
                        int *c, int ldc)
{
    /* every partial sum is below k max|a| max|b|: exact in INT32 only if that fits */
    long long ma = 0, mb = 0;
    for (int i = 0; i < m; i++)
        for (int l = 0; l < k; l++)
            ma = std::max(ma, (long long)std::abs((int)a[l + (size_t)i * lda]));
    for (int j = 0; j < n; j++)
        for (int l = 0; l < k; l++)
            mb = std::max(mb, (long long)std::abs((int)b[l + (size_t)j * ldb]));
    if ((long long)k * ma * mb > INT32_MAX) {
        fprintf(stderr, "cublas_emu: k = %d with |a| <= %lld, |b| <= %lld could overflow INT32\n",
                k, ma, mb);
        abort();
    }
#pragma omp parallel for schedule(static)
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++) {
            const int8_t *x = a + (size_t)i * lda, *y = b + (size_t)j * ldb;
            int s = 0;
            for (int l = 0; l < k; l++)
                s += (int)x[l] * (int)y[l];
            c[i + (size_t)j * ldc] = s;
        }
}

/* The same product for the stand-in cuBLASLt (cublaslt_emu.cpp), queued on st. */
void oz_emu_i8_product(cudaStream_t st, int m, int n, int k, const int8_t *a, int lda,
                       const int8_t *b, int ldb, int *c, int ldc)
{
    oz_emu::Lock lk(oz_emu::sched().mu);
    oz_emu::enqueue(st, [=] { gemm_i8_now(m, n, k, a, lda, b, ldb, c, ldc); });
}

static oz_cublas_status emu_gemm_ex(oz_cublas_handle h, int ta, int tb, int m, int n, int k,
                                    const void *alpha, const void *A, int at, int lda,
                                    const void *B, int bt, int ldb, const void *beta, void *C,
                                    int ct, int ldc, int compute, int algo)
{
    (void)algo;
    if (ta != OZ_CUBLAS_OP_T || tb != OZ_CUBLAS_OP_N || at != OZ_CUDA_R_8I ||
        bt != OZ_CUDA_R_8I || ct != OZ_CUDA_R_32I || compute != OZ_CUBLAS_COMPUTE_32I ||
        *(const int *)alpha != 1 || *(const int *)beta != 0) {
        fprintf(stderr, "cublas_emu: unexpected GemmEx arguments\n");
        return 7;
    }
    if (m % 4 || k % 4 || n % 4 || lda % 4 || ldb % 4 || ldc % 4 || (uintptr_t)A % 4 ||
        (uintptr_t)B % 4 || (uintptr_t)C % 4 || lda < k || ldb < k || ldc < m) {
        fprintf(stderr, "cublas_emu: IMMA requirements not met (m %d n %d k %d ld %d %d %d)\n",
                m, n, k, lda, ldb, ldc);
        return 15; /* CUBLAS_STATUS_NOT_SUPPORTED */
    }
    if (oz_emu::where(A) != oz_emu::DEVICE || oz_emu::where(B) != oz_emu::DEVICE ||
        oz_emu::where(C) != oz_emu::DEVICE) {
        fprintf(stderr, "cublas_emu: GemmEx on memory that is not device memory\n");
        return 7;
    }
    const int8_t *a = (const int8_t *)A, *b = (const int8_t *)B;
    int *c = (int *)C;
    enqueue(h, [=] { gemm_i8_now(m, n, k, a, lda, b, ldb, c, ldc); });
    return 0;
}

/* cublasGemmStridedBatchedEx: each product of the batch checked and queued as GemmEx's. */
static oz_cublas_status emu_gemm_sb_ex(oz_cublas_handle h, int ta, int tb, int m, int n, int k,
                                       const void *alpha, const void *A, int at, int lda,
                                       long long sa, const void *B, int bt, int ldb,
                                       long long sb, const void *beta, void *C, int ct, int ldc,
                                       long long sc, int batch, int compute, int algo)
{
    if (batch < 0)
        return 7;
    for (int b = 0; b < batch; b++) {
        oz_cublas_status s =
            emu_gemm_ex(h, ta, tb, m, n, k, alpha, (const int8_t *)A + b * sa, at, lda,
                        (const int8_t *)B + b * sb, bt, ldb, beta, (int *)C + b * sc, ct, ldc,
                        compute, algo);
        if (s)
            return s;
    }
    return 0;
}

template <typename T>
static T op_elem(const T *X, int ld, int trans, int r, int c)
{
    if (trans == OZ_CUBLAS_OP_N)
        return X[r + (size_t)c * ld];
    T v = X[c + (size_t)r * ld];
    if constexpr (!std::is_same<T, double>::value)
        if (trans == OZ_CUBLAS_OP_C)
            v = std::conj(v);
    return v;
}

template <typename T>
static void gemm_ref(int ta, int tb, int m, int n, int k, T alpha, const T *A, int lda,
                     const T *B, int ldb, T beta, T *C, int ldc)
{
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++) {
            T s = 0;
            for (int l = 0; l < k; l++)
                s += op_elem(A, lda, ta, i, l) * op_elem(B, ldb, tb, l, j);
            T *cij = C + i + (size_t)j * ldc;
            *cij = beta == T(0) ? alpha * s : alpha * s + beta * *cij;
        }
}

static oz_cublas_status emu_dgemm(oz_cublas_handle h, int ta, int tb, int m, int n, int k,
                                  const double *al, const double *A, int lda, const double *B,
                                  int ldb, const double *be, double *C, int ldc)
{
    double alpha = *al, beta = *be; /* read at the call, as cuBLAS does with host scalars */
    enqueue(h, [=] { gemm_ref<double>(ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc); });
    return 0;
}

static oz_cublas_status emu_zgemm(oz_cublas_handle h, int ta, int tb, int m, int n, int k,
                                  const void *al, const void *A, int lda, const void *B, int ldb,
                                  const void *be, void *C, int ldc)
{
    typedef std::complex<double> z;
    z alpha = *(const z *)al, beta = *(const z *)be;
    enqueue(h, [=] {
        gemm_ref<z>(ta, tb, m, n, k, alpha, (const z *)A, lda, (const z *)B, ldb, beta, (z *)C,
                    ldc);
    });
    return 0;
}

const oz_cublas *oz_cublas_get(char *why, size_t why_len)
{
    (void)why;
    (void)why_len;
    static oz_cublas c = [] {
        oz_cublas t;
        memset(&t, 0, sizeof t);
        snprintf(t.path, sizeof t.path, "cublas_emu (CPU)");
        t.version = 130000;
        t.create = emu_create;
        t.destroy = emu_destroy;
        t.set_stream = emu_set_stream;
        t.set_math_mode = emu_set_math;
        t.get_version = emu_version;
        t.gemm_ex = emu_gemm_ex;
        t.gemm_sb_ex = emu_gemm_sb_ex;
        t.dgemm = emu_dgemm;
        t.zgemm = emu_zgemm;
        return t;
    }();
    return &c;
}
