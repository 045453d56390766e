"""Griffe extension for the API reference: gulbara's docstrings made Markdown.

gulbara's docstrings hold bare ``>>>`` examples (they run as doctests), which Markdown would
read as nested quotes, so each run of example lines is fenced as ``pycon``; and Sphinx roles
(``:class:`Board```) are shown as code.
"""

import re

import griffe

#: a Sphinx cross-reference role (``:class:`Board```, ``:meth:`~gulbara.Game.play```)
_ROLE = re.compile(r":(?:py:)?(?:class|meth|func|mod|attr|data|exc|obj):`~?([^`]+)`")


def fence_examples(text: str) -> str:
    """Fence every run of doctest lines (a ``>>>`` line up to the next blank line), and show
    Sphinx roles as code."""
    text = _ROLE.sub(r"`\1`", text)
    out, block, in_fence = [], [], False
    for line in text.split("\n"):
        stripped = line.lstrip()
        if stripped.startswith("```"):
            in_fence = not in_fence
        if block:
            if stripped:
                block.append(line)
                continue
            out.extend(["```pycon", *block, "```"])
            block = []
        if not in_fence and stripped.startswith(">>>"):
            block.append(line)
        else:
            out.append(line)
    if block:
        out.extend(["```pycon", *block, "```"])
    return "\n".join(out)


class DoctestFences(griffe.Extension):
    """Fence the doctest examples of every docstring griffe reads."""

    def on_instance(self, *, obj, **kwargs) -> None:
        if obj.docstring is not None:
            obj.docstring.value = fence_examples(obj.docstring.value)
