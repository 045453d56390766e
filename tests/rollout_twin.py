"""The slow, obvious twin of a native rollout game (gulbara/rollouts/_rollout.pyx), through the
Python Game and the network's numpy forward pass: game ``g`` of a run seeded ``seed`` from a
start state, its dice from stream 0 (the first two rolls quasi-random when asked), the random
policy's draws from stream 1, and every roll's luck from ``side``'s view by the rules of
gulbara.rollouts.LUCK_RULES. Returns (points for ``side`` or None when stopped, luck, the final
Game, the rolls)."""

import numpy as np

from gulbara.bots import GreedyBot
from gulbara.conventions import DICE_36
from gulbara.eval.bearoff import bearoff_applies, bearoff_values
from gulbara.game.rng import Rng


def best_play(game, network, native=False):
    """The net policy's play: the highest value by the network (numpy's forward pass, or the
    native one, itself checked against numpy in tests/test_net.py), the first on a tie."""
    values = list(network.stage_values(game) if native else network.stage_values_python(game))
    return game.legal_plays()[max(range(len(values)), key=lambda i: (values[i], -i))]


def roll_value(game, network, a, b, race=True):
    """The value of rolling a-b at ``game`` (a side to roll) for its roller: where its whole
    turn leads, every stage played by the net policy, valued by the network (a finished game
    by its points); with ``race``, a bear-off's turn by its best play by the database."""
    after = game.copy(auto_roll=False)
    after.roll(a, b)
    roller = after.decision.seat
    if race and not after.decision.is_chain and bearoff_applies(after):
        return float(max(bearoff_values(after)))
    while after.is_decision():                    # (the native valuation: a chain has many)
        after.play(best_play(after, network, native=True))
    return network.after_value(after, roller)


def chain_unplayed(game, network, d):
    after = game.copy(auto_roll=False)
    after.roll(d, d)
    return network.after_value(after, after.decision.seat)


def luck(game, network, a, b, rule="full", race=True):
    """The luck of a-b at ``game`` for its roller by ``rule``."""
    value = {(x, y): roll_value(game, network, x, y, race)
             for x in range(1, 7) for y in range(x, 7)}
    drawn = value[(min(a, b), max(a, b))]
    probe = game.copy(auto_roll=False)
    probe.roll(1, 1)
    if rule == "fast" and probe.decision.is_chain:
        others = np.mean([v for (x, y), v in value.items() if x != y])
        chains = np.mean([chain_unplayed(game, network, d) for d in range(1, 7)])
        if a != b:
            return drawn - others + 6 / 36 * (others - chains)
        doubles = np.mean([value[(d, d)] for d in range(1, 7)])
        return drawn - doubles + 30 / 36 * (chains - others)
    if rule == "pips" and probe.decision.is_chain:
        anchors = {3: value[(1, 2)], 7: value[(3, 4)], 11: value[(5, 6)]}

        def line(pips):                            # h of a non-double: through the anchors
            low, high = (3, 7) if pips <= 7 else (7, 11)
            return anchors[low] + (pips - low) * (anchors[high] - anchors[low]) / 4

        chains = np.mean([chain_unplayed(game, network, d) for d in range(1, 7)])
        h_mean = 30 / 36 * np.mean([line(x + y) for (x, y) in value if x != y]) + 6 / 36 * chains
        if a != b:
            group = np.mean([v for (x, y), v in value.items() if x != y and x + y == a + b])
            return drawn - group + line(a + b) - h_mean
        doubles = np.mean([value[(d, d)] for d in range(1, 7)])
        return drawn - doubles + chains - h_mean
    return drawn - np.mean([value[(min(x, y), max(x, y))] for x, y in DICE_36])


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
    return best_play(game, network)


def play(start, side, policies, network, seed, g, *, vr=True, quasi=True, truncate=0,
         rule="full", race=True):
    game = start.copy(auto_roll=False)
    dice, draws = Rng(seed, g, 0), Rng(seed, g, 1)
    given = quasi_rolls(g) if quasi else []
    total, first_rolls, rolled = 0.0, game.game_rolls, []
    while not game.is_over():
        if game.is_opening():
            game.roll_opening(dice.die() + 1, dice.die() + 1)
        elif game.is_chance():
            if truncate and game.game_rolls - first_rolls >= truncate:
                return None, total, game, rolled
            a, b = given.pop(0) if given else (dice.die() + 1, dice.die() + 1)
            if vr:
                v = luck(game, network, a, b, rule, race)
                total += v if game.to_move == side else -v
            game.roll(a, b)
            rolled.append((a, b))
        else:
            game.play(choose(policies[game.decision.seat], game, network, draws))
    result = game.result()
    points = 0 if result.winner is None else (result.points if result.winner == side
                                              else -result.points)
    return points, total, game, rolled
