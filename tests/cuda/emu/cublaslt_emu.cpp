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
 * The compute capability is cuda_emu.h's OZ_EMU_CC.
 *
 * FP64 and complex FP64 matmuls (compute type CUBLAS_COMPUTE_64F or its pedantic form) are
 * computed by plain loops, for the preload shim's cublasLtMatmul (shim_cublas.c) to pass
 * through to: column or row order, any transposes, strided batches, C distinct from D,
 * alpha and beta on the host or the device, the DEFAULT, BIAS, RELU and RELU_BIAS
 * epilogues. A program reaches them through the cuBLASLt names of libcublasLt_emu.so
 * (cublaslt_abi.c), which forwards to the oz_emu_cublasLt* functions exported below. */
#include <math.h>

#include <complex>
#include <memory>
#include <vector>

#include "cuda_emu.h"
#include "cuda/cublas_dyn.h"

struct oz_cublaslt_ctx {
    int unused;
};
/* cublasLt.h's values the FP64 path reads (CUDA 11 to 13) */
enum {
    LT_COMPUTE_64F = 70, LT_COMPUTE_64F_PEDANTIC = 71,
    LT_DESC_COMPUTE_TYPE = 0, LT_DESC_SCALE_TYPE = 1, LT_DESC_POINTER_MODE = 2,
    LT_DESC_TRANSC = 5, LT_DESC_EPILOGUE = 7, LT_DESC_BIAS_POINTER = 8,
    LT_DESC_BIAS_BATCH_STRIDE = 10, LT_DESC_BIAS_DATA_TYPE = 26,
    LT_DESC_C_SCALE_POINTER = 19, LT_DESC_D_SCALE_POINTER = 20, LT_DESC_AMAX_D_POINTER = 21,
    LT_LAYOUT_TYPE = 0, LT_LAYOUT_ORDER = 1, LT_LAYOUT_ROWS = 2, LT_LAYOUT_COLS = 3,
    LT_LAYOUT_LD = 4, LT_LAYOUT_PLANE_OFFSET = 7,
    LT_ORDER_COL = 0, LT_ORDER_ROW = 1,
    LT_EPILOGUE_DEFAULT = 1, LT_EPILOGUE_RELU = 2, LT_EPILOGUE_BIAS = 4, LT_EPILOGUE_RELU_BIAS = 6,
    LT_POINTER_HOST = 0, LT_POINTER_DEVICE = 1,
    LT_INVALID_VALUE = 7, LT_NOT_SUPPORTED = 15
};

struct oz_cublaslt_desc_s {
    int compute, scale_type, ta = OZ_CUBLAS_OP_N, tb = OZ_CUBLAS_OP_N, amode = -1, bmode = -1;
    const void *ascale = NULL, *bscale = NULL;
    int32_t pmode = LT_POINTER_HOST, tc = OZ_CUBLAS_OP_N, bias_type = -1;
    int64_t bias_stride = 0;
    uint32_t epilogue = LT_EPILOGUE_DEFAULT;
    const void *bias = NULL, *cscale = NULL, *dscale = NULL, *amax = NULL;
};
struct oz_cublaslt_layout_s {
    int type;
    uint64_t rows, cols;
    int64_t ld;
    int32_t batch = 1;  /* BATCH_COUNT */
    int64_t stride = 0; /* STRIDED_BATCH_OFFSET, in elements */
    int32_t order = LT_ORDER_COL;
    int64_t plane = 0; /* PLANE_OFFSET: planar complex (not emulated) */
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
/* Where attribute attr of d lives and its size (NULL: not emulated). */
static void *desc_field(oz_cublaslt_matmul_desc d, int attr, size_t *size)
{
    *size = 4;
    switch (attr) {
    case LT_DESC_COMPUTE_TYPE: return &d->compute;
    case LT_DESC_SCALE_TYPE: return &d->scale_type;
    case LT_DESC_POINTER_MODE: return &d->pmode;
    case OZ_CUBLASLT_DESC_TRANSA: return &d->ta;
    case OZ_CUBLASLT_DESC_TRANSB: return &d->tb;
    case LT_DESC_TRANSC: return &d->tc;
    case LT_DESC_EPILOGUE: return &d->epilogue;
    case LT_DESC_BIAS_DATA_TYPE: return &d->bias_type;
    case OZ_CUBLASLT_DESC_A_SCALE_MODE: return &d->amode;
    case OZ_CUBLASLT_DESC_B_SCALE_MODE: return &d->bmode;
    }
    *size = 8;
    if (attr == LT_DESC_BIAS_BATCH_STRIDE)
        return &d->bias_stride;
    *size = sizeof(void *);
    switch (attr) {
    case LT_DESC_BIAS_POINTER: return &d->bias;
    case OZ_CUBLASLT_DESC_A_SCALE_POINTER: return &d->ascale;
    case OZ_CUBLASLT_DESC_B_SCALE_POINTER: return &d->bscale;
    case LT_DESC_C_SCALE_POINTER: return &d->cscale;
    case LT_DESC_D_SCALE_POINTER: return &d->dscale;
    case LT_DESC_AMAX_D_POINTER: return &d->amax;
    }
    return NULL;
}
static oz_cublas_status desc_set(oz_cublaslt_matmul_desc d, int attr, const void *buf, size_t size)
{
    size_t want = 0;
    void *f = d ? desc_field(d, attr, &want) : NULL;
    if (!f) {
        fprintf(stderr, "cublaslt_emu: attribute %d not emulated\n", attr);
        return LT_NOT_SUPPORTED;
    }
    if (!buf || size != want) /* as cuBLASLt: the attribute's exact size */
        return LT_INVALID_VALUE;
    memcpy(f, buf, size);
    return 0;
}
/* cublasLtMatmulDescGetAttribute: cuBLASLt's contract (size 0 asks for the size). */
static oz_cublas_status desc_get(oz_cublaslt_matmul_desc d, int attr, void *buf, size_t size,
                                 size_t *written)
{
    size_t want = 0;
    const void *f = d ? desc_field(d, attr, &want) : NULL;
    if (!f || (size == 0 && !written) || (size && (!buf || size != want)))
        return LT_INVALID_VALUE;
    if (size)
        memcpy(buf, f, size);
    if (written)
        *written = want;
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

static void *layout_field(oz_cublaslt_layout l, int attr, size_t *size)
{
    *size = 8;
    switch (attr) {
    case LT_LAYOUT_TYPE: *size = 4; return &l->type;
    case LT_LAYOUT_ORDER: *size = 4; return &l->order;
    case LT_LAYOUT_ROWS: return &l->rows;
    case LT_LAYOUT_COLS: return &l->cols;
    case LT_LAYOUT_LD: return &l->ld;
    case OZ_CUBLASLT_LAYOUT_BATCH_COUNT: *size = 4; return &l->batch;
    case OZ_CUBLASLT_LAYOUT_STRIDED_BATCH_OFFSET: return &l->stride;
    case LT_LAYOUT_PLANE_OFFSET: return &l->plane;
    }
    return NULL;
}
static oz_cublas_status layout_set(oz_cublaslt_layout l, int attr, const void *buf, size_t size)
{
    size_t want = 0;
    void *f = l ? layout_field(l, attr, &want) : NULL;
    if (!f || !buf || size != want)
        return LT_NOT_SUPPORTED;
    memcpy(f, buf, size);
    return 0;
}
static oz_cublas_status layout_get(oz_cublaslt_layout l, int attr, void *buf, size_t size,
                                   size_t *written)
{
    size_t want = 0;
    const void *f = l ? layout_field(l, attr, &want) : NULL;
    if (!f || (size == 0 && !written) || (size && (!buf || size != want)))
        return LT_INVALID_VALUE;
    if (size)
        memcpy(buf, f, size);
    if (written)
        *written = want;
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

static oz_cublas_status f64_matmul(oz_cublaslt_matmul_desc d, const void *alpha, const void *A,
                                   oz_cublaslt_layout la, const void *B, oz_cublaslt_layout lb,
                                   const void *beta, const void *C, oz_cublaslt_layout lc,
                                   void *D, oz_cublaslt_layout ld, cudaStream_t st);

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
    if (!d || !la || !lb || !lc || !ld)
        return LT_INVALID_VALUE;
    if (d->compute == OZ_CUBLAS_COMPUTE_32I)
        return i8_matmul(d, alpha, A, la, B, lb, beta, C, lc, D, ld, algo, ws, ws_size, st);
    if (d->compute == LT_COMPUTE_64F || d->compute == LT_COMPUTE_64F_PEDANTIC)
        return f64_matmul(d, alpha, A, la, B, lb, beta, C, lc, D, ld, st);
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

/* ---- FP64 and complex FP64 products (what the preload shim passes through) ------------------
 * D = epilogue(alpha op(A) op(B) + beta C (+ bias)), each product of the batch by plain loops
 * in k order, the epilogue's bias (one element per row of D, of D's type, product b's at
 * bias + b BIAS_BATCH_STRIDE) and ReLU after. */

/* Element (r, c) of a matrix in l's order. */
static int64_t at(oz_cublaslt_layout l, uint64_t r, uint64_t c)
{
    return l->order == LT_ORDER_ROW ? (int64_t)c + (int64_t)r * l->ld
                                    : (int64_t)r + (int64_t)c * l->ld;
}

/* What the stand-in computes: 0, or cuBLASLt's status for what it does not. */
static oz_cublas_status f64_check(oz_cublaslt_matmul_desc d, oz_cublaslt_layout la,
                                  oz_cublaslt_layout lb, oz_cublaslt_layout lc,
                                  oz_cublaslt_layout ld, int *cplx)
{
    const int t = ld->type;
    *cplx = t == OZ_CUDA_C_64F;
    if ((t != OZ_CUDA_R_64F && t != OZ_CUDA_C_64F) || la->type != t || lb->type != t ||
        lc->type != t || d->scale_type != t)
        return LT_NOT_SUPPORTED;
    const uint32_t e = d->epilogue;
    if ((e != LT_EPILOGUE_DEFAULT && e != LT_EPILOGUE_BIAS && e != LT_EPILOGUE_RELU &&
         e != LT_EPILOGUE_RELU_BIAS) || (*cplx && (e & LT_EPILOGUE_RELU)) ||
        ((e & LT_EPILOGUE_BIAS) && !d->bias) || (d->bias_type != -1 && d->bias_type != t) ||
        (d->pmode != LT_POINTER_HOST && d->pmode != LT_POINTER_DEVICE) || d->ascale ||
        d->bscale || d->cscale || d->dscale || d->amax || d->tc != OZ_CUBLAS_OP_N)
        return LT_NOT_SUPPORTED;
    for (oz_cublaslt_layout l : {la, lb, lc, ld})
        if ((l->order != LT_ORDER_COL && l->order != LT_ORDER_ROW) || l->plane)
            return LT_NOT_SUPPORTED;
    if (d->ta < 0 || d->ta > 2 || d->tb < 0 || d->tb > 2)
        return LT_INVALID_VALUE;
    const uint64_t m = ld->rows, n = ld->cols, k = d->ta ? la->rows : la->cols;
    if ((d->ta ? la->cols : la->rows) != m || (d->tb ? lb->rows : lb->cols) != n ||
        (d->tb ? lb->cols : lb->rows) != k || lc->rows != m || lc->cols != n)
        return LT_INVALID_VALUE;
    for (oz_cublaslt_layout l : {la, lb, lc, ld})
        if (l->batch != ld->batch || l->batch < 1 || l->stride < 0 ||
            l->ld < (int64_t)(l->order == LT_ORDER_ROW ? l->cols : l->rows))
            return LT_INVALID_VALUE;
    return 0;
}

template <typename T>
static void f64_product(oz_cublaslt_matmul_desc d, T alpha, T beta, const T *A,
                        oz_cublaslt_layout la, const T *B, oz_cublaslt_layout lb, const T *C,
                        oz_cublaslt_layout lc, T *D, oz_cublaslt_layout ld, const T *bias)
{
    const uint64_t m = ld->rows, n = ld->cols, k = d->ta ? la->rows : la->cols;
    auto op = [](const T *X, oz_cublaslt_layout l, int trans, uint64_t r, uint64_t c) {
        T v = trans ? X[at(l, c, r)] : X[at(l, r, c)];
        if constexpr (!std::is_same<T, double>::value)
            if (trans == OZ_CUBLAS_OP_C)
                v = std::conj(v);
        return v;
    };
    for (uint64_t j = 0; j < n; j++)
        for (uint64_t i = 0; i < m; i++) {
            T s = 0;
            for (uint64_t l = 0; l < k; l++)
                s += op(A, la, d->ta, i, l) * op(B, lb, d->tb, l, j);
            T v = beta == T(0) ? alpha * s : alpha * s + beta * C[at(lc, i, j)];
            if (bias)
                v += bias[i];
            if constexpr (std::is_same<T, double>::value)
                if ((d->epilogue & LT_EPILOGUE_RELU) && !(v > 0.0))
                    v = 0.0;
            D[at(ld, i, j)] = v;
        }
}

template <typename T>
static void f64_run(oz_cublaslt_matmul_desc d, const void *alpha, const void *beta,
                    const void *A, oz_cublaslt_layout la, const void *B, oz_cublaslt_layout lb,
                    const void *C, oz_cublaslt_layout lc, void *D, oz_cublaslt_layout ld)
{
    /* scalars read when the work runs, as the device reads device-mode scalars */
    const T al = *(const T *)alpha, be = *(const T *)beta;
    const T *bias = d->epilogue & LT_EPILOGUE_BIAS ? (const T *)d->bias : NULL;
    for (int32_t b = 0; b < ld->batch; b++)
        f64_product<T>(d, al, be, (const T *)A + b * la->stride, la,
                       (const T *)B + b * lb->stride, lb, (const T *)C + b * lc->stride, lc,
                       (T *)D + b * ld->stride, ld, bias ? bias + b * d->bias_stride : NULL);
}

static oz_cublas_status f64_matmul(oz_cublaslt_matmul_desc d, const void *alpha, const void *A,
                                   oz_cublaslt_layout la, const void *B, oz_cublaslt_layout lb,
                                   const void *beta, const void *C, oz_cublaslt_layout lc,
                                   void *D, oz_cublaslt_layout ld, cudaStream_t st)
{
    int cplx = 0;
    const oz_cublas_status s = f64_check(d, la, lb, lc, ld, &cplx);
    if (s)
        return s;
    if (!alpha || !beta || !A || !B || !D)
        return LT_INVALID_VALUE;
    /* the descriptors may be changed or destroyed once the call returns */
    auto dc = std::make_shared<oz_cublaslt_desc_s>(*d);
    auto ls = std::make_shared<std::vector<oz_cublaslt_layout_s>>(
        std::vector<oz_cublaslt_layout_s>{*la, *lb, *lc, *ld});
    /* host scalars are read at the call, device ones when the work runs */
    auto sc = std::make_shared<std::vector<double>>(4, 0.0);
    const bool host = d->pmode == LT_POINTER_HOST;
    if (host) {
        memcpy(sc->data(), alpha, cplx ? 16 : 8);
        memcpy(sc->data() + 2, beta, cplx ? 16 : 8);
    }
    const void *al = host ? sc->data() : alpha, *be = host ? sc->data() + 2 : beta;
    oz_emu::Lock lk(oz_emu::sched().mu);
    oz_emu::enqueue(st, [=] {
        (void)sc;
        auto &l = *ls;
        if (cplx)
            f64_run<std::complex<double>>(dc.get(), al, be, A, &l[0], B, &l[1], C, &l[2], D,
                                          &l[3]);
        else
            f64_run<double>(dc.get(), al, be, A, &l[0], B, &l[1], C, &l[2], D, &l[3]);
    });
    return 0;
}

/* ---- cuBLASLt's own names, for a program that calls cuBLASLt (the shim's tests) -------------
 * Exported from the harness's libozblas.so under an oz_emu_ prefix (a library that is ozblas
 * is never taken for the real cuBLASLt); libcublasLt_emu.so (cublaslt_abi.c) gives them the
 * cuBLASLt names. cublasLtMatmul returns once its work has run, so that a program without
 * the emulated runtime's synchronization sees the result. */
#define OZ_EMU_ABI extern "C" __attribute__((visibility("default")))
OZ_EMU_ABI int oz_emu_cublasLtCreate(oz_cublaslt_handle *h) { return lt_create(h); }
OZ_EMU_ABI int oz_emu_cublasLtDestroy(oz_cublaslt_handle h) { return lt_destroy(h); }
OZ_EMU_ABI int oz_emu_cublasLtMatmulDescCreate(oz_cublaslt_matmul_desc *d, int compute,
                                               int scale_type)
{
    return desc_create(d, compute, scale_type);
}
OZ_EMU_ABI int oz_emu_cublasLtMatmulDescDestroy(oz_cublaslt_matmul_desc d) { return desc_destroy(d); }
OZ_EMU_ABI int oz_emu_cublasLtMatmulDescSetAttribute(oz_cublaslt_matmul_desc d, int attr,
                                                     const void *buf, size_t size)
{
    return desc_set(d, attr, buf, size);
}
OZ_EMU_ABI int oz_emu_cublasLtMatmulDescGetAttribute(oz_cublaslt_matmul_desc d, int attr,
                                                     void *buf, size_t size, size_t *written)
{
    return desc_get(d, attr, buf, size, written);
}
OZ_EMU_ABI int oz_emu_cublasLtMatrixLayoutCreate(oz_cublaslt_layout *l, int type, uint64_t rows,
                                                 uint64_t cols, int64_t ld)
{
    return layout_create(l, type, rows, cols, ld);
}
OZ_EMU_ABI int oz_emu_cublasLtMatrixLayoutDestroy(oz_cublaslt_layout l) { return layout_destroy(l); }
OZ_EMU_ABI int oz_emu_cublasLtMatrixLayoutSetAttribute(oz_cublaslt_layout l, int attr,
                                                       const void *buf, size_t size)
{
    return layout_set(l, attr, buf, size);
}
OZ_EMU_ABI int oz_emu_cublasLtMatrixLayoutGetAttribute(oz_cublaslt_layout l, int attr, void *buf,
                                                       size_t size, size_t *written)
{
    return layout_get(l, attr, buf, size, written);
}
OZ_EMU_ABI int oz_emu_cublasLtMatmul(oz_cublaslt_handle h, oz_cublaslt_matmul_desc d,
                                     const void *alpha, const void *A, oz_cublaslt_layout la,
                                     const void *B, oz_cublaslt_layout lb, const void *beta,
                                     const void *C, oz_cublaslt_layout lc, void *D,
                                     oz_cublaslt_layout ld, const void *algo, void *ws,
                                     size_t ws_size, cudaStream_t st)
{
    if (!h)
        return 1; /* CUBLAS_STATUS_NOT_INITIALIZED */
    const oz_cublas_status s =
        lt_matmul(h, d, alpha, A, la, B, lb, beta, C, lc, D, ld, algo, ws, ws_size, st);
    if (!s)
        cudaStreamSynchronize(st);
    return s;
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
