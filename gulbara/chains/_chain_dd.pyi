"""Type stub of whole chains by a decision diagram (gulbara/chains/_chain_dd.pyx): the module has
no Python entry point; the chain engine and the outcomes (_chain_dd_out) cimport it."""
