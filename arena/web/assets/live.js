/* The live page of `arena serve RUN_DIR`: one EventSource on /events; every "state" event is a
 * full snapshot of the run (standings, crosstable, finished games, boards in progress), drawn
 * in place without a reload. Boards are drawn by board.js, as in the report's viewer. The server
 * sends the page already filled from the current snapshot (arena/web/livepage.py: the same ids,
 * the boards as text); the first event redraws it all, the boards as pictures.
 */
"use strict";

var LIVE = { version: 0, seen: {}, first: true };

function node(tag, attrs, text) {
  var n = document.createElement(tag);
  if (attrs) for (var k in attrs) n.setAttribute(k, attrs[k]);
  if (text !== undefined && text !== null) n.textContent = text;
  return n;
}

function fillBody(table, rows) {
  var body = table.querySelector("tbody");
  body.textContent = "";
  rows.forEach(function (r) { body.appendChild(r); });
}

function renderStandings(rows) {
  fillBody(document.getElementById("standings-table"), (rows || []).map(function (s) {
    var tr = node("tr");
    [s.rank, s.bot, s.elo, s.games, s.wins, s.draws, s.losses,
     s.score_pct === null ? "" : s.score_pct.toFixed(1), s.note].forEach(function (v) {
      tr.appendChild(node("td", null, v));
    });
    return tr;
  }));
}

function renderCrosstable(cross) {
  var table = document.getElementById("crosstable-table");
  var head = table.querySelector("thead");
  head.textContent = "";
  if (!cross) return;
  var hr = node("tr");
  hr.appendChild(node("th", null, ""));
  cross.bots.forEach(function (b) { hr.appendChild(node("th", null, b)); });
  head.appendChild(hr);
  fillBody(table, cross.bots.map(function (b, i) {
    var tr = node("tr");
    tr.appendChild(node("th", null, b));
    cross.cells[i].forEach(function (c) { tr.appendChild(node("td", null, c)); });
    return tr;
  }));
}

function renderFinished(games) {
  var rows = (games || []).map(function (g) {
    var tr = node("tr", { "data-key": g.key });
    if (!LIVE.first && !LIVE.seen[g.key]) tr.className = "fresh";
    LIVE.seen[g.key] = true;
    var cell = node("td");
    if (g.viewer) {
      var a = node("a", { href: "/run/report.html#game=" + encodeURIComponent(g.key) + "&ply=0",
                          target: "_blank", "class": "view" }, "view");
      cell.appendChild(a);
    } else {
      /* the report's viewer has it only after the next rebuild: its PGN exists now */
      cell.appendChild(node("a", { href: "/game/" + encodeURIComponent(g.key) + ".pgn",
                                   target: "_blank", "class": "pgn" }, "PGN"));
    }
    tr.appendChild(cell);
    [g.id, g.p1, g.p2, g.result, g.termination, g.plies, g.reason].forEach(function (v) {
      tr.appendChild(node("td", null, v));
    });
    return tr;
  });
  fillBody(document.getElementById("finished-table"), rows);
}

function renderRunning(games) {
  var host = document.getElementById("boards");
  var keep = {};
  (games || []).forEach(function (g) {
    keep[g.id] = true;
    var card = host.querySelector('[data-game="' + CSS.escape(g.id) + '"]');
    if (!card) {
      card = node("div", { "class": "board-card", "data-game": g.id });
      card.appendChild(node("h3"));
      card.appendChild(node("div", { "class": "hint" }));
      card.appendChild(node("div", { "class": "live-board" }));
      host.appendChild(card);
    }
    if (card.getAttribute("data-plies") === String(g.plies)) return;
    card.setAttribute("data-plies", String(g.plies));
    card.querySelector("h3").textContent = g.id + ": " + g.p1 + " vs " + g.p2;
    var clocks = (g.clocks || []).map(function (ms, side) {
      return ms === null ? "" : (side ? " · p2 " : " · p1 ") + (ms / 1000).toFixed(1) + " s";
    }).join("");
    card.querySelector(".hint").textContent = g.game + (g.time_control ? " " + g.time_control : "") +
      ", ply " + g.plies + (g.last ? ", last move " + g.last : "") + clocks;
    var boardHost = card.querySelector(".live-board");
    if (g.doc && g.doc.cells) {
      var positions = buildPositions(g.doc);
      drawBoard(g.doc, positions[positions.length - 1], boardHost, { size: 220 });
      var caption = positions[positions.length - 1].caption;
      if (caption) card.querySelector(".hint").textContent += " · " + caption;
    } else {
      boardHost.textContent = (g.doc && g.doc.error) || "no board yet";
    }
  });
  Array.prototype.slice.call(host.children).forEach(function (card) {
    if (!keep[card.getAttribute("data-game")]) host.removeChild(card);
  });
  document.getElementById("no-running").style.display = (games && games.length) ? "none" : "";
}

function render(snap) {
  LIVE.version = snap.version;
  document.getElementById("run-name").textContent = snap.run || "";
  var total = snap.total ? "/" + snap.total : "";
  document.getElementById("progress").textContent = (snap.done || 0) + total + " games finished, " +
    (snap.running || []).length + " in progress" + (snap.error ? " · " + snap.error : "") +
    (snap.report_error ? " · " + snap.report_error : "");
  renderStandings(snap.standings);
  renderCrosstable(snap.crosstable);
  renderFinished(snap.finished);
  renderRunning(snap.running);
  document.body.setAttribute("data-version", String(snap.version));
  LIVE.first = false;
}

document.addEventListener("DOMContentLoaded", function () {
  var conn = document.getElementById("conn");
  var source = new EventSource("/events");
  source.addEventListener("state", function (ev) {
    render(JSON.parse(ev.data));
    document.body.setAttribute("data-ready", "1");
  });
  source.onopen = function () { conn.textContent = "live"; conn.className = "ok"; };
  source.onerror = function () { conn.textContent = "reconnecting..."; conn.className = "bad"; };
});
