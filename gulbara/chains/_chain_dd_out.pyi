"""Type stub of the outcomes of a chain's decision diagram (gulbara/chains/_chain_dd_out.pyx):
its Python entry point is a test hook; the rest is cimported."""

from typing import Dict, Union

def _py_last_diagram() -> Dict[str, Union[int, bool]]: ...
