/* Board pictures for the report's viewer and the live pages of `arena serve`: an SVG drawn
 * from one position of a viewer document (cells [x, y, piece, side, terrain, extra], hands,
 * shape "square" or "hex", and for games whose moves number the squares (draughts) the
 * cells' names), made by reports/replay.py. Shared, so every page draws a board the same way.
 */
"use strict";

var SVGNS_BOARD = "http://www.w3.org/2000/svg";
function svgNode(tag, attrs, text) {
  var node = document.createElementNS(SVGNS_BOARD, tag);
  for (var k in attrs) node.setAttribute(k, attrs[k]);
  if (text !== undefined && text !== null) node.textContent = text;
  return node;
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
  var grp = svgNode("g", { "class": "piece" });
  grp.appendChild(svgNode("title", {}, piece + (neutral ? "" : " (" + (sideNames[side] || "p" + (side + 1)) + ")") +
                                     (extra && extra !== "south" && extra !== "north" ? ", " + extra : "")));
  grp.appendChild(svgNode("circle", { cx: cx, cy: cy + 1.5, r: r, fill: "rgba(0,0,0,.25)" }));
  grp.appendChild(svgNode("circle", { cx: cx, cy: cy, r: r, fill: fill, stroke: "#222", "stroke-width": 1.2 }));
  if (extra === "dvonn" && !neutral)
    grp.appendChild(svgNode("circle", { cx: cx, cy: cy, r: r - 3.5, fill: "none", stroke: "#d0312d", "stroke-width": 3 }));
  if (piece === "K")
    grp.appendChild(svgNode("circle", { cx: cx, cy: cy, r: r * 0.62, fill: "none",
                                    stroke: neutral ? "#fff" : SIDE_TEXT[side], "stroke-width": 1.5 }));
  var text = label(piece);
  if (text) {
    var size = text.length <= 2 ? r * 0.95 : r * 0.72;
    grp.appendChild(svgNode("text", { x: cx, y: cy + size * 0.36, "text-anchor": "middle", "font-size": size,
                                  "font-weight": 600, fill: neutral ? "#fff" : SIDE_TEXT[side],
                                  "font-family": "system-ui, sans-serif" }, text));
  }
  g.appendChild(grp);
}

function drawBoard(doc, pos, host, opts) {
  /* opts: flip (p2 at the bottom), size (px across, default 460), marks ({cell index: "from" |
     "to"}), onCell(index, cell) and onHand(side, index, piece) to make cells and hand pieces
     clickable (the human seat of `arena serve --play`) */
  opts = opts || {};
  host.textContent = "";
  var hex = doc.shape === "hex", pad = 22;
  var across = opts.size || 460;
  var S = Math.max(opts.size ? 16 : 40, Math.min(88, Math.floor(across / Math.max(doc.columns, doc.rows * (hex ? 1 : 0.8)))));
  var flip = !!opts.flip;
  var marks = opts.marks || {};
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
  var root = svgNode("svg", { viewBox: "0 0 " + width + " " + (height + 2 * handH), width: width,
                          height: height + 2 * handH, role: "img" });
  var board = svgNode("g", { transform: "translate(0," + handH + ")" });
  root.appendChild(board);
  var changed = {};
  pos.changed.forEach(function (i) { changed[i] = true; });
  pos.cells.forEach(function (c, i) {
    var p = place(c), fill = TERRAIN[c[4]] || "#ddd", shape;
    if (hex) {
      var pts = [], rr = S / Math.sqrt(3);
      for (var k = 0; k < 6; k++) {
        var a = Math.PI / 180 * (60 * k - 90);
        pts.push((p[0] + rr * Math.cos(a)).toFixed(1) + "," + (p[1] + rr * Math.sin(a)).toFixed(1));
      }
      shape = svgNode("polygon", { points: pts.join(" "), fill: changed[i] ? "#f3d36b" : "#e9dcc0",
                               stroke: "#9a8a6a", "stroke-width": 1 });
      board.appendChild(shape);
    } else {
      shape = svgNode("rect", { x: p[0] - S / 2, y: p[1] - S / 2, width: S, height: S, fill: fill,
                            stroke: "#8c7b5e", "stroke-width": 0.6 });
      board.appendChild(shape);
      if (changed[i])
        board.appendChild(svgNode("rect", { x: p[0] - S / 2 + 2, y: p[1] - S / 2 + 2, width: S - 4, height: S - 4,
                                        fill: "none", stroke: "#f1c232", "stroke-width": 3 }));
      if (c[4] === "trap" || c[4] === "den" || c[4] === "castle")
        board.appendChild(svgNode("text", { x: p[0] - S / 2 + 3, y: p[1] + S / 2 - 4, "font-size": 8,
                                        fill: "#4a3b28" }, c[4]));
    }
  });
  /* square numbers in the top left corner, clear of a piece, where moves name squares so */
  var names = doc.names || [];
  if (names.length && !hex) {
    pos.cells.forEach(function (c, i) {
      if (!names[i]) return;
      var p = place(c);
      board.appendChild(svgNode("text", { x: p[0] - S / 2 + 2, y: p[1] - S / 2 + Math.max(6, S * 0.2),
                                      "font-size": Math.max(6, S * 0.2), fill: c[4] === "dark" ? "#f4e9d8" : "#4a3b28",
                                      "font-family": "system-ui, sans-serif", "class": "square-name" }, names[i]));
    });
  }
  pos.cells.forEach(function (c) {
    var p = place(c);
    drawPiece(board, p[0], p[1], S * 0.38, c, doc.sides || []);
  });
  /* selection and targets over the pieces, so a capture's or a stacking move's target shows */
  pos.cells.forEach(function (c, i) {
    var p = place(c);
    if (marks[i] === "from")
      board.appendChild(svgNode("circle", { cx: p[0], cy: p[1], r: S * 0.46, fill: "none", stroke: "#1f5f99",
                                            "stroke-width": 4 }));
    else if (marks[i] === "to")
      board.appendChild(svgNode("circle", { cx: p[0], cy: p[1], r: S * 0.16, fill: "rgba(31,95,153,.75)",
                                            stroke: "#fff", "stroke-width": 1.5, "class": "target" }));
  });
  if (opts.onCell) {
    /* one transparent hit area per cell, on top of everything, so a click on a piece counts */
    pos.cells.forEach(function (c, i) {
      var p = place(c);
      var hit = svgNode("rect", { x: p[0] - S / 2, y: p[1] - S / 2, width: S, height: S, fill: "transparent",
                              "class": "hit" + (marks[i] === "to" ? " target" : ""),
                              "data-cell": c[0] + "," + c[1] });
      hit.style.cursor = "pointer";
      hit.addEventListener("click", function () { opts.onCell(i, c); });
      board.appendChild(hit);
    });
  }
  /* coordinates along the bottom and left for square boards whose moves use them */
  if (!hex && !names.length) {
    for (var x = 0; x < cols; x++) {
      var cx = pad + (flip ? cols - 1 - x : x) * S + S / 2;
      board.appendChild(svgNode("text", { x: cx, y: height - pad + 14, "text-anchor": "middle", "font-size": 10,
                                      fill: "#777" }, String.fromCharCode(97 + x)));
    }
    for (var y = 0; y < rows; y++) {
      var cy = pad + (flip ? y : rows - 1 - y) * S + S / 2 + 3;
      board.appendChild(svgNode("text", { x: pad - 10, y: cy, "text-anchor": "middle", "font-size": 10,
                                      fill: "#777" }, String(y + 1)));
    }
  }
  /* hands: p2 above the board, p1 below (swapped when flipped) */
  hands.forEach(function (hand, side) {
    var top = (side === 1) !== flip;
    var y0 = top ? handH / 2 + 4 : height + handH * 1.5 - 4;
    root.appendChild(svgNode("text", { x: 4, y: y0 + 4, "font-size": 11, fill: "#555" },
                         (doc.sides[side] || "p" + (side + 1)) + ":"));
    hand.forEach(function (piece, k) {
      var hx = 70 + k * S * 0.8;
      drawPiece(root, hx, y0, S * 0.3, [0, 0, piece, side, "", ""], doc.sides || []);
      if (opts.handMark && opts.handMark[0] === side && opts.handMark[1] === k)
        root.appendChild(svgNode("circle", { cx: hx, cy: y0, r: S * 0.36, fill: "none", stroke: "#1f5f99",
                                         "stroke-width": 3 }));
      if (opts.onHand) {
        var hit = svgNode("rect", { x: hx - S * 0.35, y: y0 - S * 0.35, width: S * 0.7, height: S * 0.7,
                                fill: "transparent", "class": "hand-hit", "data-hand": side + "," + k + "," + piece });
        hit.style.cursor = "pointer";
        hit.addEventListener("click", function () { opts.onHand(side, k, piece); });
        root.appendChild(hit);
      }
    });
  });
  host.appendChild(root);
}

