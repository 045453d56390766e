"""Whole chains and remainders (RULES §4.3-4.4, §5): the Python entry points (``enumeration``)
and the native engines: stage by stage (``_chain_engine``), by decision diagram (``_chain_dd``,
``_chain_dd_out``), the steps of one outcome (``_chain_steps``), and the key sets, memory meter,
threads and buffer pool they share (``_tables``, ``_buckets``).
"""
from gulbara.chains.enumeration import *  # noqa: F401,F403
from gulbara.chains.enumeration import __all__
