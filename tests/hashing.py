"""Slow Python twins of the core's hashes (docs/dev/backend.md), written apart from gulbara's
own Python layer so that tests check the compiled code against an independent statement."""

MASK64 = (1 << 64) - 1


def mix64(z):
    """The splitmix64 finaliser."""
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return z ^ (z >> 31)


def key_hash(a, b):
    """The hash of a chain table's 128-bit key (a, b) (_keys.pxd key_hash); on
    Python ints, or element by element on numpy uint64 arrays (the same
    arithmetic modulo 2**64)."""
    return mix64(a ^ ((b * 0x9E3779B97F4A7C15) & MASK64))

