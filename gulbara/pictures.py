"""Board pictures: an SVG diagram from the standard library alone, and PNG through cairosvg.

The board is drawn from White's side, as :meth:`gulbara.Board.ascii` prints
it: White's points 13..24 along the top (White starts on 24, top right),
12..1 along the bottom (White's home board bottom right, RULES §1). Each point
shows up to five checkers; a taller stack carries its count on the top one.
Each side's borne-off checkers lie in its tray beside its home board, the
side to move is marked beside its tray, and the steps of a play can be drawn
as arrows.

>>> from gulbara import Board
>>> board = Board()
>>> play = board.push_notation("24/18 24/20", [6, 4])
>>> svg = board_svg(board, last_play=play, play_seat=WHITE)
>>> svg.startswith("<svg"), svg.count('class="checker white"'), svg.count('class="step"')
(True, 7, 2)
>>> import xml.etree.ElementTree as ET
>>> ET.fromstring(svg).get("viewBox")
'0 0 640 500'

``board.png`` needs the ``pictures`` extra (``pip install "gulbara[pictures]"``);
``gulbara show CODE -o board.svg`` draws a position from the command line.
"""

import math
from pathlib import Path
from typing import List, Optional, Tuple, Union
from xml.sax.saxutils import escape, quoteattr

from gulbara.core._backend import Position
from gulbara.conventions import white_point
from gulbara.errors import GulBaraError, IllegalPlayError, checked_positive, checked_seat
from gulbara.files import replaced_atomically
from gulbara.core.play import BLACK, WHITE, Play

__all__ = ["board_svg", "board_png", "save", "STACK_CAP", "PNG_HINT", "MAX_PNG_SIZE"]

#: The most checkers drawn on one point; a taller stack shows its count on the top one.
STACK_CAP = 5

#: What to install for PNG output.
PNG_HINT = 'PNG output needs cairosvg: pip install "gulbara[pictures]"'
#: The widest PNG picture, in pixels (cairo's limit on an image's side; the height is smaller).
MAX_PNG_SIZE = 32767

_NAMES = ("white", "black")
_TITLES = ("White", "Black")

# Geometry, in viewBox units (the picture is scaled to ``size`` pixels wide).
_TRAY_W = 56                 # a side column: a tray and the turn marker
_FRAME = 12
_POINT_W = 40
_BAR = 24
_STRIP = 22                  # the point numbers above and below the frame
_DEPTH = 180                 # a row: five checkers deep
_GAP = 72                    # between the two rows
_STEP = _DEPTH / STACK_CAP   # one checker's place along a point
_RADIUS = 17
_WIDTH = 2 * _TRAY_W + 2 * _FRAME + 12 * _POINT_W + _BAR
_TOP = _STRIP + _FRAME                    # the top row's outer edge
_BOTTOM = _TOP + 2 * _DEPTH + _GAP        # the bottom row's outer edge
_HEIGHT = _BOTTOM + _FRAME + _STRIP
_MIDDLE = (_TOP + _BOTTOM) / 2

_COLOURS = {
    "frame": "#5b3a1e", "surface": "#e8d6ae", "tray": "#cdb98f",
    "points": ("#a4452c", "#2f5d50"), "coord": "#3b2a1a", "arrow": "#1f6fd1",
}
_CHECKER = {  # fill, outline, text on it
    WHITE: ("#f7f3e9", "#3a3a3a", "#1a1a1a"),
    BLACK: ("#262626", "#000000", "#f2f2f2"),
}


def _num(value: float) -> str:
    return f"{value:.2f}".rstrip("0").rstrip(".")


def _element(tag: str, text: Optional[str] = None, **attrs) -> str:
    parts = [tag]
    for key, value in attrs.items():
        if value is None:
            continue
        if isinstance(value, float):
            value = _num(value)
        parts.append(f"{key.rstrip('_').replace('_', '-')}={quoteattr(str(value))}")
    if text is None:
        return f"<{' '.join(parts)}/>"
    return f"<{' '.join(parts)}>{escape(text)}</{tag}>"


class _Layout:
    """Where each point, checker and tray goes, for one orientation."""

    def __init__(self, flipped: bool) -> None:
        self.flipped = flipped

    def slot(self, q: int) -> Tuple[int, bool]:
        """White's point ``q`` as (column 0..11 from the left, in the top row?)."""
        if not self.flipped:
            return (q - 13, True) if q >= 13 else (12 - q, False)
        return (q - 1, True) if q <= 12 else (24 - q, False)

    @staticmethod
    def column_x(column: int) -> float:
        """The left edge of a point's column."""
        left = _TRAY_W + _FRAME + _POINT_W * column
        return left + _BAR if column >= 6 else left

    def checker(self, q: int, index: int) -> Tuple[float, float]:
        """The centre of the ``index``-th checker (0 at the edge) on White's point ``q``."""
        column, top = self.slot(q)
        x = self.column_x(column) + _POINT_W / 2
        depth = _STEP / 2 + _STEP * index
        return x, (_TOP + depth if top else _BOTTOM - depth)

    def tray(self, seat: int) -> Tuple[float, bool]:
        """The centre x of ``seat``'s tray column, and whether the tray is in the top row."""
        column, top = self.slot(white_point(seat, 1))
        x = _TRAY_W / 2 if column == 0 else _WIDTH - _TRAY_W / 2
        return x, top

    def slab(self, seat: int, index: int) -> Tuple[float, float]:
        """The centre of ``seat``'s ``index``-th borne-off checker (0 at the edge)."""
        x, top = self.tray(seat)
        depth = 6 + 12 * index
        return x, (_TOP + depth if top else _BOTTOM - depth)


def _resolve(obj, turn, last_play, play_seat):
    """(position, turn, play, play seat) from what :func:`board_svg` was given."""
    if isinstance(obj, str):
        position = Position.from_code(obj)
    elif hasattr(obj, "position") and hasattr(obj, "turn"):       # a Board, a Game, a Match
        position = obj.position
        if turn is None:
            turn = obj.turn
    elif all(hasattr(obj, name) for name in ("points", "borne_off", "code")):
        position = obj
    else:
        raise TypeError(f"board_svg draws a Board, Game, Position or position code, "
                        f"not {type(obj).__name__}")
    turn = _check_seat(turn, "turn")
    if last_play is not None and not isinstance(last_play, Play):
        raise TypeError(f"last_play must be a gulbara.Play, not {type(last_play).__name__}")
    if play_seat is None and last_play is not None:
        play_seat = getattr(last_play, "seat", None)
        if play_seat is None:
            play_seat = WHITE if turn is None else 1 - turn
    play_seat = _check_seat(play_seat, "play_seat")
    if last_play is not None:
        for step in last_play.steps:
            start, die = step
            if not (1 <= start <= 24 and 1 <= die <= 6):
                raise IllegalPlayError(f"step {step} of {last_play!r} is not (point 1..24, die 1..6)")
    return position, turn, last_play, play_seat


def _check_seat(seat, what: str) -> Optional[int]:
    if seat is None:
        return None
    return checked_seat(seat, what)


def _check_options(size, flipped, coordinates) -> Tuple[Optional[float], bool, Optional[str]]:
    if size is not None:
        size = checked_positive(size, "size", "number of pixels")
    if not isinstance(flipped, bool):
        raise TypeError(f"flipped must be a bool, not {type(flipped).__name__}")
    if coordinates is True:
        numbering = "white"
    elif coordinates is False or coordinates is None:
        numbering = None
    elif isinstance(coordinates, str):
        if coordinates not in ("white", "turn"):
            raise GulBaraError(
                f"coordinates must be True, False, 'white' or 'turn', got {coordinates!r}")
        numbering = coordinates
    else:
        raise TypeError(f"coordinates must be a bool or 'white' / 'turn', "
                        f"not {type(coordinates).__name__}")
    return size, flipped, numbering


def board_svg(position_or_board_or_code, *, turn: Optional[int] = None,
              last_play: Optional[Play] = None, play_seat: Optional[int] = None,
              size: Optional[float] = 480, flipped: bool = False,
              coordinates: Union[bool, str] = True) -> str:
    """An SVG picture of a position, as a string.

    * ``position_or_board_or_code``: a :class:`gulbara.Board` (its side to
      move is shown unless ``turn`` says otherwise), a :class:`gulbara.Game`,
      a ``Position`` or a position code (RULES §9.1; no side to move shown
      unless ``turn`` is given).
    * ``turn``: ``WHITE`` or ``BLACK``, marked beside that side's tray.
    * ``last_play``: a :class:`gulbara.Play` whose steps are drawn as arrows
      (to the tray for a bear-off); it is played by ``play_seat``, by default
      the side not to move (White when no side to move is known).
    * ``size``: the width in pixels (the height follows), or ``None`` for a
      picture that fills its container.
    * ``flipped``: turn the board round, Black's home board bottom right.
    * ``coordinates``: point numbers in White's numbering (``True`` or
      ``'white'``), in the side to move's own numbering (``'turn'``), or none
      (``False``).

    Checkers are ``<circle class="checker white|black">``, a capped stack's
    count is ``<text class="count white|black">``, a tray's count
    ``<text class="off-count ...">``, the turn marker ``<g class="turn ...">``
    and each arrow ``<g class="step">``.
    """
    position, turn, play, play_seat = _resolve(position_or_board_or_code, turn, last_play,
                                               play_seat)
    size, flipped, numbering = _check_options(size, flipped, coordinates)
    layout = _Layout(flipped)
    points = position.points()
    off = (position.borne_off(WHITE), position.borne_off(BLACK))

    title = f"Gul Bara {position.code()}"
    if turn is not None:
        title += f", {_TITLES[turn]} to move"
    if play is not None:
        title += f", {_TITLES[play_seat]} played {play.notation()}"
    head = dict(xmlns="http://www.w3.org/2000/svg", viewBox=f"0 0 {_WIDTH} {_HEIGHT}")
    if size is not None:
        head.update(width=_num(size), height=_num(size * _HEIGHT / _WIDTH))
    parts: List[str] = [_element("svg", **head)[:-2] + ">", _element("title", title)]
    parts += _draw_board(layout, numbering, turn)
    parts += _draw_checkers(layout, points)
    for seat in (WHITE, BLACK):
        parts += _draw_tray(layout, seat, off[seat])
    if turn is not None:
        parts += _draw_turn(layout, turn)
    if play is not None:
        parts += _draw_play(layout, play, play_seat, points, off)
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def _draw_board(layout: _Layout, numbering: Optional[str], turn: Optional[int]) -> List[str]:
    out = [_element("rect", class_="frame", x=_TRAY_W, y=_STRIP, width=_WIDTH - 2 * _TRAY_W,
                    height=_HEIGHT - 2 * _STRIP, rx=4, fill=_COLOURS["frame"])]
    for half in (0, 6):
        out.append(_element("rect", class_="surface", x=layout.column_x(half), y=_TOP,
                            width=6 * _POINT_W, height=_BOTTOM - _TOP,
                            fill=_COLOURS["surface"]))
    for q in range(1, 25):
        column, top = layout.slot(q)
        x = layout.column_x(column)
        edge, tip = (_TOP, _TOP + _DEPTH - 12) if top else (_BOTTOM, _BOTTOM - _DEPTH + 12)
        fill = _COLOURS["points"][(column + top) % 2]
        corners = f"{_num(x)},{edge} {_num(x + _POINT_W)},{edge} {_num(x + _POINT_W / 2)},{tip}"
        out.append(_element("polygon", class_="point", points=corners, fill=fill,
                            data_point=q))
        if numbering is not None:
            label = q if numbering == "white" or turn != BLACK else white_point(BLACK, q)
            y = _STRIP - 6 if top else _HEIGHT - 6
            out.append(_element("text", str(label), class_="coord", x=x + _POINT_W / 2, y=y,
                                text_anchor="middle", font_family="sans-serif", font_size=13,
                                fill=_COLOURS["coord"]))
    return out


def _draw_checkers(layout: _Layout, points) -> List[str]:
    out = []
    for q in range(1, 25):
        n = points[q - 1]
        if n == 0:
            continue
        seat = WHITE if n > 0 else BLACK
        fill, stroke, ink = _CHECKER[seat]
        count = abs(n)
        shown = min(count, STACK_CAP)
        for i in range(shown):
            x, y = layout.checker(q, i)
            out.append(_element("circle", class_=f"checker {_NAMES[seat]}", cx=x, cy=y,
                                r=_RADIUS, fill=fill, stroke=stroke, stroke_width=1.5,
                                data_point=q))
        if count > STACK_CAP:
            x, y = layout.checker(q, shown - 1)
            out.append(_element("text", str(count), class_=f"count {_NAMES[seat]}", x=x,
                                y=y + 5.5, text_anchor="middle", font_family="sans-serif",
                                font_size=16, font_weight="bold", fill=ink, data_point=q))
    return out


def _draw_tray(layout: _Layout, seat: int, count: int) -> List[str]:
    x, top = layout.tray(seat)
    fill, stroke, _ = _CHECKER[seat]
    name = _NAMES[seat]
    out = [_element("rect", class_=f"tray {name}", x=x - 24, y=_TOP if top else _BOTTOM - _DEPTH,
                    width=48, height=_DEPTH, rx=4, fill=_COLOURS["tray"],
                    stroke=_COLOURS["frame"], stroke_width=2)]
    for i in range(count):
        cx, cy = layout.slab(seat, i)
        out.append(_element("rect", class_=f"borne {name}", x=cx - 18, y=cy - 5, width=36,
                            height=10, rx=2, fill=fill, stroke=stroke))
    out.append(_element("text", f"off {count}", class_=f"off-count {name}", x=x,
                        y=_STRIP - 6 if top else _HEIGHT - 6, text_anchor="middle",
                        font_family="sans-serif", font_size=12, fill=_COLOURS["coord"],
                        data_count=count))
    return out


def _draw_turn(layout: _Layout, turn: int) -> List[str]:
    x, _ = layout.tray(turn)
    fill, stroke, _ = _CHECKER[turn]
    return [
        _element("g", class_=f"turn {_NAMES[turn]}", data_seat=turn)[:-2] + ">",
        _element("title", f"{_TITLES[turn]} to move"),
        _element("circle", class_="turn-disc", cx=x, cy=_MIDDLE - 8, r=12, fill=fill,
                 stroke=stroke, stroke_width=2),
        _element("text", "to move", x=x, y=_MIDDLE + 22, text_anchor="middle",
                 font_family="sans-serif", font_size=11, fill=_COLOURS["coord"]),
        "</g>",
    ]


def _draw_play(layout: _Layout, play: Play, seat: int, points, off) -> List[str]:
    sign = 1 if seat == WHITE else -1
    out = [_element("g", class_="last-play", data_seat=seat)[:-2] + ">",
           _element("title", f"{_TITLES[seat]}: {play.notation()}")]
    # the play's bear-offs end on the last slabs of the tray, one each
    slab = off[seat] - sum(1 for start, die in play.steps if start - die <= 0)
    for start, die in play.steps:
        q = white_point(seat, start)
        here = max(points[q - 1] * sign, 0)
        x1, y1 = layout.checker(q, min(here, STACK_CAP - 1))
        full = here >= STACK_CAP   # no free place: start at the rim of the top checker
        target = start - die
        if target <= 0:
            x2, y2 = layout.slab(seat, min(max(slab, 0), 14))
            slab += 1
        else:
            q2 = white_point(seat, target)
            there = max(points[q2 - 1] * sign, 1)
            x2, y2 = layout.checker(q2, min(there - 1, STACK_CAP - 1))
        out += _arrow(x1, y1, x2, y2, f"{start}/{'off' if target <= 0 else target}", full)
    out.append("</g>")
    return out


def _arrow(x1: float, y1: float, x2: float, y2: float, label: str,
           from_rim: bool = False) -> List[str]:
    dx, dy = x2 - x1, y2 - y1
    length = math.hypot(dx, dy) or 1.0
    ux, uy = dx / length, dy / length
    if from_rim:
        x1, y1 = x1 + ux * _RADIUS, y1 + uy * _RADIUS
    head, half = 14.0, 7.0
    bx, by = x2 - ux * head, y2 - uy * head
    corners = " ".join(f"{_num(px)},{_num(py)}" for px, py in (
        (x2, y2), (bx - uy * half, by + ux * half), (bx + uy * half, by - ux * half)))
    colour = _COLOURS["arrow"]
    return [
        _element("g", class_="step", opacity=0.85)[:-2] + ">",
        _element("title", label),
        _element("line", class_="arrow", x1=x1, y1=y1, x2=bx, y2=by, stroke=colour,
                 stroke_width=5, stroke_linecap="round"),
        _element("polygon", class_="arrowhead", points=corners, fill=colour),
        "</g>",
    ]


def _svg_to_png(svg: str) -> bytes:
    try:
        import cairosvg
    except ImportError as exc:
        raise ImportError(PNG_HINT) from exc
    return cairosvg.svg2png(bytestring=svg.encode("utf-8"))


def _check_png_size(size) -> None:
    """Refuse a PNG wider than cairo draws (``size`` already checked by :func:`board_svg`)."""
    if size is not None and math.ceil(size) > MAX_PNG_SIZE:
        raise GulBaraError(f"a PNG picture is at most {MAX_PNG_SIZE:,} pixels wide (cairo's "
                           f"limit), got size {size!r}")


def board_png(position_or_board_or_code, **options) -> bytes:
    """The picture of :func:`board_svg` (same options) as PNG bytes; needs cairosvg.
    ``size`` is at most :data:`MAX_PNG_SIZE` pixels."""
    svg = board_svg(position_or_board_or_code, **options)
    _check_png_size(options.get("size", 480))
    return _svg_to_png(svg)


def save(position_or_board_or_code, path, **options) -> None:
    """Write the picture to ``path``: SVG or PNG by its suffix (``.svg``, ``.png``)."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in (".svg", ".png"):
        raise GulBaraError(f"cannot tell the picture format of {str(path)!r}: "
                           f"use a .svg or .png file name")
    svg = board_svg(position_or_board_or_code, **options)
    if suffix == ".svg":
        with replaced_atomically(path) as f:
            f.write(svg)
    else:
        _check_png_size(options.get("size", 480))
        data = _svg_to_png(svg)
        with replaced_atomically(path, "wb") as f:
            f.write(data)
