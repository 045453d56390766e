# cython: language_level=3
"""The running CPU's features that choose gulbara's code paths (``gulbara.cpu``).

>>> isinstance(has_lzcnt(), bool)
True
"""

from gulbara.cpu._features cimport cpu_has_lzcnt, cpuid_x86


def has_lzcnt():
    """Whether the running CPU has the LZCNT instruction (False off x86, or where the
    compiler cannot ask the CPU)."""
    return bool(cpu_has_lzcnt())


#: Whether this build asks an x86 CPU for its features (GCC or Clang on x86).
ASKS_X86 = bool(cpuid_x86)
