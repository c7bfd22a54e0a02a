/* Ozaki II constants: the moduli and the CRT weights, computed once per moduli count. */
#include <pthread.h>
#include <string.h>

#include "fp4.h"
#include "ozaki2.h"

/* Per engine (ozblas_engine), in order, pairwise coprime. INT8: GEMMul8's moduli, then the
 * largest primes coprime to them (calls whose rows span many binades need more than 20);
 * symmetric residues fit INT8. FP4: the moduli with the most bits per limb product (numerics/fp4.h):
 * the one-limb 8, 13, 9, 7, then the largest two-limb ones (<= 113) coprime to them. */
#define OZ2_SET_CX 2 /* the complex set's row (ozaki2.h OZ2_MAX_MODULI_CX), after the engines' */
static const int oz2_moduli[3][OZ2_MAX_MODULI] = {
    {256, 255, 253, 251, 247, 241, 239, 233, 229, 227, 223, 217, 211, 199, 197, 193, 191, 181,
     179, 173, 167, 163, 157, 151, 149, 139, 137, 131, 127, 113, 109, 107, 103, 101, 97, 89,
     83, 79, 73, 71, 67, 61, 59, 53, 47, 43, 41, 37, 29},
    {8, 13, 9, 7, 113, 109, 107, 103, 101, 97, 95, 89, 83, 79, 73, 71, 67, 61, 59, 53, 47, 43,
     41, 37, 31, 29, 23, 17},
    {241, 233, 229, 221, 205, 197, 193, 181, 173, 157, 149, 137, 113, 109, 101, 97, 89, 73, 61,
     53, 37, 29}};

/* The CUDA kernels take a table by value (__grid_constant__): with their other arguments it
 * must stay within CUDA's 4 KB of kernel parameters. */
_Static_assert(sizeof(oz2_table) <= 3584, "oz2_table too large for a kernel parameter");

static int engine_ok(int engine) { return engine == OZ2_ENGINE_INT8 || engine == OZ2_ENGINE_FP4; }

/* FP4 moduli carry fewer bits (28 of them: 155 bits; INT8's 20: 155 bits, 49: 342 bits). */
int oz2_max_moduli(int engine)
{
    return engine == OZ2_ENGINE_FP4 ? OZ2_MAX_MODULI_FP4 : engine_ok(engine) ? OZ2_MAX_MODULI_INT8 : 0;
}

/* Where automatic precision's walk starts (ozaki2.h). */
int oz2_auto_hint(int engine)
{
    return engine == OZ2_ENGINE_FP4 ? OZ2_PLAN_MODULI_FP4 : OZ2_PLAN_MODULI_INT8;
}

int oz2_modulus(int engine, int t)
{
    return t >= 0 && t < oz2_max_moduli(engine) ? oz2_moduli[engine][t] : 0;
}

static int limbs_bitlen(const uint32_t *x)
{
    for (int i = OZ2_LIMBS - 1; i >= 0; i--)
        if (x[i])
            return 32 * i + oz_bitlen64(x[i]);
    return 0;
}

/* x^-1 (mod m) for x coprime to m, by search (m <= 256, once per table). */
static uint32_t inv_mod(uint32_t x, uint32_t m)
{
    for (uint32_t c = 1; c < m; c++)
        if ((x % m) * c % m == 1)
            return c;
    return 0;
}

/* v (mod m) as a symmetric residue, the executors' range (oz2_residue_small). */
static int8_t sym_mod(uint32_t v, uint32_t m)
{
    const int r = (int)(v % m);
    return (int8_t)(2 * r >= (int)m ? r - (int)m : r);
}

/* The complex set's constants of modulus m: the smallest i with i^2 = -1 (mod m), and the
 * inverses of 2 and 2 i. */
static void cx_constants(oz2_table *T, int t, uint32_t m)
{
    uint32_t i = 1;
    while ((i * i + 1) % m)
        i++;
    T->ip[t] = sym_mod(i, m);
    T->inv2[t] = sym_mod(inv_mod(2, m), m);
    T->inv2ip[t] = sym_mod(inv_mod(2 * i, m), m);
}

static void oz2_table_init(oz2_table *T, int set, int n)
{
    const int *moduli = oz2_moduli[set];
    const int engine = set == OZ2_SET_CX ? OZ2_ENGINE_INT8 : set;
    memset(T, 0, sizeof *T);
    T->n = n;
    T->engine = engine;
    T->cx2 = set == OZ2_SET_CX;
    T->M[0] = 1;
    for (int t = 0; t < n; t++) {
        T->m[t] = moduli[t];
        T->mi[t] = moduli[t];
        T->inv[t] = 1.0 / moduli[t];
        T->digits[t] = engine == OZ2_ENGINE_FP4 ? oz_fp4_residue_limbs(moduli[t]) : 0;
        T->products += engine == OZ2_ENGINE_FP4 ? T->digits[t] * T->digits[t] : 1;
        oz_limbs_mul_small(T->M, OZ2_LIMBS, (uint32_t)moduli[t]);
        if (T->cx2)
            cx_constants(T, t, (uint32_t)moduli[t]);
    }
    for (int t = 0; t < n; t++) {
        uint32_t Mt[OZ2_LIMBS];
        memcpy(Mt, T->M, sizeof Mt);
        oz_limbs_div_small(Mt, OZ2_LIMBS, (uint32_t)moduli[t]);
        uint32_t tmp[OZ2_LIMBS];
        memcpy(tmp, Mt, sizeof tmp);
        uint32_t mt_mod = oz_limbs_div_small(tmp, OZ2_LIMBS, (uint32_t)moduli[t]);
        const uint32_t y = inv_mod(mt_mod, (uint32_t)moduli[t]);
        oz_limbs_mul_small(Mt, OZ2_LIMBS, y); /* (M/m_t) y_t < M */
        memcpy(T->w[t], Mt, sizeof Mt);
    }
    memcpy(T->half, T->M, sizeof T->half);
    oz_limbs_div_small(T->half, OZ2_LIMBS, 2);
    T->budget = limbs_bitlen(T->M) - 2;
    /* 49 * 256 * M < 2^(bitlen(M) + 14), plus a sign bit; at least 2 limbs */
    T->limbs = (limbs_bitlen(T->M) + 15 + 31) / 32;
    if (T->limbs < 2)
        T->limbs = 2;
    double d = 0.0;
    for (int i = OZ2_LIMBS - 1; i >= 0; i--)
        d = d * 4294967296.0 + (double)T->M[i];
    T->Md = d;
}

static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static oz2_table tables[3][OZ2_MAX_MODULI + 1];
static int table_ready[3][OZ2_MAX_MODULI + 1];

static const oz2_table *table_of(int set, int n)
{
    pthread_mutex_lock(&table_lock);
    if (!table_ready[set][n]) {
        oz2_table_init(&tables[set][n], set, n);
        table_ready[set][n] = 1;
    }
    pthread_mutex_unlock(&table_lock);
    return &tables[set][n];
}

const oz2_table *oz2_table_get(int engine, int n)
{
    if (n < 2 || n > oz2_max_moduli(engine))
        return NULL;
    return table_of(engine, n);
}

const oz2_table *oz2_cx_table(int n)
{
    return n >= 2 && n <= OZ2_MAX_MODULI_CX ? table_of(OZ2_SET_CX, n) : NULL;
}

/* The one place a complex call's algorithm is decided: moduli count n asks for the real set's
 * n-moduli budget; on INT8 a complex call takes the fewest moduli of the complex set (two
 * products per modulus) whose budget is at least that, and Karatsuba on the real set (three)
 * where even all 22 fall short (n >= 20: ozaki2.h OZ2_MAX_MODULI_CX). */
const oz2_table *oz2_table_call(int engine, int cx, int n)
{
    const oz2_table *T = oz2_table_get(engine, n);
    if (!T || !cx || engine != OZ2_ENGINE_INT8)
        return T;
    for (int c = 2; c <= OZ2_MAX_MODULI_CX; c++) {
        const oz2_table *X = oz2_cx_table(c);
        if (X->budget >= T->budget)
            return X;
    }
    return T;
}

/* Automatic precision's ladder (issue 34): rung r names a table, the budgets rising with r,
 * so the walk (oz_auto_count) stops at the cheapest table whose bound holds. Real calls and
 * FP4: rung r is the real set's count r. A complex call on INT8 walks the complex set's own
 * counts first, rungs 2 to 22, then Karatsuba on the real counts beyond the complex set's 151
 * bits (20, 21, ...: rungs 23, 24, ...). Walking real counts mapped to the complex set
 * (oz2_table_call) skips complex counts between two real budgets, costing up to a modulus;
 * the bound, for the table's budget, is the same function of the bits either way. */
static int first_karatsuba(int engine)
{
    int n = 2;
    while (n < oz2_max_moduli(engine) && oz2_table_call(engine, 1, n)->cx2)
        n++;
    return n;
}

static int ladder_cx(int engine, int cx)
{
    return cx && engine == OZ2_ENGINE_INT8;
}

const oz2_table *oz2_auto_table(int engine, int cx, int rung)
{
    if (!ladder_cx(engine, cx))
        return oz2_table_get(engine, rung);
    if (rung <= OZ2_MAX_MODULI_CX)
        return oz2_cx_table(rung);
    return oz2_table_get(engine, first_karatsuba(engine) + rung - OZ2_MAX_MODULI_CX - 1);
}

int oz2_auto_rung(int engine, int cx, int n)
{
    if (!ladder_cx(engine, cx) || n < 2)
        return n;
    const int k = first_karatsuba(engine);
    return n < k ? oz2_table_call(engine, 1, n)->n : OZ2_MAX_MODULI_CX + 1 + n - k;
}
