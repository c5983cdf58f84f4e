(function () {
  "use strict";
  // Filters for report.html and matrix.html. Without JavaScript the filter
  // bar stays hidden and everything is shown. Initial filters come from the
  // query (?verdict=FAIL,WARN&area=lifecycle) or the fragment
  // (#filter=verdict:FAIL,WARN;area:lifecycle). Hidden rows get the
  // "hidden" attribute.
  var doc = document, root = doc.documentElement;
  var groups = ["verdict", "area", "level", "transport", "revision"];
  var bar = doc.getElementById("filters");
  var items = [].slice.call(doc.querySelectorAll("[data-filterable]"));
  var boxes = [].slice.call(doc.querySelectorAll("#filters input[data-group]"));
  var containers = [].slice.call(doc.querySelectorAll("[data-filter-container]"));
  var counter = doc.getElementById("shown");

  function apply() {
    var sel = {};
    groups.forEach(function (g) { sel[g] = null; });
    boxes.forEach(function (b) {
      var g = b.getAttribute("data-group");
      if (!sel[g]) sel[g] = {};
      if (b.checked) sel[g][b.value] = true;
    });
    var shown = 0;
    items.forEach(function (el) {
      var ok = groups.every(function (g) {
        var s = sel[g], v = el.getAttribute("data-" + g);
        if (!s || v === null) return true;
        return v.split(" ").some(function (x) { return s[x]; });
      });
      el.hidden = !ok;
      if (ok) shown++;
    });
    containers.forEach(function (c) {
      c.hidden = !c.querySelector("[data-filterable]:not([hidden])");
    });
    if (counter) counter.textContent = shown + " of " + items.length + " shown";
  }

  // only(spec) checks exactly the listed values of each group named in spec
  // and every value of the other groups.
  function only(spec) {
    boxes.forEach(function (b) {
      var want = spec[b.getAttribute("data-group")];
      b.checked = !want || want.indexOf(b.value) >= 0;
    });
    apply();
  }

  function initial() {
    var spec = {}, any = false;
    try {
      var q = new URLSearchParams(location.search);
      groups.forEach(function (g) {
        var v = q.get(g);
        if (v) { spec[g] = v.split(/[ ,]+/); any = true; }
      });
    } catch (e) {}
    var h = decodeURIComponent(location.hash.slice(1));
    if (h.indexOf("filter=") === 0) {
      h.slice(7).split(";").forEach(function (part) {
        var i = part.indexOf(":");
        if (i > 0 && groups.indexOf(part.slice(0, i)) >= 0) {
          spec[part.slice(0, i)] = part.slice(i + 1).split(/[ ,]+/);
          any = true;
        }
      });
    }
    return any ? spec : null;
  }

  // reveal opens and shows the check a fragment points at.
  function reveal() {
    var id = decodeURIComponent(location.hash.slice(1));
    if (!id || id.indexOf("filter=") === 0) return;
    var el = doc.getElementById(id);
    if (!el) return;
    if (el.hidden || (el.closest("[data-filter-container]") || {}).hidden) only({});
    if (el.tagName === "DETAILS") el.open = true;
    el.scrollIntoView();
  }

  if (bar) {
    bar.hidden = false;
    bar.addEventListener("change", apply);
    bar.addEventListener("click", function (ev) {
      var t = ev.target.closest("button[data-act]");
      if (!t) return;
      var act = t.getAttribute("data-act");
      if (act === "all") only({});
      if (act === "problems") only({ verdict: ["FAIL", "ERROR", "WARN"] });
      if (act === "expand" || act === "collapse") {
        doc.querySelectorAll("details.check").forEach(function (d) { d.open = act === "expand"; });
      }
    });
    doc.querySelectorAll("button[data-only-verdict]").forEach(function (b) {
      b.addEventListener("click", function () {
        only({ verdict: [b.getAttribute("data-only-verdict")] });
        bar.scrollIntoView();
      });
    });
    var spec = initial();
    if (spec) only(spec); else apply();
  }
  window.addEventListener("hashchange", reveal);
  reveal();
  root.setAttribute("data-js", "ready");
})();
