"""Board pictures (gulbara.pictures): the SVG's content, Board._repr_svg_, and ``gulbara show``."""

import importlib
import io
import sys
import xml.etree.ElementTree as ET
from collections import Counter

import pytest

from gulbara import (BLACK, START_CODE, WHITE, Board, Game, GulBaraError, IllegalPlayError,
                     InvalidPositionError, InvalidSeatError, Play, Position, RandomBot)
from gulbara import cli, pictures
from gulbara.pictures import STACK_CAP, board_png, board_svg, save

SVG = "{http://www.w3.org/2000/svg}"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
MID_GAME = "G:1,,,,2,-4,,,,,1,-8,,1,,1,-1,2,2,,-1,-1,,5|0,0|0,0"
BEAR_OFF = "G:2,3,,1,,,,,,,,,-1,-2,-1,,,,,,,,,|0,0|9,11"
TALL = "G:7,,,,,,,,,,,-6,,,,,-9,,,,,,,8|0,0|0,0"   # 7, 8 White; 6, 9 Black


def classes(element):
    return set(element.get("class", "").split())


def drawn(svg):
    """What the picture shows: {(colour, White's point): (circles, count label or None)}."""
    root = ET.fromstring(svg)
    circles, labels = Counter(), {}
    for element in root.iter():
        tag, cls = element.tag, classes(element)
        if tag == SVG + "circle" and "checker" in cls:
            colour = "white" if "white" in cls else "black"
            assert ("white" in cls) != ("black" in cls)
            circles[colour, int(element.get("data-point"))] += 1
        elif tag == SVG + "text" and "count" in cls:
            colour = "white" if "white" in cls else "black"
            labels[colour, int(element.get("data-point"))] = int(element.text)
    return {key: (circles[key], labels.get(key)) for key in set(circles) | set(labels)}


def represented(svg):
    """Checkers per colour as the picture represents them: circles, or a stack's label."""
    totals = Counter()
    for (colour, _), (circles, label) in drawn(svg).items():
        totals[colour] += circles if label is None else label
    return totals


def borne_off_shown(svg):
    """{colour: (the tray's label, slabs drawn)}."""
    root = ET.fromstring(svg)
    labels, slabs = {}, Counter()
    for element in root.iter():
        cls = classes(element)
        colour = "white" if "white" in cls else "black"
        if "off-count" in cls:
            labels[colour] = int(element.text.split()[-1])
            assert int(element.get("data-count")) == labels[colour]
        elif "borne" in cls:
            slabs[colour] += 1
    return {colour: (labels[colour], slabs[colour]) for colour in ("white", "black")}


def turn_shown(svg):
    marks = [g for g in ET.fromstring(svg).iter(SVG + "g") if "turn" in classes(g)]
    assert len(marks) <= 1
    if not marks:
        return None
    return "white" if "white" in classes(marks[0]) else "black"


def arrows(svg):
    return [g for g in ET.fromstring(svg).iter(SVG + "g") if "step" in classes(g)]


def check_picture(svg, position):
    """Every point shows its checkers (at most STACK_CAP, with a label above it) and each side's
    represented checkers and tray add up to 15."""
    points = position.points()
    shown = drawn(svg)
    expected = {("white" if n > 0 else "black", q): abs(n)
                for q, n in enumerate(points, 1) if n}
    assert set(shown) == set(expected)
    for key, count in expected.items():
        circles, label = shown[key]
        assert circles == min(count, STACK_CAP), key
        assert label == (count if count > STACK_CAP else None), key
    off = {"white": position.borne_off(WHITE), "black": position.borne_off(BLACK)}
    totals = represented(svg)
    for colour in ("white", "black"):
        assert totals[colour] == 15 - off[colour]
    assert borne_off_shown(svg) == {colour: (off[colour], off[colour]) for colour in off}


def mid_game_board(plies=30, seed=11):
    game = Game(seed=seed)
    bot = RandomBot(seed=seed)
    for _ in range(plies):
        game.play(bot.choose(game))
    return game


# -- the SVG -----------------------------------------------------------------------------------

def test_start_position():
    svg = board_svg(START_CODE)
    check_picture(svg, Position.from_code(START_CODE))
    assert svg.count('class="checker white"') == STACK_CAP
    assert svg.count('class="checker black"') == STACK_CAP
    assert drawn(svg) == {("white", 24): (5, 15), ("black", 12): (5, 15)}
    assert turn_shown(svg) is None            # a code has no side to move
    assert arrows(svg) == []


def test_the_picture_is_an_svg_document_of_the_asked_size():
    root = ET.fromstring(board_svg(Board(), size=320))
    assert root.tag == SVG + "svg"
    assert root.get("viewBox") == "0 0 640 500"
    assert (root.get("width"), root.get("height")) == ("320", "250")
    assert root.find(SVG + "title").text == f"Gul Bara {START_CODE}, White to move"
    scalable = ET.fromstring(board_svg(Board(), size=None))
    assert scalable.get("width") is None and scalable.get("height") is None


def test_mid_game_position_from_a_seeded_game():
    game = mid_game_board()
    assert not game.is_over()
    svg = board_svg(game)
    check_picture(svg, game.position)
    assert turn_shown(svg) == ("white" if game.to_move == WHITE else "black")


def test_every_position_of_a_game_is_drawn_in_full():
    game = Game(seed=3)
    bot = RandomBot(seed=4)
    seen_off = False
    while not game.is_over():
        play = bot.choose(game)
        seat = game.decision.seat
        game.play(play)
        svg = board_svg(game.position, turn=game.to_move, last_play=play, play_seat=seat)
        check_picture(svg, game.position)
        assert len(arrows(svg)) == len(play.steps)
        seen_off = seen_off or game.position.borne_off(seat) > 0
    assert seen_off and game.is_over()
    assert turn_shown(board_svg(game)) is None    # nobody moves after the end


def test_bear_off_position_shows_the_trays():
    svg = board_svg(BEAR_OFF, turn=BLACK)
    check_picture(svg, Position.from_code(BEAR_OFF))
    assert borne_off_shown(svg) == {"white": (9, 9), "black": (11, 11)}
    assert represented(svg) == {"white": 6, "black": 4}
    assert turn_shown(svg) == "black"


@pytest.mark.parametrize("flipped", [False, True])
def test_tall_stacks_are_capped_with_a_count_label(flipped):
    svg = board_svg(TALL, flipped=flipped)
    check_picture(svg, Position.from_code(TALL))
    assert drawn(svg) == {("white", 1): (5, 7), ("white", 24): (5, 8),
                          ("black", 12): (5, 6), ("black", 17): (5, 9)}
    labels = [t for t in ET.fromstring(svg).iter(SVG + "text") if "count" in classes(t)]
    assert sorted(t.text for t in labels) == ["6", "7", "8", "9"]


def test_five_checkers_have_no_label():
    code = "G:5,5,5,,,,,,,,,-5,-5,-5,,,,,,,,,,|0,0|0,0"
    svg = board_svg(code)
    check_picture(svg, Position.from_code(code))
    assert "class=\"count" not in svg


def test_side_to_move_from_the_board_or_the_argument():
    board = Board()
    assert turn_shown(board_svg(board)) == "white"
    assert turn_shown(board_svg(Board(turn=BLACK))) == "black"
    assert turn_shown(board_svg(board, turn=BLACK)) == "black"
    assert turn_shown(board_svg(START_CODE, turn=WHITE)) == "white"


def test_arrows_only_with_a_last_play():
    board = Board()
    assert arrows(board_svg(board)) == []
    play = board.push_notation("24/14", [6, 4])
    svg = board_svg(board, last_play=play, play_seat=WHITE)
    assert len(arrows(svg)) == 2
    assert [a.find(SVG + "title").text for a in arrows(svg)] == ["24/18", "18/14"]
    assert arrows(board_svg(board)) == []
    group = [g for g in ET.fromstring(svg).iter(SVG + "g") if "last-play" in classes(g)]
    assert len(group) == 1 and group[0].get("data-seat") == "0"


def test_bear_off_arrows_and_black_numbering():
    board = Board.from_code(BEAR_OFF, turn=BLACK)
    play = board.push_notation("1/off 2/off", [2, 1])
    svg = board_svg(board, last_play=play, play_seat=BLACK)
    check_picture(svg, board.position)
    assert [a.find(SVG + "title").text for a in arrows(svg)] == ["2/off", "1/off"]
    assert borne_off_shown(svg)["black"] == (13, 13)


def test_the_play_seat_defaults_to_the_side_not_to_move():
    board = Board()
    play = board.push_notation("24/18 24/20", [6, 4])
    implied = board_svg(board, last_play=play)           # Black to move: White played
    assert implied == board_svg(board, last_play=play, play_seat=WHITE)
    assert "White played 24/18 24/20" in implied


def test_coordinates():
    def numbers(svg):
        root = ET.fromstring(svg)
        return [int(t.text) for t in root.iter(SVG + "text") if "coord" in classes(t)]

    white = numbers(board_svg(START_CODE))
    assert white[:3] == [1, 2, 3] and sorted(white) == list(range(1, 25))
    # Black's own number of White's point q is (q + 11) % 24 + 1 (RULES §1.3)
    black = numbers(board_svg(START_CODE, turn=BLACK, coordinates="turn"))
    assert black[:3] == [13, 14, 15] and sorted(black) == list(range(1, 25))
    assert numbers(board_svg(START_CODE, turn=WHITE, coordinates="turn")) == white
    assert numbers(board_svg(START_CODE, coordinates=False)) == []


def test_flipping_moves_the_checkers_not_their_count():
    plain, flipped = board_svg(MID_GAME), board_svg(MID_GAME, flipped=True)
    assert plain != flipped
    assert drawn(plain) == drawn(flipped)

    def place(svg, point):
        root = ET.fromstring(svg)
        return [(c.get("cx"), c.get("cy")) for c in root.iter(SVG + "circle")
                if c.get("data-point") == str(point)]

    # point 1 is bottom right unflipped and top left flipped
    (x1, y1), = place(plain, 1)
    (x2, y2), = place(flipped, 1)
    assert float(x1) > 320 > float(x2) and float(y1) > 250 > float(y2)


@pytest.mark.parametrize("bad, error", [
    (42, TypeError), (None, TypeError), (["G:"], TypeError),
    ("G:nonsense", InvalidPositionError), ("", InvalidPositionError),
])
def test_bad_positions(bad, error):
    with pytest.raises(error):
        board_svg(bad)


@pytest.mark.parametrize("options, error", [
    (dict(turn=2), InvalidSeatError), (dict(turn="white"), TypeError),
    (dict(turn=True), TypeError), (dict(size=0), GulBaraError), (dict(size=-5), GulBaraError),
    (dict(size=float("nan")), GulBaraError), (dict(size="big"), TypeError),
    (dict(flipped="yes"), TypeError), (dict(coordinates="black"), GulBaraError),
    (dict(coordinates=3), TypeError), (dict(last_play="24/18"), TypeError),
    (dict(last_play=Play(((24, 6),)), play_seat=5), InvalidSeatError),
    (dict(last_play=Play(((30, 6),))), IllegalPlayError),
    (dict(last_play=Play(((24, 9),))), IllegalPlayError),
])
def test_bad_options(options, error):
    with pytest.raises(error):
        board_svg(Board(), **options)


def test_errors_are_value_errors():
    with pytest.raises(ValueError):
        board_svg(Board(), size=0)


# -- Jupyter -----------------------------------------------------------------------------------

def test_repr_svg_shows_the_last_pushed_play():
    board = Board()
    svg = board._repr_svg_()
    check_picture(svg, board.position)
    assert arrows(svg) == [] and turn_shown(svg) == "white"
    board.push_notation("24/18 24/20", [6, 4])
    board.push_notation("24/19 24/18", [6, 5])        # Black
    svg = board._repr_svg_()
    check_picture(svg, board.position)
    assert len(arrows(svg)) == 2 and turn_shown(svg) == "white"
    assert "Black played 24/18 24/19" in svg
    board.pop()
    assert "White played 24/18 24/20" in board._repr_svg_()


def test_repr_svg_of_a_chain_stage_keeps_its_mover():
    board = Board()
    board.push_notation("24/18(4)", [6, 6, 6, 6], pass_turn=False)   # White plays on
    svg = board._repr_svg_()
    assert turn_shown(svg) == "white" and "White played 24/18(4)" in svg


# -- PNG and files ------------------------------------------------------------------------------

def test_png_bytes():
    data = board_png(Board(), size=200)
    assert data.startswith(PNG_SIGNATURE)


def test_save_by_suffix(tmp_path):
    save(MID_GAME, tmp_path / "a.svg", turn=WHITE)
    ET.parse(tmp_path / "a.svg")
    save(MID_GAME, tmp_path / "a.PNG")
    assert (tmp_path / "a.PNG").read_bytes().startswith(PNG_SIGNATURE)
    with pytest.raises(GulBaraError, match=r"\.svg or \.png"):
        save(MID_GAME, tmp_path / "a.jpg")


def test_png_without_cairosvg_explains_what_to_install(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "cairosvg", None)     # import cairosvg fails
    with pytest.raises(ImportError, match=r'pip install "gulbara\[pictures\]"'):
        board_png(Board())
    board_svg(Board())                                     # SVG needs nothing
    code, _, err = run_cli(["show", "start", "-o", str(tmp_path / "b.png")])
    assert code == 2 and err.startswith("gulbara: ") and "gulbara[pictures]" in err
    assert not (tmp_path / "b.png").exists()


# -- gulbara show --------------------------------------------------------------------------------

def run_cli(argv):
    """Run ``gulbara ARGV`` in-process; (exit code, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    stdout, stderr = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = out, err
    try:
        code = cli.main(argv)
    finally:
        sys.stdout, sys.stderr = stdout, stderr
    return code, out.getvalue(), err.getvalue()


def test_show_prints_svg_to_stdout():
    code, out, err = run_cli(["show", MID_GAME, "--turn", "black"])
    assert code == 0 and err == ""
    check_picture(out, Position.from_code(MID_GAME))
    assert turn_shown(out) == "black" and arrows(out) == []


def test_show_start_keyword_and_flip():
    code, out, _ = run_cli(["show", "start", "--flip", "--size", "300"])
    assert code == 0
    assert out == board_svg(Board(), flipped=True, size=300)


def test_show_writes_svg_and_png(tmp_path):
    svg_path, png_path = tmp_path / "board.svg", tmp_path / "board.png"
    code, out, err = run_cli(["show", BEAR_OFF, "-o", str(svg_path)])
    assert (code, out, err) == (0, "", "")
    svg = svg_path.read_text(encoding="utf-8")
    check_picture(svg, Position.from_code(BEAR_OFF))
    assert turn_shown(svg) == "white"
    code, out, err = run_cli(["show", BEAR_OFF, "-o", str(png_path), "--turn", "black"])
    assert (code, out, err) == (0, "", "")
    assert png_path.read_bytes()[:8] == PNG_SIGNATURE


def test_show_a_play():
    code, out, _ = run_cli(["show", "start", "--play", "24/18 24/20", "--dice", "6", "4"])
    assert code == 0
    board = Board()
    play = board.push_notation("24/18 24/20", [6, 4])
    check_picture(out, board.position)
    assert len(arrows(out)) == 2 and turn_shown(out) == "black"
    assert out == board_svg(board, last_play=play, play_seat=WHITE)


@pytest.mark.parametrize("argv, words", [
    (["show", "G:1,2,3|0,0|0,0"], "point tokens"),
    (["show", "nonsense"], "nonsense"),
    (["show", "start", "--play", "24/18 24/20"], "--play and --dice"),
    (["show", "start", "--dice", "6", "4"], "--play and --dice"),
    (["show", "start", "--play", "24/1", "--dice", "6", "4"], "not a legal play"),
    (["show", "start", "--play", "24/18 24/20", "--dice", "6", "9"], "9"),
    (["show", "start", "-o", "board.gif"], ".svg or .png"),
    (["show", "start", "--size", "0"], "size"),
])
def test_show_errors_are_one_line(argv, words, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli(argv)
    assert code == 2 and out == ""
    assert err.startswith("gulbara: ") and err.count("\n") == 1 and words in err
    assert list(tmp_path.iterdir()) == []


def test_show_unwritable_file(tmp_path):
    code, _, err = run_cli(["show", "start", "-o", str(tmp_path / "missing" / "b.svg")])
    assert code == 1 and err.startswith("gulbara: cannot write ")


def test_show_is_listed_in_the_help():
    assert any(name == "show" for name, _, _ in cli.SUBCOMMANDS)
    assert importlib.import_module("gulbara.cli.show").run
    help_text = cli.build_parser().format_help()
    assert "show" in help_text and "picture" in help_text
    assert pictures.__doc__


def test_regression_png_size_beyond_cairo_is_a_clear_error(tmp_path):
    """A PNG wider than cairo draws raised cairocffi.CairoError (a traceback in gulbara show)."""
    for size in (1e5, 1e9, 32768):
        with pytest.raises(GulBaraError, match="at most 32,767 pixels"):
            board_png(Board(), size=size)
        with pytest.raises(GulBaraError, match="at most 32,767 pixels"):
            save(Board(), tmp_path / "big.png", size=size)
    assert not (tmp_path / "big.png").exists()
    code, _, err = run_cli(["show", "start", "-o", str(tmp_path / "big.png"), "--size", "1e9"])
    assert code == 2 and err.startswith("gulbara: ") and "32,767" in err
    assert board_svg(Board(), size=1e9).startswith("<svg")           # an SVG has no such limit
