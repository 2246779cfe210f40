/* The arena report's script: the filterable game list and the game viewer.
 *
 * Data arrive by <script> tags, which work from file:// where fetch() does not:
 * report/index.js calls arenaIndex({...}) with the game list, and each game's viewer file
 * report/games/<key>.<checksum>.js calls arenaGame(key, doc) when the viewer asks for it.
 * Boards are drawn by board.js (shared with the live page of `arena serve`).
 */
"use strict";

var ARENA = { index: null, docs: {}, waiting: {}, filtered: [], page: 0, pageSize: 100,
              game: null, ply: 0, positions: null, flipped: false };

function arenaIndex(data) { ARENA.index = data; }

function arenaGame(key, doc) {
  ARENA.docs[key] = doc;
  var then = ARENA.waiting[key];
  delete ARENA.waiting[key];
  if (then) then(doc);
}

function el(tag, attrs, text) {
  var node = document.createElement(tag);
  if (attrs) for (var k in attrs) node.setAttribute(k, attrs[k]);
  if (text !== undefined && text !== null) node.textContent = text;
  return node;
}

var SVGNS = "http://www.w3.org/2000/svg";
function svg(tag, attrs, text) {
  var node = document.createElementNS(SVGNS, tag);
  for (var k in attrs) node.setAttribute(k, attrs[k]);
  if (text !== undefined && text !== null) node.textContent = text;
  return node;
}

/* ----- game list ------------------------------------------------------------------------ */

var FAULTS = ["time-forfeit", "illegal-move", "crash", "stall", "protocol-error"];

function gameRow(g) {
  /* index rows: [key, id, game, p1, p2, result, termination, plies, reason, file,
     transcript] */
  var ix = ARENA.index;
  return { key: g[0], id: g[1], game: ix.games[g[2]], p1: ix.bots[g[3]], p2: ix.bots[g[4]],
           result: g[5], termination: g[6], plies: g[7], reason: g[8], file: g[9],
           transcript: g[10] || "" };
}

function fillSelect(select, values, first) {
  select.appendChild(el("option", { value: "" }, first));
  values.forEach(function (v) { select.appendChild(el("option", { value: v }, v)); });
}

function initList() {
  var ix = ARENA.index;
  if (!ix) return;
  fillSelect(document.getElementById("f-bot"), ix.bots, "any bot");
  fillSelect(document.getElementById("f-game"), ix.games, "any game");
  var terms = [];
  ix.rows.forEach(function (r) { if (terms.indexOf(r[6]) < 0) terms.push(r[6]); });
  terms.sort();
  fillSelect(document.getElementById("f-term"), terms, "any ending");
  ["f-bot", "f-game", "f-term", "f-result", "f-viewer"].forEach(function (id) {
    document.getElementById(id).addEventListener("change", function () { ARENA.page = 0; applyFilters(); });
  });
  document.getElementById("f-text").addEventListener("input", function () { ARENA.page = 0; applyFilters(); });
  document.getElementById("prev-page").addEventListener("click", function () { ARENA.page--; renderList(); });
  document.getElementById("next-page").addEventListener("click", function () { ARENA.page++; renderList(); });
  applyFilters();
}

function setFilter(bot, term) {
  document.getElementById("f-bot").value = bot || "";
  document.getElementById("f-term").value = term || "";
  document.getElementById("f-result").value = term ? "lost" : "";
  ARENA.page = 0;
  applyFilters();
  document.getElementById("games").scrollIntoView();
}

function applyFilters() {
  var ix = ARENA.index;
  var bot = document.getElementById("f-bot").value;
  var game = document.getElementById("f-game").value;
  var term = document.getElementById("f-term").value;
  var result = document.getElementById("f-result").value;
  var viewer = document.getElementById("f-viewer").checked;
  var text = document.getElementById("f-text").value.trim().toLowerCase();
  var botI = bot ? ix.bots.indexOf(bot) : -1;
  var gameI = game ? ix.games.indexOf(game) : -1;
  ARENA.filtered = ix.rows.filter(function (r) {
    if (botI >= 0 && r[3] !== botI && r[4] !== botI) return false;
    if (gameI >= 0 && r[2] !== gameI) return false;
    if (term && r[6] !== term) return false;
    if (viewer && !r[9]) return false;
    if (result) {
      if (result === "won" || result === "lost" || result === "drew") {
        if (botI < 0) return false;
        var side = r[3] === botI ? 0 : 1;
        var want = result === "drew" ? "1/2-1/2"
          : ((result === "won") === (side === 0) ? "1-0" : "0-1");
        if (r[5] !== want) return false;
      } else if (r[5] !== result) return false;
    }
    if (text && (r[1] + " " + r[8]).toLowerCase().indexOf(text) < 0) return false;
    return true;
  });
  renderList();
}

function renderList() {
  var rows = ARENA.filtered;
  var pages = Math.max(1, Math.ceil(rows.length / ARENA.pageSize));
  ARENA.page = Math.min(Math.max(ARENA.page, 0), pages - 1);
  var body = document.querySelector("#game-table tbody");
  body.textContent = "";
  var start = ARENA.page * ARENA.pageSize;
  rows.slice(start, start + ARENA.pageSize).forEach(function (raw) {
    var g = gameRow(raw);
    var tr = el("tr", { "data-key": g.key });
    if (FAULTS.indexOf(g.termination) >= 0) tr.className = "fault";
    var cell = el("td");
    if (g.file) {
      var b = el("button", { type: "button" }, "view");
      b.addEventListener("click", function () { openGame(g.key, 0); });
      cell.appendChild(b);
    } else {
      cell.appendChild(el("span", { "class": "kbd", title: "no viewer file (see the notes)" }, "-"));
    }
    tr.appendChild(cell);
    tr.appendChild(el("td", null, g.id || g.key));
    tr.appendChild(el("td", null, g.game));
    tr.appendChild(el("td", null, g.p1));
    tr.appendChild(el("td", null, g.p2));
    tr.appendChild(el("td", null, g.result));
    tr.appendChild(el("td", { "class": "term" }, g.termination));
    tr.appendChild(el("td", null, String(g.plies)));
    tr.appendChild(el("td", { "class": "reason", title: g.reason }, g.reason));
    body.appendChild(tr);
  });
  document.getElementById("page-info").textContent =
    rows.length + " of " + ARENA.index.rows.length + " games, page " + (ARENA.page + 1) + " / " + pages;
  document.getElementById("prev-page").disabled = ARENA.page <= 0;
  document.getElementById("next-page").disabled = ARENA.page >= pages - 1;
}

/* ----- viewer ----------------------------------------------------------------------------- */

function findRow(key) {
  var rows = ARENA.index ? ARENA.index.rows : [];
  for (var i = 0; i < rows.length; i++) if (rows[i][0] === key) return rows[i];
  return null;
}

function loadGame(key, then) {
  if (ARENA.docs[key]) { then(ARENA.docs[key]); return; }
  var row = findRow(key);
  if (!row || !row[9]) { then(null); return; }
  ARENA.waiting[key] = then;
  var tag = el("script", { src: "report/" + row[9] });
  tag.addEventListener("error", function () {
    delete ARENA.waiting[key];
    showViewerError("could not load report/" + row[9]);
  });
  document.head.appendChild(tag);
}

function openGame(key, ply) {
  var row = findRow(key);
  var box = document.getElementById("viewer");
  box.classList.add("open");
  document.getElementById("v-title").textContent = row ? (row[1] || key) : key;
  document.getElementById("v-error").textContent = "";
  document.getElementById("board").textContent = "";
  document.querySelector("#v-moves tbody").textContent = "";
  if (!row) { showViewerError("no game " + key + " in this report"); return; }
  var g = gameRow(row);
  document.getElementById("v-players").textContent =
    g.game + ": " + g.p1 + " (p1) vs " + g.p2 + " (p2), " + g.result + ", " + g.termination +
    (g.reason ? " - " + g.reason : "");
  var link = document.getElementById("v-transcript");
  link.hidden = !g.transcript;
  if (g.transcript) link.setAttribute("href", g.transcript); else link.removeAttribute("href");
  document.getElementById("v-state").textContent = "loading...";
  loadGame(key, function (doc) {
    document.getElementById("v-state").textContent = "";
    if (!doc) { showViewerError("this game has no viewer file"); return; }
    if (!doc.cells) { showViewerError(doc.error || "this game cannot be replayed"); return; }
    ARENA.game = doc;
    ARENA.positions = buildPositions(doc);
    renderMoves(doc);
    if (doc.error) showViewerError("replay stopped: " + doc.error);
    goTo(ply === undefined ? 0 : ply);
  });
}

function closeViewer() {
  document.getElementById("viewer").classList.remove("open");
  ARENA.game = null;
  if (location.hash) history.replaceState(null, "", location.pathname + location.search);
}

function showViewerError(text) { document.getElementById("v-error").textContent = text; }

function fmtMs(ms) {
  if (ms === null || ms === undefined) return "";
  if (ms < 1000) return ms + " ms";
  var s = ms / 1000;
  if (s < 60) return s.toFixed(s < 10 ? 2 : 1) + " s";
  var m = Math.floor(s / 60);
  return m + ":" + ("0" + Math.floor(s - 60 * m)).slice(-2);
}

function renderMoves(doc) {
  var body = document.querySelector("#v-moves tbody");
  body.textContent = "";
  doc.moves.forEach(function (m, i) {
    /* [text, side, ms, clock, depth, eval, nodes, book] */
    var tr = el("tr", { "data-ply": String(i + 1) });
    if (m[7]) tr.className = "book";
    tr.appendChild(el("td", null, String(i + 1)));
    tr.appendChild(el("td", { "class": "mv" }, (doc.sides[m[1]] || ("p" + (m[1] + 1))).charAt(0) + " " + m[0]));
    tr.appendChild(el("td", null, m[7] ? "book" : fmtMs(m[2])));
    tr.appendChild(el("td", null, fmtMs(m[3])));
    tr.appendChild(el("td", null, m[5] || ""));
    tr.appendChild(el("td", null, m[4] === null || m[4] === undefined ? "" : String(m[4])));
    tr.appendChild(el("td", null, m[6] === null || m[6] === undefined ? "" : String(m[6])));
    tr.addEventListener("click", function () { goTo(i + 1); });
    body.appendChild(tr);
  });
}

function goTo(ply) {
  var doc = ARENA.game;
  if (!doc) return;
  var last = ARENA.positions.length - 1;
  ply = Math.max(0, Math.min(last, ply | 0));
  ARENA.ply = ply;
  drawBoard(doc, ARENA.positions[ply], document.getElementById("board"), { flip: ARENA.flipped });
  document.getElementById("v-ply").textContent = "ply " + ply + " / " + last;
  document.getElementById("v-caption").textContent = ARENA.positions[ply].caption || "";
  var clocks = [null, null];
  for (var i = 0; i < ply; i++) {
    var m = doc.moves[i];
    if (m[3] !== null && m[3] !== undefined) clocks[m[1]] = m[3];
  }
  [0, 1].forEach(function (s) {
    document.getElementById("v-clock" + s).textContent = clocks[s] === null ? "-" : fmtMs(clocks[s]);
  });
  var rows = document.querySelectorAll("#v-moves tbody tr");
  rows.forEach(function (tr) { tr.classList.remove("cur"); });
  if (ply > 0 && rows[ply - 1]) {
    rows[ply - 1].classList.add("cur");
    var box = document.getElementById("v-moves");
    var top = rows[ply - 1].offsetTop;
    if (top < box.scrollTop + 24 || top > box.scrollTop + box.clientHeight - 24)
      box.scrollTop = top - box.clientHeight / 2;
  }
  ["v-first", "v-prev"].forEach(function (id) { document.getElementById(id).disabled = ply <= 0; });
  ["v-next", "v-last"].forEach(function (id) { document.getElementById(id).disabled = ply >= last; });
  var hash = "#game=" + encodeURIComponent(doc.key) + "&ply=" + ply;
  if (location.hash !== hash) history.replaceState(null, "", hash);
}

function onKey(ev) {
  if (!ARENA.game || !document.getElementById("viewer").classList.contains("open")) return;
  var keys = { ArrowLeft: -1, ArrowRight: 1, ArrowUp: -10, ArrowDown: 10 };
  if (ev.key in keys) { goTo(ARENA.ply + keys[ev.key]); ev.preventDefault(); }
  else if (ev.key === "Home") { goTo(0); ev.preventDefault(); }
  else if (ev.key === "End") { goTo(1e9); ev.preventDefault(); }
  else if (ev.key === "Escape") closeViewer();
}

function openFromHash() {
  var m = /game=([^&]+)(?:&ply=(\d+))?/.exec(location.hash);
  if (m) openGame(decodeURIComponent(m[1]), m[2] ? parseInt(m[2], 10) : 0);
}

document.addEventListener("DOMContentLoaded", function () {
  initList();
  document.getElementById("v-first").addEventListener("click", function () { goTo(0); });
  document.getElementById("v-prev").addEventListener("click", function () { goTo(ARENA.ply - 1); });
  document.getElementById("v-next").addEventListener("click", function () { goTo(ARENA.ply + 1); });
  document.getElementById("v-last").addEventListener("click", function () { goTo(1e9); });
  document.getElementById("v-flip").addEventListener("click", function () {
    ARENA.flipped = !ARENA.flipped; goTo(ARENA.ply);
  });
  document.getElementById("v-close").addEventListener("click", closeViewer);
  document.getElementById("viewer").addEventListener("click", function (ev) {
    if (ev.target === this) closeViewer();
  });
  document.addEventListener("keydown", onKey);
  document.querySelectorAll("[data-filter-bot]").forEach(function (b) {
    b.addEventListener("click", function () {
      setFilter(b.getAttribute("data-filter-bot"), b.getAttribute("data-filter-term"));
    });
  });
  window.addEventListener("hashchange", openFromHash);
  openFromHash();
  document.body.setAttribute("data-ready", "1");
});
