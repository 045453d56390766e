# cython: language_level=3
"""Typedefs and constants shared by gulbara's C-level modules (declarations
only: the functions on them are in ``_keys.pxd``, ``_masks.pxd`` and ``_movegen``)."""

from libc.stdint cimport uint8_t, uint32_t, uint64_t

cdef enum:
    N_POINTS = 24          # RULES §1.2
    N_CHECKERS = 15        # RULES §1.1
    MAX_STAGE_DICE = 4     # RULES §3.1
    HOME_BITS = 0x3F       # own points 1..6 (RULES §1.2)
    BOARD_BITS = 0xFFFFFF  # own points 1..24
    # The most ends one stage can have, the size of every buffer one stage is
    # generated into: four equal dice give at most C(24 + 3, 4) = 17,550
    # distinct step multisets (RULES §3.7), two different dice at most
    # 24 * 2 * 24 plays.
    STAGE_CAPACITY = 17600

# A position: each side's counts in its own numbering (RULES §1.2-1.3).
# cnt[s][p] for own point p = 1..24 (index 0 unused), occ[s] bit p-1 set when
# cnt[s][p] > 0, off[s] checkers borne off. No interior pointers: copy is
# assignment.
ctypedef struct Pos:
    uint8_t cnt[2][25]
    uint32_t occ[2]
    uint8_t off[2]

# One step (RULES §2.1), in the mover's numbering.
ctypedef struct Step:
    uint8_t frm
    uint8_t die

# The mover's 24 counts packed as 4-bit nibbles (own point p in bits
# 4*(p-1) .. 4*(p-1)+3): lo holds points 1..16, hi points 17..24. Exact: the
# borne-off count is 15 minus the sum, and the opponent never changes within
# a stage, so equal keys mean equal positions.
ctypedef struct Key96:
    uint64_t lo
    uint32_t hi

# One distinct end of a stage with its canonical steps (RULES §3.7-3.8).
ctypedef struct StageEnd:
    Key96 key
    uint8_t n_steps
    uint8_t ends_game
    Step steps[MAX_STAGE_DICE]
