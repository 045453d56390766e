"""MkDocs hook: three pages of the site are the repository's own root files.

``index.md`` shows README.md, ``changelog.md`` CHANGELOG.md and ``contributing.md``
CONTRIBUTING.md, read at build time, so the site and the repository never differ. Their links
are written for the repository's root (``docs/user/rules.md``) and are made relative to
``docs/`` here (``user/rules.md``).
"""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: site page -> the root file it shows
PAGES = {"index.md": "README.md", "changelog.md": "CHANGELOG.md",
         "contributing.md": "CONTRIBUTING.md"}
#: root file -> its page, for links between them
TARGETS = {source: page for page, source in PAGES.items()}

_LINK = re.compile(r"(\]\()([^)\s]+)(\))")


def _relink(match):
    target = match.group(2)
    path, hash_, anchor = target.partition("#")
    if path.startswith("docs/"):
        path = path[len("docs/"):]
    elif path in TARGETS:
        path = TARGETS[path]
    return f"{match.group(1)}{path}{hash_}{anchor}{match.group(3)}"


def on_page_markdown(markdown, page, config, files, **kwargs):
    source = PAGES.get(page.file.src_uri)
    if source is None:
        return markdown
    text = (ROOT / source).read_text(encoding="utf-8")
    return _LINK.sub(_relink, text)
