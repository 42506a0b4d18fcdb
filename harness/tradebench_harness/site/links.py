"""The links of an HTML page (every href and src), and which of them point at a file of the site: what the
site completes in a report it takes in (its flame graphs' pages) and what its test holds every page to."""
from __future__ import annotations

import posixpath
import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

WEB = re.compile(r"^https?://", re.I)


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.found += [v for k, v in attrs if k in ("href", "src") and v is not None]


def of(html: str) -> list[str]:
    """Every href and src of HTML, as written."""
    p = _Links()
    p.feed(html)
    p.close()
    return p.found


def local(url: str) -> str | None:
    """URL's path when it points at a file beside the page (relative, no scheme), else None (a web link, an
    in-page #anchor, a data: image)."""
    parts = urlsplit(url)
    if parts.scheme or parts.netloc or not parts.path:
        return None
    return unquote(parts.path)


def dead(page: Path, site: Path) -> list[str]:
    """The links of PAGE (a file of the site SITE) that neither point at a file inside SITE nor are web links
    (a data: image counts as the page's own)."""
    out: list[str] = []
    for url in of(page.read_text()):
        if WEB.match(url) or url.startswith(("#", "data:image/")):
            continue
        path = local(url)
        target = (page.parent / path).resolve() if path else None
        if target is None or not target.is_file() or not target.is_relative_to(site.resolve()):
            out.append(url)
    return out


def within(base: str, path: str) -> str | None:
    """PATH (relative) joined to the site folder BASE, or None when it climbs out of BASE."""
    joined = posixpath.normpath(posixpath.join(base, path))
    return joined if joined == base or joined.startswith(base.rstrip("/") + "/") else None
