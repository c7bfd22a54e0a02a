/* libcublasLt_emu.so: the stand-in cuBLASLt (cublaslt_emu.cpp) under cuBLASLt's own names,
 * for a program that calls cuBLASLt and for the preload shim's cublasLtMatmul to find as the
 * real one (a symbol of an ozblas library never is). Each name forwards to the harness's
 * libozblas.so, whose emulated CUDA runtime it shares. */
#include <stddef.h>
#include <stdint.h>

#define FORWARD(name, params, args)                                                          \
    int oz_emu_##name params;                                                                \
    __attribute__((visibility("default"))) int name params { return oz_emu_##name args; }

FORWARD(cublasLtCreate, (void **h), (h))
FORWARD(cublasLtDestroy, (void *h), (h))
FORWARD(cublasLtMatmulDescCreate, (void **d, int compute, int scale_type), (d, compute, scale_type))
FORWARD(cublasLtMatmulDescDestroy, (void *d), (d))
FORWARD(cublasLtMatmulDescSetAttribute, (void *d, int attr, const void *buf, size_t size),
        (d, attr, buf, size))
FORWARD(cublasLtMatmulDescGetAttribute,
        (void *d, int attr, void *buf, size_t size, size_t *written), (d, attr, buf, size, written))
FORWARD(cublasLtMatrixLayoutCreate, (void **l, int type, uint64_t rows, uint64_t cols, int64_t ld),
        (l, type, rows, cols, ld))
FORWARD(cublasLtMatrixLayoutDestroy, (void *l), (l))
FORWARD(cublasLtMatrixLayoutSetAttribute, (void *l, int attr, const void *buf, size_t size),
        (l, attr, buf, size))
FORWARD(cublasLtMatrixLayoutGetAttribute,
        (void *l, int attr, void *buf, size_t size, size_t *written), (l, attr, buf, size, written))
FORWARD(cublasLtMatmul,
        (void *h, void *d, const void *alpha, const void *A, void *la, const void *B, void *lb,
         const void *beta, const void *C, void *lc, void *D, void *ld, const void *algo, void *ws,
         size_t ws_size, void *stream),
        (h, d, alpha, A, la, B, lb, beta, C, lc, D, ld, algo, ws, ws_size, stream))
