/* A CPU stand-in for the cuBLASLt entry points of the FP4 engine (cuda_fp4.cu) and of the
 * INT8 products' cached plans (cuda_native.cu; see i8_matmul below). FP4: the
 * block-scaled FP4 matmul D = alpha op(A) op(B) + beta C with E2M1 operands, UE4M3 scales per
 * 16 elements along k, FP32 output. It checks what cuBLASLt requires and reads the data as
 * the hardware would: E2M1 codes two per byte (the lower k index in the low nibble), every
 * element multiplied by the scale its block has in cuBLASLt's VEC16_UE4M3 layout (512-byte
 * tiles of 128 rows x 4 scale columns, offset (r % 32) 16 + (r % 128 / 32) 4 + c % 4), read
 * from the scale tensor's device allocation, which must hold the whole padded layout. So a
 * wrong code, nibble order, scale value or scale layout in the caller gives wrong bits (or
 * an error) here.
 *
 * Harness settings (environment; the version is read once per process):
 *   OZ_EMU_CUBLASLT=none         no cuBLASLt can be opened
 *   OZ_EMU_CUBLASLT_VERSION=N    the version cublasLtGetVersion reports (default 130000)
 *   OZ_EMU_FP4_ACC_BITS=b        the FP32 accumulator keeps only b significant bits (rounded
 *                                toward zero after each addition): an FP4 unit that drops bits
 * The compute capability is cuda_emu.h's OZ_EMU_CC. */
#include <math.h>

#include <vector>

#include "cuda_emu.h"
#include "cuda/cublas_dyn.h"

struct oz_cublaslt_ctx {
    int unused;
};
struct oz_cublaslt_desc_s {
    int compute, scale_type, ta = OZ_CUBLAS_OP_N, tb = OZ_CUBLAS_OP_N, amode = -1, bmode = -1;
    const void *ascale = NULL, *bscale = NULL;
};
struct oz_cublaslt_layout_s {
    int type;
    uint64_t rows, cols;
    int64_t ld;
    int32_t batch = 1;  /* BATCH_COUNT */
    int64_t stride = 0; /* STRIDED_BATCH_OFFSET, in elements */
};
struct oz_cublaslt_pref_s {
    uint64_t max_ws = 0;
    uint32_t align[4] = {256, 256, 256, 256}; /* MIN_ALIGNMENT_{A,B,C,D}_BYTES */
};

static oz_cublas_status lt_create(oz_cublaslt_handle *h)
{
    *h = new oz_cublaslt_ctx{0};
    return 0;
}
static oz_cublas_status lt_destroy(oz_cublaslt_handle h)
{
    delete h;
    return 0;
}
static oz_cublas_status desc_create(oz_cublaslt_matmul_desc *d, int compute, int scale_type)
{
    *d = new oz_cublaslt_desc_s;
    (*d)->compute = compute;
    (*d)->scale_type = scale_type;
    return 0;
}
static oz_cublas_status desc_destroy(oz_cublaslt_matmul_desc d)
{
    delete d;
    return 0;
}
static oz_cublas_status desc_set(oz_cublaslt_matmul_desc d, int attr, const void *buf, size_t size)
{
    const int i = size == 4 ? *(const int32_t *)buf : 0;
    const void *p = size == sizeof(void *) ? *(const void *const *)buf : NULL;
    switch (attr) {
    case OZ_CUBLASLT_DESC_TRANSA: d->ta = i; break;
    case OZ_CUBLASLT_DESC_TRANSB: d->tb = i; break;
    case OZ_CUBLASLT_DESC_A_SCALE_MODE: d->amode = i; break;
    case OZ_CUBLASLT_DESC_B_SCALE_MODE: d->bmode = i; break;
    case OZ_CUBLASLT_DESC_A_SCALE_POINTER: d->ascale = p; break;
    case OZ_CUBLASLT_DESC_B_SCALE_POINTER: d->bscale = p; break;
    default:
        fprintf(stderr, "cublaslt_emu: attribute %d not emulated\n", attr);
        return 15; /* CUBLAS_STATUS_NOT_SUPPORTED */
    }
    return 0;
}
static oz_cublas_status layout_create(oz_cublaslt_layout *l, int type, uint64_t rows,
                                      uint64_t cols, int64_t ld)
{
    *l = new oz_cublaslt_layout_s{type, rows, cols, ld};
    return 0;
}
static oz_cublas_status layout_destroy(oz_cublaslt_layout l)
{
    delete l;
    return 0;
}

static oz_cublas_status layout_set(oz_cublaslt_layout l, int attr, const void *buf, size_t size)
{
    if (attr == OZ_CUBLASLT_LAYOUT_BATCH_COUNT && size == 4)
        l->batch = *(const int32_t *)buf;
    else if (attr == OZ_CUBLASLT_LAYOUT_STRIDED_BATCH_OFFSET && size == 8)
        l->stride = *(const int64_t *)buf;
    else
        return 15;
    return 0;
}
static oz_cublas_status pref_create(oz_cublaslt_pref *p)
{
    *p = new oz_cublaslt_pref_s;
    return 0;
}
static oz_cublas_status pref_destroy(oz_cublaslt_pref p)
{
    delete p;
    return 0;
}
static oz_cublas_status pref_set(oz_cublaslt_pref p, int attr, const void *buf, size_t size)
{
    if (attr == OZ_CUBLASLT_PREF_MAX_WORKSPACE_BYTES && size == 8)
        p->max_ws = *(const uint64_t *)buf;
    else if (attr >= OZ_CUBLASLT_PREF_MIN_ALIGNMENT_A_BYTES &&
             attr <= OZ_CUBLASLT_PREF_MIN_ALIGNMENT_D_BYTES && size == 4)
        p->align[attr - OZ_CUBLASLT_PREF_MIN_ALIGNMENT_A_BYTES] = *(const uint32_t *)buf;
    else
        return 15;
    return 0;
}

/* ---- INT8 products (the CUDA executor's cached plans, cuda_native.cu) ------------------------
 * The heuristic answers an INT8 TN product (A and B CUDA_R_8I, C and D CUDA_R_32I, compute
 * CUBLAS_COMPUTE_32I) with one algorithm that names its shape and the operands' alignment
 * the preference promised (256 bytes unless told) and asks for a workspace (4 KiB, within
 * the preference's maximum), so that a matmul given another shape's algorithm, none, no
 * workspace, or operands aligned less than promised fails here. */
enum { I8_ALGO_MAGIC = 0x4f5a4c5449380001, I8_ALGO_WS = 4096 };

static bool i8_shape(oz_cublaslt_matmul_desc d, oz_cublaslt_layout la, oz_cublaslt_layout lb,
                     oz_cublaslt_layout lc, oz_cublaslt_layout ld)
{
    return d->compute == OZ_CUBLAS_COMPUTE_32I && d->scale_type == OZ_CUDA_R_32I &&
           d->ta == OZ_CUBLAS_OP_T && d->tb == OZ_CUBLAS_OP_N && la->type == OZ_CUDA_R_8I &&
           lb->type == OZ_CUDA_R_8I && lc->type == OZ_CUDA_R_32I && ld == lc &&
           la->rows == lb->rows && lc->rows == la->cols && lc->cols == lb->cols &&
           la->batch == lb->batch && la->batch == lc->batch && la->batch >= 1;
}

/* align: the preference's promised alignments of A, B and C (0: the algorithm's own). */
static void i8_algo(oz_cublaslt_layout la, oz_cublaslt_layout lb, oz_cublaslt_layout lc,
                    const uint32_t *align, oz_cublaslt_algo *a)
{
    memset(a, 0, sizeof *a);
    a->data[0] = I8_ALGO_MAGIC;
    a->data[1] = la->cols, a->data[2] = lb->cols, a->data[3] = la->rows;
    a->data[4] = (uint64_t)la->ld, a->data[5] = (uint64_t)lb->ld, a->data[6] = (uint64_t)lc->ld;
    a->data[7] = (uint64_t)la->batch;
    if (align)
        a->data[7] |= (uint64_t)align[0] << 32 | (uint64_t)align[1] << 42 |
                      (uint64_t)align[2] << 52;
}

static oz_cublas_status heuristic(oz_cublaslt_handle h, oz_cublaslt_matmul_desc d,
                                  oz_cublaslt_layout la, oz_cublaslt_layout lb,
                                  oz_cublaslt_layout lc, oz_cublaslt_layout ld,
                                  oz_cublaslt_pref p, int requested,
                                  oz_cublaslt_heuristic *res, int *returned)
{
    (void)h;
    *returned = 0;
    if (requested < 1 || !i8_shape(d, la, lb, lc, ld))
        return 15;
    memset(res, 0, sizeof *res);
    if (p->align[3] != p->align[2]) /* D is C here */
        return 15;
    i8_algo(la, lb, lc, p->align, &res->algo);
    res->workspace = p->max_ws < I8_ALGO_WS ? p->max_ws : I8_ALGO_WS;
    *returned = 1;
    return 0;
}

void oz_emu_i8_product(cudaStream_t st, int m, int n, int k, const int8_t *a, int lda,
                       const int8_t *b, int ldb, int *c, int ldc); /* cublas_emu.cpp */

static oz_cublas_status i8_matmul(oz_cublaslt_matmul_desc d, const void *alpha, const void *A,
                                  oz_cublaslt_layout la, const void *B, oz_cublaslt_layout lb,
                                  const void *beta, const void *C, oz_cublaslt_layout lc,
                                  void *D, oz_cublaslt_layout ld, const void *algo, void *ws,
                                  size_t ws_size, cudaStream_t st);

/* Bytes of device allocation from p on (0: not device memory). */
static size_t device_extent(const void *p)
{
    oz_emu::Alloc &a = oz_emu::allocs();
    std::lock_guard<std::mutex> g(a.mu);
    auto it = a.live.upper_bound((uintptr_t)p);
    if (it == a.live.begin())
        return 0;
    --it;
    const uintptr_t end = it->first + it->second;
    return (uintptr_t)p < end ? end - (uintptr_t)p : 0;
}

static float e2m1(unsigned code)
{
    static const float mag[8] = {0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f};
    return code & 8 ? -mag[code & 7] : mag[code & 7];
}

static float ue4m3(uint8_t b)
{
    const int e = (b >> 3) & 15, m = b & 7; /* the sign bit is ignored (unsigned) */
    if (e == 15 && m == 7)
        return NAN;
    return e ? ldexpf(1.0f + m / 8.0f, e - 7) : ldexpf(m / 8.0f, -6);
}

static size_t scale_offset(uint64_t r, uint64_t c, uint64_t scale_cols)
{
    const uint64_t tiles_c = (scale_cols + 3) / 4;
    return (size_t)(((r / 128) * tiles_c + c / 4) * 512 + (r % 32) * 16 + (r % 128 / 32) * 4 +
                    c % 4);
}

/* x rounded toward zero to b significant bits (b >= 24: unchanged). */
static float keep_bits(float x, int b)
{
    if (b >= 24 || x == 0.0f)
        return x;
    int e;
    const float f = frexpf(x, &e);
    return ldexpf(truncf(ldexpf(f, b)), e - b);
}

static oz_cublas_status lt_matmul(oz_cublaslt_handle h, oz_cublaslt_matmul_desc d,
                                  const void *alpha, const void *A, oz_cublaslt_layout la,
                                  const void *B, oz_cublaslt_layout lb, const void *beta,
                                  const void *C, oz_cublaslt_layout lc, void *D,
                                  oz_cublaslt_layout ld, const void *algo, void *ws,
                                  size_t ws_size, cudaStream_t st)
{
    (void)h;
    if (d->compute == OZ_CUBLAS_COMPUTE_32I)
        return i8_matmul(d, alpha, A, la, B, lb, beta, C, lc, D, ld, algo, ws, ws_size, st);
    (void)algo, (void)ws, (void)ws_size;
    /* what cuBLASLt's block-scaled FP4 path takes: TN, E2M1 in, FP32 compute and out,
     * VEC16_UE4M3 scales on both, k a multiple of 32, 16-byte aligned operands */
    if (d->compute != OZ_CUBLAS_COMPUTE_32F || d->scale_type != OZ_CUDA_R_32F ||
        d->ta != OZ_CUBLAS_OP_T || d->tb != OZ_CUBLAS_OP_N || la->type != OZ_CUDA_R_4F_E2M1 ||
        lb->type != OZ_CUDA_R_4F_E2M1 || lc->type != OZ_CUDA_R_32F ||
        ld->type != OZ_CUDA_R_32F || d->amode != OZ_CUBLASLT_SCALE_VEC16_UE4M3 ||
        d->bmode != OZ_CUBLASLT_SCALE_VEC16_UE4M3 || la->rows != lb->rows || la->rows % 32 ||
        la->ld < (int64_t)la->rows || lb->ld < (int64_t)lb->rows || la->ld % 32 || lb->ld % 32 ||
        lc->rows != la->cols || lc->cols != lb->cols || ld->rows != lc->rows ||
        ld->cols != lc->cols || lc->ld < (int64_t)lc->rows || ld->ld != lc->ld ||
        (uintptr_t)A % 16 || (uintptr_t)B % 16 || (uintptr_t)D % 16) {
        fprintf(stderr, "cublaslt_emu: matmul arguments not of the block-scaled FP4 path\n");
        return 15;
    }
    const uint64_t k = la->rows, m = la->cols, n = lb->cols, sc = k / 16;
    const size_t need_a = (size_t)((m + 127) / 128 * 128) * ((sc + 3) / 4 * 4);
    const size_t need_b = (size_t)((n + 127) / 128 * 128) * ((sc + 3) / 4 * 4);
    if (device_extent(A) < (size_t)((m - 1) * la->ld + k) / 2 ||
        device_extent(B) < (size_t)((n - 1) * lb->ld + k) / 2 ||
        device_extent(D) < 4 * (size_t)((n - 1) * ld->ld + m) ||
        device_extent(d->ascale) < need_a || device_extent(d->bscale) < need_b ||
        (C != D && device_extent(C) < 4 * (size_t)((n - 1) * lc->ld + m))) {
        fprintf(stderr, "cublaslt_emu: an operand or scale tensor is not device memory of "
                        "the size its layout needs\n");
        return 7;
    }
    const float al = *(const float *)alpha, be = *(const float *)beta;
    const char *bits = getenv("OZ_EMU_FP4_ACC_BITS");
    const int keep = bits ? atoi(bits) : 24;
    const uint8_t *a = (const uint8_t *)A, *b = (const uint8_t *)B;
    const uint8_t *sa = (const uint8_t *)d->ascale, *sb = (const uint8_t *)d->bscale;
    const float *c = (const float *)C;
    float *dd = (float *)D;
    const int64_t lda = la->ld, ldb = lb->ld, ldc = lc->ld;
    oz_emu::Lock lk(oz_emu::sched().mu);
    oz_emu::enqueue(st, [=] {
        /* every element times its block's scale, decoded once (exact: a product of E2M1 and
         * UE4M3 values has at most 5 significant bits), then FP32 dot products in k order */
        std::vector<float> x(m * k), y(n * k);
        for (uint64_t i = 0; i < m; i++)
            for (uint64_t l = 0; l < k; l++) {
                const uint64_t e = l + i * lda;
                x[l + i * k] = e2m1(a[e / 2] >> (e % 2 ? 4 : 0) & 15) *
                               ue4m3(sa[scale_offset(i, l / 16, sc)]);
            }
        for (uint64_t j = 0; j < n; j++)
            for (uint64_t l = 0; l < k; l++) {
                const uint64_t e = l + j * ldb;
                y[l + j * k] = e2m1(b[e / 2] >> (e % 2 ? 4 : 0) & 15) *
                               ue4m3(sb[scale_offset(j, l / 16, sc)]);
            }
#pragma omp parallel for schedule(static)
        for (int64_t j = 0; j < (int64_t)n; j++)
            for (uint64_t i = 0; i < m; i++) {
                const float *xi = &x[i * k], *yj = &y[j * k];
                float acc = 0.0f;
                if (keep >= 24)
                    for (uint64_t l = 0; l < k; l++)
                        acc += xi[l] * yj[l];
                else
                    for (uint64_t l = 0; l < k; l++)
                        acc = keep_bits(acc + xi[l] * yj[l], keep);
                float *out = dd + i + j * ldc;
                *out = be == 0.0f ? al * acc : al * acc + be * c[i + j * ldc];
            }
    });
    return 0;
}

/* The INT8 product with the heuristic's algorithm for this shape and its workspace: what
 * the IMMA path requires (as cublas_emu.cpp's GemmEx), then each product of the batch. */
static oz_cublas_status i8_matmul(oz_cublaslt_matmul_desc d, const void *alpha, const void *A,
                                  oz_cublaslt_layout la, const void *B, oz_cublaslt_layout lb,
                                  const void *beta, const void *C, oz_cublaslt_layout lc,
                                  void *D, oz_cublaslt_layout ld, const void *algo, void *ws,
                                  size_t ws_size, cudaStream_t st)
{
    oz_cublaslt_algo want;
    if (!i8_shape(d, la, lb, lc, ld) || C != D || *(const int *)alpha != 1 ||
        *(const int *)beta != 0 || !algo) {
        fprintf(stderr, "cublaslt_emu: INT8 matmul arguments not those of a cached plan\n");
        return 7;
    }
    const oz_cublaslt_algo *given = (const oz_cublaslt_algo *)algo;
    const uint64_t promise = given->data[7] >> 32; /* the alignments the heuristic was told */
    const uint64_t al[3] = {promise & 1023, promise >> 10 & 1023, promise >> 20 & 1023};
    i8_algo(la, lb, lc, NULL, &want);
    want.data[7] = given->data[7];
    if (memcmp(algo, &want, sizeof want) || (given->data[7] & 0xffffffffu) != (uint64_t)la->batch ||
        !al[0] || !al[1] || !al[2]) {
        fprintf(stderr, "cublaslt_emu: INT8 matmul given another shape's algorithm\n");
        return 7;
    }
    if (ws_size < I8_ALGO_WS || device_extent(ws) < I8_ALGO_WS) {
        fprintf(stderr, "cublaslt_emu: INT8 matmul without the workspace its algorithm needs\n");
        return 7;
    }
    const int64_t m = (int64_t)la->cols, n = (int64_t)lb->cols, k = (int64_t)la->rows;
    if (m % 4 || n % 4 || k % 4 || la->ld % 4 || lb->ld % 4 || lc->ld % 4 || la->ld < k ||
        lb->ld < k || lc->ld < m) {
        fprintf(stderr, "cublaslt_emu: IMMA requirements not met\n");
        return 15;
    }
    for (int32_t b = 0; b < la->batch; b++) {
        const int8_t *a = (const int8_t *)A + b * la->stride, *x = (const int8_t *)B + b * lb->stride;
        int *c = (int *)D + b * lc->stride;
        if ((uintptr_t)a % al[0] || (uintptr_t)x % al[1] || (uintptr_t)c % al[2] ||
            device_extent(a) < (size_t)((m - 1) * la->ld + k) ||
            device_extent(x) < (size_t)((n - 1) * lb->ld + k) ||
            device_extent(c) < 4 * (size_t)((n - 1) * lc->ld + m)) {
            fprintf(stderr, "cublaslt_emu: INT8 operand not device memory of its size, aligned "
                            "as the heuristic was told\n");
            return 7;
        }
        oz_emu_i8_product(st, (int)m, (int)n, (int)k, a, (int)la->ld, x, (int)lb->ld, c,
                          (int)lc->ld);
    }
    return 0;
}

const oz_cublaslt *oz_cublaslt_get(char *why, size_t why_len)
{
    const char *none = getenv("OZ_EMU_CUBLASLT");
    if (none && !strcmp(none, "none")) {
        if (why && why_len)
            snprintf(why, why_len, "cuBLASLt not found (emulated: OZ_EMU_CUBLASLT=none)");
        return NULL;
    }
    static oz_cublaslt t = [] {
        oz_cublaslt x;
        memset(&x, 0, sizeof x);
        snprintf(x.path, sizeof x.path, "cublaslt_emu (CPU)");
        x.create = lt_create;
        x.destroy = lt_destroy;
        x.desc_create = desc_create;
        x.desc_destroy = desc_destroy;
        x.desc_set = desc_set;
        x.layout_create = layout_create;
        x.layout_destroy = layout_destroy;
        x.matmul = lt_matmul;
        x.layout_set = layout_set;
        x.pref_create = pref_create;
        x.pref_destroy = pref_destroy;
        x.pref_set = pref_set;
        x.heuristic = heuristic;
        const char *v = getenv("OZ_EMU_CUBLASLT_VERSION");
        x.version = v ? (size_t)strtoull(v, NULL, 10) : 130000;
        return x;
    }();
    return &t;
}
