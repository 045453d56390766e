"""The slow, obvious twin of a native rollout game (gulbara/rollouts/_rollout.pyx), through the
Python Game and the network's numpy forward pass: game ``g`` of a run seeded ``seed`` from a
start state, its dice from stream 0 (the first two rolls quasi-random when asked), the random
policy's draws from stream 1, and every roll's luck from ``side``'s view by the rules of
gulbara.rollouts.LUCK_RULES. Returns (points for ``side`` or None when stopped, luck, the final
Game, the rolls)."""

import numpy as np

from gulbara.bots import GreedyBot
from gulbara.conventions import DICE_36, other_point
from gulbara.eval.bearoff import bearoff_applies, bearoff_values
from gulbara.eval.greedy import own_counts
from gulbara.game.rng import Rng
from gulbara.net.model import inputs
from gulbara.rollouts.luckmodel import ROLL_WEIGHTS, ROLLS_21


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


def reach(game):
    """For k = 1..6 and m = 1, 2, 4: the roller's checkers (/ 15) on a point p (own
    numbering) with p - k, .., p - m k all on the board and none held by the opponent."""
    me = game.to_move
    mine, theirs = own_counts(game.position, me), own_counts(game.position, 1 - me)
    held = [False] + [theirs[other_point(q)] > 0 for q in range(1, 25)]
    out = []
    for k in range(1, 7):
        for m in (1, 2, 4):
            out.append(sum(mine[p] for p in range(1, 25)
                           if all(p - j * k >= 1 and not held[p - j * k]
                                  for j in range(1, m + 1))) / 15.0)
    return out


def model_features(game, network):
    """The "model" rule's features of ``game`` (a side to roll) and whether doubles
    escalate: 1, the network's hidden activations (numpy), ``reach``, the unplayed chains."""
    a = network.arrays
    hidden = 1 / (1 + np.exp(-(inputs(game) @ a["w1"].astype(np.float64) + a["b1"])))
    probe = game.copy(auto_roll=False)
    probe.roll(1, 1)
    escalating = probe.decision.is_chain
    chains = [chain_unplayed(game, network, d) if escalating else 0.0 for d in range(1, 7)]
    return np.concatenate([[1.0], hidden, reach(game), chains]), escalating


def model_luck(game, network, model, a, b):
    """The "model" rule's luck of a-b: h(a-b) minus the mean of h over the 36 rolls."""
    features, escalating = model_features(game, network)
    h = model.values(features[None], int(escalating))[0]
    return h[ROLLS_21.index((min(a, b), max(a, b)))] - h @ ROLL_WEIGHTS / 36


def luck(game, network, a, b, rule="full", race=True, model=None):
    """The luck of a-b at ``game`` for its roller by ``rule`` (``model``: the "model" rule's
    LuckModel)."""
    if rule == "model":
        return model_luck(game, network, model, a, b)
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
         rule="full", race=True, model=None):
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
                v = luck(game, network, a, b, rule, race, model)
                total += v if game.to_move == side else -v
            game.roll(a, b)
            rolled.append((a, b))
        else:
            game.play(choose(policies[game.decision.seat], game, network, draws))
    result = game.result()
    points = 0 if result.winner is None else (result.points if result.winner == side
                                              else -result.points)
    return points, total, game, rolled
