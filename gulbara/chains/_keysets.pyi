"""Type stub of the chains' hash sets (gulbara/chains/_keysets.pyx): the module has no Python
entry point; the chain engine cimports it."""
