# cython: language_level=3
"""POSIX threads for the chains, all inline (no extension module of its own;
a module that cimports this needs setup.py's threads flag):
``run_threads(n, fn, arg)`` runs fn(arg, t) on n threads, t = 0 on the
calling thread, 1..n-1 on threads started for the call and joined before it
returns; a thread that cannot be started leaves its share to the others. It
returns the threads that ran. ``start_thread(thread, fn, arg, t)`` runs
fn(arg, t) on a new thread while the caller goes on (False if it could not be
started), joined by ``join_thread(thread)``."""

ctypedef void (*task_fn)(void*, int) noexcept nogil

cdef extern from *:
    """
    #ifndef GULBARA_THREADS_DEFINED
    #define GULBARA_THREADS_DEFINED
    #include <pthread.h>
    /* A thread running fn(arg, t) (start_thread, join_thread). */
    typedef struct {
        pthread_t id;
        void (*fn)(void*, int);
        void* arg;
        int t;
    } gulbara_thread;
    static inline void* gulbara_thread_main(void* p) {
        gulbara_thread* thread = (gulbara_thread*)p;
        thread->fn(thread->arg, thread->t);
        return NULL;
    }
    static inline int gulbara_start_thread(gulbara_thread* thread, void (*fn)(void*, int),
                                           void* arg, int t) {
        thread->fn = fn;
        thread->arg = arg;
        thread->t = t;
        return pthread_create(&thread->id, NULL, gulbara_thread_main, thread) == 0;
    }
    static inline void gulbara_join_thread(gulbara_thread* thread) {
        pthread_join(thread->id, NULL);
    }
    #endif
    """
    ctypedef struct Thread "gulbara_thread":
        pass
    bint c_start_thread "gulbara_start_thread"(Thread* thread, task_fn fn, void* arg,
                                               int t) noexcept nogil
    void c_join_thread "gulbara_join_thread"(Thread* thread) noexcept nogil

cdef enum:
    MAX_THREADS = 64          # threads run_threads starts at most

cdef inline bint start_thread(Thread* thread, task_fn fn, void* arg, int t) noexcept nogil:
    return c_start_thread(thread, fn, arg, t)


cdef inline void join_thread(Thread* thread) noexcept nogil:
    c_join_thread(thread)


cdef inline int run_threads(int n, task_fn fn, void* arg) noexcept nogil:
    cdef Thread threads[MAX_THREADS]
    cdef int started = 0, t
    for t in range(1, min(n, MAX_THREADS)):
        if not c_start_thread(&threads[started], fn, arg, t):
            break                    # (the tasks take their work from shared counters)
        started += 1
    fn(arg, 0)
    for t in range(started):
        c_join_thread(&threads[t])
    return started + 1
