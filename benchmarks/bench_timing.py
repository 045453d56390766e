"""What every benchmark does after its timed call: check the result, then record rates."""


def finish(benchmark, result, expected, work: int, rates) -> None:
    """Assert ``result == expected``; when timed (not ``--benchmark-disable``), record
    ``rates``: extra_info keys mapped to a function of (work, median seconds)."""
    assert result == expected
    stats = getattr(benchmark, "stats", None)
    if stats is not None:   # None with --benchmark-disable
        for key, rate in rates.items():
            benchmark.extra_info[key] = rate(work, stats.stats.median)


def per_second(work: int, median: float) -> int:
    """Items of work per second."""
    return round(work / median)
