# cython: language_level=3
"""What the running CPU has, asked of the CPU itself (CPUID), inline C shared by the compiled
modules (this file is the implementation: ``_cpuid.pyx`` and ``gulbara/core/_bits.pxd`` use it)."""

cdef extern from *:
    """
    #ifndef GULBARA_CPUID_DEFINED
    #define GULBARA_CPUID_DEFINED
    #if (defined(__GNUC__) || defined(__clang__)) && (defined(__x86_64__) || defined(__i386__))
    #include <cpuid.h>
    /* LZCNT: CPUID leaf 0x80000001, ECX bit 5 ("abm" in /proc/cpuinfo). */
    static inline int gulbara_cpu_has_lzcnt(void) {
        unsigned int a, b, c, d;
        if (!__get_cpuid(0x80000001u, &a, &b, &c, &d)) return 0;
        return (int)((c >> 5) & 1u);
    }
    #define GULBARA_CPUID_X86 1
    #else
    static inline int gulbara_cpu_has_lzcnt(void) { return 0; }
    #define GULBARA_CPUID_X86 0
    #endif
    /* Whether this module was compiled to use LZCNT (-mlzcnt, or a -march that has it). */
    #if defined(__LZCNT__)
    #define GULBARA_COMPILED_LZCNT 1
    #else
    #define GULBARA_COMPILED_LZCNT 0
    #endif
    #endif
    """
    # whether the running CPU has the LZCNT instruction (always 0 off x86)
    bint cpu_has_lzcnt "gulbara_cpu_has_lzcnt"() noexcept nogil
    # whether the CPU was asked at all: an x86 CPU and a compiler that reads CPUID
    const bint cpuid_x86 "GULBARA_CPUID_X86"
    # whether the module that includes this was compiled to use LZCNT
    const bint compiled_lzcnt "GULBARA_COMPILED_LZCNT"
