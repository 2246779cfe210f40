// randbot in JavaScript: remembers the last `legal` line and answers one of its moves.
"use strict";
const pick = require("pick");
const readline = require("readline");
let legal = [];
let turn = 7;
readline.createInterface({ input: process.stdin }).on("line", (line) => {
  line = line.trimEnd();
  if (line === "ugi") console.log("id name randbot-js\nid author arena examples\nugiok");
  else if (line === "isready") console.log("readyok");
  else if (line.startsWith("legal ")) legal = line.slice(6).split(/\s+/).filter(Boolean);
  else if (line === "go" || line.startsWith("go ")) {
    console.log("bestmove " + (legal.length ? pick(legal, turn++ * 7919) : "(none)"));
    legal = [];
  } else if (line === "quit") process.exit(0);
});
