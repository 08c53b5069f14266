// ub review: keyboard first. No inline script: the CSP forbids it.
(function () {
  "use strict";
  function $(sel) { return document.querySelector(sel); }
  function $$(sel) { return Array.prototype.slice.call(document.querySelectorAll(sel)); }
  var help = $("#help"), helpToggle = $("#help-toggle");
  if (helpToggle) helpToggle.addEventListener("click", function () { help.hidden = !help.hidden; });

  if (document.body.classList.contains("queue")) {
    document.addEventListener("keydown", function (ev) {
      if (ev.key === "n" && $("#start")) { window.location.href = $("#start").href; }
    });
    return;
  }

  var turns = $$(".turn");
  var selected = -1;
  function select(i) {
    if (turns.length === 0) return;
    if (i < 0) i = 0;
    if (i >= turns.length) i = turns.length - 1;
    if (selected >= 0) turns[selected].classList.remove("selected");
    selected = i;
    turns[i].classList.add("selected");
    turns[i].scrollIntoView({ block: "nearest" });
  }
  // Start on the first user message: the simulator's first words.
  for (var t = 0; t < turns.length; t++) {
    if (turns[t].classList.contains("role-user")) { select(t); break; }
  }
  var codeKeys = {};
  $$(".code-in")[0] && Array.prototype.forEach.call($$(".code-in")[0].options, function (o) {
    var m = /^(\d) /.exec(o.textContent);
    if (m) codeKeys[m[1]] = o.value;
  });
  var rows = $$(".errrow");
  var lastRow = null;
  function rowEmpty(r) { return r.querySelector(".code-in").value === "" && r.querySelector(".note-in").value === ""; }
  function addError(code) {
    var r = null;
    for (var i = 0; i < rows.length; i++) { if (rowEmpty(rows[i])) { r = rows[i]; break; } }
    if (!r) { flash("all error rows are used: save, then add more on this episode"); return; }
    r.querySelector(".code-in").value = code;
    if (selected >= 0) r.querySelector(".turn-in").value = turns[selected].getAttribute("data-turn");
    $("#outcome-error").checked = true;
    lastRow = r;
  }
  function cycleSeverity() {
    if (!lastRow) return;
    var s = lastRow.querySelector(".sev-in");
    s.selectedIndex = (s.selectedIndex + 1) % s.options.length;
  }
  function noError() {
    rows.forEach(function (r) {
      r.querySelector(".code-in").value = "";
      r.querySelector(".note-in").value = "";
      r.querySelector(".turn-in").value = "";
      r.querySelector(".sev-in").selectedIndex = 0;
    });
    $("#outcome-none").checked = true;
    lastRow = null;
  }
  function flash(msg) {
    var p = $("#problem");
    if (!p) { p = document.createElement("p"); p.id = "problem"; p.className = "problem"; $("h1").before(p); }
    p.textContent = msg;
  }
  function go(id) { var a = $(id); if (a) window.location.href = a.href; }
  var form = $("#decision");
  // The time spent on the page, counted while it is visible: sent with the
  // decision (the server measures its own, from serving the page).
  var shown = 0, since = document.visibilityState === "visible" ? performance.now() : null;
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "visible") { since = performance.now(); }
    else if (since !== null) { shown += performance.now() - since; since = null; }
  });
  form.addEventListener("submit", function () {
    var ms = shown + (since !== null ? performance.now() - since : 0);
    $("#client-ms").value = String(Math.round(ms));
  });
  function skip() { form.requestSubmit($("#skip")); }
  function undo() {
    var f = $("#saved") || $("#undo");
    if (f) f.requestSubmit(); else flash("nothing to undo here");
  }
  document.addEventListener("keydown", function (ev) {
    var tag = (ev.target && ev.target.tagName) || "";
    var typing = tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA";
    if (ev.key === "Enter" && (ev.ctrlKey || ev.metaKey)) { ev.preventDefault(); form.requestSubmit(); return; }
    if (ev.key === " " && ev.ctrlKey) { ev.preventDefault(); skip(); return; }
    if (typing) { if (ev.key === "Escape") ev.target.blur(); return; }
    if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
    var k = ev.key;
    if (codeKeys[k] !== undefined) { addError(codeKeys[k]); ev.preventDefault(); return; }
    switch (k) {
      case "j": select(selected + 1); break;
      case "k": select(selected - 1); break;
      case "n": go("#next"); break;
      case "p": go("#prev"); break;
      case "x": noError(); break;
      case "c": cycleSeverity(); break;
      case "s": form.requestSubmit(); break;
      case "i": skip(); break;
      case "u": undo(); break;
      case "?": help.hidden = !help.hidden; break;
      default: return;
    }
    ev.preventDefault();
  });
})();
