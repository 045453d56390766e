"""Hand-made evaluators: the greedy heuristic (``greedy``; its native twin ``_greedy.pxd``) and
the one-sided bear-off database (``bearoff``)."""
