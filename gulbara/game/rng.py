"""The dice generator of gulbara, in Python: the twin of ``_rng.pxd``.

Game ``g`` of a run seeded ``seed`` draws from two xoshiro256** generators seeded by
splitmix64 from ``(seed, g, stream)``: stream 0 gives its dice, stream 1 its policies' random
choices. :class:`gulbara.Game` (``Game(seed=s)``, game 0 of the run seeded ``s``), native
self-play and the arena all draw their dice this way, so one seed means one dice stream.
"""

from typing import Tuple

from gulbara.errors import checked_int

__all__ = ["Rng"]

_MASK64 = (1 << 64) - 1


def _splitmix64(state: int) -> Tuple[int, int]:
    state = (state + 0x9E3779B97F4A7C15) & _MASK64
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
    return state, z ^ (z >> 31)


def _rotl(v: int, k: int) -> int:
    return ((v << k) | (v >> (64 - k))) & _MASK64


class Rng:
    """The self-play generator: xoshiro256** seeded by splitmix64 from ``(seed, game, stream)``.

    Stream 0 of a game gives its dice, stream 1 its policies' random choices.
    ``below(n)`` is exactly uniform (it rejects the ``2**64 mod n`` lowest
    outputs); a die is ``below(6) + 1``.

    >>> rng = Rng(1, game=0, stream=0)
    >>> [rng.die() + 1 for _ in range(6)]
    [2, 6, 2, 2, 5, 2]
    """

    __slots__ = ("_s",)

    def __init__(self, seed: int, game: int = 0, stream: int = 0) -> None:
        x, mix = _splitmix64(checked_int(seed, "seed", 0, _MASK64, bounds="0 .. 2**64 - 1"))
        game = checked_int(game, "game", 0, _MASK64, bounds="0 .. 2**64 - 1")
        stream = checked_int(stream, "stream", 0, _MASK64, bounds="0 .. 2**64 - 1")
        x, mix = _splitmix64(mix ^ ((game * 0xD1B54A32D192ED03) & _MASK64))
        x = mix ^ ((stream * 0x8CB92BA72F3D8DD7) & _MASK64)
        s = []
        for _ in range(4):
            x, z = _splitmix64(x)
            s.append(z)
        self._s = s

    def copy(self) -> "Rng":
        """An independent generator at the same point of the same stream."""
        other = Rng.__new__(Rng)
        other._s = list(self._s)
        return other

    def next(self) -> int:
        """The next 64-bit output."""
        s = self._s
        result = (_rotl((s[1] * 5) & _MASK64, 7) * 9) & _MASK64
        t = (s[1] << 17) & _MASK64
        s[2] ^= s[0]
        s[3] ^= s[1]
        s[1] ^= s[2]
        s[0] ^= s[3]
        s[2] ^= t
        s[3] = _rotl(s[3], 45)
        return result

    def below(self, n: int) -> int:
        """Uniform in ``0 .. n - 1``; ``n`` is an int ``1 .. 2**64``."""
        return self._below(checked_int(n, "n", 1, 1 << 64, bounds="1 .. 2**64"))

    def _below(self, n: int) -> int:
        threshold = (2**64 - n) % n
        while True:
            x = self.next()
            if x >= threshold:
                return x % n

    def die(self) -> int:
        """A die as :class:`gulbara.Game`'s ``draw`` wants it: 0..5."""
        return self._below(6)
