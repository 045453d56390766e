"""gulbara's own engine with one rule broken: a stand-in for someone else's engine.

    python broken_engine.py MODE

reads ``gulbara ends`` requests on stdin and answers them with gulbara's
answers, changed by MODE:

* ``larger-die``: with two different dice of which only the larger is played
  (RULES §3.5), the plays of the smaller die alone are listed too;
* ``game-ending``: a play that bears off the last checker counts only the dice
  it used (RULES §3.3-3.4 say it counts as all): ``playableDice`` is the most
  steps of any end, and the ends with fewer steps are dropped;
* ``order``: the ends are listed sorted by their position codes, not in the
  canonical order of RULES §3.8;
* ``drop-end``: a stage of 6 or more ends loses its last end (RULES §3.7), in
  stage answers and, consistently, in perft answers;
* ``sleep``: answers 5 requests, then never answers again;
* ``exit``: answers 5 requests, then exits with status 3 in the middle of the
  stream;
* ``garbage``: answers the 3rd request with a line that is not JSON.

Perft requests are answered by gulbara's perft, on the broken stage generator
in ``drop-end`` mode.
"""

import json
import sys
import time

from gulbara import stage_ends
from gulbara.cli import answer_request
from gulbara.tools.protocol import perft_answer

DROP_FROM = 6        # drop-end: stages with at least this many ends lose their last one


def larger_die(request, answer):
    dice = request["dice"]
    if len(dice) != 2 or dice[0] == dice[1] or answer["playableDice"] != 1:
        return answer
    if not any(end["steps"] and end["steps"][0][1] == max(dice) for end in answer["ends"]):
        return answer
    known = {end["position"] for end in answer["ends"]}
    smaller = stage_ends(request["position"], request["seat"], [min(dice)])
    for play in smaller:
        if play.steps and play.code not in known:
            answer["ends"].append({"position": play.code, "steps": [list(s) for s in play.steps],
                                   "end": "borneOff" if play.ends_game else "none"})
    return answer


def game_ending(request, answer):
    if not any(end["end"] == "borneOff" for end in answer["ends"]):
        return answer
    most = max(len(end["steps"]) for end in answer["ends"])
    answer["playableDice"] = most
    answer["ends"] = [end for end in answer["ends"] if len(end["steps"]) == most]
    return answer


def order(request, answer):
    answer["ends"].sort(key=lambda end: end["position"])
    return answer


def drop_end(request, answer):
    if len(answer["ends"]) >= DROP_FROM:
        answer["ends"].pop()
    return answer


def dropped_plays(game):
    plays = list(game.legal_plays())
    return plays[:-1] if len(plays) >= DROP_FROM else plays


RULES = {"larger-die": larger_die, "game-ending": game_ending, "order": order,
         "drop-end": drop_end}


def main(mode):
    for number, line in enumerate(sys.stdin, 1):
        if mode in ("sleep", "exit") and number > 5:
            if mode == "exit":
                sys.exit(3)
            time.sleep(3600)
        if mode == "garbage" and number == 3:
            sys.stdout.write("ends: 24/18 24/13, I think\n")
            sys.stdout.flush()
            continue
        request = json.loads(line)
        if "perft" in request:
            plays = dropped_plays if mode == "drop-end" else None
            out = json.dumps(perft_answer(request, plays), separators=(",", ":"))
        else:
            answer = json.loads(answer_request(line))
            if mode in RULES:
                answer = RULES[mode](request, answer)
            out = json.dumps(answer, separators=(",", ":"))
        sys.stdout.write(out + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main(sys.argv[1])
