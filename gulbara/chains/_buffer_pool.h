/* The buffer pool of gulbara.chains._memory (included by _memory.pyx alone: its
   blocks, counts and lock are one set for the process). */
#ifndef GULBARA_BUFFER_POOL_H
#define GULBARA_BUFFER_POOL_H

#include <stdlib.h>
#include <pthread.h>
#include <string.h>

/* Buffers of outcomes (and the sort's scratch) are big, written once from end
   to end and freed within the call or with the result: fresh memory costs a
   page fault and the kernel's clearing of every page, on each call, and page
   faults on two threads wait on each other. So a block of at least
   GULBARA_POOL_FROM bytes made by gulbara_block_take is remembered (its
   address and size: GULBARA_LIVE_MAX at a time, the rest are plain memory),
   and gulbara_block_give keeps it, once freed, for the next call that needs
   as much (at most gulbara_pool_max bytes, 512 MiB unless set, and
   GULBARA_POOL_SLOTS blocks kept; past that the oldest are freed). Any
   pointer may be given: one this does not know is freed. */
#define GULBARA_POOL_FROM ((size_t)4 << 20)
#define GULBARA_POOL_SLOTS 16
#define GULBARA_LIVE_MAX 64
typedef struct { void* p; size_t size; } gulbara_block;
static pthread_mutex_t gulbara_pool_lock = PTHREAD_MUTEX_INITIALIZER;
static gulbara_block gulbara_live[GULBARA_LIVE_MAX];
static gulbara_block gulbara_kept[GULBARA_POOL_SLOTS];   /* oldest first */
static int gulbara_n_live = 0, gulbara_n_kept = 0;
static size_t gulbara_kept_bytes = 0;
static size_t gulbara_pool_reused = 0;
static size_t gulbara_pool_max = (size_t)512 << 20;

/* A process forked while another thread holds the lock (a chain running on
   a thread of a Ray or multiprocessing worker) gets the lock unheld: the
   handlers are registered before the lock is first taken. */
static void gulbara_pool_prepare(void) { pthread_mutex_lock(&gulbara_pool_lock); }
static void gulbara_pool_parent(void) { pthread_mutex_unlock(&gulbara_pool_lock); }
static void gulbara_pool_child(void) { pthread_mutex_unlock(&gulbara_pool_lock); }
static pthread_once_t gulbara_pool_once = PTHREAD_ONCE_INIT;
static void gulbara_pool_register(void) {
    pthread_atfork(gulbara_pool_prepare, gulbara_pool_parent, gulbara_pool_child);
}

static void* gulbara_block_take(size_t size) {
    void* p = NULL;
    size_t got = size;
    int i, best = -1;
    if (size < GULBARA_POOL_FROM)
        return malloc(size);
    pthread_once(&gulbara_pool_once, gulbara_pool_register);
    pthread_mutex_lock(&gulbara_pool_lock);
    /* the smallest kept block that holds it, if not more than twice as big */
    for (i = 0; i < gulbara_n_kept; i++)
        if (gulbara_kept[i].size >= size && gulbara_kept[i].size <= 2 * size
                && (best < 0 || gulbara_kept[i].size < gulbara_kept[best].size))
            best = i;
    if (best >= 0 && gulbara_n_live < GULBARA_LIVE_MAX) {
        p = gulbara_kept[best].p;
        got = gulbara_kept[best].size;
        gulbara_kept_bytes -= got;
        memmove(&gulbara_kept[best], &gulbara_kept[best + 1],
                (size_t)(gulbara_n_kept - best - 1) * sizeof(gulbara_block));
        gulbara_n_kept--;
        gulbara_pool_reused++;
    }
    pthread_mutex_unlock(&gulbara_pool_lock);
    if (p == NULL) {
        /* rounded up to an eighth of its power of two: the sizes of one
           enumeration's buffers differ a little, and one block serves them all */
        size_t step = (size_t)1 << (63 - __builtin_clzll((unsigned long long)size) - 3);
        got = (size + step - 1) & ~(step - 1);
        p = malloc(got);
        if (p == NULL)
            return NULL;
    }
    pthread_mutex_lock(&gulbara_pool_lock);
    if (gulbara_n_live < GULBARA_LIVE_MAX) {
        gulbara_live[gulbara_n_live].p = p;
        gulbara_live[gulbara_n_live].size = got;
        gulbara_n_live++;
    }
    pthread_mutex_unlock(&gulbara_pool_lock);
    return p;
}

static void gulbara_block_give(void* p) {
    void* evicted[GULBARA_POOL_SLOTS + 1];
    int n_evicted = 0, i, j;
    size_t size = 0;
    if (p == NULL)
        return;
    pthread_once(&gulbara_pool_once, gulbara_pool_register);
    pthread_mutex_lock(&gulbara_pool_lock);
    for (i = 0; i < gulbara_n_live; i++)
        if (gulbara_live[i].p == p)
            break;
    if (i == gulbara_n_live || gulbara_live[i].size > gulbara_pool_max) {
        if (i < gulbara_n_live)
            gulbara_live[i] = gulbara_live[--gulbara_n_live];
        pthread_mutex_unlock(&gulbara_pool_lock);
        free(p);
        return;
    }
    size = gulbara_live[i].size;
    gulbara_live[i] = gulbara_live[--gulbara_n_live];
    while (gulbara_n_kept == GULBARA_POOL_SLOTS
            || gulbara_kept_bytes + size > gulbara_pool_max) {
        evicted[n_evicted++] = gulbara_kept[0].p;
        gulbara_kept_bytes -= gulbara_kept[0].size;
        for (j = 1; j < gulbara_n_kept; j++)
            gulbara_kept[j - 1] = gulbara_kept[j];
        gulbara_n_kept--;
    }
    gulbara_kept[gulbara_n_kept].p = p;
    gulbara_kept[gulbara_n_kept].size = size;
    gulbara_n_kept++;
    gulbara_kept_bytes += size;
    pthread_mutex_unlock(&gulbara_pool_lock);
    for (i = 0; i < n_evicted; i++)
        free(evicted[i]);
}

/* Free every kept block (the bytes freed), and keep at most max_bytes from
   now on (max_bytes: SIZE_MAX leaves the limit as it is). */
static size_t gulbara_pool_release(size_t max_bytes) {
    gulbara_block kept[GULBARA_POOL_SLOTS];
    int n, i;
    size_t bytes;
    pthread_once(&gulbara_pool_once, gulbara_pool_register);
    pthread_mutex_lock(&gulbara_pool_lock);
    n = gulbara_n_kept;
    bytes = gulbara_kept_bytes;
    memcpy(kept, gulbara_kept, (size_t)n * sizeof(gulbara_block));
    gulbara_n_kept = 0;
    gulbara_kept_bytes = 0;
    if (max_bytes != (size_t)-1)
        gulbara_pool_max = max_bytes;
    pthread_mutex_unlock(&gulbara_pool_lock);
    for (i = 0; i < n; i++)
        free(kept[i].p);
    return bytes;
}

static void gulbara_pool_stats(size_t* out) {
    pthread_once(&gulbara_pool_once, gulbara_pool_register);
    pthread_mutex_lock(&gulbara_pool_lock);
    out[0] = (size_t)gulbara_n_kept;
    out[1] = gulbara_kept_bytes;
    out[2] = (size_t)gulbara_n_live;
    out[3] = gulbara_pool_reused;
    out[4] = gulbara_pool_max;
    pthread_mutex_unlock(&gulbara_pool_lock);
}

#endif
