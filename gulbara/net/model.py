"""A learned evaluator: the gb1 value network, its weights file and its numpy twin.

A :class:`ValueNet` maps a game state that waits for a roll, a chain stage or
a remainder stage to three probabilities for its *side to act*: P(win),
P(win with mars), P(lose with mars) (RULES §7.1). Its equity is
``2 P(win) - 1 + P(win mars) - P(lose mars)`` points (``2 P(win) - 1`` under
rules without the mars, RULES §8). Inference runs in native code (the network
``gulbara.net._net``, its inputs ``_inputs``, the stage chooser ``_choose``, the
searches ``_search``); :meth:`ValueNet.forward` and :func:`inputs` are the slow,
obvious numpy and Python twins the tests check it against.
The inputs (layout ``gb1``) are listed in docs/user/bots.md.

Weights are an ``.npz`` file with ``format_version``, ``layout``, ``w1``
(inputs x hidden), ``b1``, ``w2`` (hidden x 3), ``b2`` and free-form
metadata (how the network was trained). :func:`default_net` is the network
shipped in the package for a rule set (the default rules' ``gb1.npz``, or one
trained under plain doubles), loaded once on first use; it is the native
policy's (``policy="net"``). :func:`bot_net` is the ``net`` and ``net2`` bots':
under the default rules the average of four shipped networks (stronger, four
times the arithmetic).

>>> net = ValueNet.random(hidden=8, seed=1)
>>> game = gulbara.Game(seed=3)
>>> values = net.stage_values(game)          # one value per legal play
>>> len(values) == len(game.legal_plays())
True
>>> x = inputs(_waiting(game))
>>> bool(abs(net.forward(x[None])[0] - net.native_forward(x[None])[0]).max() < 1e-5)
True
"""

import hashlib
import io
import math
import os
import zipfile
from functools import lru_cache
from typing import Callable, Dict, Optional, Sequence, Tuple, Union

import numpy as np

from gulbara.net import _choose, _inputs, _net, _search
from gulbara.eval.greedy import own_counts
from gulbara.conventions import other_point
from gulbara.errors import GameStateError, GulBaraError, checked_int, checked_seat, shown
from gulbara.files import replaced_atomically
from gulbara.game.driver import current_game, decision_game
from gulbara.rules import DEFAULT_RULES, Rules, checked_rules
from gulbara.game.state_codes import MAX_STATE_COUNT, escalates

__all__ = [
    "ValueNet", "inputs", "equity", "default_net", "bot_net", "shipped_net_path", "load",
    "net_scores", "DEFAULT_NET_PATH", "PLAIN_DOUBLES_NET_PATH", "BOT_MEMBER_PATHS",
    "FORMAT_VERSION", "LAYOUT", "N_INPUTS", "InvalidNetworkError",
]

#: The weights file format this module reads and writes.
FORMAT_VERSION = 1
#: The input layout (docs/user/bots.md).
LAYOUT = _inputs.LAYOUT
#: Inputs of the layout.
N_INPUTS = _inputs.N_INPUTS
#: The most hidden units a network may have (the native code's bound).
MAX_HIDDEN = 256
#: The shipped network (trained under the default rules, RULES §1-7).
DEFAULT_NET_PATH = os.path.join(os.path.dirname(os.path.dirname(__file__)), "data", "gb1.npz")
#: The shipped network for rules without escalation (``Rules(escalation=False)``, the
#: ``plain-doubles`` preset): a double is always four moves, so no chain or remainder.
PLAIN_DOUBLES_NET_PATH = os.path.join(os.path.dirname(os.path.dirname(__file__)), "data", "gb1-plain-doubles.npz")
#: The networks the net bots average under escalating rules (:func:`bot_net`), in the
#: order averaged. Each is made in three runs of ``gulbara train``: ``--games 1000000 --seed S
#: --lam 0.9`` (S = 1, 2, 3; the fourth is :data:`DEFAULT_NET_PATH`), then 2,000,000 more games
#: from that file (``--init``, a step of 0.0005 halving every 500,000 games: the ``-long``
#: files), then 600,000 more at a step falling from 0.0001 to 0.00001 (``-long-fine``, the
#: members); each file is its run's best checkpoint (docs/user/bots.md, "The net bots' network").
BOT_MEMBER_PATHS = tuple(
    os.path.join(os.path.dirname(os.path.dirname(__file__)), "data", name)
    for name in ("gb1-lam09-s1-long-fine.npz", "gb1-lam09-s2-long-fine.npz",
                 "gb1-lam09-s3-long-fine.npz", "gb1-long-fine.npz"))


#: The most a weights file may expand to, all its members together (a gb1 network of 256
#: hidden units with its metadata takes about 0.5 MB; the shipped files about 62 KB): checked
#: on the archive's directory before anything is read, so a crafted file cannot make gulbara
#: allocate more (a decompression bomb, a header declaring a huge shape).
MAX_FILE_BYTES = 16 * 1024 * 1024
#: The most members a weights file may hold (the shipped files hold about 30).
MAX_MEMBERS = 1024


class InvalidNetworkError(GulBaraError):
    """A weights file or array that is not a gb1 network."""


def _check_archive(path) -> None:
    """:class:`InvalidNetworkError` unless the ``.npz`` archive ``path`` would expand to at
    most :data:`MAX_FILE_BYTES` in at most :data:`MAX_MEMBERS` members, each ``.npy`` member
    declaring no more data than it holds: read from the zip directory and the members'
    headers alone, before any array is allocated. (Not an archive: left to ``np.load``.)"""
    try:
        archive = zipfile.ZipFile(path)
    except (OSError, zipfile.BadZipFile, ValueError, EOFError):
        return
    with archive:
        members = archive.infolist()
        if len(members) > MAX_MEMBERS:
            raise InvalidNetworkError(f"{path!r} holds {len(members):,} members; a weights file "
                                      f"holds at most {MAX_MEMBERS:,}")
        total = sum(member.file_size for member in members)
        if total > MAX_FILE_BYTES:
            raise InvalidNetworkError(f"{path!r} would expand to {total:,} bytes; a weights "
                                      f"file holds at most {MAX_FILE_BYTES:,}")
        for member in members:
            with archive.open(member) as stream:
                try:
                    version = np.lib.format.read_magic(stream)
                    if version == (1, 0):
                        shape, _, dtype = np.lib.format.read_array_header_1_0(stream)
                    else:
                        shape, _, dtype = np.lib.format.read_array_header_2_0(stream)
                except (ValueError, OSError, EOFError, zipfile.BadZipFile) as exc:
                    raise InvalidNetworkError(f"{path!r}: member {member.filename!r} is not an "
                                              f"array: {exc}") from None
            size = dtype.itemsize
            for n in shape:
                size *= int(n)
            if dtype.hasobject or size > member.file_size:
                raise InvalidNetworkError(f"{path!r}: member {member.filename!r} declares "
                                          f"{dtype} of shape {tuple(shape)} ({size:,} bytes) "
                                          f"but holds {member.file_size:,} bytes")


def equity(outputs: np.ndarray, mars: bool = True) -> np.ndarray:
    """Equity in points of network outputs (``... x 3``): 2 P(win) - 1 + P(win mars) - P(lose mars),
    or, for rules without the mars (``mars=False``, RULES §8: every game is worth 1), 2 P(win) - 1.

    >>> float(equity(np.array([0.5, 0.0, 0.0])))
    0.0
    >>> float(equity(np.array([1.0, 1.0, 0.0]))), float(equity(np.array([1.0, 1.0, 0.0]), False))
    (2.0, 1.0)
    """
    outputs = np.asarray(outputs, dtype=np.float64)
    if not mars:
        return 2.0 * outputs[..., 0] - 1.0
    return 2.0 * outputs[..., 0] - 1.0 + outputs[..., 1] - outputs[..., 2]


def _real_array(name: str, values) -> np.ndarray:
    """``values`` as a float32 array; :class:`InvalidNetworkError` unless they are real numbers
    (no complex, string, structured or object arrays)."""
    try:
        array = np.asarray(values)
    except ValueError as exc:                   # ragged nested lists
        raise InvalidNetworkError(f"{name} is not an array of numbers: {exc}") from None
    if array.dtype.kind not in "biuf":
        raise InvalidNetworkError(f"{name} must hold real numbers, got an array of "
                                  f"{array.dtype}")
    return array.astype(np.float32)


def _checked_hidden(hidden) -> int:
    return checked_int(hidden, "hidden", 1, MAX_HIDDEN, InvalidNetworkError)


def _sigmoid(z: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-z))


class ValueNet:
    """A gb1 value network: one hidden layer of sigmoids, three sigmoid outputs."""

    def __init__(self, w1, b1, w2, b2, meta: Optional[Dict[str, object]] = None) -> None:
        w1 = _real_array("w1", w1)
        if w1.ndim != 2 or w1.shape[0] != N_INPUTS:
            raise InvalidNetworkError(f"w1 must be {N_INPUTS} x hidden, got shape {w1.shape}")
        hidden = w1.shape[1]
        if not 1 <= hidden <= MAX_HIDDEN:
            raise InvalidNetworkError(f"hidden must be 1..{MAX_HIDDEN}, got {hidden} "
                                      f"(w1 of shape {w1.shape})")
        shapes = {"b1": (hidden,), "w2": (hidden, 3), "b2": (3,)}
        arrays = {"b1": b1, "w2": w2, "b2": b2}
        for name, shape in shapes.items():
            arrays[name] = _real_array(name, arrays[name])
            if arrays[name].shape != shape:
                raise InvalidNetworkError(f"{name} must have shape {shape}, got "
                                          f"{arrays[name].shape}")
        params = np.concatenate([w1.ravel(), arrays["b1"], arrays["w2"].T.ravel(), arrays["b2"]])
        if not np.isfinite(params).all():
            raise InvalidNetworkError("the weights are not all finite")
        self._params = params
        self._params.setflags(write=False)
        self.hidden = hidden
        self.meta = dict(meta or {})
        self._native: Optional[_net.Network] = None

    # -- construction and files -------------------------------------------

    @classmethod
    def random(cls, hidden: int = 64, seed: int = 0, scale: float = 0.1) -> "ValueNet":
        """Small uniform random weights in ``[-scale, scale]`` (numpy's PCG64, seeded).

        ``hidden`` is an int 1..256, ``seed`` an int >= 0, ``scale`` a finite number >= 0
        (:class:`InvalidNetworkError` otherwise; ``TypeError`` for a wrong type)."""
        hidden = _checked_hidden(hidden)
        seed = checked_int(seed, "seed", 0, error=InvalidNetworkError)
        if isinstance(scale, bool) or not isinstance(scale, (int, float, np.integer, np.floating)):
            raise TypeError(f"scale must be a number, not {type(scale).__name__}")
        if not (math.isfinite(scale) and scale >= 0):
            raise InvalidNetworkError(f"scale must be a finite number >= 0, got {scale!r}")
        rng = np.random.Generator(np.random.PCG64(seed))
        params = rng.uniform(-scale, scale, _net.parameter_count(hidden)).astype(np.float32)
        return cls.from_params(params, hidden)

    @classmethod
    def from_params(cls, params: np.ndarray, hidden: int,
                    meta: Optional[Dict[str, object]] = None) -> "ValueNet":
        """From the flat native parameter vector (w1, b1, w2 output-major, b2)."""
        hidden = _checked_hidden(hidden)
        params = _real_array("params", params)
        if params.shape != (_net.parameter_count(hidden),):
            raise InvalidNetworkError(f"{hidden} hidden units need {_net.parameter_count(hidden)} "
                                      f"parameters, got shape {params.shape}")
        a = N_INPUTS * hidden
        w1 = params[:a].reshape(N_INPUTS, hidden)
        b1 = params[a:a + hidden]
        w2 = params[a + hidden:a + 4 * hidden].reshape(3, hidden).T
        b2 = params[a + 4 * hidden:]
        return cls(w1, b1, w2, b2, meta)

    @classmethod
    def average(cls, nets: Sequence["ValueNet"]) -> "ValueNet":
        """One network whose pre-sigmoid outputs are the mean of ``nets``' (an ensemble):
        their hidden layers side by side, each output weight divided by their number.
        At most 256 hidden units in all.

        >>> a, b = ValueNet.random(8, seed=1), ValueNet.random(8, seed=2)
        >>> ValueNet.average([a, b]).hidden
        16
        """
        nets = list(nets)
        if not nets:
            raise InvalidNetworkError("average needs at least one network")
        for net in nets:
            if not isinstance(net, ValueNet):
                raise TypeError(f"average takes ValueNets, not {type(net).__name__}")
        hidden = sum(net.hidden for net in nets)
        if hidden > MAX_HIDDEN:
            raise InvalidNetworkError(f"the average would have {hidden} hidden units; "
                                      f"at most {MAX_HIDDEN}")
        parts = [net.arrays for net in nets]
        n = np.float32(len(nets))
        return cls(np.concatenate([p["w1"] for p in parts], axis=1),
                   np.concatenate([p["b1"] for p in parts]),
                   np.concatenate([p["w2"] / n for p in parts], axis=0),
                   sum(p["b2"].astype(np.float64) for p in parts) / len(nets),
                   {"averaged_sha256": ",".join(net.sha256() for net in nets)})

    @property
    def params(self) -> np.ndarray:
        """The flat float32 parameter vector (read-only)."""
        return self._params

    @property
    def arrays(self) -> Dict[str, np.ndarray]:
        h, a = self.hidden, N_INPUTS * self.hidden
        p = self._params
        return {"w1": p[:a].reshape(N_INPUTS, h), "b1": p[a:a + h],
                "w2": p[a + h:a + 4 * h].reshape(3, h).T.copy(), "b2": p[a + 4 * h:]}

    def sha256(self) -> str:
        """SHA-256 of the parameters' bytes (float32, little-endian): the network's identity."""
        return hashlib.sha256(self._params.astype("<f4").tobytes()).hexdigest()

    def save(self, path: str, **meta) -> None:
        """Write the weights and metadata (``meta`` adds to :attr:`meta`) as ``.npz``."""
        info = dict(self.meta)
        info.update(meta)
        extra = {f"meta_{k}": np.asarray(v) for k, v in info.items()}
        buffer = io.BytesIO()
        # (mypy matches the **dicts against savez's allow_pickle too)
        np.savez(buffer, format_version=np.int32(FORMAT_VERSION), layout=np.str_(LAYOUT),
                 **self.arrays, **extra)  # type: ignore[arg-type]
        with replaced_atomically(path, "wb") as f:     # nothing left behind on a failure
            f.write(buffer.getvalue())

    @classmethod
    def load(cls, path: str) -> "ValueNet":
        """Read a weights file; :class:`InvalidNetworkError` if it is not a gb1 network
        (a file that cannot be read, is not an ``.npz`` archive, is damaged, or holds
        members of the wrong kind)."""
        _check_archive(path)
        try:
            # (mmap_mode: a bare .npy file is mapped, not read: its header cannot allocate)
            data = np.load(path, allow_pickle=False, mmap_mode="r")
        except (OSError, ValueError, EOFError, zipfile.BadZipFile, MemoryError) as exc:
            raise InvalidNetworkError(f"cannot read weights {path!r}: {exc}") from None
        if not isinstance(data, np.lib.npyio.NpzFile):
            raise InvalidNetworkError(f"{path!r} is not an .npz archive of weights (it holds "
                                      f"one array)")
        with data:
            try:
                net = cls._from_npz(path, data)
            except InvalidNetworkError:
                raise
            except (OSError, ValueError, TypeError, EOFError, zipfile.BadZipFile,
                    MemoryError) as exc:
                raise InvalidNetworkError(f"cannot read weights {path!r}: {exc}") from None
        if net.is_saturated():
            raise InvalidNetworkError(
                f"{path!r}: the network scores every play of the test positions the same (its "
                f"units saturate: weights up to {float(np.abs(net.params).max()):.3g}), so it "
                "would play as the first play; it is not a trained gb1 network")
        return net

    def is_saturated(self) -> bool:
        """True if the network gives every end of the opening stages of the first four seeded
        games one value: its sigmoids saturate (huge finite weights) or it is constant, so
        as a bot it would always play the first play."""
        from gulbara.game.driver import Game
        values = np.concatenate([self.stage_values(Game(seed=seed)) for seed in range(4)])
        return bool(np.ptp(values) == 0.0)

    @classmethod
    def _from_npz(cls, path, data) -> "ValueNet":
        names = set(data.files)
        missing = {"format_version", "layout", "w1", "b1", "w2", "b2"} - names
        if missing:
            raise InvalidNetworkError(f"{path!r} lacks {', '.join(sorted(missing))}")
        version = data["format_version"]
        if version.shape != () or version.dtype.kind not in "iu":
            raise InvalidNetworkError(f"{path!r}: format_version must be one integer, got "
                                      f"{version.dtype.name} of shape {version.shape}")
        if int(version) != FORMAT_VERSION:
            raise InvalidNetworkError(f"{path!r} has format version {int(version)}, this "
                                      f"gulbara reads {FORMAT_VERSION}")
        layout = data["layout"]
        if layout.shape != () or layout.dtype.kind != "U":
            raise InvalidNetworkError(f"{path!r}: layout must be one string, got "
                                      f"{layout.dtype.name} of shape {layout.shape}")
        if str(layout) != LAYOUT:
            raise InvalidNetworkError(f"{path!r} has input layout {str(layout)!r}, not {LAYOUT!r}")
        meta = {k[5:]: data[k][()] if data[k].ndim == 0 else data[k]
                for k in names if k.startswith("meta_")}
        meta = {k: (v.item() if isinstance(v, np.generic) else v) for k, v in meta.items()}
        return cls(data["w1"], data["b1"], data["w2"], data["b2"], meta)

    # -- evaluation -------------------------------------------------------

    @property
    def native(self) -> "_net.Network":
        """The compiled network (built on first use)."""
        if self._native is None:
            self._native = _net.Network(self._params, self.hidden)
        return self._native

    def forward(self, x: np.ndarray) -> np.ndarray:
        """Outputs (``N x 3``) of inputs ``x`` (``N x N_INPUTS``): the numpy twin, float64."""
        a = self.arrays
        x = np.asarray(x, dtype=np.float64)
        h = _sigmoid(x @ a["w1"].astype(np.float64) + a["b1"])
        return _sigmoid(h @ a["w2"].astype(np.float64) + a["b2"])

    def outcome_values(self, chain, rolls: Tuple[int, int] = (4, 4), rules=None) -> np.ndarray:
        """The value in points, for the side that played, of each whole-turn outcome
        of ``chain`` (a :class:`gulbara.ChainEnds` of :func:`gulbara.chain_ends`,
        :func:`gulbara.remainder_ends` or a chunk of their streams), as ``float32``:
        native, the GIL released.

        An outcome that ends the game is worth its points (2 with a mars, RULES
        §7.1); one that passes a remainder is valued with the opponent to play that
        remainder first; otherwise the opponent rolls next after a chain, the player
        itself after a remainder (RULES §5.4), and the network values that state.
        ``rolls`` are (White's, Black's) rolls made so far, as ``Game.rolls_made``
        gives them at the chain's decision; they decide whether each side's next
        roll escalates (RULES §4.2). The default (4, 4) is mid-game: both escalate.
        ``rules`` (by default ``chain.rules``, the game's when the enumeration was
        given them) decide the mars and the escalation.

        >>> import gulbara
        >>> net = default_net()
        >>> chain = gulbara.chain_ends(gulbara.START_CODE, 0, 5)
        >>> values = net.outcome_values(chain, rolls=(4, 3))
        >>> values.shape, values.dtype.name, bool((abs(values) <= 2).all())
        ((44,), 'float32', True)
        """
        from gulbara.chains.enumeration import ChainEnds

        if not isinstance(chain, ChainEnds):
            raise TypeError(f"chain must be a ChainEnds, got {type(chain).__name__}")
        white, black = _checked_rolls(rolls)
        return _search.outcome_values(
            self.native, checked_rules(rules, chain.rules), np.ascontiguousarray(chain.boards),
            np.ascontiguousarray(chain.borne_off), np.ascontiguousarray(chain.remainder),
            np.ascontiguousarray(chain.ends_game).view(np.uint8), chain.seat, white, black,
            chain.is_chain)

    def native_forward(self, x: np.ndarray) -> np.ndarray:
        """Outputs of inputs ``x`` by the compiled forward pass (float32)."""
        x = np.ascontiguousarray(x, dtype=np.float32)
        if x.ndim != 2 or x.shape[1] != N_INPUTS:
            raise InvalidNetworkError(f"inputs must be N x {N_INPUTS}, got shape {x.shape}")
        return _net.forward_dense(self.native, x)

    def stage_values(self, game) -> np.ndarray:
        """The value (points, for the mover) of each legal play of ``game``'s stage, natively.

        ``game`` is a :class:`gulbara.Game` (or a :class:`gulbara.Match`, its current
        game) at a decision: ``TypeError`` for anything else, :class:`GameStateError`
        for a game not at a decision."""
        return _choose.stage_values(self.native, decision_game(game))

    def stage_values_python(self, game) -> np.ndarray:
        """:meth:`stage_values` through the Python :class:`~gulbara.Game` and numpy (the twin)."""
        mover = game.decision.seat
        values = []
        for play in game.legal_plays():
            after = game.copy(auto_roll=False)
            after.play(play)
            values.append(self.after_value(after, mover))
        return np.array(values)

    def after_value(self, after, mover: int, native: bool = False) -> float:
        """The value for ``mover`` of the state ``after`` one of its stage's ends
        (the network's output by numpy and Python, or with ``native`` natively)."""
        after = current_game(after)
        mover = checked_seat(mover, "mover")
        if after.is_over():
            result = after.result()
            if result.winner is None:
                return 0.0
            return float(result.points if result.winner == mover else -result.points)
        if native:
            out = self.native_forward(_inputs.encode_game(after)[None])[0]
        else:
            out = self.forward(inputs(after)[None])[0]
        e = float(equity(out, after.rules.mars))
        return e if after.to_move == mover else -e

    def deeper_outputs(self, game) -> np.ndarray:
        """The network's outputs one decision deeper, in White's frame (White wins,
        White mars, Black mars), natively: the targets of ``target="deeper"``
        training (:mod:`gulbara.net.train`). A game waiting for a roll is averaged over
        the 36 rolls, each answered by its mover's best play by
        :meth:`stage_values`; a chain or remainder stage by its best play. What
        follows the play is valued by the network, a finished game by its result.
        ``game`` is a :class:`gulbara.Game` (or a :class:`gulbara.Match`, its current
        game): ``TypeError`` for anything else, :class:`GameStateError` for a game in
        another state."""
        return _search.deeper_outputs(self.native, _deeper_game(game))

    def deeper_outputs_python(self, game) -> np.ndarray:
        """:meth:`deeper_outputs` through the Python :class:`~gulbara.Game` and numpy (the twin)."""
        if game.is_chance() and not game.is_opening():
            total = np.zeros(3)
            for a in range(1, 7):
                for b in range(a, 7):
                    after = game.copy(auto_roll=False)
                    after.roll(b, a)
                    total += self._best_play_outputs(after) * (1 if a == b else 2) / 36.0
            return total
        d = game.decision
        if d is None or not (d.is_chain or d.is_remainder):
            raise InvalidNetworkError("the deeper value is of a game waiting for a roll, a "
                                      "chain stage or a remainder stage")
        return self._best_play_outputs(game.copy(auto_roll=False))

    def _best_play_outputs(self, game) -> np.ndarray:
        """White-frame outputs after ``game``'s best play by the network (played on
        ``game``). The play is the native policy's (its values have their own twin,
        :meth:`stage_values_python`); what follows it is valued here by numpy."""
        plays = game.legal_plays()
        game.play(plays[int(np.argmax(self.stage_values(game)))])
        if game.is_over():
            r = game.result()
            mars = r.points == 2
            if r.winner is None:
                return np.array([0.5, 0.0, 0.0])
            return np.array([1.0, float(mars), 0.0] if r.winner == 0 else [0.0, 0.0, float(mars)])
        out = self.forward(inputs(game)[None])[0]
        if game.to_move == 0:
            return out
        return np.array([1.0 - out[0], out[2], out[1]])

    def __repr__(self) -> str:
        return f"ValueNet(hidden={self.hidden}, sha256={self.sha256()[:12]})"


def _point_units(counts: Sequence[int]) -> np.ndarray:
    out = np.zeros(96)
    for q in range(1, 25):
        c = counts[q]
        out[4 * (q - 1):4 * q] = (c >= 1, c >= 2, c >= 3, max(c - 3, 0) / 2.0)
    return out


def _ahead(mine: Sequence[int], theirs: Sequence[int]) -> Tuple[int, int]:
    """Points ``mine`` holds ahead of ``theirs``' rearmost checker (in their numbering),
    and the longest run of them."""
    back = max((q for q in range(1, 25) if theirs[q]), default=0)
    held = [mine[other_point(q)] > 0 for q in range(1, back)]
    best = run = 0
    for h in held:
        run = run + 1 if h else 0
        best = max(best, run)
    return sum(held), best


def inputs(game) -> np.ndarray:
    """The gb1 inputs (float64, ``N_INPUTS``) of a game waiting for a roll, a chain
    stage or a remainder stage, for its side to act: the Python twin of the native encoder."""
    if game.is_over() or game.is_opening() or game.to_move is None:
        raise InvalidNetworkError("the inputs describe a game waiting for a roll, a chain "
                                  "stage or a remainder stage")
    d = game.decision
    if d is not None and not (d.is_chain or d.is_remainder):
        raise InvalidNetworkError("the inputs describe a game waiting for a roll, a chain "
                                  "stage or a remainder stage, not a plain stage")
    me = game.to_move
    op = 1 - me
    pos = game.position
    mine, theirs = own_counts(pos, me), own_counts(pos, op)
    x = np.zeros(N_INPUTS)
    x[0:96] = _point_units(mine)
    x[96:192] = _point_units([0] + [theirs[other_point(q)] for q in range(1, 25)])
    x[192], x[193] = pos.borne_off(me) / 15.0, pos.borne_off(op) / 15.0
    x[194] = sum(q * mine[q] for q in range(1, 25)) / 360.0
    x[195] = sum(q * theirs[q] for q in range(1, 25)) / 360.0
    n, run = _ahead(mine, theirs)
    x[196], x[197] = n / 6.0, run / 6.0
    n, run = _ahead(theirs, mine)
    x[198], x[199] = n / 6.0, run / 6.0
    chain = d is not None and d.is_chain
    rolls = game.rolls_made
    total = rolls[0] + rolls[1]
    x[200] = escalates(game.rules, rolls[me] + 1, total + (2 if chain else 1))
    x[201] = escalates(game.rules, rolls[op] + 1, total + (1 if chain else 2))
    if d is not None:
        counts = [0] * 7
        counts[d.dice[0]] += len(d.dice)
        for number, count in d.following:
            counts[number] += count
        for q in range(1, 7):
            x[202 + q - 1] = counts[q] / 4.0
        x[208] = 1.0 if chain else 0.0
    return x


def _waiting(game):
    """A copy of ``game`` played on by its first plays until it waits for a roll (doctest)."""
    g = game.copy(auto_roll=False)
    while g.is_decision():
        g.play(g.legal_plays()[0])
    return g


def _deeper_game(game):
    """``game`` (a Game, or a Match's current game) waiting for a roll or at a chain or
    remainder stage, checked before the native code reads it."""
    game = current_game(game)
    if game.is_chance() and not game.is_opening():
        return game
    d = game.decision
    if d is None or not (d.is_chain or d.is_remainder):
        raise GameStateError("the deeper value is of a game waiting for a roll, a chain stage "
                             "or a remainder stage")
    return game


def _checked_rolls(rolls) -> Tuple[int, int]:
    """(White's, Black's) rolls made, checked: two ints 0 .. MAX_STATE_COUNT."""
    if not isinstance(rolls, (tuple, list)) or len(rolls) != 2:
        raise TypeError(f"rolls must be a pair (White's, Black's rolls made), got {shown(rolls)}")
    return (checked_int(rolls[0], "rolls[0]", 0, MAX_STATE_COUNT),
            checked_int(rolls[1], "rolls[1]", 0, MAX_STATE_COUNT))


def net_scores(net: Union[str, "ValueNet", None] = None, *, rolls: Tuple[int, int] = (4, 4),
               rules=None) -> Callable[[object], np.ndarray]:
    """An evaluator for :func:`gulbara.chain_best`: each outcome's value after the
    turn by the network ``net`` (:func:`load`'s argument; the shipped one by
    default), :meth:`ValueNet.outcome_values` with ``rolls`` and ``rules``.

    >>> import gulbara
    >>> best = gulbara.chain_best(gulbara.START_CODE, 0, 5, k=1, evaluate=net_scores())
    >>> best[0].score == float(default_net().outcome_values(
    ...     gulbara.chain_ends(gulbara.START_CODE, 0, 5)).max())
    True
    """
    rules = checked_rules(rules)
    network = load(net, rules)
    rolls = _checked_rolls(rolls)

    def evaluate(chain) -> np.ndarray:
        return network.outcome_values(chain, rolls, rules)

    return evaluate


def load(path_or_net: Union[str, "ValueNet", None] = None,
         rules: Optional[Rules] = None) -> ValueNet:
    """A network: ``None`` or ``"net"`` the shipped one for ``rules`` (:func:`default_net`),
    a path a weights file, a ValueNet as is."""
    if isinstance(path_or_net, ValueNet):
        return path_or_net
    if path_or_net is None or path_or_net == "net":
        return default_net(rules)
    if not isinstance(path_or_net, (str, os.PathLike)):
        raise TypeError(f"a network is 'net', a path to an .npz file or a ValueNet, "
                        f"got {type(path_or_net).__name__}")
    return _load_cached(os.path.abspath(os.fspath(path_or_net)),
                        os.stat(path_or_net).st_mtime_ns if os.path.exists(path_or_net) else 0)


@lru_cache(maxsize=8)
def _load_cached(path: str, mtime: int) -> ValueNet:
    return ValueNet.load(path)


def shipped_net_path(rules: Optional[Rules] = None) -> str:
    """The file of the network shipped for ``rules`` (default RULES §1-7): rules without
    escalation get the network trained under plain doubles (:data:`PLAIN_DOUBLES_NET_PATH`),
    every other rule set the default rules' (:data:`DEFAULT_NET_PATH`).

    >>> os.path.basename(shipped_net_path(Rules.preset("plain-doubles")))
    'gb1-plain-doubles.npz'
    >>> shipped_net_path() == shipped_net_path(Rules(remainder="lost")) == DEFAULT_NET_PATH
    True
    """
    rules = checked_rules(rules, DEFAULT_RULES)
    return DEFAULT_NET_PATH if rules.escalation else PLAIN_DOUBLES_NET_PATH


def default_net(rules: Optional[Rules] = None) -> ValueNet:
    """The network shipped in the package for ``rules`` (:func:`shipped_net_path`; the
    default rules': ``gulbara/data/gb1.npz``), each file loaded once.

    >>> default_net() is default_net(gulbara.Rules())
    True
    """
    return _shipped(shipped_net_path(rules))


def bot_net(rules: Optional[Rules] = None) -> ValueNet:
    """The network the ``net`` and ``net2`` bots play by for ``rules`` (default RULES §1-7),
    made once: under escalating rules :meth:`ValueNet.average` of the four networks of
    :data:`BOT_MEMBER_PATHS` (256 hidden units), under rules without escalation the
    plain-doubles network (:func:`default_net`). docs/user/bots.md, "The net bots' network".

    >>> bot_net().hidden, bot_net() is bot_net(gulbara.Rules())
    (256, True)
    >>> bot_net(Rules.preset("plain-doubles")) is default_net(Rules.preset("plain-doubles"))
    True
    """
    rules = checked_rules(rules, DEFAULT_RULES)
    if not rules.escalation:
        return default_net(rules)
    return _averaged(BOT_MEMBER_PATHS)


@lru_cache(maxsize=2)
def _averaged(paths: Tuple[str, ...]) -> ValueNet:
    return ValueNet.average([_shipped(path) for path in paths])


@lru_cache(maxsize=8)
def _shipped(path: str) -> ValueNet:
    if not os.path.exists(path):
        raise InvalidNetworkError(f"the shipped network {path} is missing")
    return ValueNet.load(path)
