"""Type stubs for gulbara.cpu._cpuid (the running CPU's features)."""

ASKS_X86: bool

def has_lzcnt() -> bool: ...
