"""The move generator: positions, stages, notation, boards and batches (RULES §1-3).

The compiled core (``_movegen``, ``_batch``) and its declarations (``_types.pxd``, ``_bits.pxd``,
...), the rules-literal reference (``_reference``) behind the ``GULBARA_BACKEND`` switch, and
their Python front ends (``play``, ``board``, ``batch``). Imports only the foundation
(``gulbara.errors``, ``gulbara.rules``, ``gulbara.conventions``).
"""
