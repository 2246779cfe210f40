// The login page and an author's page of `arena serve LEAGUE_DIR --submissions`.
// Every request that changes something carries the page's token (X-Arena-Token) and goes to
// this server only; the author's own token lives in an HttpOnly cookie this script never sees.
(function () {
  "use strict";
  var TOKEN = document.querySelector('meta[name="arena-token"]').content;
  var POLL_MS = 700;

  function post(url, body, type) {
    var headers = { "X-Arena-Token": TOKEN };
    if (type) headers["Content-Type"] = type;
    return fetch(url, { method: "POST", headers: headers, body: body, credentials: "same-origin" })
      .then(function (r) {
        return r.text().then(function (text) {
          if (!r.ok) throw new Error(text || ("HTTP " + r.status));
          return text ? JSON.parse(text) : {};
        });
      });
  }

  function el(tag, text, cls) {
    var node = document.createElement(tag);
    if (text !== undefined && text !== null) node.textContent = text;
    if (cls) node.className = cls;
    return node;
  }

  // ------------------------------------------------------------------ log in
  var loginForm = document.getElementById("login-form");
  if (loginForm) {
    loginForm.addEventListener("submit", function (ev) {
      ev.preventDefault();
      var message = document.getElementById("login-message");
      message.textContent = "logging in...";
      post("/login", JSON.stringify({ token: document.getElementById("token").value }),
           "application/json")
        .then(function (answer) { location.href = answer.page; })
        .catch(function (err) { message.textContent = err.message; message.className = "hint error"; });
    });
  }

  // ------------------------------------------------------------------ an author's page
  var logout = document.getElementById("logout");
  if (logout) {
    logout.addEventListener("click", function () {
      post("/logout", "").then(function (answer) { location.href = answer.page; });
    });
  }

  var form = document.getElementById("submit-form");
  var base = location.pathname.replace(/\/+$/, "");
  var finished = {};
  var watched = null;  // the job this page submitted: its line says how it ends

  // The line under the form follows the submission it announced to its end.
  function tellEnd(job) {
    var message = document.getElementById("submit-message");
    if (!message || !job || job.id !== watched) return;
    var done = job.stage === "accepted" || job.stage === "rejected" || job.stage === "failed";
    var text = job.bot + " (" + job.filename + "): " + job.stage +
      (job.label && job.label.indexOf("#") < 0 ? " as " + job.label : "");
    if (job.stage === "rejected" || job.stage === "failed") text += (job.step ? " at " + job.step : "") + ": " + job.reason;
    if (job.notice) text += " (" + job.notice + ")";
    message.textContent = text;
    message.className = job.stage === "accepted" ? "hint" : (done ? "hint error" : "hint");
    message.dataset.stage = job.stage;
  }

  function row(job) {
    var tr = el("tr");
    tr.dataset.job = job.id;
    tr.dataset.stage = job.stage;
    tr.dataset.seen = job.seen.join(" ");
    tr.appendChild(el("td", new Date(job.submitted_at * 1000).toISOString().slice(0, 19).replace("T", " ")));
    tr.appendChild(el("td", job.bot));
    tr.appendChild(el("td", job.filename));
    tr.appendChild(el("td", job.label || "-"));
    var steps = job.seen.filter(function (s) { return s !== job.stage; }).concat([job.stage]);
    tr.appendChild(el("td", steps.join(" → "), "stage " + job.stage));
    var why = (job.step ? job.step + ": " : "") + (job.reason || "");
    if (job.notice) why += (why ? "; " : "") + job.notice;
    tr.appendChild(el("td", why, job.notice ? "reason notice" : "reason"));
    var logs = el("td");
    Object.keys(job.logs).forEach(function (name) {
      var a = el("a", name, "log");
      a.href = job.logs[name];
      logs.appendChild(a);
      logs.appendChild(document.createTextNode(" "));
    });
    tr.appendChild(logs);
    return tr;
  }

  function refresh() {
    return fetch(base + "/submissions", { credentials: "same-origin" })
      .then(function (r) { if (!r.ok) throw new Error("HTTP " + r.status); return r.json(); })
      .then(function (jobs) {
        var body = document.querySelector("#jobs tbody");
        body.replaceChildren.apply(body, jobs.map(row));
        var reload = false;
        jobs.forEach(function (job) {
          var done = job.state === "done" || job.state === "failed";
          if (done && finished[job.id] === false) reload = true;  // finished while watched
          finished[job.id] = done;
        });
        document.body.dataset.jobs = String(jobs.length);
        jobs.forEach(tellEnd);
        if (reload) return refreshBots();
      });
  }

  // A submission just finished: the bots' sections (versions, logs) again from the server.
  function refreshBots() {
    return fetch(location.pathname, { credentials: "same-origin" })
      .then(function (r) { if (!r.ok) throw new Error("HTTP " + r.status); return r.text(); })
      .then(function (text) {
        var fresh = new DOMParser().parseFromString(text, "text/html");
        var main = document.querySelector("main");
        var selector = "main > section.bot, main > #bots";
        document.querySelectorAll(selector).forEach(function (n) { n.remove(); });
        fresh.querySelectorAll(selector).forEach(function (n) {
          main.appendChild(document.importNode(n, true));
        });
      });
  }

  function poll() {
    refresh().catch(function () { /* the server restarts: try again */ })
      .then(function () { setTimeout(poll, POLL_MS); });
  }

  // Retire one of the author's own active versions (the server refuses anyone else's).
  document.addEventListener("click", function (ev) {
    var button = ev.target.closest ? ev.target.closest("button.retire") : null;
    if (!button) return;
    var version = button.dataset.version;
    var message = document.getElementById("submit-message");
    button.disabled = true;
    post(base + "/retire?version=" + encodeURIComponent(version), "")
      .then(function (answer) {
        message.textContent = "retired: " + answer.retired.join(", ");
        message.className = "hint";
        return refreshBots();
      })
      .catch(function (err) {
        button.disabled = false;
        message.textContent = err.message; message.className = "hint error";
      });
  });

  if (form) {
    form.addEventListener("submit", function (ev) {
      ev.preventDefault();
      var message = document.getElementById("submit-message");
      var file = document.getElementById("bot-file").files[0];
      var bot = document.getElementById("bot-name").value;
      if (!file) { message.textContent = "choose a file"; return; }
      message.textContent = "uploading " + file.name + "...";
      var url = base + "/submit?bot=" + encodeURIComponent(bot) +
        "&filename=" + encodeURIComponent(file.name);
      post(url, file, "application/octet-stream")
        .then(function (job) {
          watched = job.id;
          message.textContent = "queued: " + job.bot + " (" + job.filename + ")";
          message.className = "hint";
          return refresh();
        })
        .catch(function (err) { message.textContent = err.message; message.className = "hint error"; });
    });
    poll();
  }
  document.body.setAttribute("data-ready", "1");
})();
