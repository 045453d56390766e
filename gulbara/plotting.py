"""Matplotlib for gulbara's plots (the ``plot`` extra), without a display."""


def pyplot():
    """``matplotlib.pyplot`` on the file-only Agg backend, or ImportError naming the extra."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise ImportError('plots need matplotlib: pip install "gulbara[plot]"') from None
    return plt
