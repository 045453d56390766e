/* gulbara.net: the network's arithmetic in C (declared in _forward.pxd). */
#ifndef GULBARA_NET_MATH_H
#define GULBARA_NET_MATH_H

#include <stdint.h>

/* The network's arithmetic. Every operation is one IEEE single-precision
   operation done lane by lane, a multiply and an add that follows it mostly fused
   into one with a single rounding (gulbara_fma: what the FMA instructions compute);
   the module is built with -ffp-contract=off, so the compiler fuses nothing else.
   Where the CPU has no FMA (the SSE2 and plain C levels) the fused result is made
   exactly from double precision, so every level gives the same bytes. */
#include <math.h>
#include <string.h>
#if defined(__SSE2__) && !defined(GULBARA_NO_SIMD)
#include <emmintrin.h>
#define GULBARA_NET_SSE2 1
#endif

/* a * b + c rounded once (to nearest, ties to even). Without an FMA instruction:
   a * b is exact in double (24 + 24 bits) and the sum s is rounded to double. A
   float midpoint is a double, so s is on the same side of every midpoint as the
   exact sum: unless s is itself a midpoint (its low 29 bits 1 then zeros) or below
   float's normal range, s rounds to float as the exact sum does. In those rare
   cases the sum is rounded to odd instead (a double whose last bit is 1 when the
   sum is inexact: Knuth's TwoSum gives its error), and a round-to-odd result of at
   least 2 x 24 + 2 bits rounds to float exactly as the exact value does (Boldo and
   Melquiond, 2008). */
#define GULBARA_FMA_LOW29 0x1FFFFFFFULL
#define GULBARA_FMA_MIDPOINT 0x10000000ULL
static inline float gulbara_fma(float a, float b, float c) {
#ifdef FP_FAST_FMAF
    return fmaf(a, b, c);
#else
    double p = (double)a * (double)b, s = p + (double)c, bp, err;
    uint64_t bits, sign_bits;
    memcpy(&bits, &s, 8);
    if ((bits & GULBARA_FMA_LOW29) != GULBARA_FMA_MIDPOINT && fabs(s) >= 0x1p-126)
        return (float)s;
    bp = s - (double)c;
    err = (p - bp) + ((double)c - (s - bp));
    if (err != 0.0 && !(bits & 1)) {
        memcpy(&sign_bits, &err, 8);
        bits += ((bits ^ sign_bits) >> 63) ? (uint64_t)-1 : 1;    /* one ulp toward err */
        memcpy(&s, &bits, 8);
    }
    return (float)s;
#endif
}

/* e**x for x clamped to [-87, 87]: x = n ln2 + r with |r| <= ln2 / 2 (n rounded
   to nearest by adding and subtracting 1.5 * 2**23), e**r = 1 + r + r**2 q(r) with
   q a cubic (minimax for the relative error, below 2e-7 in float32), summed by
   Estrin's scheme (q0 + q1 r) + r**2 (q2 + q3 r) for a short chain of fused
   multiply-adds, times 2**n made in the exponent bits. */
#define GULBARA_EXP_C1 0.693359375f
#define GULBARA_EXP_C2 2.12194440e-4f
#define GULBARA_EXP_Q0 0.499992311f
#define GULBARA_EXP_Q1 0.166670904f
#define GULBARA_EXP_Q2 0.0418902077f
#define GULBARA_EXP_Q3 0.00831471942f

static inline float gulbara_exp(float x) {
    union { int i; float f; } scale;
    float t, n, r, r2, q;
    x = x < -87.0f ? -87.0f : x;
    x = x > 87.0f ? 87.0f : x;
    t = x * 1.44269504088896341f;
    n = (t + 12582912.0f) - 12582912.0f;
    r = gulbara_fma(n, -GULBARA_EXP_C1, x);
    r = gulbara_fma(n, GULBARA_EXP_C2, r);
    r2 = r * r;
    q = gulbara_fma(gulbara_fma(GULBARA_EXP_Q3, r, GULBARA_EXP_Q2), r2,
                    gulbara_fma(GULBARA_EXP_Q1, r, GULBARA_EXP_Q0));
    scale.i = ((int)n + 127) << 23;
    return (gulbara_fma(r2, q, r) + 1.0f) * scale.f;
}

static inline float gulbara_sigmoid(float z) {
    return 1.0f / (1.0f + gulbara_exp(-z));
}

/* The sigmoid of each lane, gulbara_sigmoid's operations: one body for SSE2 (P = _mm,
   4 lanes), AVX2 (P = _mm256, 8 lanes) and AVX-512F; FMA(a, b, c) is the level's
   a * b + c rounded once. */
#define GULBARA_SIGMOID_LANES(P, VF, VI, CAST, FMA)                                 \
    {                                                                               \
        VF x = P##_sub_ps(P##_setzero_ps(), z), t, n, r, r2, p;                      \
        VF magic = P##_set1_ps(12582912.0f);                                        \
        VI e;                                                                       \
        x = P##_max_ps(x, P##_set1_ps(-87.0f));                                     \
        x = P##_min_ps(x, P##_set1_ps(87.0f));                                      \
        t = P##_mul_ps(x, P##_set1_ps(1.44269504088896341f));                       \
        n = P##_sub_ps(P##_add_ps(t, magic), magic);                                \
        r = FMA(n, P##_set1_ps(-GULBARA_EXP_C1), x);                                \
        r = FMA(n, P##_set1_ps(GULBARA_EXP_C2), r);                                 \
        r2 = P##_mul_ps(r, r);                                                      \
        p = FMA(FMA(P##_set1_ps(GULBARA_EXP_Q3), r, P##_set1_ps(GULBARA_EXP_Q2)), r2, \
                FMA(P##_set1_ps(GULBARA_EXP_Q1), r, P##_set1_ps(GULBARA_EXP_Q0)));  \
        p = P##_add_ps(FMA(r2, p, r), P##_set1_ps(1.0f));                           \
        e = P##_slli_epi32(P##_add_epi32(P##_cvttps_epi32(n), P##_set1_epi32(127)), \
                           23);                                                     \
        p = P##_mul_ps(p, CAST(e));                                                 \
        return P##_div_ps(P##_set1_ps(1.0f), P##_add_ps(P##_set1_ps(1.0f), p));     \
    }

/* The first layer's sums of K x W units (K registers of W lanes) from ``start`` into
   h: start[j] + sum_i val[i] * w1[idx[i] * H + j] in the order of i for every unit j;
   one body for each width (the parameters are those of gulbara_rows). */
#define GULBARA_ROWS(P, VF, W, K, FMA)                                              \
    {                                                                               \
        VF acc[K];                                                                  \
        int i, k;                                                                   \
        for (k = 0; k < K; k++)                                                     \
            acc[k] = P##_loadu_ps(start + W * k);                                   \
        for (i = 0; i < n_in; i++) {                                                \
            const float* row = w1 + (size_t)idx[i] * H;                             \
            VF v = P##_set1_ps(val[i]);                                             \
            for (k = 0; k < K; k++)                                                 \
                acc[k] = FMA(v, P##_loadu_ps(row + W * k), acc[k]);                 \
        }                                                                           \
        for (k = 0; k < K; k++)                                                     \
            P##_storeu_ps(h + W * k, acc[k]);                                       \
    }
#define GULBARA_ROWS_ARGS const float* start, const int* idx, const float* val, int n_in, \
                          const float* w1, int H, float* h

/* The sums of units j0 .. by 64 (BIG) then by W (SMALL) while whole; returns where
   the rest starts. */
#define GULBARA_SUMS(BIG, SMALL, W)                                                 \
    {                                                                               \
        int j = j0;                                                                 \
        for (; j + 64 <= H; j += 64)                                                \
            BIG(start + j, idx, val, n_in, w1 + j, H, h + j);                       \
        for (; j + W <= H; j += W)                                                  \
            SMALL(start + j, idx, val, n_in, w1 + j, H, h + j);                     \
        return j;                                                                   \
    }

/* One arithmetic level's lane functions, W lanes of vector type VF (P the intrinsics'
   prefix, FN its target attribute): the sigmoid of W lanes, the first layer's sums 64
   units (K registers) then W at a time from unit j0 (gulbara_sums_NAME), and the
   sigmoids of z[j0 .. n - 1] W at a time while whole (gulbara_sigmoid_n_NAME); both
   return where the rest starts. */
#define GULBARA_LEVEL(FN, NAME, P, VF, VI, CAST, W, K, FMA)                         \
    static inline FN VF gulbara_sigmoid_##NAME(VF z)                                \
        GULBARA_SIGMOID_LANES(P, VF, VI, CAST, FMA)                                 \
    static inline FN void gulbara_rows64_##NAME(GULBARA_ROWS_ARGS)                  \
        GULBARA_ROWS(P, VF, W, K, FMA)                                              \
    static inline FN void gulbara_rows_##NAME(GULBARA_ROWS_ARGS)                    \
        GULBARA_ROWS(P, VF, W, 1, FMA)                                              \
    static FN int gulbara_sums_##NAME(GULBARA_ROWS_ARGS, int j0)                    \
        GULBARA_SUMS(gulbara_rows64_##NAME, gulbara_rows_##NAME, W)                 \
    static FN int gulbara_sigmoid_n_##NAME(float* z, int n, int j0) {               \
        int j = j0;                                                                 \
        for (; j + W <= n; j += W)                                                  \
            P##_storeu_ps(z + j, gulbara_sigmoid_##NAME(P##_loadu_ps(z + j)));      \
        return j;                                                                   \
    }

#ifdef GULBARA_NET_SSE2
/* gulbara_fma of two lanes in double (see gulbara_fma): the sum rounded to double,
   or to odd where it is a float midpoint or below float's normal range. */
static inline __m128 gulbara_fma2_sse2(__m128d a, __m128d b, __m128d c) {
    __m128d p = _mm_mul_pd(a, b), s = _mm_add_pd(p, c), bp, err;
    __m128i bits = _mm_castpd_si128(s), one = _mm_set_epi32(0, 1, 0, 1);
    __m128i low = _mm_and_si128(bits, _mm_set_epi32(0, (int)GULBARA_FMA_LOW29, 0,
                                                    (int)GULBARA_FMA_LOW29));
    __m128i mid = _mm_cmpeq_epi32(low, _mm_set_epi32(0, (int)GULBARA_FMA_MIDPOINT, 0,
                                                     (int)GULBARA_FMA_MIDPOINT));
    __m128d tiny = _mm_cmplt_pd(_mm_andnot_pd(_mm_set1_pd(-0.0), s), _mm_set1_pd(0x1p-126));
    /* a lane is a midpoint when its low 32-bit half matched (spread to the lane) */
    mid = _mm_shuffle_epi32(mid, _MM_SHUFFLE(2, 2, 0, 0));
    if (!_mm_movemask_pd(_mm_or_pd(_mm_castsi128_pd(mid), tiny)))
        return _mm_cvtpd_ps(s);
    bp = _mm_sub_pd(s, c);
    err = _mm_add_pd(_mm_sub_pd(p, bp), _mm_sub_pd(c, _mm_sub_pd(s, bp)));
    /* the lanes to move: inexact, last bit 0 (its 32-bit test spread to the lane) */
    __m128i even = _mm_cmpeq_epi32(_mm_and_si128(bits, one), _mm_setzero_si128());
    __m128i move = _mm_and_si128(_mm_shuffle_epi32(even, _MM_SHUFFLE(2, 2, 0, 0)),
                                 _mm_castpd_si128(_mm_cmpneq_pd(err, _mm_setzero_pd())));
    /* +1 where err and s have the same sign (away from zero), else -1 */
    __m128i away = _mm_srli_epi64(_mm_xor_si128(bits, _mm_castpd_si128(err)), 63);
    __m128i step = _mm_sub_epi64(one, _mm_slli_epi64(away, 1));
    bits = _mm_add_epi64(bits, _mm_and_si128(step, move));
    return _mm_cvtpd_ps(_mm_castsi128_pd(bits));
}

/* gulbara_fma of four lanes, two at a time in double. */
static inline __m128 gulbara_fma_sse2(__m128 a, __m128 b, __m128 c) {
    __m128 lo = gulbara_fma2_sse2(_mm_cvtps_pd(a), _mm_cvtps_pd(b), _mm_cvtps_pd(c));
    __m128 hi = gulbara_fma2_sse2(_mm_cvtps_pd(_mm_movehl_ps(a, a)),
                                  _mm_cvtps_pd(_mm_movehl_ps(b, b)),
                                  _mm_cvtps_pd(_mm_movehl_ps(c, c)));
    return _mm_movelh_ps(lo, hi);
}

static inline __m128 gulbara_sigmoid4(__m128 z)
    GULBARA_SIGMOID_LANES(_mm, __m128, __m128i, _mm_castsi128_ps, gulbara_fma_sse2)

static inline void gulbara_rows8_sse2(GULBARA_ROWS_ARGS)
    GULBARA_ROWS(_mm, __m128, 4, 2, gulbara_fma_sse2)
#endif

/* The same lanes eight at a time with AVX2 and FMA when the running CPU has both
   (GCC and Clang on x86-64; chosen at import, _net.simd_level()): the bytes equal
   the SSE2 path's. */
#if defined(GULBARA_NET_SSE2) && (defined(__GNUC__) || defined(__clang__)) \
    && defined(__x86_64__) && !(defined(__AVX2__) && defined(__FMA__))
#include <immintrin.h>
#define GULBARA_NET_AVX2 1
#define GULBARA_AVX2_FN __attribute__((target("avx2,fma")))
#elif defined(__AVX2__) && defined(__FMA__) && !defined(GULBARA_NO_SIMD)
#include <immintrin.h>
#define GULBARA_NET_AVX2 1
#define GULBARA_AVX2_FN
#endif

#ifdef GULBARA_NET_AVX2
/* gulbara_sums_avx2: gulbara_hidden's sums of the units j0 .. H - 1 - (H - j0) mod 8,
   64 at a time, then 8; gulbara_sigmoid_n_avx2: the sigmoids of z[j0 ..] 8 at a time. */
GULBARA_LEVEL(GULBARA_AVX2_FN, avx2, _mm256, __m256, __m256i, _mm256_castsi256_ps, 8, 8,
              _mm256_fmadd_ps)

/* The lanes of three dot products' first n - n mod 8 terms, summed as gulbara_outputs
   sums them; returns where the rest starts. */
static GULBARA_AVX2_FN int gulbara_dots3_avx2(const float* a, const float* w, int n,
                                              float* sums) {
    int j = 0, k;
    __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps(), s2 = _mm256_setzero_ps();
    __m128 t[3];
    for (; j + 8 <= n; j += 8) {
        __m256 x = _mm256_loadu_ps(a + j);
        s0 = _mm256_fmadd_ps(x, _mm256_loadu_ps(w + j), s0);
        s1 = _mm256_fmadd_ps(x, _mm256_loadu_ps(w + n + j), s1);
        s2 = _mm256_fmadd_ps(x, _mm256_loadu_ps(w + 2 * n + j), s2);
    }
    /* ((l0 + l1) + (l2 + l3)) + ((l4 + l5) + (l6 + l7)) of each */
    t[0] = _mm_hadd_ps(_mm256_castps256_ps128(s0), _mm256_extractf128_ps(s0, 1));
    t[1] = _mm_hadd_ps(_mm256_castps256_ps128(s1), _mm256_extractf128_ps(s1, 1));
    t[2] = _mm_hadd_ps(_mm256_castps256_ps128(s2), _mm256_extractf128_ps(s2, 1));
    for (k = 0; k < 3; k++) {
        t[k] = _mm_hadd_ps(t[k], t[k]);
        sums[k] = _mm_cvtss_f32(_mm_add_ss(t[k], _mm_shuffle_ps(t[k], t[k], 1)));
    }
    return j;
}
#endif

/* Sixteen lanes at a time with AVX-512F when the running CPU has it, for what is
   done lane by lane (the sigmoid, the first layer's sums; the output sums keep their
   eight lanes, their order): the bytes equal the other levels'. The arithmetic is
   the _round forms with the current rounding (to nearest): where AVX-512F is on,
   GCC would fuse a plain multiply and add into one FMA. */
#if defined(GULBARA_NET_AVX2) && (defined(__GNUC__) || defined(__clang__)) \
    && defined(__x86_64__)
#define GULBARA_NET_AVX512 1
#define GULBARA_AVX512_FN __attribute__((target("avx512f")))
/* gulbara_z_OP_ps: _mm512_OP_ps in its _round form, for OP add, sub, mul and div. */
#define GULBARA_Z_ROUNDED(OP)                                                       \
    static inline GULBARA_AVX512_FN __m512 gulbara_z_##OP##_ps(__m512 a, __m512 b) { \
        return _mm512_##OP##_round_ps(a, b, _MM_FROUND_CUR_DIRECTION);              \
    }
GULBARA_Z_ROUNDED(add)
GULBARA_Z_ROUNDED(sub)
GULBARA_Z_ROUNDED(mul)
GULBARA_Z_ROUNDED(div)
static inline GULBARA_AVX512_FN __m512 gulbara_z_fmadd_ps(__m512 a, __m512 b, __m512 c) {
    return _mm512_fmadd_round_ps(a, b, c, _MM_FROUND_CUR_DIRECTION);
}
#define gulbara_z_setzero_ps _mm512_setzero_ps
#define gulbara_z_set1_ps _mm512_set1_ps
#define gulbara_z_max_ps _mm512_max_ps
#define gulbara_z_min_ps _mm512_min_ps
#define gulbara_z_cvttps_epi32 _mm512_cvttps_epi32
#define gulbara_z_add_epi32 _mm512_add_epi32
#define gulbara_z_set1_epi32 _mm512_set1_epi32
#define gulbara_z_slli_epi32 _mm512_slli_epi32

#define gulbara_z_loadu_ps _mm512_loadu_ps
#define gulbara_z_storeu_ps _mm512_storeu_ps

/* gulbara_sums_avx512: gulbara_hidden's sums of the units j0 .. H - 1 - (H - j0) mod 16,
   64 at a time, then 16; gulbara_sigmoid_n_avx512: the sigmoids 16 at a time. */
GULBARA_LEVEL(GULBARA_AVX512_FN, avx512, gulbara_z, __m512, __m512i, _mm512_castsi512_ps,
              16, 4, gulbara_z_fmadd_ps)
#endif

/* The arithmetic level: 3 AVX-512F, 2 AVX2 and FMA, 1 SSE2, 0 plain C; all give the same
   bytes. Every module that includes this header has its own: _net.pyx sets it (with
   gulbara_net_simd) and writes it into the others' (follow_simd_level in _net.pyx). */
static int gulbara_net_level = 0;

/* Use the best level this build and CPU have, or ``level`` when lower (tests);
   returns the level in use. */
static inline int gulbara_net_simd(int level) {
    int best = 0;
#ifdef GULBARA_NET_SSE2
    best = 1;
#endif
#if defined(GULBARA_NET_AVX2) && defined(__AVX2__) && defined(__FMA__)
    best = 2;
#elif defined(GULBARA_NET_AVX2)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) best = 2;
#endif
#ifdef GULBARA_NET_AVX512
    __builtin_cpu_init();
    if (best == 2 && __builtin_cpu_supports("avx512f")) best = 3;
#endif
    if (level >= 0 && level < best) best = level;
    gulbara_net_level = best;
    return best;
}

/* The sigmoid of each of z[0 .. n - 1], in place. */
static inline void gulbara_sigmoid_n(float* z, int n) {
    int j = 0;
#ifdef GULBARA_NET_AVX512
    if (gulbara_net_level >= 3)
        j = gulbara_sigmoid_n_avx512(z, n, 0);
#endif
#ifdef GULBARA_NET_AVX2
    if (gulbara_net_level >= 2)
        j = gulbara_sigmoid_n_avx2(z, n, j);
#endif
#ifdef GULBARA_NET_SSE2
    if (gulbara_net_level >= 1) {
        for (; j + 4 <= n; j += 4)
            _mm_storeu_ps(z + j, gulbara_sigmoid4(_mm_loadu_ps(z + j)));
        if (j < n) {
            float t[4] = {0.0f, 0.0f, 0.0f, 0.0f};
            int k;
            for (k = j; k < n; k++) t[k - j] = z[k];
            _mm_storeu_ps(t, gulbara_sigmoid4(_mm_loadu_ps(t)));
            for (k = j; k < n; k++) z[k] = t[k - j];
            j = n;
        }
    }
#endif
    for (; j < n; j++)
        z[j] = gulbara_sigmoid(z[j]);
}

/* out[j] = gulbara_fma(a[j], b[j], c[j]) by the level's fused multiply-add (tests). */
#ifdef GULBARA_NET_AVX2
static GULBARA_AVX2_FN int gulbara_fma_n_avx2(const float* a, const float* b, const float* c,
                                              float* out, int n) {
    int j = 0;
    for (; j + 8 <= n; j += 8)
        _mm256_storeu_ps(out + j, _mm256_fmadd_ps(_mm256_loadu_ps(a + j),
                                                  _mm256_loadu_ps(b + j),
                                                  _mm256_loadu_ps(c + j)));
    return j;
}
#endif

static inline void gulbara_fma_n(const float* a, const float* b, const float* c, float* out,
                                 int n) {
    int j = 0;
#ifdef GULBARA_NET_AVX2
    if (gulbara_net_level >= 2)
        j = gulbara_fma_n_avx2(a, b, c, out, n);
#endif
#ifdef GULBARA_NET_SSE2
    if (gulbara_net_level >= 1)
        for (; j + 4 <= n; j += 4)
            _mm_storeu_ps(out + j, gulbara_fma_sse2(_mm_loadu_ps(a + j), _mm_loadu_ps(b + j),
                                                    _mm_loadu_ps(c + j)));
#endif
    for (; j < n; j++)
        out[j] = gulbara_fma(a[j], b[j], c[j]);
}

/* out[k] = sigmoid(b[k] + the dot product of a and row k of w (3 x n)) (without the
   sigmoid unless ``sigmoid``): each dot in
   eight lanes (lane l sums the terms j = l mod 8 of the first n - n mod 8, in
   order), the lanes added pairwise ((l0 + l1) + (l2 + l3)) + ((l4 + l5) + (l6 + l7)),
   then the rest of the terms in order. */
static inline void gulbara_outputs(const float* a, const float* w, const float* b, int n,
                                   float* out, int sigmoid) {
    float acc[8], sums[3], tail;
    int j0 = 0, j, k, l;
#ifdef GULBARA_NET_AVX2
    if (gulbara_net_level >= 2)
        j0 = gulbara_dots3_avx2(a, w, n, sums);
#endif
    for (k = 0; k < 3; k++) {
        const float* row = w + k * n;
        if (gulbara_net_level < 2) {
            for (l = 0; l < 8; l++)
                acc[l] = 0.0f;
            for (j = 0; j + 8 <= n; j += 8)
                for (l = 0; l < 8; l++)
                    acc[l] = gulbara_fma(a[j + l], row[j + l], acc[l]);
            j0 = j;
            sums[k] = ((acc[0] + acc[1]) + (acc[2] + acc[3]))
                      + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
        }
        tail = 0.0f;
        for (j = j0; j < n; j++)
            tail = gulbara_fma(a[j], row[j], tail);
        out[k] = b[k] + (sums[k] + tail);
    }
    if (sigmoid)
        gulbara_sigmoid_n(out, 3);
}

/* The hidden layer: h[j] = start[j] + sum_i val[i] * w1[idx[i] * H + j], the sum
   taken in the order of i for every j (as adding the rows one by one), then its
   sigmoid when ``sigmoid`` (gulbara_sigmoid_n); ``start`` is the biases or a stage
   start's sums. */
static inline void gulbara_hidden(const float* start, const int* idx, const float* val,
                                  int n_in, const float* w1, int H, float* h, int sigmoid) {
    int j = 0, i;
#ifdef GULBARA_NET_AVX512
    if (gulbara_net_level >= 3)
        j = gulbara_sums_avx512(start, idx, val, n_in, w1, H, h, 0);
#endif
#ifdef GULBARA_NET_AVX2
    if (gulbara_net_level >= 2)
        j = gulbara_sums_avx2(start, idx, val, n_in, w1, H, h, j);
#endif
#ifdef GULBARA_NET_SSE2
    if (gulbara_net_level >= 1)
        for (; j + 8 <= H; j += 8)
            gulbara_rows8_sse2(start + j, idx, val, n_in, w1 + j, H, h + j);
#endif
    for (; j < H; j++) {
        float z = start[j];
        for (i = 0; i < n_in; i++)
            z = gulbara_fma(val[i], w1[(size_t)idx[i] * H + j], z);
        h[j] = z;
    }
    if (sigmoid)
        gulbara_sigmoid_n(h, H);
}

#endif
