"""Type stub of the chains' memory (gulbara/chains/_memory.pyx): the buffer pool's controls; the
meter, the tables' blocks and the big blocks are cimported."""

from typing import Dict, Optional

def buffer_pool_release(max_bytes: Optional[int] = ...) -> int: ...
def buffer_pool_stats() -> Dict[str, int]: ...
