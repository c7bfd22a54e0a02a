/* Constants of the exact products (exact.h): the moduli (the largest primes below 2^22 for
 * the FP64 engine, odd coprime numbers below 256 for the INT8 engine, and each engine's
 * complex family) and the CRT weights per moduli count, computed once each (thread-safe
 * cache); the count (step 2). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "exact.h"

static pthread_once_t moduli_once = PTHREAD_ONCE_INIT;
static uint32_t moduli[OZX_MAX_MODULI];

static int is_prime(uint32_t v)
{
    if (v % 2 == 0)
        return v == 2;
    for (uint32_t d = 3; d * d <= v; d += 2)
        if (v % d == 0)
            return 0;
    return 1;
}

static void moduli_init(void)
{
    int t = 0;
    for (uint32_t v = (uint32_t)OZX_MODULUS_LIMIT - 1; t < OZX_MAX_MODULI; v -= 2)
        if (is_prime(v))
            moduli[t++] = v;
}

int ozx_modulus(int t)
{
    pthread_once(&moduli_once, moduli_init);
    return (t >= 0 && t < OZX_MAX_MODULI) ? (int)moduli[t] : 0;
}

static pthread_once_t i8_once = PTHREAD_ONCE_INIT;
static uint32_t moduli_i8[OZX_I8_MAX_MODULI];

static uint32_t gcd32(uint32_t a, uint32_t b)
{
    while (b) {
        uint32_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* -1 is a square modulo v (odd): every prime factor of v is 1 (mod 4). */
static int has_sqrt_minus_one(uint32_t v)
{
    for (uint32_t p = 3; p * p <= v; p += 2)
        if (v % p == 0) {
            if (p % 4 != 1)
                return 0;
            while (v % p == 0)
                v /= p;
        }
    return v == 1 || v % 4 == 1;
}

/* The INT8 families: odd numbers below 256 (with a square root of -1: cx) taken from 255 down
 * while coprime to those taken, count of them into out. */
static void i8_family(uint32_t *out, int count, int cx)
{
    int t = 0;
    for (uint32_t v = 255; t < count && v > 2; v -= 2) {
        int ok = !cx || has_sqrt_minus_one(v);
        for (int u = 0; u < t && ok; u++)
            ok = gcd32(v, out[u]) == 1;
        if (ok)
            out[t++] = v;
    }
}

static void i8_init(void) { i8_family(moduli_i8, OZX_I8_MAX_MODULI, 0); }

int ozx_modulus_i8(int t)
{
    pthread_once(&i8_once, i8_init);
    return (t >= 0 && t < OZX_I8_MAX_MODULI) ? (int)moduli_i8[t] : 0;
}

static pthread_once_t cx_once = PTHREAD_ONCE_INIT;
static uint32_t moduli_cx[OZX_CX_MAX_MODULI], moduli_i8_cx[OZX_I8_CX_MAX_MODULI];

static void cx_init(void)
{
    int t = 0;
    for (uint32_t v = (uint32_t)OZX_MODULUS_LIMIT - 3; t < OZX_CX_MAX_MODULI; v -= 4)
        if (is_prime(v)) /* v = 1 (mod 4) throughout */
            moduli_cx[t++] = v;
    i8_family(moduli_i8_cx, OZX_I8_CX_MAX_MODULI, 1);
}

int ozx_modulus_cx(int t)
{
    pthread_once(&cx_once, cx_init);
    return (t >= 0 && t < OZX_CX_MAX_MODULI) ? (int)moduli_cx[t] : 0;
}

int ozx_modulus_i8_cx(int t)
{
    pthread_once(&cx_once, cx_init);
    return (t >= 0 && t < OZX_I8_CX_MAX_MODULI) ? (int)moduli_i8_cx[t] : 0;
}

/* a^-1 mod m for gcd(a, m) = 1 (extended Euclid) */
static uint32_t inverse_mod(uint32_t a, uint32_t m)
{
    int64_t t = 0, nt = 1, r = m, nr = a;
    while (nr) {
        int64_t q = r / nr, tmp;
        tmp = t - q * nt;
        t = nt;
        nt = tmp;
        tmp = r - q * nr;
        r = nr;
        nr = tmp;
    }
    return (uint32_t)(t < 0 ? t + m : t);
}

static uint32_t pow_mod(uint64_t b, uint32_t e, uint32_t m)
{
    uint64_t r = 1;
    for (b %= m; e; e >>= 1, b = b * b % m) /* below 2^44: m < 2^22 */
        if (e & 1)
            r = r * b % m;
    return (uint32_t)r;
}

static double sym(uint32_t v, uint32_t m)
{
    return 2 * (v % m) > m ? (double)(v % m) - m : (double)(v % m);
}

/* i with i^2 = -1 (mod m): a search below 2^16 (the INT8 family's composite moduli); for a
 * prime m = 1 (mod 4), c^((m-1)/4) with c a non-residue (Euler: c^((m-1)/2) = -1). */
static uint32_t sqrt_minus_one(uint32_t m)
{
    if (m < 65536) {
        uint32_t i = 1;
        while ((i * i + 1) % m)
            i++;
        return i;
    }
    uint32_t c = 2;
    while (pow_mod(c, (m - 1) / 2, m) != m - 1)
        c++;
    return pow_mod(c, (m - 1) / 4, m);
}

static void table_init(ozx_table *T, int n, int (*modulus)(int), int cx2)
{
    memset(T, 0, sizeof *T);
    T->n = n;
    T->M[0] = 1;
    for (int t = 0; t < n; t++) {
        uint32_t m = (uint32_t)modulus(t);
        T->m[t] = m;
        T->inv[t] = 1.0 / m;
        oz_limbs_mul_small(T->M, OZX_LIMBS, m);
        if (cx2) {
            const uint32_t i = sqrt_minus_one(m);
            T->ip[t] = sym(i, m);
            T->inv2[t] = sym(inverse_mod(2, m), m);
            T->inv2ip[t] = sym(inverse_mod((uint32_t)(2ull * i % m), m), m);
        }
    }
    T->cx2 = cx2;
    for (int t = 0; t < n; t++) {
        uint32_t m = (uint32_t)T->m[t];
        uint32_t Mt[OZX_LIMBS], tmp[OZX_LIMBS];
        memcpy(Mt, T->M, sizeof Mt);
        oz_limbs_div_small(Mt, OZX_LIMBS, m);
        memcpy(tmp, Mt, sizeof tmp);
        uint32_t y = inverse_mod(oz_limbs_div_small(tmp, OZX_LIMBS, m), m);
        oz_limbs_mul_small(Mt, OZX_LIMBS, y); /* (M/m_t) y_t < M */
        memcpy(T->w[t], Mt, sizeof Mt);
    }
    memcpy(T->half, T->M, sizeof T->half);
    oz_limbs_div_small(T->half, OZX_LIMBS, 2);
    int bits = ozx_limbs_msb(T->M, OZX_LIMBS) + 1;
    T->budget = bits - 2;
    /* sum_t u_t w_t < n 2^22 M < 2^(bits + 28), plus a sign bit (either family) */
    T->limbs = (bits + 29 + 31) / 32;
    T->Mshift = 32 * ((bits - 1) / 32);
    double d = 0.0;
    for (int i = T->limbs - 1; i >= 0; i--) { /* M and the CRT sums fit in T->limbs */
        T->scale[i] = ldexp(1.0, 32 * i - T->Mshift);
        d += (double)T->M[i] * T->scale[i];
    }
    T->Md = d;
}

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static ozx_table *tables[OZX_MAX_MODULI + 1], *tables_i8[OZX_I8_MAX_MODULI + 1];
static ozx_table *tables_cx[OZX_CX_MAX_MODULI + 1], *tables_i8_cx[OZX_I8_CX_MAX_MODULI + 1];

static const ozx_table *table_get(ozx_table **cache, int n, int maxn, int (*modulus)(int),
                                  int cx2)
{
    if (n < 1 || n > maxn)
        return NULL;
    pthread_mutex_lock(&lock);
    if (!cache[n]) {
        ozx_table *T = malloc(sizeof *T);
        if (T) {
            table_init(T, n, modulus, cx2);
            cache[n] = T;
        }
    }
    const ozx_table *r = cache[n];
    pthread_mutex_unlock(&lock);
    return r;
}

const ozx_table *ozx_table_get(int n)
{
    return table_get(tables, n, OZX_MAX_MODULI, ozx_modulus, 0);
}

const ozx_table *ozx_table_get_i8(int n)
{
    return table_get(tables_i8, n, OZX_I8_MAX_MODULI, ozx_modulus_i8, 0);
}

const ozx_table *ozx_table_get_cx(int n)
{
    return table_get(tables_cx, n, OZX_CX_MAX_MODULI, ozx_modulus_cx, 1);
}

const ozx_table *ozx_table_get_i8_cx(int n)
{
    return table_get(tables_i8_cx, n, OZX_I8_CX_MAX_MODULI, ozx_modulus_i8_cx, 1);
}

static int max_top(const int *top, const char *dir, int64_t n)
{
    int t = 0;
    for (int64_t o = 0; o < n; o++)
        if (!dir[o] && top[o] > t)
            t = top[o];
    return t;
}

static void mark_wide(const int *top, char *dir, int64_t n, int cap)
{
    for (int64_t o = 0; o < n; o++)
        if (top[o] > cap)
            dir[o] = 1;
}

/* The count: ceil(log2(c k)) + top_i + top_j <= budget for every entry left to the CRT;
 * where the largest count cannot hold the widest row and column, the budget is shared (the
 * narrower side keeps all it needs) and the rows or columns beyond their share go direct. */
int ozx_choose_count(const ozx_table *(*get)(int), int maxn, int64_t k, int cx,
                     const int *top_a, char *dir_a, int64_t m, const int *top_b, char *dir_b,
                     int64_t n, int *ta_out, int *tb_out)
{
    const int clog = ozx_ceil_log2((cx ? 2 : 1) * k);
    const int big = get(maxn)->budget - clog;
    int ta = max_top(top_a, dir_a, m), tb = max_top(top_b, dir_b, n);
    if (ta + tb > big) {
        int cap_a = big / 2, cap_b = big - big / 2;
        if (tb <= cap_b)
            cap_a = big - tb;
        else if (ta <= cap_a)
            cap_b = big - ta;
        mark_wide(top_a, dir_a, m, cap_a);
        mark_wide(top_b, dir_b, n, cap_b);
        ta = max_top(top_a, dir_a, m);
        tb = max_top(top_b, dir_b, n);
    }
    int N = 0;
    if (ta > 0 && tb > 0)
        for (N = 1; get(N)->budget < clog + ta + tb; N++)
            ;
    *ta_out = ta;
    *tb_out = tb;
    return N;
}
