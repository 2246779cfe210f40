#!/usr/bin/env node
// randbot.js: a random mover for Node.js, for every game of the arena.
// It knows no rules: it keeps the last `legal` line and answers one of its moves.
// Run: node sample_bots/js/randbot.js
"use strict";
const readline = require("readline");

let legal = [];
let pending = null; // the move held back after `go infinite`, sent on `stop`
const say = (text) => process.stdout.write(text + "\n");

readline.createInterface({ input: process.stdin }).on("line", (raw) => {
  const words = raw.trim().split(/\s+/);
  switch (words[0]) {
    case "ugi":
      say("id name randbot-js");
      say("id author arena sample bots");
      say("ugiok");
      break;
    case "isready":
      say("readyok");
      break;
    case "legal":
      legal = words.slice(1);
      break;
    case "go": {
      const move = legal.length ? legal[Math.floor(Math.random() * legal.length)] : "(none)";
      if (words.includes("infinite")) pending = move;
      else say("bestmove " + move);
      break;
    }
    case "stop":
      if (pending !== null) say("bestmove " + pending);
      pending = null;
      break;
    case "quit":
      process.exit(0);
  }
}).on("close", () => process.exit(0));
