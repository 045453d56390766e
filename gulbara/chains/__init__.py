"""Whole chains and remainders (RULES §4.3-4.4, §5): the Python entry points (``enumeration``)
and the native engines: stage by stage (``_chain_engine``), by decision diagram (``_chain_dd``,
``_chain_dd_out``), the steps of one outcome (``_chain_steps``), the order a big stage is expanded
in (``_buckets``), and what they share: the key sets (``_keysets``), the sort of keys by hash
(``_key_sort``), the memory meter and buffer pool (``_memory``), the threads and atomics
(``_threads``, ``_atomics``), an enumeration's shared state (``_shared``) and the result codes
(``_status``).
"""
from gulbara.chains.enumeration import *  # noqa: F401,F403
from gulbara.chains.enumeration import __all__
