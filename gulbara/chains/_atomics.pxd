# cython: language_level=3
"""The atomic operations on the counters and flags that the threads of one
enumeration share (GCC/Clang atomics), all inline."""

cdef extern from *:
    """
    #ifndef GULBARA_ATOMICS_DEFINED
    #define GULBARA_ATOMICS_DEFINED
    /* Counters shared by the threads of one enumeration (GCC/Clang atomics). */
    static inline Py_ssize_t gulbara_atomic_add(Py_ssize_t* p, Py_ssize_t v) {
        return __atomic_add_fetch(p, v, __ATOMIC_RELAXED);
    }
    static inline int gulbara_atomic_next(int* p) {
        return __atomic_fetch_add(p, 1, __ATOMIC_RELAXED);
    }
    static inline int gulbara_atomic_load(int* p) {
        return __atomic_load_n(p, __ATOMIC_RELAXED);
    }
    /* Set *p to v unless another failure was recorded first. */
    static inline void gulbara_first_error(int* p, int v) {
        int expected = 0;
        __atomic_compare_exchange_n(p, &expected, v, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
    }
    /* Flags and counts one thread sets for another: what the setter wrote before
       the store (or the add) is seen by the thread whose load sees it. */
    static inline int gulbara_load_acquire(const int* p) {
        return __atomic_load_n(p, __ATOMIC_ACQUIRE);
    }
    static inline void gulbara_store_release(int* p, int v) {
        __atomic_store_n(p, v, __ATOMIC_RELEASE);
    }
    static inline int gulbara_add_release(int* p, int v) {
        return __atomic_add_fetch(p, v, __ATOMIC_RELEASE);
    }
    #endif
    """
    Py_ssize_t atomic_add "gulbara_atomic_add"(Py_ssize_t* p, Py_ssize_t v) noexcept nogil
    int atomic_load "gulbara_atomic_load"(int* p) noexcept nogil
    int atomic_next "gulbara_atomic_next"(int* p) noexcept nogil
    int load_acquire "gulbara_load_acquire"(const int* p) noexcept nogil
    void store_release "gulbara_store_release"(int* p, int v) noexcept nogil
    int add_release "gulbara_add_release"(int* p, int v) noexcept nogil
    void first_error "gulbara_first_error"(int* p, int v) noexcept nogil
