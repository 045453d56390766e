# cython: language_level=3
"""The steps of one outcome of a chain (``_chains``: ``ChainEnds.steps``): the
first stage-by-stage play, each stage's ends in canonical order (RULES §3.8),
that leads to it, found by a depth-first search over the stages with the
stage rules of ``_movegen``, pruned by what checkers only moving down can
still reach."""

from libc.stdint cimport uint8_t, uint64_t
from libc.stdlib cimport malloc, free

from gulbara.core._keys cimport key_count, pos_mover_key, pos_set_mover_key
from gulbara.chains._keysets cimport KeySet, keyset_add
from gulbara.core._types cimport Pos, Step, Key96, StageEnd, MAX_STAGE_DICE, STAGE_CAPACITY
from gulbara.core._movegen cimport stage_generate
from gulbara.chains._outcome_tags cimport (STOP_COMPLETE, STOP_STALLED, STOP_UNSTARTED, GAME_OVER_TAG,
                                    make_tag, key_k1)


cdef bint key_can_reach(Key96 a, Key96 b) noexcept nogil:
    """Whether checkers only moving down could turn mover key ``a`` into ``b``."""
    cdef int p, above_a = 0, above_b = 0
    for p in range(24, 0, -1):
        above_a += key_count(a.lo, a.hi, p)
        above_b += key_count(b.lo, b.hi, p)
        if above_a < above_b:
            return False
    return True


cdef int chain_recover(Pos* q, int seat, const uint8_t* numbers, const uint8_t* counts,
                       int n_stages, bint is_chain, int stage, Key96 target,
                       uint64_t target_tag, Step* path, int* stage_steps,
                       KeySet* failed, int* last_stage) noexcept nogil:
    """Find the first stage-by-stage play (each stage's ends in canonical order)
    that leads to the outcome (target, target_tag; GAME_OVER_TAG: the game
    ended at any stage). 1 found (``last_stage``: the stage where it ends),
    0 not, -1 no memory."""
    cdef uint8_t dice[MAX_STAGE_DICE]
    cdef int n = numbers[stage], count = counts[stage], n_ends, playable, j, k, found
    cdef Key96 here = pos_mover_key(q, seat), key
    cdef uint64_t tag
    cdef int offset = 0
    for j in range(stage):
        offset += stage_steps[j]
    if keyset_add(failed, here.lo, key_k1(here, <uint64_t>(stage + 1) << 24)) == 0:
        return 0     # this (stage, position) was explored before without success
    for j in range(count):
        dice[j] = n
    cdef StageEnd* ends = <StageEnd*>malloc(STAGE_CAPACITY * sizeof(StageEnd))
    if ends == NULL:
        return -1
    stage_generate(q, seat, dice, count, ends, STAGE_CAPACITY, &n_ends, &playable)
    found = 0
    if is_chain and playable == 0:
        tag = make_tag(STOP_UNSTARTED if stage == 0 else STOP_STALLED, n, 0)
        if here.lo == target.lo and here.hi == target.hi and tag == target_tag:
            stage_steps[stage] = 0
            last_stage[0] = stage
            found = 1
        free(ends)
        return found
    for j in range(n_ends):
        key = ends[j].key
        if ends[j].ends_game:
            tag = GAME_OVER_TAG
        elif is_chain and playable < count:
            tag = make_tag(STOP_STALLED, n, playable)
        elif stage == n_stages - 1:
            tag = make_tag(STOP_COMPLETE, n, count)
        else:
            tag = 0xFFFF    # goes on to the next stage
        if tag != 0xFFFF:
            if key.lo == target.lo and key.hi == target.hi and tag == target_tag:
                last_stage[0] = stage
                found = 1
        elif key_can_reach(key, target):
            pos_set_mover_key(q, seat, key)
            for k in range(ends[j].n_steps):
                path[offset + k] = ends[j].steps[k]
            stage_steps[stage] = ends[j].n_steps
            found = chain_recover(q, seat, numbers, counts, n_stages, is_chain, stage + 1,
                                  target, target_tag, path, stage_steps, failed, last_stage)
            pos_set_mover_key(q, seat, here)
            if found < 0:
                break
        if found == 1:
            for k in range(ends[j].n_steps):
                path[offset + k] = ends[j].steps[k]
            stage_steps[stage] = ends[j].n_steps
            break
    free(ends)
    return found
