"""The one way the arena's pages are built: escaping, elements, tables, numbers and times as
text, and the page's shell. The run report (:mod:`reports.html`), the league report
(:mod:`reports.league_html`) and the web pages (:mod:`arena.web`) all build with it, so that a
value is escaped once, a table looks the same everywhere and a time means the same hour on
every page.

Escaping
    :class:`Html` is markup known to be safe (built here, or a literal the caller wrote);
    every other value put into a page goes through :func:`escape`. The builders below take
    ``Content`` (an :class:`Html`, or any value, escaped) and return :class:`Html`, so a
    value is never escaped twice nor forgotten. ``escape(None)`` is ``""``.

    - ``escape(value) -> Html``
    - ``attrs(id=..., class_=..., data_version=...) -> Html``: `` id="x" data-version="a@1"``;
      ``None`` and ``False`` leave the attribute out, ``True`` writes it bare; a trailing
      ``_`` is dropped (``class_``) and ``_`` becomes ``-`` (``data_value``).
    - ``element(tag, *content, **attributes) -> Html``; ``join(items, sep="") -> Html``.

Tables
    - ``Cell(content, class_=None, data=None, header=False)``: one cell (``data``: its
      ``data-*`` attributes, e.g. ``{"value": data_value(x)}``); a plain value is a cell too.
    - ``Row(cells, data=None, class_=None)``: one row; a plain list of cells is a row too.
    - ``table(head, rows, id=None, class_=None, scroll=True) -> Html``: ``<table
      class="data ...">`` with one header row (``head``: its column titles; none when empty)
      and ``rows`` (each a :class:`Row`, a list of cells, or a row built as :class:`Html`),
      inside a ``<div class="scroll">`` unless ``scroll`` is False.
    - ``frame_table(frame, id=None, index=False) -> Html``: a pandas frame (its row labels, with
      ``index``, as the first column), numbers as :func:`number` writes them.

Numbers
    - ``number(x, fmt=".1f", signed=False) -> str``: ``""`` for None or NaN, ``∞`` (``+∞``,
      ``−∞`` when signed) for an unbounded value.
    - ``percent(fraction) -> str``: a share as a percentage, one decimal (``0.5`` -> ``50.0``).
    - ``data_value(x) -> str``: the exact value for a ``data-value`` attribute (``""`` for none).

Times
    One zone on every page, :data:`TIME_ZONE` (UTC), written after each time: a page may be
    read far from the machine that wrote it, and a league's pages come from several commands.

    - ``when(timestamp, seconds=False, missing="") -> str``: ``2026-12-02 21:05 UTC``.
    - ``time_of_day(timestamp) -> str``: ``21:05:07 UTC``.

Pages
    - ``document(title, body, head="") -> Html``: the whole page (doctype, charset, viewport,
      no favicon request), ``head`` and ``body`` as given.
    - ``section(id, title, *content) -> Html``: ``<section id=...><h2>title</h2>...``.
    - ``hint(*content) -> Html``: ``<p class="hint">``, the pages' explanatory text.
    - ``image(src, alt, **attributes) -> Html``; ``link(href, *content, **attributes) -> Html``.
    - ``asset(name) -> str``: a file of ``reports/assets`` (the report's CSS and scripts), as
      text, for inlining.
"""

from __future__ import annotations

import html
import math
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    import pandas as pd

TIME_ZONE: Final = "UTC"
"""The zone of every time a page shows."""


class Html(str):
    """Markup that is safe as it is: built by this kit, or a literal of the caller's."""

    __slots__ = ()


Content = object
"""What the builders take: :class:`Html` as it is, anything else escaped (None: nothing)."""


def escape(value: object) -> Html:
    """``value`` as page text: ``&<>"'`` escaped, None as nothing; :class:`Html` unchanged."""
    if isinstance(value, Html):
        return value
    return Html("" if value is None else html.escape(str(value), quote=True))


def join(items: Iterable[Content], sep: str = "") -> Html:
    """Pieces of a page, each escaped unless it is :class:`Html`, one after the other."""
    return Html(sep.join(escape(item) for item in items))


def _attribute_name(key: str) -> str:
    return key.rstrip("_").replace("_", "-")


def attrs(**values: object) -> Html:
    """Attributes written `` name="value"`` (escaped); None and False are left out, True is
    written bare."""
    parts = []
    for key, value in values.items():
        if value is None or value is False:
            continue
        name = _attribute_name(key)
        parts.append(f" {name}" if value is True else f' {name}="{escape(value)}"')
    return Html("".join(parts))


def element(tag: str, *content: Content, **attributes: object) -> Html:
    """``<tag attributes>content</tag>``."""
    return Html(f"<{tag}{attrs(**attributes)}>{join(content)}</{tag}>")


# ----- tables -------------------------------------------------------------------------------

@dataclass(frozen=True)
class Cell:
    """One table cell: its content, its class and ``data-*`` attributes, ``<th>`` or ``<td>``."""

    content: Content = ""
    class_: str | None = None
    data: Mapping[str, object] = field(default_factory=dict)
    header: bool = False

    def html(self) -> Html:
        data = {f"data_{key}": value for key, value in self.data.items()}
        return element("th" if self.header else "td", self.content, class_=self.class_, **data)


@dataclass(frozen=True)
class Row:
    """One table row: its cells (a plain value is a ``<td>`` of its text) and attributes."""

    cells: Sequence[Cell | Content]
    data: Mapping[str, object] = field(default_factory=dict)
    class_: str | None = None

    def html(self) -> Html:
        data = {f"data_{key}": value for key, value in self.data.items()}
        cells = (cell if isinstance(cell, Cell) else Cell(cell) for cell in self.cells)
        return element("tr", Html("".join(cell.html() for cell in cells)),
                       class_=self.class_, **data)


def _row(row: Row | Html | Sequence[Cell | Content]) -> Html:
    if isinstance(row, Html):
        return row
    return (row if isinstance(row, Row) else Row(row)).html()


def table(head: Sequence[Cell | Content], rows: Iterable[Row | Html | Sequence[Cell | Content]],
          *, id: str | None = None, class_: str | None = None, scroll: bool = True) -> Html:
    """A table with one header row (``head``, empty for none) and ``rows`` (each a
    :class:`Row`, a list of cells, or a row already built as :class:`Html`)."""
    header = Row([cell if isinstance(cell, Cell) else Cell(cell, header=True) for cell in head])
    body = "".join(_row(row) for row in rows)
    classes = "data" + (f" {class_}" if class_ else "")
    text = Html(f'<table{attrs(class_=classes, id=id)}>'
                + (f"<thead>{header.html()}</thead>" if head else "")
                + f"<tbody>{body}</tbody></table>")
    return Html(f'<div class="scroll">{text}</div>') if scroll else text


def frame_table(frame: pd.DataFrame, id: str | None = None, index: bool = False) -> Html:
    """A pandas frame as a table; with ``index`` its row labels are the first column, unnamed,
    so that the header is one row. Floats one decimal, missing values blank."""
    import pandas as pd

    frame = frame.copy()
    if index:
        frame.index.name = None
        frame.columns.name = None
    for column in frame.columns:
        if isinstance(frame[column].dtype, pd.Int64Dtype):  # na_rep misses pd.NA
            frame[column] = [("" if pd.isna(v) else str(v)) for v in frame[column]]
    text = frame.to_html(
        index=index, classes="data", border=0, na_rep="", escape=True,
        float_format=lambda x: number(x), table_id=id or None,
    )
    return Html(f'<div class="scroll">{text}</div>')


# ----- numbers and times --------------------------------------------------------------------

def number(x: float | None, fmt: str = ".1f", signed: bool = False) -> str:
    """A number as shown: blank for none or NaN, ∞ for an unbounded value."""
    if x is None or math.isnan(x):
        return ""
    if math.isinf(x):
        return ("+∞" if x > 0 else "−∞") if signed else "∞"
    return format(x, ("+" if signed else "") + fmt)


def percent(fraction: float | None) -> str:
    """A share (0..1) as a percentage with one decimal; blank for none."""
    return number(None if fraction is None else 100.0 * fraction)


def data_value(x: float | None) -> str:
    """The exact value for a ``data-value`` attribute (empty when there is none)."""
    return "" if x is None or math.isnan(x) else repr(float(x))


def when(timestamp: float | None, *, seconds: bool = False, missing: str = "") -> str:
    """A moment as a date and time in :data:`TIME_ZONE`; ``missing`` for none."""
    if not timestamp:
        return missing
    shown = time.strftime("%Y-%m-%d %H:%M:%S" if seconds else "%Y-%m-%d %H:%M",
                          time.gmtime(timestamp))
    return f"{shown} {TIME_ZONE}"


def time_of_day(timestamp: float) -> str:
    """A moment as a time of day in :data:`TIME_ZONE` (``21:05:07 UTC``)."""
    return f"{time.strftime('%H:%M:%S', time.gmtime(timestamp))} {TIME_ZONE}"


# ----- pages --------------------------------------------------------------------------------

def document(title: Content, body: Content, *, head: Content = "") -> Html:
    """A whole page: ``head`` goes into its head after the title, ``body`` into its body."""
    return Html(f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{escape(title)}</title>
<link rel="icon" href="data:,">{escape(head)}
</head><body>{escape(body)}</body></html>
""")


def section(id: str, title: Content, *content: Content, class_: str | None = None) -> Html:
    """A page section with its ``<h2>`` title."""
    return element("section", element("h2", title), *content, id=id, class_=class_)


def hint(*content: Content, **attributes: object) -> Html:
    """The pages' explanatory text: ``<p class="hint">``."""
    classes = attributes.pop("class_", None)
    return element("p", *content, class_="hint" + (f" {classes}" if classes else ""),
                   **attributes)


def image(src: str, alt: str, **attributes: object) -> Html:
    return Html(f"<img{attrs(src=src, alt=alt, **attributes)}>")


def link(href: str, *content: Content, **attributes: object) -> Html:
    return element("a", *content, href=href, **attributes)


def asset(name: str) -> str:
    """A file of ``reports/assets`` as text (the report's stylesheet and scripts, inlined)."""
    return resources.files("reports").joinpath("assets", name).read_text(encoding="utf-8")
