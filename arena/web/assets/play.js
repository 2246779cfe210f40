/* The human seat's page (`arena serve --play`): the board from the server's snapshots (server-
 * sent events), clicks turned into moves with the click map the server computed from the
 * rules (select a piece or a hand piece, its targets light up, click one), buttons for moves
 * no click expresses (a pass) or when several moves share a click, the seat's commands (help,
 * offer a draw, resign: sent as the move text, the seat answers them), and both clocks: the
 * side to move's runs from the time the server says its turn began.
 */
"use strict";

var PLAY = { snap: null, selected: null, flip: false, choices: [], offset: 0 };

/* A POST to this server: with the token it wrote into the page, without which it refuses any
 * request that changes something (arena/web/guard.py). */
function post(path, body) {
  var meta = document.querySelector('meta[name="arena-token"]');
  var headers = { "X-Arena-Token": meta ? meta.getAttribute("content") : "" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  return fetch(path, { method: "POST", headers: headers,
                       body: body === undefined ? undefined : JSON.stringify(body) });
}

function byId(id) { return document.getElementById(id); }

function node(tag, attrs, text) {
  var n = document.createElement(tag);
  if (attrs) for (var k in attrs) n.setAttribute(k, attrs[k]);
  if (text !== undefined && text !== null) n.textContent = text;
  return n;
}

function myTurn() {
  var s = PLAY.snap;
  return !!(s && s.turn && !s.result && s.turn.side === s.human);
}

function clicks() { return myTurn() ? PLAY.snap.turn.clicks : []; }

function sameHand(a, b) { return a && b && a[0] === b[0] && a[1] === b[1]; }

function fromSelected(c) {
  var sel = PLAY.selected;
  if (!sel) return false;
  if (sel.hand) return sameHand(c.hand, sel.hand);
  return c.hand === null && c.from === sel.cell;
}

function submit(text) {
  PLAY.selected = null;
  PLAY.choices = [];
  post("/move", { move: text })
    .then(function (r) { return r.json(); })
    .then(function (j) { if (!j.ok) byId("problem").textContent = j.error; })
    .catch(function (e) { byId("problem").textContent = String(e); });
  draw();
}

function onCell(i) {
  if (!myTurn()) return;
  var all = clicks();
  if (PLAY.selected) {
    var hits = all.filter(function (c) { return fromSelected(c) && c.to === i; });
    if (hits.length === 1) { submit(hits[0].move); return; }
    if (hits.length > 1) { PLAY.choices = hits.map(function (c) { return c.move; }); draw(); return; }
  }
  if (all.some(function (c) { return c.hand === null && c.from === i; })) {
    PLAY.selected = { cell: i }; PLAY.choices = []; draw(); return;
  }
  var placed = all.filter(function (c) { return c.from === null && c.hand === null && c.to === i; });
  if (placed.length === 1) { submit(placed[0].move); return; }
  if (placed.length > 1) { PLAY.choices = placed.map(function (c) { return c.move; }); draw(); return; }
  PLAY.selected = null; PLAY.choices = []; draw();
}

function onHand(side, k) {
  if (!myTurn()) return;
  if (clicks().some(function (c) { return sameHand(c.hand, [side, k]); })) {
    PLAY.selected = { hand: [side, k] }; PLAY.choices = []; draw();
  }
}

function fmt(ms) {
  if (ms === null || ms === undefined) return "-";
  ms = Math.max(0, ms);
  var s = ms / 1000, m = Math.floor(s / 60);
  return m ? m + ":" + (s - 60 * m).toFixed(1).padStart(4, "0") : s.toFixed(1) + " s";
}

/* Both clocks: the one of the side to move runs down from what it had when its turn began
 * (the server's time, corrected by the difference between its clock and this one). */
function drawClocks() {
  var s = PLAY.snap;
  if (!s) return;
  var run = s.result ? null : s.running;
  [0, 1].forEach(function (side) {
    var ms = s.clocks[side] !== null ? s.clocks[side] : s.base_ms;
    var running = !!run && run.side === side;
    if (running)
      ms = run.left_ms === null ? null : run.left_ms - (Date.now() + PLAY.offset - run.since * 1000);
    var el = byId("clock" + side);
    el.textContent = "p" + (side + 1) + " " + s.names[side] + ": " + (ms === null ? "no clock" : fmt(ms));
    el.className = "clock" + (running ? " turn" : "");
  });
}

function draw() {
  var s = PLAY.snap;
  if (!s) return;
  byId("game-name").textContent = s.game + ", game " + s.number;
  byId("players").textContent = s.names[0] + " (p1) vs " + s.names[1] + " (p2), " + s.tc +
    " · you " + s.score[0] + " - " + s.score[1] + " bot";
  var doc = s.doc, host = byId("board");
  if (!doc || !doc.cells) { host.textContent = (doc && doc.error) || s.error || "waiting..."; return; }
  var positions = buildPositions(doc), pos = positions[positions.length - 1];
  var marks = {}, handMark = null, all = clicks();
  if (PLAY.selected) {
    if (PLAY.selected.hand) handMark = PLAY.selected.hand; else marks[PLAY.selected.cell] = "from";
    all.forEach(function (c) { if (fromSelected(c) && c.to !== null) marks[c.to] = "to"; });
  } else {
    all.forEach(function (c) { if (c.from === null && c.hand === null && c.to !== null) marks[c.to] = "to"; });
  }
  drawBoard(doc, pos, host, { flip: PLAY.flip !== (s.human === 1), marks: marks, handMark: handMark,
                              onCell: onCell, onHand: onHand });
  byId("caption").textContent = pos.caption || "";
  var status;
  if (s.error) status = s.error;
  else if (s.result) status = "Game over: " + s.result.result + " (" + s.result.termination + ") " + s.result.reason;
  else if (myTurn()) status = "Your move" + (PLAY.selected ? ": now click a highlighted target" : ": click a piece");
  else status = s.names[s.turn ? s.turn.side : 1 - s.human] + " is thinking...";
  byId("status").textContent = status;
  byId("problem").textContent = s.problem ? "not accepted: " + s.problem : "";
  var box = byId("choices");
  box.textContent = "";
  var extra = PLAY.choices.slice();
  all.forEach(function (c) { if (c.to === null && c.hand === null && c.from === null) extra.push(c.move); });
  extra.forEach(function (m) {
    var b = node("button", { type: "button", "data-move": m }, m);
    b.addEventListener("click", function () { submit(m); });
    box.appendChild(b);
  });
  byId("new-game").disabled = !s.result;
  Array.prototype.forEach.call(document.querySelectorAll("#commands button"), function (b) {
    b.disabled = !myTurn();
  });
  byId("note").textContent = s.note || "";
  var list = byId("moves-list");
  list.textContent = (doc.moves || []).map(function (m, i) {
    return (i % 2 === 0 ? (Math.floor(i / 2) + 1) + ". " : "") + m[0];
  }).join(" ");
  byId("messages").textContent = (s.messages || []).join(" · ");
  byId("results").textContent = (s.results || []).join(" · ");
  document.body.setAttribute("data-version", String(s.version));
  document.body.setAttribute("data-turn", s.result ? "over" : (myTurn() ? "human" : "bot"));
  document.body.setAttribute("data-number", String(s.number));
  drawClocks();
}

document.addEventListener("DOMContentLoaded", function () {
  var source = new EventSource("/events"), conn = byId("conn");
  source.addEventListener("state", function (ev) {
    var snap = JSON.parse(ev.data);
    PLAY.offset = snap.now * 1000 - Date.now();
    if (!PLAY.snap || !snap.turn || !PLAY.snap.turn || snap.version !== PLAY.snap.version) {
      if (!snap.turn || snap.problem) { PLAY.selected = null; PLAY.choices = []; }
    }
    PLAY.snap = snap;
    draw();
    document.body.setAttribute("data-ready", "1");
  });
  source.onopen = function () { conn.textContent = "connected"; conn.className = "ok"; };
  source.onerror = function () { conn.textContent = "reconnecting..."; conn.className = "bad"; };
  byId("typed").addEventListener("submit", function (ev) {
    ev.preventDefault();
    var t = byId("move-text").value.trim();
    if (t) { submit(t); byId("move-text").value = ""; }
  });
  byId("flip").addEventListener("click", function () { PLAY.flip = !PLAY.flip; draw(); });
  Array.prototype.forEach.call(document.querySelectorAll("#commands button"), function (b) {
    b.addEventListener("click", function () { if (myTurn()) submit(b.getAttribute("data-command")); });
  });
  byId("new-game").addEventListener("click", function () {
    post("/new");
  });
  setInterval(drawClocks, 200);
});
