"""Matplotlib for gulbara's plots (the ``plot`` extra), without a display."""

import os

from gulbara.errors import GulBaraError


def pyplot():
    """``matplotlib.pyplot`` on the file-only Agg backend, or ImportError naming the extra."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise ImportError('plots need matplotlib: pip install "gulbara[plot]"') from None
    return plt


def check_plot_format(path: str, what: str = "a plot") -> None:
    """Raise :class:`GulBaraError` unless matplotlib can write ``path``'s format (by its
    suffix; none is PNG), before the work whose plot it is."""
    pyplot()
    from matplotlib.backend_bases import FigureCanvasBase
    suffix = os.path.splitext(path)[1][1:].lower()
    formats = FigureCanvasBase.get_supported_filetypes()
    if suffix and suffix not in formats:
        raise GulBaraError(f"{what} {path!r}: matplotlib cannot write .{suffix} images; use "
                           f"one of {', '.join('.' + f for f in sorted(formats))}")
