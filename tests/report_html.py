"""Reading a built report back as a user sees it: the cell texts of its HTML tables and its
CSV files, shared by the report tests."""

from __future__ import annotations

import csv
from html.parser import HTMLParser
from pathlib import Path


class TableText(HTMLParser):
    """Cell texts of the HTML table with a given id, row by row."""

    def __init__(self, table_id: str) -> None:
        super().__init__()
        self.table_id = table_id
        self.inside = False
        self.rows: list[list[str]] = []
        self.cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table" and ("id", self.table_id) in attrs:
            self.inside = True
        elif self.inside and tag == "tr":
            self.rows.append([])
        elif self.inside and tag in ("td", "th"):
            self.cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag == "table":
            self.inside = False
        elif self.inside and tag in ("td", "th") and self.cell is not None:
            self.rows[-1].append("".join(self.cell).strip())
            self.cell = None

    def handle_data(self, data: str) -> None:
        if self.cell is not None:
            self.cell.append(data)


def html_table(run: Path, table_id: str) -> list[list[str]]:
    """The rows of table ``table_id`` in ``run``/report.html; a missing table fails the test."""
    parser = TableText(table_id)
    parser.feed((run / "report.html").read_text(encoding="utf-8"))
    assert parser.rows, f"no table {table_id} in the report"
    return parser.rows


def read_csv(path: Path) -> list[dict[str, str]]:
    with path.open(newline="") as fh:
        return list(csv.DictReader(fh))
