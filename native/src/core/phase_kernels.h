/* The seam between the scheme drivers (core/driver_ozaki2.c, driver_ozaki1.c, driver_auto.c,
 * and exact_gemm.c for the exact products) and the executors: each executor supplies these phase kernels over its own memory (CPU:
 * host arrays and threads; CUDA: device buffers and kernels). The driver owns everything
 * that is the same on every executor: the prologue (k too large), automatic precision's walk
 * over the count, the order of the fallbacks, the term count, the report. A kernel only
 * computes, and hands the driver the per-row data its decisions need, on the host.
 *
 * Every open/probe call creates a state (*run, *probe) that the driver releases with the
 * matching close, also after a failure (close accepts a partly built state, or NULL).
 * Kernels add their phase times to report->phase_seconds (ozblas_phase), and nothing else
 * of the report. A kernel that cannot get the device memory for a call returns
 * OZ_ERR_DEVICE_MEMORY (core/oz_internal.h). */
#ifndef OZ_PHASE_KERNELS_H
#define OZ_PHASE_KERNELS_H

#include "oz_internal.h"

/* Per side (the rows of op(A), the columns of op(B)), on the host. A kernel fills the
 * arrays its phase computes and leaves the others NULL. */
typedef struct {
    int64_t n;       /* m or n */
    const int *E;    /* exponent of the largest |x| (0 for a zero row) */
    const int *emin; /* smallest exponent of a nonzero element, INT_MAX for none */
    const int *bits; /* Ozaki II: the bits kept (alpha_i, beta_j) */
    const int *top;  /* Ozaki I: ilogb(max |x|), INT_MIN for a zero row */
    const int *e;    /* Ozaki I: the s weight exponents of row q at e[q * s] */
} oz_side;

struct oz_kernels {
    /* ---- automatic precision's probe (both schemes; numerics/ozaki2.h) ----
     * probe_open: statistics, fixed-point 1-norms and the lower-bound levels' products of
     * the whole call, and (bound_product) accurate scaling's bound product; *bad on Inf/NaN
     * (nothing else is then valid); *products: the lower-bound products it issued (the
     * bound product is the call's: o2_open takes over the bits the probe set last). */
    ozblas_status (*probe_open)(const oz_gemm_call *c, const ozblas_options *opt,
                                int bound_product, void **probe, int *bad, int *products);
    /* Ozaki II: the bits for table T (fast, or accurate from the bound product). */
    ozblas_status (*probe_bits)(void *probe, const oz2_table *T);
    /* The largest bound ratio over C: Ozaki II for the bits set last (beta 0), or Ozaki I
     * with count slices of width beta. */
    ozblas_status (*probe_ratio)(void *probe, int beta, int count, double *ratio);
    /* E, emin and (after probe_bits) bits of each side. */
    void (*probe_sides)(void *probe, oz_side *a, oz_side *b);
    void (*probe_close)(void *probe);

    /* ---- Ozaki II with table T ----
     * o2_open: phase 0 (statistics, accurate scaling's bound, the bits) over the whole call;
     * *bad on Inf/NaN; a and b get E, emin and bits. probe: the open probe that chose T
     * (NULL: none), whose state the kernel may take over (the driver closes it after). */
    ozblas_status (*o2_open)(const oz_gemm_call *c, const ozblas_options *opt,
                             const oz2_table *T, void *probe, void **run, int *bad, oz_side *a,
                             oz_side *b, ozblas_report *rep);
    /* Phases 1 to 4: residues, products, reduction, CRT and the update of C. */
    ozblas_status (*o2_products)(void *run, ozblas_report *rep);
    void (*o2_close)(void *run);

    /* ---- Ozaki I with s slices of width beta (NULL: not implemented by this executor) ----
     * o1_open: phase 1 (slices of every row and column, numerics/ozaki1.h); *bad on
     * Inf/NaN, *lost when a nonzero element has all its slices zero; a and b get top and e. */
    ozblas_status (*o1_open)(const oz_gemm_call *c, const ozblas_options *opt, int s, int beta,
                             void **run, int *bad, int *lost, oz_side *a, oz_side *b,
                             ozblas_report *rep);
    /* Phases 2 to 4 with terms FP64 terms of at most chunk pairs (oz1_terms). */
    ozblas_status (*o1_products)(void *run, int chunk, int terms, ozblas_report *rep);
    void (*o1_close)(void *run);

    /* The product engines (bit 1 << ozblas_engine) o2_products and o1_products implement;
     * the drivers refuse any other with OZBLAS_FALLBACK_ENGINE. */
    unsigned engines;
};

/* Ozaki II over a batch of products of one shape and table T (oz_executor.batch; the
 * driver is core/driver_batch.c). Each product's statistics and bits are the ones o2_open
 * computes for it alone; the executor may share launches and issue the integer products of
 * every matrix together. */
struct oz_batch_kernels {
    /* Phase 0 of calls[0..*taken-1]: the first of the nb calls that fit the device memory
     * as one batch, untiled (at least one; OZ_ERR_DEVICE_MEMORY when not even one does).
     * bits_a[i], bits_b[i] (host arrays, as automatic precision's probe set them for T) are
     * taken as they are where bits_a is not NULL; otherwise the bits are computed as o2_open
     * does. bad[i], a[i], b[i]: o2_open's *bad, a and b for call i (valid until close). */
    ozblas_status (*open)(const oz_gemm_call *const *calls, int64_t nb,
                          const ozblas_options *opt, const oz2_table *T,
                          const int *const *bits_a, const int *const *bits_b, void **run,
                          int64_t *taken, int *bad, oz_side *a, oz_side *b);
    /* Phases 1 to 4 of the products with skip[i] 0 (the C of the others untouched); the
     * phase times of the whole batch into rep. */
    ozblas_status (*products)(void *run, const unsigned char *skip, ozblas_report *rep);
    void (*close)(void *run);
    unsigned engines; /* the product engines (bit 1 << ozblas_engine) batches run on */
};

/* Exact products (numerics/exact.h: accuracy "correct" and the double-double products; the
 * driver is core/exact_gemm.c, which owns the steps' order, the moduli count, the k-blocks,
 * the planes per modulus and the report). Per side, on the host: step 1's bits and whether
 * each row of op(A) (column of op(B)) is direct; the driver marks more of them direct (too
 * wide for the count) before exact_integers reads dir. */
typedef struct {
    int64_t n;    /* m or n */
    const int *top; /* |A'_il| < 2^top_i (ozx_outer_stats) */
    char *dir;      /* Inf/NaN, later also too wide: the entries by exact dot products */
} oz_xside;

struct ozx_table;
struct ozx_update;

struct oz_exact_kernels {
    /* The integer engine: its moduli (table(n): the cached table of the first n, n up to
     * max_moduli), its complex family (table_cx, up to max_moduli_cx: two products per
     * modulus; NULL: Karatsuba only) and the k-block its products stay exact in. */
    const struct ozx_table *(*table)(int n);
    int max_moduli;
    const struct ozx_table *(*table_cx)(int n);
    int max_moduli_cx;
    int64_t kblock;
    /* Step 1 over the whole call (lo, ldlo: the double-double's low parts; NULL for accuracy
     * "correct"); a and b get top and dir, valid until close. */
    ozblas_status (*open)(const oz_gemm_call *c, const ozblas_options *opt, double *lo,
                          int64_t ldlo, void **run, oz_xside *a, oz_xside *b,
                          ozblas_report *rep);
    /* Step 3's set-up for table T (NULL: count 0, no entry by the CRT) and dir as the driver
     * left it: the integers of every other row and column; pow2[t pw + e] = 2^e mod m_t
     * (symmetric) for e < pw, owned by the driver until close. */
    ozblas_status (*integers)(void *run, const struct ozx_table *T, const double *pow2, int pw,
                              ozblas_report *rep);
    /* Step 3 for modulus t: both sides' residue planes (1; complex 3: re, im, re + im; on a
     * complex family, T->cx2, 2: A+ and A-). */
    ozblas_status (*residues)(void *run, int t, ozblas_report *rep);
    /* Step 4: plane p's integer product over the k-block [l0, l0 + kl), kl <= kblock. */
    ozblas_status (*product)(void *run, int p, int64_t l0, int64_t kl, ozblas_report *rep);
    /* The k-block's products (every plane) reduced modulo m_t into the residues of C,
     * added to the earlier k-blocks' unless first (ozx_reduce). */
    ozblas_status (*reduce)(void *run, int t, int first, ozblas_report *rep);
    /* Steps 5 to 7 and the update: each entry by the CRT, or where its row or column is
     * direct (any: some is) by its exact dot product, rounded once and stored by up. */
    ozblas_status (*finish)(void *run, const struct ozx_update *up, int any_direct,
                            ozblas_report *rep);
    void (*close)(void *run);
};

/* An executor's kernels are named P##probe_open ... P##o1_close: declared by
 * OZ_DECLARE_KERNELS(P), collected in struct oz_kernels order by OZ_KERNEL_TABLE(P, engines). */
#define OZ_DECLARE_KERNELS(P)                                                                    \
    ozblas_status P##probe_open(const oz_gemm_call *c, const ozblas_options *opt,               \
                                int bound_product, void **probe, int *bad, int *products);      \
    ozblas_status P##probe_bits(void *probe, const oz2_table *T);                               \
    ozblas_status P##probe_ratio(void *probe, int beta, int count, double *ratio);              \
    void P##probe_sides(void *probe, oz_side *a, oz_side *b);                                   \
    void P##probe_close(void *probe);                                                           \
    ozblas_status P##o2_open(const oz_gemm_call *c, const ozblas_options *opt,                  \
                             const oz2_table *T, void *probe, void **run, int *bad, oz_side *a, \
                             oz_side *b, ozblas_report *rep);                                   \
    ozblas_status P##o2_products(void *run, ozblas_report *rep);                                \
    void P##o2_close(void *run);                                                                \
    ozblas_status P##o1_open(const oz_gemm_call *c, const ozblas_options *opt, int s, int beta, \
                             void **run, int *bad, int *lost, oz_side *a, oz_side *b,           \
                             ozblas_report *rep);                                               \
    ozblas_status P##o1_products(void *run, int chunk, int terms, ozblas_report *rep);          \
    void P##o1_close(void *run)
#define OZ_KERNEL_TABLE(P, engines)                                                              \
    {P##probe_open, P##probe_bits, P##probe_ratio, P##probe_sides, P##probe_close, P##o2_open,  \
     P##o2_products, P##o2_close, P##o1_open, P##o1_products, P##o1_close, engines}

/* core/driver_auto.c, for the drivers. */

/* Automatic precision: the fewest count in [2, hi] whose bound is DGEMM-level, walked from
 * hint (oz_auto_count); beta 0 for Ozaki II moduli, else Ozaki I's slice width. Opens the
 * probe (*probe, closed by the caller). *count 0: none meets (rep->fallback says why:
 * NONFINITE, EXPONENT_RANGE or ACCURACY). *ratio: the bound ratio of the last count tried.
 * *products: the probe's integer products. */
ozblas_status oz_auto_choose(const oz_kernels *K, const oz_gemm_call *c,
                             const ozblas_options *opt, int beta, void **probe, int *count,
                             double *ratio, int *products, ozblas_report *rep);
/* Ozaki II: some nonzero element of a side would be lost entirely by its bits. */
int oz_side_loses(const oz_side *s);
/* The report's bits per row/column: Ozaki II from bits, Ozaki I (s slices) from top and e. */
void oz_report_bits(const oz_side *a, const oz_side *b, int s, ozblas_report *rep);
/* Wall-clock seconds (monotonic). */
double oz_now(void);

#endif
