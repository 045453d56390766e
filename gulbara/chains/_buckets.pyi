"""Type stub of the buckets of a stage's positions (gulbara/chains/_buckets.pyx): the module has
no Python entry point; the chain engine cimports it."""
