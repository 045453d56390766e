"""Type stub of the whole-chain engine (gulbara/chains/_chain_engine.pyx): it has no Python
entry points (its strategy comes with each call, a ChainPlan; gulbara/chains/_chains.pyx wraps
it); everything else is cimported."""
