"""The slow, obvious twin of a native rollout game (gulbara/rollouts/_rollout.pyx), through the
Python Game and the network's numpy forward pass: game ``g`` of a run seeded ``seed`` from a
start state, its dice from stream 0 (the first two rolls quasi-random when asked), the random
policy's draws from stream 1, and every roll's luck: the roll's value (its roller's best end of
its first stage, by ``ValueNet.after_value``) minus the mean over all 36 rolls, from ``side``'s
view. Returns (points for ``side`` or None when stopped, luck, the final Game, the rolls)."""

import numpy as np

from gulbara.bots import GreedyBot
from gulbara.conventions import DICE_36
from gulbara.game.rng import Rng


def roll_value(game, network, a, b, luck="full"):
    """The value of rolling a-b at ``game`` (a side to roll) for its roller (``luck``: the
    rules of gulbara.rollouts.LUCK_RULES)."""
    after = game.copy(auto_roll=False)
    after.roll(a, b)
    mover = after.decision.seat
    if luck == "fast":
        if after.decision.is_chain:                   # the chain, unplayed
            return network.after_value(after, mover)
        ended = after.copy(auto_roll=False)
        ended.play(GreedyBot().choose(after))
        return network.after_value(ended, mover)
    values = []
    for play in after.legal_plays():
        ended = after.copy(auto_roll=False)
        ended.play(play)
        values.append(network.after_value(ended, mover))
    return max(values)


def quasi_rolls(g):
    q = (g % 36 + (g // 36) % 36) % 36
    return [DICE_36[g % 36], DICE_36[q]]


def choose(policy, game, network, draws):
    ends = game.legal_plays()
    if policy == "random":
        return ends[draws.below(len(ends))]
    if policy == "first" or len(ends) == 1:
        return ends[0]
    if policy == "greedy":
        return GreedyBot().choose(game)
    values = list(network.stage_values_python(game))
    return ends[max(range(len(ends)), key=lambda i: (values[i], -i))]


def play(start, side, policies, network, seed, g, *, vr=True, quasi=True, truncate=0,
         rule="full"):
    game = start.copy(auto_roll=False)
    dice, draws = Rng(seed, g, 0), Rng(seed, g, 1)
    given = quasi_rolls(g) if quasi else []
    luck, first_rolls, rolled = 0.0, game.game_rolls, []
    while not game.is_over():
        if game.is_opening():
            game.roll_opening(dice.die() + 1, dice.die() + 1)
        elif game.is_chance():
            if truncate and game.game_rolls - first_rolls >= truncate:
                return None, luck, game, rolled
            a, b = given.pop(0) if given else (dice.die() + 1, dice.die() + 1)
            if vr:
                values = {(x, y): roll_value(game, network, x, y, rule) for x, y in DICE_36}
                v = values[(a, b)] - float(np.mean(list(values.values())))
                luck += v if game.to_move == side else -v
            game.roll(a, b)
            rolled.append((a, b))
        else:
            game.play(choose(policies[game.decision.seat], game, network, draws))
    result = game.result()
    points = 0 if result.winner is None else (result.points if result.winner == side
                                              else -result.points)
    return points, luck, game, rolled
