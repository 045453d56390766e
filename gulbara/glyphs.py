"""The checker glyphs of every text picture: the ASCII board, ``gulbara play``, env renders.

White is ``O`` (``●`` where Unicode is drawn), Black ``X`` (``○``).

>>> glyph(0), glyph(1), glyph(0, unicode=True)
('O', 'X', '●')
"""

__all__ = ["ASCII", "UNICODE", "glyph"]

#: (White's, Black's) in plain ASCII.
ASCII = ("O", "X")
#: (White's, Black's) where Unicode is drawn (``gulbara play`` without ``--ascii``).
UNICODE = ("●", "○")


def glyph(seat: int, unicode: bool = False) -> str:
    """The glyph of ``seat``'s checkers."""
    return (UNICODE if unicode else ASCII)[seat]
