"""The HTML kit (reports.htmlkit): a value escaped once, tables with their ids, numbers and times
written one way; and it is the only place the pages escape."""

from __future__ import annotations

import ast
import math
from pathlib import Path

import pytest

from reports.htmlkit import (
    TIME_ZONE,
    Cell,
    Html,
    Row,
    attrs,
    data_value,
    document,
    element,
    escape,
    hint,
    join,
    link,
    number,
    percent,
    section,
    table,
    time_of_day,
    when,
)

ROOT = Path(__file__).resolve().parents[1]


def test_a_value_is_escaped_once_and_markup_passes() -> None:
    hostile = '<script>alert("x")</script> & \'q\''
    once = escape(hostile)
    assert "<script>" not in once and "&lt;script&gt;" in once and "&#x27;q&#x27;" in once
    assert escape(once) == once  # Html is not escaped again
    assert escape(None) == ""
    assert join(["<a>", Html("<b>"), 3]) == "&lt;a&gt;<b>3"
    assert element("td", hostile, class_="x") == f'<td class="x">{once}</td>'


def test_attributes_drop_none_and_false_and_escape_values() -> None:
    assert attrs(id="t", class_=None, hidden=True, open=False, data_version='a"@1') == (
        ' id="t" hidden data-version="a&quot;@1"')
    assert link("/x?a=1&b=2", "go", class_="view") == (
        '<a href="/x?a=1&amp;b=2" class="view">go</a>')


def test_a_table_has_its_head_rows_and_data_attributes() -> None:
    html = table(["bot", "<elo>"], [
        Row(["a@1", Cell(1500.0, "rating", {"value": data_value(1500.0)})], {"version": "a@1"}),
        ["b", Cell("x", header=True)],
        Html('<tr data-built="1"><td>made</td></tr>'),
    ], id="board", class_="wide")
    assert html.startswith('<div class="scroll"><table class="data wide" id="board"><thead>')
    assert "<th>&lt;elo&gt;</th>" in html
    assert ('<tr data-version="a@1"><td>a@1</td>'
            '<td class="rating" data-value="1500.0">1500.0</td></tr>') in html
    assert "<tr><td>b</td><th>x</th></tr>" in html
    assert '<tr data-built="1"><td>made</td></tr>' in html
    assert "<thead>" not in table([], [["x"]], scroll=False)


@pytest.mark.parametrize(("value", "signed", "shown"), [
    (None, False, ""), (math.nan, True, ""), (math.inf, False, "∞"), (-math.inf, True, "−∞"),
    (math.inf, True, "+∞"), (12.345, False, "12.3"), (12.345, True, "+12.3"), (-3.0, True, "-3.0"),
])
def test_numbers_have_one_format(value: float | None, signed: bool, shown: str) -> None:
    assert number(value, signed=signed) == shown


def test_percent_and_data_value() -> None:
    assert percent(0.5) == "50.0" and percent(None) == "" and percent(math.nan) == ""
    assert data_value(0.1) == "0.1" and data_value(None) == "" and data_value(math.nan) == ""


def test_times_are_written_in_one_zone() -> None:
    moment = 1_800_000_000.0  # 2027-01-15 08:00:00 UTC, whatever the machine's zone
    assert TIME_ZONE == "UTC"
    assert when(moment) == "2027-01-15 08:00 UTC"
    assert when(moment, seconds=True) == "2027-01-15 08:00:00 UTC"
    assert when(None) == "" and when(None, missing="-") == "-"
    assert time_of_day(moment) == "08:00:00 UTC"


def test_a_page_is_one_shell() -> None:
    page = document("<run>", section("s", "Title", hint("why", id="h")),
                    head=Html("<style>x</style>"))
    assert page.startswith("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">")
    assert "<title>&lt;run&gt;</title>" in page and "<style>x</style>" in page
    assert '<section id="s"><h2>Title</h2><p class="hint" id="h">why</p></section>' in page


def test_no_other_module_escapes_html() -> None:
    """The kit's escape is the one: no page builder imports Python's ``html`` itself."""
    found = []
    for package in ("arena", "reports"):
        for path in sorted((ROOT / package).rglob("*.py")):
            if path == ROOT / "reports" / "htmlkit.py":
                continue
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if isinstance(node, ast.Import):
                    names = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom):
                    names = [node.module or ""]
                else:
                    continue
                if "html" in names or "markupsafe" in names:
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert found == []
