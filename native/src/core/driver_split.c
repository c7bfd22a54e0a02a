/* Splitting a call by exponent band (issue 14). Where automatic precision finds no count for
 * the whole call, up to the maximum or method auto's cap (oz_policy_max_count): rows of
 * op(A) and columns of op(B) whose small elements matter spanning more binades than the
 * largest count's bits cover, e.g. the inner dimension scaled by 2^+-60. Then op(A) =
 * sum_p A_p and op(B) = sum_q B_q, every element (a complex element's real and imaginary
 * parts each on their own, issue 24) in exactly one part by its offset d = E - e below its
 * row's (column's) largest exponent E: band [d0, d1). Each pair whose inner
 * supports meet is its own product of the scheme on the same executor (through its driver:
 * its own scaling and automatic count, no further split); a pair that still finds no count
 * is bisected along its wider band. Method auto keeps the split only while the parts'
 * predicted times summed stay below native's (oz_policy_part_seconds). The parts are summed
 * in double-double in one fixed order and rounded once, then alpha and beta are applied as
 * the executors apply them (oz_update_element), so every executor gives the same bits.
 *
 * The bound (entrywise, |.| of the scheme's kind, c = 1 real, 2 complex, u = 2^-53, in the
 * normal range as the unsplit bound). N pairs computed, B the largest pair's stated bound,
 * which covers its truncation and one rounding: |C~_pq - A_p B_q| <= r (|A_p||B_q|) with
 * r + c u (1 + r) <= B. The supports are disjoint, so sum_pq |A_p||B_q| = |A||B|.
 *  - Ozaki II hands C~_pq unrounded as hi + lo (oz2_crt_dd): |hi + lo - C~_pq| <= u^2 |C~_pq|,
 *    |lo| <= u |hi|. Ozaki I hands its rounded result as hi, lo = 0, within B (|A_p||B_q|).
 *  - H = c (1 + B)(1 + 2u) |A||B| bounds sum |hi|. The hi's are summed by TwoSum into s,
 *    exactly: s + sum e = sum hi, each |e| <= u (1 + u)^N sum |hi|; t sums the N lo's and
 *    N - 1 e's in plain double: |t - sum (lo + e)| <= g (N + 1) u H, g = gamma_{2N} =
 *    2N u / (1 - 2N u), the (1 + u)^N left to the final margin.
 *  - The result RN(s + t) rounds once: u |s + t| <= c u (1 + r) |A||B| + u e_dd.
 * So |RN(s + t) - AB| <= (r + c u (1 + r) + e_dd (1 + u)) |A||B| for Ozaki II, with
 * e_dd = c u^2 (1 + B) + g (N + 1) u (1 + B) c (1 + 2u), and for Ozaki I (B + c u (1 + B) +
 * e_dd (1 + u)) |A||B| (its parts rounded once more). The stated bound adds 2^-40 relative
 * for its own rounding and the (1 + u)^N, as oz2_report_bound adds it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "phase_kernels.h"

/* Band width per side: a band of W binades needs about W + 54 of the half of the count's
 * bits each side gets; of 32, 48, 64, 80, 96 and 112, 64 took the fewest INT8 products in
 * all over tests/core/test_split.py's families (docs/accuracy.md, "Splitting by exponent band"). */
#define SPLIT_BAND 64

typedef struct {
    const oz_executor *ex;
    int method, cx, w;
    const oz_gemm_call *c;
    ozblas_options opt;
    int64_t m, n, k;
    double *a, *b;      /* op(A) m x k and op(B) k x n, column-major, conjugates applied */
    short *da, *db;     /* each element's offset below its row's (column's) top, -1 for 0 */
    double *pa, *pb;    /* the parts being computed */
    unsigned char *sa;  /* the inner indices a part of op(A) holds */
    double *part;       /* one pair's product (Ozaki II: hi, lo pairs) */
    double *s, *t;      /* the double-double sum */
    double seconds;     /* method auto: the parts' predicted time so far */
    int pairs, count;   /* pairs computed, the largest count */
    double bound;       /* the largest pair's bound */
    ozblas_report acc;  /* products, passes, bits, phase times and devices of the pairs */
} split;


/* op(X) of r x q into out, column-major; X is r x q ('N') or q x r stored. */
static void gather(const double *X, int64_t ld, char trans, int cx, int64_t r, int64_t q,
                   double *out)
{
    const int w = cx ? 2 : 1;
    for (int64_t j = 0; j < q; j++)
        for (int64_t i = 0; i < r; i++) {
            const double *x = X + w * (trans == 'N' ? i + j * ld : j + i * ld);
            double *o = out + w * (i + j * r);
            o[0] = x[0];
            if (cx)
                o[1] = trans == 'C' ? -x[1] : x[1];
        }
}

static int is_zero(const double *x, int cx) { return x[0] == 0.0 && (!cx || x[1] == 0.0); }

/* Offsets below the top of each row (rows 1: op(A), r x q) or column (op(B)) of op(X), X
 * stored as for gather, into d (NULL: none; one per double: a complex element's real and
 * imaginary parts each have their own); returns the largest. The parts are banded apart
 * because an element's parts may lie any distance apart: a band of whole elements would
 * keep a part 1000 binades below its partner in the partner's band, where the row's
 * exponent span (automatic precision's bound where the lower bound of |A||B| is 0) stays
 * 1000 binades wide and no count can serve it. */
static int offsets(const double *X, int64_t ld, char trans, int cx, int64_t r, int64_t q,
                   int rows, short *d)
{
    const int w = cx ? 2 : 1;
    const int64_t lines = rows ? r : q, len = rows ? q : r;
    int span = 0;
    for (int64_t a = 0; a < lines; a++) {
        int top = INT32_MIN;
        for (int pass = 0; pass < 2; pass++)
            for (int64_t l = 0; l < len; l++)
                for (int p = 0; p < w; p++) {
                    const int64_t i = rows ? a : l, j = rows ? l : a;
                    const double x = X[w * (trans == 'N' ? i + j * ld : j + i * ld) + p];
                    const int e = x == 0.0 ? INT32_MIN : ilogb(x);
                    if (!pass) {
                        top = e > top ? e : top;
                        continue;
                    }
                    const int off = e == INT32_MIN ? -1 : top - e;
                    if (d)
                        d[w * (i + j * r) + p] = (short)off;
                    span = off > span ? off : span;
                }
    }
    return span;
}

/* The part of x (count elements, w doubles each) in band [d0, d1); returns 1 when it holds
 * any. */
static int take(const double *x, const short *d, int cx, int64_t count, int d0, int d1,
                double *out)
{
    int any = 0;
    for (int64_t v = 0; v < (cx ? 2 : 1) * count; v++) {
        const int in = d[v] >= d0 && d[v] < d1;
        out[v] = in ? x[v] : 0.0;
        any |= in;
    }
    return any;
}

/* Adds one pair's product into (s, t): TwoSum of the hi's, the lo's and their errors. */
static void accumulate(split *S)
{
    const int64_t vals = S->m * S->n * S->w;
    const int dd = S->method == OZBLAS_METHOD_OZAKI2;
    for (int64_t v = 0; v < vals; v++) {
        const double hi = dd ? S->part[2 * v] : S->part[v], lo = dd ? S->part[2 * v + 1] : 0.0;
        const double a = S->s[v], x = a + hi, z = x - a;
        const double e = (a - (x - z)) + (hi - z);
        S->s[v] = x;
        S->t[v] = (S->t[v] + e) + lo;
    }
}

/* Bands [a0, a1) of op(A) and [b0, b1) of op(B): their product, bisected while it finds
 * no count. Returns the status; *fb: a fallback that ends the split (0: none). */
static ozblas_status pair(split *S, int a0, int a1, int b0, int b1, int *fb)
{
    const int w = S->w;
    const int64_t m = S->m, n = S->n, k = S->k;
    if (!take(S->a, S->da, S->cx, m * k, a0, a1, S->pa) ||
        !take(S->b, S->db, S->cx, k * n, b0, b1, S->pb))
        return OZBLAS_OK;
    memset(S->sa, 0, (size_t)k);
    for (int64_t l = 0; l < k; l++)
        for (int64_t i = 0; i < m && !S->sa[l]; i++)
            S->sa[l] = !is_zero(S->pa + w * (i + l * m), S->cx);
    int meet = 0;
    for (int64_t j = 0; j < n && !meet; j++)
        for (int64_t l = 0; l < k && !meet; l++)
            meet = S->sa[l] && !is_zero(S->pb + w * (l + j * k), S->cx);
    if (!meet)
        return OZBLAS_OK; /* no inner index in common: an exact zero product */
    const int dd = S->method == OZBLAS_METHOD_OZAKI2;
    oz_gemm_call pc = {S->cx, 'N', 'N', m, n, k, {1.0, 0.0}, {0.0, 0.0}, 1, S->pa, m,
                       S->pb, k, S->part, m, S->c->max_count, S->c->plan, 1, dd};
    ozblas_report r;
    memset(&r, 0, sizeof r);
    r.bound = -1.0;
    ozblas_status st = S->method == OZBLAS_METHOD_OZAKI2 ? oz_ozaki2(S->ex, &pc, &S->opt, &r)
                                                         : oz_ozaki1(S->ex, &pc, &S->opt, &r);
    if (st != OZBLAS_OK)
        return st;
    const int none = r.fallback == OZBLAS_FALLBACK_ACCURACY ||
                     r.fallback == OZBLAS_FALLBACK_AUTO_NATIVE; /* no count (up to auto's cap) */
    if (none && (a1 - a0 > 1 || b1 - b0 > 1)) {
        if (a1 - a0 >= b1 - b0) {
            const int h = a0 + (a1 - a0) / 2;
            st = pair(S, a0, h, b0, b1, fb);
            return st != OZBLAS_OK || *fb ? st : pair(S, h, a1, b0, b1, fb);
        }
        const int h = b0 + (b1 - b0) / 2;
        st = pair(S, a0, a1, b0, h, fb);
        return st != OZBLAS_OK || *fb ? st : pair(S, a0, a1, h, b1, fb);
    }
    if (r.fallback != OZBLAS_FALLBACK_NONE) {
        *fb = r.fallback;
        return OZBLAS_OK;
    }
    accumulate(S);
    const int cnt = dd ? r.moduli : r.slices;
    if (S->c->max_count) { /* method auto: the parts together must beat native */
        double emu, native;
        oz_policy_part_seconds(S->cx, m, n, k, &S->c->plan, cnt, &emu, &native);
        S->seconds += emu;
        if (!(S->seconds < native))
            *fb = OZBLAS_FALLBACK_AUTO_NATIVE;
    }
    S->pairs++;
    S->count = oz_max_int(S->count, cnt);
    S->bound = fmax(S->bound, r.bound);
    S->acc.int_gemms += r.int_gemms;
    S->acc.engine_products += r.engine_products;
    S->acc.fp64_passes += r.fp64_passes;
    S->acc.min_bits_a = oz_min_int(S->acc.min_bits_a, r.min_bits_a);
    S->acc.max_bits_a = oz_max_int(S->acc.max_bits_a, r.max_bits_a);
    S->acc.min_bits_b = oz_min_int(S->acc.min_bits_b, r.min_bits_b);
    S->acc.max_bits_b = oz_max_int(S->acc.max_bits_b, r.max_bits_b);
    for (int p = 0; p < OZBLAS_PHASE_COUNT; p++)
        S->acc.phase_seconds[p] += r.phase_seconds[p];
    S->acc.devices_used |= r.devices_used; /* several: a device list's tiles */
    return OZBLAS_OK;
}

/* The bound of the file's comment. */
static double split_bound(int method, int cx, int pairs, double B)
{
    const double u = 0x1p-53, c = cx ? 2.0 : 1.0, N = pairs;
    const double g = 2.0 * N * u / (1.0 - 2.0 * N * u);
    const double e_dd = c * u * u * (1.0 + B) + g * (N + 1.0) * u * (1.0 + B) * c * (1.0 + 2.0 * u);
    const double rounded = method == OZBLAS_METHOD_OZAKI2 ? 0.0 : c * u * (1.0 + B);
    return (B + rounded + e_dd * (1.0 + u)) * (1.0 + 0x1p-40);
}

/* A matrix (rows x cols, leading dimension ld) in host or dev's memory as a packed host
 * copy (copy 0: the buffer only); NULL when short of memory or the copy failed. */
static double *host_copy(const oz_executor *dev, const ozblas_options *opt, const double *X,
                         int64_t ld, int64_t rows, int64_t cols, int w, int copy)
{
    const size_t es = sizeof(double) * (size_t)w;
    double *H = oz_malloc(es * (size_t)(rows * cols));
    if (H && copy && dev->copy(opt, H, es * (size_t)rows, X, es * (size_t)ld,
                               es * (size_t)rows, (size_t)cols)) {
        free(H);
        H = NULL;
    }
    return H;
}

static ozblas_status split_host(const oz_executor *ex, int method, const oz_gemm_call *c,
                                const ozblas_options *opt, ozblas_report *rep);

/* Device operands: the bands are cut in host passes, so op(A), op(B) and C are brought to
 * the host once, split there (the parts then run on the executor as host operands do) and
 * C goes back once; a failed copy or short host memory leaves the call's fallback. */
ozblas_status oz_split(const oz_executor *ex, int method, const oz_gemm_call *c,
                       const ozblas_options *opt, ozblas_report *rep)
{
    if ((rep->fallback != OZBLAS_FALLBACK_ACCURACY &&
         rep->fallback != OZBLAS_FALLBACK_AUTO_NATIVE) || c->part)
        return OZBLAS_OK;
    const oz_executor *dev = oz_memory_owner(c->A);
    dev = dev ? dev : oz_memory_owner(c->B);
    dev = dev ? dev : oz_memory_owner(c->C);
    if (!dev)
        return split_host(ex, method, c, opt, rep);
    const int w = c->is_complex ? 2 : 1;
    oz_gemm_call h = *c;
    const int64_t ra = c->transa == 'N' ? c->m : c->k, ca = c->transa == 'N' ? c->k : c->m;
    const int64_t rb = c->transb == 'N' ? c->k : c->n, cb = c->transb == 'N' ? c->n : c->k;
    double *hA = host_copy(dev, opt, c->A, c->lda, ra, ca, w, 1);
    double *hB = host_copy(dev, opt, c->B, c->ldb, rb, cb, w, 1);
    double *hC = host_copy(dev, opt, c->C, c->ldc, c->m, c->n, w, !c->beta_zero);
    ozblas_status st = OZBLAS_OK;
    if (hA && hB && hC) {
        h.A = hA, h.lda = ra, h.B = hB, h.ldb = rb, h.C = hC, h.ldc = c->m;
        st = split_host(ex, method, &h, opt, rep);
        const size_t es = sizeof(double) * (size_t)w;
        if (st == OZBLAS_OK && rep->fallback == OZBLAS_FALLBACK_NONE &&
            dev->copy(opt, c->C, es * (size_t)c->ldc, hC, es * (size_t)c->m,
                      es * (size_t)c->m, (size_t)c->n))
            st = OZBLAS_ERR_DEVICE; /* C is partly written: the call cannot fall back */
    }
    free(hA);
    free(hB);
    free(hC);
    return st;
}

static ozblas_status split_host(const oz_executor *ex, int method, const oz_gemm_call *c,
                                const ozblas_options *opt, ozblas_report *rep)
{
    const int capped = rep->fallback == OZBLAS_FALLBACK_AUTO_NATIVE;
    split S;
    memset(&S, 0, sizeof S);
    S.ex = ex;
    S.method = method;
    S.c = c;
    S.opt = *opt;
    S.cx = c->is_complex;
    S.w = S.cx ? 2 : 1;
    S.m = c->m;
    S.n = c->n;
    S.k = c->k;
    S.acc.min_bits_a = S.acc.min_bits_b = INT32_MAX;
    S.acc.max_bits_a = S.acc.max_bits_b = INT32_MIN;
    const int64_t w = S.w, mk = c->m * c->k, kn = c->k * c->n, mn = c->m * c->n;
    const int pw = method == OZBLAS_METHOD_OZAKI2 ? 2 : 1;
    const int span_a = offsets(c->A, c->lda, c->transa, S.cx, c->m, c->k, 1, NULL);
    const int span_b = offsets(c->B, c->ldb, c->transb, S.cx, c->k, c->n, 0, NULL);
    if (capped && span_a < SPLIT_BAND && span_b < SPLIT_BAND)
        return OZBLAS_OK; /* one band each: the part would be the whole call, over the cap */
    ozblas_status st = OZBLAS_OK;
    S.a = oz_malloc(sizeof(double) * w * mk);
    S.b = oz_malloc(sizeof(double) * w * kn);
    S.da = oz_malloc(sizeof(short) * w * mk);
    S.db = oz_malloc(sizeof(short) * w * kn);
    if (!S.a || !S.b || !S.da || !S.db)
        goto done; /* no memory for the split: the call's fallback stands */
    gather(c->A, c->lda, c->transa, S.cx, c->m, c->k, S.a);
    gather(c->B, c->ldb, c->transb, S.cx, c->k, c->n, S.b);
    offsets(S.a, c->m, 'N', S.cx, c->m, c->k, 1, S.da);
    offsets(S.b, c->k, 'N', S.cx, c->k, c->n, 0, S.db);
    S.pa = oz_malloc(sizeof(double) * w * mk);
    S.pb = oz_malloc(sizeof(double) * w * kn);
    S.sa = oz_malloc((size_t)c->k);
    S.part = oz_malloc(sizeof(double) * pw * w * mn);
    S.s = oz_calloc((size_t)(w * mn), sizeof(double));
    S.t = oz_calloc((size_t)(w * mn), sizeof(double));
    if (!S.pa || !S.pb || !S.sa || !S.part || !S.s || !S.t)
        goto done;
    /* a side within one band stays whole; else bands of SPLIT_BAND, bisected as needed */
    const int wa = span_a < SPLIT_BAND ? span_a + 1 : SPLIT_BAND;
    const int wb = span_b < SPLIT_BAND ? span_b + 1 : SPLIT_BAND;
    int fb = 0;
    for (int a0 = 0; a0 <= span_a && st == OZBLAS_OK && !fb; a0 += wa)
        for (int b0 = 0; b0 <= span_b && st == OZBLAS_OK && !fb; b0 += wb)
            st = pair(&S, a0, a0 + wa, b0, b0 + wb, &fb);
    if (st != OZBLAS_OK || fb) { /* a part without a count: the call's fallback stands */
        if (fb == OZBLAS_FALLBACK_AUTO_NATIVE)
            rep->fallback = OZBLAS_FALLBACK_AUTO_NATIVE;
        goto done;
    }
    for (int64_t j = 0; j < c->n; j++)
        for (int64_t i = 0; i < c->m; i++) {
            const int64_t v = w * (i + j * c->m);
            const double xr = S.s[v] + S.t[v], xi = S.cx ? S.s[v + 1] + S.t[v + 1] : 0.0;
            oz_update_element(c->C + w * (i + j * c->ldc), S.cx, xr, xi, c->alpha, c->beta,
                              c->beta_zero);
        }
    rep->fallback = OZBLAS_FALLBACK_NONE;
    rep->split_parts = S.pairs;
    if (method == OZBLAS_METHOD_OZAKI2)
        rep->moduli = S.count;
    else
        rep->slices = S.count;
    rep->bound = split_bound(method, S.cx, S.pairs, S.bound);
    rep->int_gemms = S.acc.int_gemms;
    rep->engine_products = S.acc.engine_products;
    rep->fp64_passes = S.acc.fp64_passes;
    rep->min_bits_a = S.acc.min_bits_a;
    rep->max_bits_a = S.acc.max_bits_a;
    rep->min_bits_b = S.acc.min_bits_b;
    rep->max_bits_b = S.acc.max_bits_b;
    for (int p = 0; p < OZBLAS_PHASE_COUNT; p++)
        rep->phase_seconds[p] += S.acc.phase_seconds[p];
    rep->devices_used |= S.acc.devices_used;
done:
    free(S.a);
    free(S.b);
    free(S.pa);
    free(S.pb);
    free(S.da);
    free(S.db);
    free(S.sa);
    free(S.part);
    free(S.s);
    free(S.t);
    return st;
}
