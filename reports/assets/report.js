/* The arena report's script: the filterable game list and the game viewer.
 *
 * Data arrive by <script> tags, which work from file:// where fetch() does not:
 * report/index.js calls arenaIndex({...}) with the game list, and each game's viewer file
 * report/games/<key>.<checksum>.js calls arenaGame(key, doc) when the viewer asks for it.
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

function buildPositions(doc) {
  /* every position as an array of [x, y, piece, side, terrain, extra], plus hands, caption
     and the indices of the cells that changed on the move leading to it */
  var cells = doc.cells.map(function (c) { return c.slice(); });
  var hands = doc.hands || [];
  var captions = doc.captions || [""], caption = 0;
  var out = [{ cells: cells, hands: hands, caption: captions[0], changed: [] }];
  (doc.frames || []).forEach(function (f) {
    var next, changed = [];
    if (f.f) {
      next = f.f.map(function (c) { return c.slice(); });
    } else {
      next = cells.slice();
      f.d.forEach(function (d) {
        var i = d[0];
        next[i] = [cells[i][0], cells[i][1], d[1], d[2], d[3], d[4]];
        changed.push(i);
      });
    }
    if (f.h) hands = f.h;
    if (f.c !== undefined) caption = f.c;
    cells = next;
    out.push({ cells: cells, hands: hands, caption: captions[caption], changed: changed });
  });
  return out;
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
  drawBoard(doc, ARENA.positions[ply]);
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

var TERRAIN = { "": "#eee2c8", dark: "#a97b55", water: "#7cc3e6", trap: "#d8b26e",
                den: "#c8695a", castle: "#a88bc9" };
var SIDE_FILL = ["#fbfbf8", "#2b2f33"], SIDE_TEXT = ["#222", "#fff"];

function label(piece) {
  if (piece === "m") return "";
  if (piece.length > 4) return piece.charAt(0).toUpperCase() + piece.slice(1, 3);
  return piece.length > 2 ? piece.charAt(0).toUpperCase() + piece.slice(1) : piece;
}

function drawPiece(g, cx, cy, r, c, sideNames) {
  var piece = c[2], side = c[3], extra = c[5];
  if (!piece) return;
  var neutral = side < 0;
  var fill = neutral ? "#d0312d" : SIDE_FILL[side];
  var grp = svg("g", { "class": "piece" });
  grp.appendChild(svg("title", {}, piece + (neutral ? "" : " (" + (sideNames[side] || "p" + (side + 1)) + ")") +
                                     (extra && extra !== "south" && extra !== "north" ? ", " + extra : "")));
  grp.appendChild(svg("circle", { cx: cx, cy: cy + 1.5, r: r, fill: "rgba(0,0,0,.25)" }));
  grp.appendChild(svg("circle", { cx: cx, cy: cy, r: r, fill: fill, stroke: "#222", "stroke-width": 1.2 }));
  if (extra === "dvonn" && !neutral)
    grp.appendChild(svg("circle", { cx: cx, cy: cy, r: r - 3.5, fill: "none", stroke: "#d0312d", "stroke-width": 3 }));
  if (piece === "K")
    grp.appendChild(svg("circle", { cx: cx, cy: cy, r: r * 0.62, fill: "none",
                                    stroke: neutral ? "#fff" : SIDE_TEXT[side], "stroke-width": 1.5 }));
  var text = label(piece);
  if (text) {
    var size = text.length <= 2 ? r * 0.95 : r * 0.72;
    grp.appendChild(svg("text", { x: cx, y: cy + size * 0.36, "text-anchor": "middle", "font-size": size,
                                  "font-weight": 600, fill: neutral ? "#fff" : SIDE_TEXT[side],
                                  "font-family": "system-ui, sans-serif" }, text));
  }
  g.appendChild(grp);
}

function drawBoard(doc, pos) {
  var host = document.getElementById("board");
  host.textContent = "";
  var hex = doc.shape === "hex", pad = 22;
  var S = Math.max(40, Math.min(88, Math.floor(460 / Math.max(doc.columns, doc.rows * (hex ? 1 : 0.8)))));
  var flip = ARENA.flipped;
  var hands = pos.hands || [];
  var handH = hands.length ? S * 0.9 : 0;
  var cols = doc.columns, rows = doc.rows;
  var width, height, place;
  if (hex) {
    var minX = Infinity, maxX = -Infinity;
    pos.cells.forEach(function (c) { var px = c[0] - c[1] / 2; minX = Math.min(minX, px); maxX = Math.max(maxX, px); });
    var dy = S * 0.866;
    width = (maxX - minX + 1) * S + 2 * pad;
    height = (rows - 1) * dy + S + 2 * pad;
    place = function (c) {
      var px = c[0] - c[1] / 2 - minX, ry = flip ? c[1] : rows - 1 - c[1];
      if (flip) px = maxX - minX - px;
      return [pad + S / 2 + px * S, pad + S / 2 + ry * dy];
    };
  } else {
    width = cols * S + 2 * pad;
    height = rows * S + 2 * pad;
    place = function (c) {
      var x = flip ? cols - 1 - c[0] : c[0], y = flip ? c[1] : rows - 1 - c[1];
      return [pad + x * S + S / 2, pad + y * S + S / 2];
    };
  }
  var root = svg("svg", { viewBox: "0 0 " + width + " " + (height + 2 * handH), width: width,
                          height: height + 2 * handH, role: "img" });
  var board = svg("g", { transform: "translate(0," + handH + ")" });
  root.appendChild(board);
  var changed = {};
  pos.changed.forEach(function (i) { changed[i] = true; });
  pos.cells.forEach(function (c, i) {
    var p = place(c), fill = TERRAIN[c[4]] || "#ddd";
    if (hex) {
      var pts = [], rr = S / Math.sqrt(3);
      for (var k = 0; k < 6; k++) {
        var a = Math.PI / 180 * (60 * k - 90);
        pts.push((p[0] + rr * Math.cos(a)).toFixed(1) + "," + (p[1] + rr * Math.sin(a)).toFixed(1));
      }
      board.appendChild(svg("polygon", { points: pts.join(" "), fill: changed[i] ? "#f3d36b" : "#e9dcc0",
                                         stroke: "#9a8a6a", "stroke-width": 1 }));
    } else {
      board.appendChild(svg("rect", { x: p[0] - S / 2, y: p[1] - S / 2, width: S, height: S, fill: fill,
                                      stroke: "#8c7b5e", "stroke-width": 0.6 }));
      if (changed[i])
        board.appendChild(svg("rect", { x: p[0] - S / 2 + 2, y: p[1] - S / 2 + 2, width: S - 4, height: S - 4,
                                        fill: "none", stroke: "#f1c232", "stroke-width": 3 }));
      if (c[4] === "trap" || c[4] === "den" || c[4] === "castle")
        board.appendChild(svg("text", { x: p[0] - S / 2 + 3, y: p[1] + S / 2 - 4, "font-size": 8,
                                        fill: "#4a3b28" }, c[4]));
    }
  });
  pos.cells.forEach(function (c) {
    var p = place(c);
    drawPiece(board, p[0], p[1], S * 0.38, c, doc.sides || []);
  });
  /* coordinates along the bottom and left for square boards */
  if (!hex) {
    for (var x = 0; x < cols; x++) {
      var cx = pad + (flip ? cols - 1 - x : x) * S + S / 2;
      board.appendChild(svg("text", { x: cx, y: height - pad + 14, "text-anchor": "middle", "font-size": 10,
                                      fill: "#777" }, String.fromCharCode(97 + x)));
    }
    for (var y = 0; y < rows; y++) {
      var cy = pad + (flip ? y : rows - 1 - y) * S + S / 2 + 3;
      board.appendChild(svg("text", { x: pad - 10, y: cy, "text-anchor": "middle", "font-size": 10,
                                      fill: "#777" }, String(y + 1)));
    }
  }
  /* hands: p2 above the board, p1 below (swapped when flipped) */
  hands.forEach(function (hand, side) {
    var top = (side === 1) !== flip;
    var y0 = top ? handH / 2 + 4 : height + handH * 1.5 - 4;
    root.appendChild(svg("text", { x: 4, y: y0 + 4, "font-size": 11, fill: "#555" },
                         (doc.sides[side] || "p" + (side + 1)) + ":"));
    hand.forEach(function (piece, k) {
      drawPiece(root, 70 + k * S * 0.8, y0, S * 0.3, [0, 0, piece, side, "", ""], doc.sides || []);
    });
  });
  host.appendChild(root);
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
