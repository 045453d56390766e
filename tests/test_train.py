"""TD(lambda) training: reproducible bytes whatever the workers, resumable, checkpoints."""

import json

import numpy as np
import pytest

from gulbara import cli
from gulbara.errors import GulBaraError
from gulbara.net.model import ValueNet
from gulbara.rules import DEFAULT_RULES, Rules
from gulbara.net.train import (DEFAULT_EVAL_PAIRS, evaluate, last_path, rules_text, train,
                           training_arguments)

TINY = dict(hidden=8, batch=10, checkpoint=40, eval_pairs=10, progress=None)


def test_one_and_two_workers_give_identical_bytes():
    one = train(80, seed=3, workers=1, **TINY)
    two = train(80, seed=3, workers=2, **TINY)
    assert one.net.params.tobytes() == two.net.params.tobytes()
    assert one.best.sha256() == two.best.sha256()
    assert [c.win_rate for c in one.history] == [c.win_rate for c in two.history]


def test_training_changes_the_weights_and_depends_on_the_seed():
    start = ValueNet.random(8, 3, 0.1)
    a = train(40, seed=3, **TINY)
    b = train(40, seed=4, **TINY)
    assert a.net.sha256() != start.sha256()
    assert a.net.sha256() != b.net.sha256()


def test_a_prefix_of_a_run_is_the_shorter_run():
    short = train(40, seed=5, **TINY)
    long = train(80, seed=5, **dict(TINY, checkpoint=40))
    assert long.history[0].sha256 == short.net.sha256()


def test_resume_gives_the_uninterrupted_run(tmp_path):
    out = str(tmp_path / "best.npz")
    whole = train(80, seed=6, **TINY)
    train(40, seed=6, out=out, **TINY)
    resumed = train(80, seed=6, out=out, resume=True, **TINY)
    assert resumed.net.sha256() == whole.net.sha256()
    assert [c.sha256 for c in resumed.history] == [c.sha256 for c in whole.history]
    state = ValueNet.load(last_path(out))
    assert state.meta["games"] == 80 and list(state.meta["history_games"]) == [40, 80]
    best = ValueNet.load(out)
    assert best.sha256() in [c.sha256 for c in whole.history]


def test_resume_refuses_other_arguments(tmp_path):
    out = str(tmp_path / "best.npz")
    train(40, seed=6, out=out, **TINY)
    with pytest.raises(GulBaraError, match="seed"):
        train(80, seed=7, out=out, resume=True, **TINY)


def test_bad_arguments():
    with pytest.raises(GulBaraError, match="multiple of batch"):
        train(40, checkpoint=15, hidden=8, batch=10, progress=None)
    with pytest.raises(GulBaraError):
        train(0, progress=None)
    with pytest.raises(TypeError, match="unknown"):
        train(10, progress=None, learning_rate=1)
    with pytest.raises(GulBaraError, match="target"):
        train(10, progress=None, target="mc")
    with pytest.raises(TypeError, match="ValueNet"):
        train(10, progress=None, init="net.npz")


def test_deeper_targets_are_reproducible_and_differ_from_td():
    start = train(40, seed=3, **TINY).net
    one = train(40, seed=8, workers=1, init=start, target="deeper", **TINY)
    two = train(40, seed=8, workers=2, init=start, target="deeper", **TINY)
    td = train(40, seed=8, init=start, **TINY)
    assert one.net.params.tobytes() == two.net.params.tobytes()
    assert one.net.sha256() not in (start.sha256(), td.net.sha256())
    assert one.net.meta["init_sha256"] == start.sha256() and one.net.meta["target"] == "deeper"


def test_resume_of_a_run_from_a_network_keeps_its_start(tmp_path):
    out = str(tmp_path / "best.npz")
    start = train(40, seed=3, **TINY).net
    whole = train(80, seed=9, init=start, target="deeper", **TINY)
    train(40, seed=9, out=out, init=start, target="deeper", **TINY)
    resumed = train(80, seed=9, out=out, resume=True, target="deeper", **TINY)
    assert resumed.net.sha256() == whole.net.sha256()
    assert ValueNet.load(last_path(out)).meta["init_sha256"] == start.sha256()
    with pytest.raises(GulBaraError, match="target"):
        train(80, seed=9, out=out, resume=True, **TINY)


def test_evaluation_pairs_share_dice():
    net = ValueNet.random(8, 1)
    ev = evaluate(net, 20)
    assert ev["games"] == 40
    assert ev["low"] <= ev["win_rate"] <= ev["high"]
    assert evaluate(net, 20, workers=2) == ev


def test_cli_trains_and_plots(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    out = tmp_path / "w.npz"
    plot = tmp_path / "curve.png"
    code = cli.main(["train", "--games", "40", "--seed", "2", "--out", str(out), "--hidden", "8",
                     "--batch", "10", "--checkpoint", "20", "--eval-pairs", "5", "--plot",
                     str(plot)])
    assert code == 0
    assert "best checkpoint" in capsys.readouterr().out
    assert ValueNet.load(str(out)).hidden == 8 and plot.stat().st_size > 1000


def test_checkpoints_are_judged_on_the_default_pairs(tmp_path):
    # 5,000 pairs by default (DEFAULT_EVAL_PAIRS): 1,000 picked checkpoints on noise (docs/user/bots.md)
    out = str(tmp_path / "w.npz")
    args = dict(TINY)
    del args["eval_pairs"]
    result = train(20, seed=3, out=out, **args)
    assert DEFAULT_EVAL_PAIRS == 5000
    assert int(ValueNet.load(out).meta["eval_pairs"]) == DEFAULT_EVAL_PAIRS
    ev = evaluate(result.net, DEFAULT_EVAL_PAIRS)
    assert ev["games"] == 2 * DEFAULT_EVAL_PAIRS
    assert result.history[0].win_rate == ev["win_rate"]


def _after_state_inputs(n_games, seed):
    """The inputs of positions waiting for a roll, from random play."""
    import random

    import gulbara
    from gulbara.net.model import inputs
    rng = random.Random(seed)
    rows = []
    for gi in range(n_games):
        game = gulbara.Game(auto_roll=False)
        opening = [(a, b) for a in range(1, 7) for b in range(1, 7) if a != b]
        game.roll_opening(*rng.choice(opening))
        while not game.is_over():
            if game.is_chance():
                rows.append(inputs(game))
                game.roll(rng.randint(1, 6), rng.randint(1, 6))
                continue
            plays = game.legal_plays()
            game.play(plays[rng.randrange(len(plays))])
    return np.array(rows)


def test_teacher_targets_move_the_student_toward_the_teacher():
    start = ValueNet.random(8, 1, 0.1)
    teacher = ValueNet.average([ValueNet.random(8, s, 0.6) for s in (2, 3)])
    one = train(40, seed=10, workers=1, init=start, target="teacher", teacher=teacher, **TINY)
    two = train(40, seed=10, workers=2, init=start, target="teacher", teacher=teacher, **TINY)
    assert one.net.params.tobytes() == two.net.params.tobytes()
    assert one.net.meta["teacher_sha256"] == teacher.sha256()
    assert one.net.meta["target"] == "teacher"
    x = _after_state_inputs(6, 3)
    before = np.abs(start.forward(x) - teacher.forward(x)).mean()
    after = np.abs(one.net.forward(x) - teacher.forward(x)).mean()
    assert after < 0.5 * before, (before, after)


def test_a_student_that_is_its_own_teacher_does_not_change():
    start = train(40, seed=3, **TINY).net
    same = train(40, seed=4, init=start, target="teacher", teacher=start, **TINY)
    assert same.net.sha256() == start.sha256()


def test_teacher_arguments_are_checked(tmp_path):
    teacher = ValueNet.random(8, 2)
    with pytest.raises(GulBaraError, match="teacher"):
        train(10, progress=None, teacher=teacher)
    with pytest.raises(GulBaraError, match="teacher"):
        train(10, progress=None, target="teacher")
    with pytest.raises(TypeError, match="ValueNet"):
        train(10, progress=None, target="teacher", teacher="teacher.npz")
    out = str(tmp_path / "w.npz")
    train(20, seed=1, out=out, init=ValueNet.random(8, 1), target="teacher", teacher=teacher,
          **dict(TINY, checkpoint=20))
    with pytest.raises(GulBaraError, match="teacher_sha256"):
        train(40, seed=1, out=out, resume=True, target="teacher",
              teacher=ValueNet.random(8, 3), **dict(TINY, checkpoint=20))


def test_cli_trains_toward_the_average_of_teachers(tmp_path, capsys):
    paths = []
    for s in (1, 2):
        path = tmp_path / f"t{s}.npz"
        ValueNet.random(8, s).save(str(path))
        paths.append(str(path))
    out = tmp_path / "student.npz"
    code = cli.main(["train", "--games", "20", "--seed", "2", "--out", str(out), "--hidden", "8",
                     "--batch", "10", "--checkpoint", "20", "--eval-pairs", "5",
                     "--target", "teacher", "--teacher", *paths])
    assert code == 0
    teacher = ValueNet.average([ValueNet.load(p) for p in paths])
    assert ValueNet.load(str(out)).meta["teacher_sha256"] == teacher.sha256()


def test_regression_seed_and_init_scale_are_checked():
    """train took a seed past 2**64 - 1 (OverflowError in the native loop) and an init_scale
    of inf, nan or -1 (numpy errors)."""
    with pytest.raises(GulBaraError, match="seed"):
        train(20, seed=10**23, progress=None)
    for scale in (float("inf"), float("nan"), -1.0):
        with pytest.raises(GulBaraError, match="init_scale"):
            train(20, progress=None, init_scale=scale)
    with pytest.raises(GulBaraError, match="hidden"):
        train(20, progress=None, hidden=300)


def test_regression_cli_checks_its_files_before_training(tmp_path, capsys):
    """train --out to a missing directory or --plot of an unknown format failed after the
    training; --seed and --init-scale out of range ended in tracebacks."""
    pytest.importorskip("matplotlib")
    base = ["train", "--games", "20", "--checkpoint", "20", "--eval-pairs", "1",
            "--hidden", "8"]
    for extra, says in ((["--out", str(tmp_path / "no-dir" / "t.npz")], "there is no directory"),
                        (["--out", str(tmp_path)], "is a directory"),
                        (["--out", str(tmp_path / "t.npz"), "--plot", str(tmp_path / "c.xyz")],
                         "cannot write .xyz"),
                        (["--out", str(tmp_path / "t.npz"), "--seed", str(10**23)], "seed"),
                        (["--out", str(tmp_path / "t.npz"), "--init-scale", "inf"], "init_scale")):
        assert cli.main(base + extra) == 2
        captured = capsys.readouterr()
        assert says in captured.err and "games/s" not in captured.err + captured.out
    assert sorted(p.name for p in tmp_path.iterdir()) == []


# -- the rules of the training games ---------------------------------------


def test_training_under_other_rules_is_recorded_and_reproducible(tmp_path):
    plain = Rules.preset("plain-doubles")
    out = str(tmp_path / "plain.npz")
    one = train(40, seed=4, out=out, rules=plain, **TINY)
    default = train(40, seed=4, **TINY)
    assert one.net.sha256() != default.net.sha256()      # other games, other weights
    assert Rules.from_dict(json.loads(one.net.meta["rules"])) == plain
    assert Rules.from_dict(json.loads(ValueNet.load(out).meta["rules"])) == plain
    assert json.loads(default.net.meta["rules"]) == DEFAULT_RULES.to_dict()
    two = train(40, seed=4, rules=plain, workers=2, **TINY)
    assert two.net.sha256() == one.net.sha256()


def test_resume_refuses_other_rules(tmp_path):
    out = str(tmp_path / "best.npz")
    train(40, seed=6, out=out, rules=Rules.preset("plain-doubles"), **TINY)
    with pytest.raises(GulBaraError, match="rules"):
        train(80, seed=6, out=out, resume=True, **TINY)
    resumed = train(80, seed=6, out=out, resume=True, rules=Rules(escalation=False), **TINY)
    assert resumed.games == 80


def test_a_file_without_recorded_rules_was_trained_under_the_default_ones():
    assert training_arguments({"seed": 1})["rules"] == rules_text(DEFAULT_RULES)


def test_evaluation_plays_under_the_given_rules():
    net = ValueNet.random(hidden=8, seed=2)
    plain = evaluate(net, 30, rules=Rules.preset("plain-doubles"))
    assert plain != evaluate(net, 30)
    assert plain == evaluate(net, 30, rules=Rules(escalation=False), workers=2)
    with pytest.raises(TypeError, match="Rules"):
        evaluate(net, 30, rules="plain-doubles")
    with pytest.raises(TypeError, match="Rules"):
        train(20, rules="plain-doubles", progress=None)


def test_cli_trains_under_a_preset_and_refuses_unknown_rules(tmp_path, capsys):
    out = tmp_path / "w.npz"
    args = ["train", "--games", "20", "--seed", "2", "--out", str(out), "--hidden", "8",
            "--batch", "10", "--checkpoint", "20", "--eval-pairs", "5"]
    assert cli.main(args + ["--rules", "plain-doubles"]) == 0
    assert json.loads(ValueNet.load(str(out)).meta["rules"])["escalation"] is False
    capsys.readouterr()
    assert cli.main(args + ["--rules", "chess"]) == 2
    assert "--rules" in capsys.readouterr().err


def test_regression_a_huge_batch_is_refused_before_any_work(capsys, tmp_path):
    """`train --batch` grew memory as batch x parameters x 8 bytes with no bound (a raw
    MemoryError for a huge one)."""
    with pytest.raises(GulBaraError, match=r"batch 1,000,000 would hold 109,080,000,000 bytes"):
        train(1_000_000, batch=1_000_000, checkpoint=1_000_000)
    assert cli.main(["train", "--games", "100", "--out", str(tmp_path / "x.npz"), "--batch",
                     "100000000",
                     "--checkpoint", "100000000"]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "bytes of updates" in err
