/* Constants of the exact products (exact.h): the moduli, the largest primes below 2^22, and
 * the CRT weights per moduli count, computed once each (thread-safe cache). */
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

static void table_init(ozx_table *T, int n)
{
    memset(T, 0, sizeof *T);
    T->n = n;
    T->M[0] = 1;
    for (int t = 0; t < n; t++) {
        uint32_t m = (uint32_t)ozx_modulus(t);
        T->m[t] = m;
        T->inv[t] = 1.0 / m;
        oz_limbs_mul_small(T->M, OZX_LIMBS, m);
    }
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
    /* sum_t u_t w_t < n 2^22 M < 2^(bits + 28), plus a sign bit */
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
static ozx_table *tables[OZX_MAX_MODULI + 1];

const ozx_table *ozx_table_get(int n)
{
    if (n < 1 || n > OZX_MAX_MODULI)
        return NULL;
    pthread_mutex_lock(&lock);
    if (!tables[n]) {
        ozx_table *T = malloc(sizeof *T);
        if (T) {
            table_init(T, n);
            tables[n] = T;
        }
    }
    const ozx_table *r = tables[n];
    pthread_mutex_unlock(&lock);
    return r;
}
