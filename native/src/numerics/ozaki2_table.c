/* Ozaki II constants: the moduli and the CRT weights, computed once per moduli count. */
#include <pthread.h>
#include <string.h>

#include "ozaki2.h"

/* GEMMul8's INT8 moduli, in order: pairwise coprime, symmetric residues fit INT8. */
static const int oz2_moduli[OZ2_MAX_MODULI] = {256, 255, 253, 251, 247, 241, 239, 233, 229, 227,
                                               223, 217, 211, 199, 197, 193, 191, 181, 179, 173};

int oz2_modulus(int t) { return (t >= 0 && t < OZ2_MAX_MODULI) ? oz2_moduli[t] : 0; }

static int limbs_bitlen(const uint32_t *x)
{
    for (int i = OZ2_LIMBS - 1; i >= 0; i--)
        if (x[i])
            return 32 * i + oz_bitlen64(x[i]);
    return 0;
}

static void oz2_table_init(oz2_table *T, int n)
{
    memset(T, 0, sizeof *T);
    T->n = n;
    T->M[0] = 1;
    for (int t = 0; t < n; t++) {
        T->m[t] = oz2_moduli[t];
        T->inv[t] = 1.0 / oz2_moduli[t];
        oz_limbs_mul_small(T->M, OZ2_LIMBS, (uint32_t)oz2_moduli[t]);
    }
    for (int t = 0; t < n; t++) {
        uint32_t Mt[OZ2_LIMBS];
        memcpy(Mt, T->M, sizeof Mt);
        oz_limbs_div_small(Mt, OZ2_LIMBS, (uint32_t)oz2_moduli[t]);
        uint32_t tmp[OZ2_LIMBS];
        memcpy(tmp, Mt, sizeof tmp);
        uint32_t mt_mod = oz_limbs_div_small(tmp, OZ2_LIMBS, (uint32_t)oz2_moduli[t]);
        uint32_t y = 0;
        for (uint32_t c = 1; c < (uint32_t)oz2_moduli[t]; c++)
            if ((mt_mod * c) % (uint32_t)oz2_moduli[t] == 1) {
                y = c;
                break;
            }
        oz_limbs_mul_small(Mt, OZ2_LIMBS, y); /* (M/m_t) y_t < M */
        memcpy(T->w[t], Mt, sizeof Mt);
    }
    memcpy(T->half, T->M, sizeof T->half);
    oz_limbs_div_small(T->half, OZ2_LIMBS, 2);
    T->budget = limbs_bitlen(T->M) - 2;
    /* 20 * 256 * M < 2^(bitlen(M) + 13), plus a sign bit; at least 2 limbs */
    T->limbs = (limbs_bitlen(T->M) + 14 + 31) / 32;
    if (T->limbs < 2)
        T->limbs = 2;
    double d = 0.0;
    for (int i = OZ2_LIMBS - 1; i >= 0; i--)
        d = d * 4294967296.0 + (double)T->M[i];
    T->Md = d;
}

static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static oz2_table tables[OZ2_MAX_MODULI + 1];
static int table_ready[OZ2_MAX_MODULI + 1];

const oz2_table *oz2_table_get(int n)
{
    if (n < 2 || n > OZ2_MAX_MODULI)
        return NULL;
    pthread_mutex_lock(&table_lock);
    if (!table_ready[n]) {
        oz2_table_init(&tables[n], n);
        table_ready[n] = 1;
    }
    pthread_mutex_unlock(&table_lock);
    return &tables[n];
}
