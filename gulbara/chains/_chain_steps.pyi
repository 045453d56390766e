"""Type stub of the steps of one outcome of a chain (gulbara/chains/_chain_steps.pyx): the module
has no Python entry point; _chains cimports it."""
