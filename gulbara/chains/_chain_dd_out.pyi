"""Type stub of the outcomes of a chain's decision diagram (gulbara/chains/_chain_dd_out.pyx):
its Python entry point reports a diagram's sizes in the memory meter; the rest is cimported."""

from typing import Dict

def diagram_sizes() -> Dict[str, int]: ...
