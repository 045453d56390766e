/* Three ways to merge a step layer's children, timed on synthetic keys.

       cc -O2 -o dedup_model benchmarks/dedup_model.c && ./dedup_model N DUP REPS

   A step of a bucket's step-at-a-time expansion (`chain_layers` in
   gulbara/_chain_engine.pyx) makes about seven children per position of the
   layer, and most of them are already made: the next layer's N distinct keys
   are each made some DUP times. This program makes N distinct 128-bit keys,
   each DUP times, in a random order (the order of children from unrelated
   positions), and merges them into the distinct keys, keeping the larger
   value of equal keys as a layer does, three ways:

   * ring: the children inserted into one open-addressing table of 16-byte
     slots sized for the layer (at most half full), each slot prefetched when
     the key comes and the key inserted 32 keys later: what chain_layers does
     (gulbara/chains/_keysets.pxd, ring_add_max);
   * partition: the children first scattered by the top bits of their hash
     into parts of about 1,000 distinct keys (a counting sort), then each part
     merged in a small table that stays in the core's L1 or L2 cache, reused
     part after part (radix-partitioned aggregation, as database engines do);
   * ring8: the ring with 8-byte slots, each key cut to 56 bits with the
     value in its top byte (a layer whose keys were a 64-bit encoding of the
     mover's checkers instead of the packed 96 bits: the same probes, half
     the table).

   All compute each key's hash (gulbara/_keys.pxd's key_hash) once. The
   buffers are made and touched before the clock starts. Prints, for each
   repetition, the distinct keys found (N, checked) and the time per child. */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define EMPTY ((uint64_t)0xFFFFFFFFFFFFFFFFULL)
#define RING 32

static uint64_t mix64(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static uint64_t key_hash(uint64_t a, uint64_t b) { return mix64(a ^ (b * 0x9E3779B97F4A7C15ULL)); }

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

typedef struct {
    uint64_t* slots;   /* (a, b) pairs; b == EMPTY: free */
    uint64_t mask;
} Table;

static void table_clear(Table* t) { memset(t->slots, 0xFF, 16 * (t->mask + 1)); }

/* Insert (a, b), the low 32 bits of b being key and the rest a value kept at its
   largest: 1 if new. */
static int add_max(Table* t, uint64_t a, uint64_t b, uint64_t h) {
    uint64_t i = h & t->mask;
    for (;;) {
        uint64_t* s = t->slots + 2 * i;
        if (s[1] == EMPTY) {
            s[0] = a;
            s[1] = b;
            return 1;
        }
        if (s[0] == a && (uint32_t)s[1] == (uint32_t)b) {
            if (b > s[1]) s[1] = b;
            return 0;
        }
        i = (i + 1) & t->mask;
    }
}

static long merge_ring(const uint64_t* ka, const uint64_t* kb, long m, Table* t) {
    uint64_t ra[RING], rb[RING], rh[RING];
    int at = 0, waiting = 0, k;
    long added = 0, j;
    for (j = 0; j < m; j++) {
        uint64_t h = key_hash(ka[j], kb[j] & 0xFFFFFFFFULL);
        __builtin_prefetch(t->slots + 2 * (h & t->mask), 1, 3);
        if (waiting == RING)
            added += add_max(t, ra[at], rb[at], rh[at]);
        else
            waiting++;
        ra[at] = ka[j];
        rb[at] = kb[j];
        rh[at] = h;
        at = (at + 1) & (RING - 1);
    }
    for (k = 0; k < waiting; k++) {
        int q = (at - waiting + k) & (RING - 1);
        added += add_max(t, ra[q], rb[q], rh[q]);
    }
    return added;
}

/* The same with 8-byte slots: the low 56 bits the key, the top byte a value
   kept at its largest. */
typedef struct {
    uint64_t* slots;   /* EMPTY: free */
    uint64_t mask;
} Table8;

#define KEY56 ((uint64_t)0x00FFFFFFFFFFFFFFULL)

static int add_max8(Table8* t, uint64_t k, uint64_t h) {
    uint64_t i = h & t->mask;
    for (;;) {
        uint64_t s = t->slots[i];
        if (s == EMPTY) {
            t->slots[i] = k;
            return 1;
        }
        if ((s & KEY56) == (k & KEY56)) {
            if (k > s) t->slots[i] = k;
            return 0;
        }
        i = (i + 1) & t->mask;
    }
}

static long merge_ring8(const uint64_t* keys, long m, Table8* t) {
    uint64_t rk[RING], rh[RING];
    int at = 0, waiting = 0, k;
    long added = 0, j;
    for (j = 0; j < m; j++) {
        uint64_t h = mix64(keys[j] & KEY56);
        __builtin_prefetch(t->slots + (h & t->mask), 1, 3);
        if (waiting == RING)
            added += add_max8(t, rk[at], rh[at]);
        else
            waiting++;
        rk[at] = keys[j];
        rh[at] = h;
        at = (at + 1) & (RING - 1);
    }
    for (k = 0; k < waiting; k++) {
        int q = (at - waiting + k) & (RING - 1);
        added += add_max8(t, rk[q], rh[q]);
    }
    return added;
}

static long merge_partitioned(const uint64_t* ka, const uint64_t* kb, long m,
                              uint64_t* hashes, uint64_t* scattered, long* start, long* fill,
                              int part_bits, Table* small) {
    long parts = 1L << part_bits, added = 0, j, p;
    memset(start, 0, sizeof(long) * (parts + 1));
    for (j = 0; j < m; j++) {
        uint64_t h = key_hash(ka[j], kb[j] & 0xFFFFFFFFULL);
        hashes[j] = h;
        start[(h >> (64 - part_bits)) + 1]++;
    }
    for (p = 0; p < parts; p++) start[p + 1] += start[p];
    memcpy(fill, start, sizeof(long) * parts);
    for (j = 0; j < m; j++) {
        long q = fill[hashes[j] >> (64 - part_bits)]++;
        scattered[3 * q] = ka[j];
        scattered[3 * q + 1] = kb[j];
        scattered[3 * q + 2] = hashes[j];
    }
    for (p = 0; p < parts; p++) {
        table_clear(small);
        for (j = start[p]; j < start[p + 1]; j++)
            added += add_max(small, scattered[3 * j], scattered[3 * j + 1], scattered[3 * j + 2]);
    }
    return added;
}

int main(int argc, char** argv) {
    long n, m, j, slots = 1, small_slots = 1;
    int dup, reps, rep, part_bits = 8;
    uint64_t *ka, *kb, *k8, *hashes, *scattered;
    long *start, *fill;
    Table big, small;
    Table8 big8;
    if (argc != 4) {
        fprintf(stderr, "usage: %s N DUP REPS\n", argv[0]);
        return 2;
    }
    n = atol(argv[1]);
    dup = atoi(argv[2]);
    reps = atoi(argv[3]);
    if (n < 1 || dup < 1 || reps < 1) {
        fprintf(stderr, "N, DUP and REPS must be positive\n");
        return 2;
    }
    m = n * dup;
    ka = malloc(8 * m);
    kb = malloc(8 * m);
    hashes = malloc(8 * m);
    scattered = malloc(24 * m);
    while ((n >> part_bits) > 1024 && part_bits < 16) part_bits++;
    start = malloc(sizeof(long) * ((1L << part_bits) + 1));
    fill = malloc(sizeof(long) * (1L << part_bits));
    while (slots < 2 * n) slots <<= 1;
    while (small_slots < 4 * ((n >> part_bits) + 64)) small_slots <<= 1;
    big.slots = malloc(16 * slots);
    big.mask = slots - 1;
    big8.slots = malloc(8 * slots);
    big8.mask = slots - 1;
    k8 = malloc(8 * m);
    small.slots = malloc(16 * small_slots);
    small.mask = small_slots - 1;
    if (!ka || !kb || !k8 || !hashes || !scattered || !start || !fill || !big.slots
            || !small.slots || !big8.slots) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    /* key i made dup times, each with a value (the step's source, 0..23) in the high bits */
    for (j = 0; j < m; j++) {
        long i = j % n;
        ka[j] = mix64((uint64_t)i * 7 + 1);
        kb[j] = (mix64((uint64_t)i * 13 + 5) & 0xFFFFFFFFULL) | ((uint64_t)(j % 24) << 32);
    }
    {   /* a fixed shuffle (Fisher-Yates, splitmix64 draws) */
        uint64_t state = 2026;
        for (j = m - 1; j > 0; j--) {
            long r = (long)(mix64(state += 0x9E3779B97F4A7C15ULL) % (uint64_t)(j + 1));
            uint64_t x = ka[j]; ka[j] = ka[r]; ka[r] = x;
            x = kb[j]; kb[j] = kb[r]; kb[r] = x;
        }
    }
    for (j = 0; j < m; j++)      /* the same keys cut to 56 bits, the value on top */
        k8[j] = (ka[j] & KEY56) | ((kb[j] >> 32) << 56);
    memset(hashes, 1, 8 * m);
    memset(scattered, 1, 24 * m);
    for (rep = 0; rep < reps; rep++) {
        double t0;
        long added;
        table_clear(&big);
        t0 = now();
        added = merge_ring(ka, kb, m, &big);
        printf("ring       N=%ld DUP=%d distinct=%ld table=%ld KiB: %.2f ns a child\n", n, dup,
               added, slots / 64, 1e9 * (now() - t0) / (double)m);
        if (added != n) {
            fprintf(stderr, "wrong count\n");
            return 1;
        }
        memset(big8.slots, 0xFF, 8 * slots);
        t0 = now();
        added = merge_ring8(k8, m, &big8);
        printf("ring8      N=%ld DUP=%d distinct=%ld table=%ld KiB: %.2f ns a child\n", n, dup,
               added, slots / 128, 1e9 * (now() - t0) / (double)m);
        if (added != n) {
            fprintf(stderr, "wrong count\n");
            return 1;
        }
        t0 = now();
        added = merge_partitioned(ka, kb, m, hashes, scattered, start, fill, part_bits,
                                  &small);
        printf("partition  N=%ld DUP=%d distinct=%ld parts=%d small table=%ld KiB: %.2f ns a child\n",
               n, dup, added, 1 << part_bits, small_slots / 64, 1e9 * (now() - t0) / (double)m);
        if (added != n) {
            fprintf(stderr, "wrong count\n");
            return 1;
        }
    }
    return 0;
}
