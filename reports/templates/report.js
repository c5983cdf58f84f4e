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

  // Transcripts (report.html): the frames and bodies are one JSON data
  // block (#tx-data); a transcript's entries are built when it is opened,
  // from text nodes only (textContent), never from markup.
  var txData = null;
  function data() {
    if (txData === null) {
      var el = doc.getElementById("tx-data");
      try { txData = el ? JSON.parse(el.textContent) : {}; } catch (e) { txData = {}; }
      if (!txData || typeof txData !== "object") txData = {};
    }
    return txData;
  }
  function node(tag, cls, text) {
    var n = doc.createElement(tag);
    if (cls) n.className = cls;
    if (text !== undefined && text !== null) n.textContent = String(text);
    return n;
  }
  function pad(n, w) { n = String(n); while (n.length < w) n = "0" + n; return n; }
  function clock(ms) {
    var d = new Date(ms);
    return pad(d.getUTCHours(), 2) + ":" + pad(d.getUTCMinutes(), 2) + ":" + pad(d.getUTCSeconds(), 2) + "." + pad(d.getUTCMilliseconds(), 3);
  }
  function ms(v) {
    if (v >= 1000) return (v / 1000).toFixed(1) + " s";
    if (v >= 100) return v.toFixed(0) + " ms";
    return v.toFixed(1) + " ms";
  }
  function size(n) {
    if (n >= 1048576) return (n / 1048576).toFixed(1) + " MB";
    if (n >= 1024) return (n / 1024).toFixed(1) + " KB";
    return n + " bytes";
  }
  // jsonSegments re-indents JSON text token by token (two spaces, as the
  // Go side does) without parsing values, so numbers, escapes and
  // duplicate keys show exactly as sent; it tolerates a clipped tail.
  function jsonSegments(s) {
    var out = [], plain = "", ind = 0, i = 0, n = s.length, m;
    function nl() { plain += "\n" + new Array(ind + 1).join("  "); }
    function tok(c, t) { if (plain) { out.push(["", plain]); plain = ""; } out.push([c, t]); }
    function ws(k) { while (k < n && " \t\r\n".indexOf(s.charAt(k)) >= 0) k++; return k; }
    while (i < n) {
      var c = s.charAt(i), k;
      if (c === '"') {
        var j = i + 1;
        while (j < n && s.charAt(j) !== '"') { if (s.charAt(j) === "\\") j++; j++; }
        j = Math.min(j + 1, n);
        tok(s.charAt(ws(j)) === ":" ? "k" : "s", s.slice(i, j));
        i = j;
      } else if (c === "{" || c === "[") {
        k = ws(i + 1);
        if (s.charAt(k) === (c === "{" ? "}" : "]")) { plain += c + s.charAt(k); i = k + 1; continue; }
        plain += c; ind++; nl(); i++;
      } else if (c === "}" || c === "]") {
        ind = Math.max(0, ind - 1); nl(); plain += c; i++;
      } else if (c === ",") {
        plain += ","; nl(); i++;
      } else if (c === ":") {
        plain += ": "; i++;
      } else if (" \t\r\n".indexOf(c) >= 0) {
        i++;
      } else if ((m = /^(-?[0-9][0-9.eE+\-]*|true|false|null)/.exec(s.slice(i, i + 64)))) {
        tok(/^[\-0-9]/.test(m[0]) ? "n" : "l", m[0]); i += m[0].length;
      } else {
        plain += c; i++;
      }
    }
    if (plain) out.push(["", plain]);
    return out;
  }
  function code(text, clipped) {
    var t = text.replace(/^\s+/, ""), pre = node("pre"), json = false;
    if (t.charAt(0) === "{" || t.charAt(0) === "[") {
      if (clipped) json = true;
      else { try { JSON.parse(t); json = true; } catch (e) {} }
    }
    if (!json) { pre.textContent = text; return pre; }
    pre.className = "json";
    jsonSegments(t).forEach(function (seg) {
      pre.appendChild(seg[0] ? node("span", seg[0], seg[1]) : doc.createTextNode(seg[1]));
    });
    return pre;
  }
  function entry(f, first, d) {
    var li = node("li"), meta = node("div", "meta"), main = node("div");
    var cls = f.d === "send" ? "send" : f.d === "recv" ? "recv" : "other";
    var arrow = f.d === "send" ? "→ sent" : f.d === "recv" ? "← received" : (f.d || "");
    var kind = f.k || "message";
    if (kind === "note") arrow = "• note";
    if (kind === "closed") arrow += " (closed)";
    if (kind === "note" || kind === "closed") cls += " " + kind;
    li.className = cls;
    meta.appendChild(node("span", "dir", arrow));
    if (f.t !== undefined) {
      meta.appendChild(doc.createTextNode(" " + clock(d.t0 + f.t / 1000) + " "));
      if (first !== null && f.t >= first) {
        var rel = node("span", "", "+" + ms((f.t - first) / 1000));
        rel.title = "relative to the first entry";
        meta.appendChild(rel);
      }
    }
    meta.appendChild(node("br"));
    var strs = d.s || [];
    meta.appendChild(doc.createTextNode((f.c ? strs[f.c - 1] : "") + " #" + f.s + (f.x ? " · exchange " + f.x : "")));
    if (f.h) { meta.appendChild(node("br")); meta.appendChild(node("span", "http", strs[f.h - 1])); }
    if (f.w) { meta.appendChild(node("br")); meta.appendChild(node("span", "what", f.w)); }
    var noteText = "";
    if (kind === "note" || kind === "closed") noteText = f.n || kind;
    if (noteText) main.appendChild(node("div", "text", "[" + noteText + "]"));
    var body = f.b ? d.b[f.b - 1] : "";
    if (typeof body !== "string") body = "";
    if (f.i !== undefined && (f.o || 0) <= body.length) body = body.slice(0, f.o || 0) + f.i + body.slice(f.o || 0);
    if (body !== "") main.appendChild(code(body, !!f.z));
    else if (!noteText) main.appendChild(node("span", "muted small", "(empty body)"));
    var flags = [];
    if (kind !== "message" && kind !== "note" && kind !== "closed") flags.push(kind);
    if (f.tr) flags.push("truncated");
    if (f.e) flags.push("encoding: " + f.e);
    if (f.z) flags.push("clipped: first " + size(body.length) + " of " + size(f.z) + " shown; the full body is in report.json (seq " + f.s + ")");
    flags.forEach(function (x) { main.appendChild(node("span", "flag", x)); main.appendChild(doc.createTextNode(" ")); });
    if (f.hd && f.hd.length) {
      var det = node("details", "hdrs"), dl = node("dl", "kv small mono");
      det.appendChild(node("summary", "", f.hd.length + " headers"));
      f.hd.forEach(function (i) {
        var h = (d.h || [])[i] || ["", ""];
        dl.appendChild(node("dt", "", h[0]));
        dl.appendChild(node("dd", "", h[1]));
      });
      det.appendChild(dl);
      main.appendChild(det);
    }
    li.appendChild(meta);
    li.appendChild(main);
    return li;
  }
  function indices(ref) {
    var out = [], m = /^(\d+)-(\d+)$/.exec(ref || "");
    if (m) { for (var i = +m[1]; i < +m[2]; i++) out.push(i); return out; }
    (ref || "").split(",").forEach(function (x) { if (/^\d+$/.test(x)) out.push(+x); });
    return out;
  }
  function renderTx(det) {
    if (det.getAttribute("data-rendered")) return;
    det.setAttribute("data-rendered", "1");
    var d = data(), frames = d.f || [], ol = det.querySelector("ol.tx");
    if (!ol) return;
    while (ol.firstChild) ol.removeChild(ol.firstChild);
    var first = null;
    indices(det.getAttribute("data-tx")).forEach(function (i, n) {
      var f = frames[i];
      if (!f) return;
      if (n === 0 && f.t !== undefined) first = f.t;
      ol.appendChild(entry(f, first, d));
    });
  }
  doc.addEventListener("toggle", function (ev) {
    var t = ev.target;
    if (t && t.matches && t.matches("details.tx[data-tx]") && t.open) renderTx(t);
  }, true);

  // reveal opens and shows the check a fragment points at
  // (#ANCHOR/transcript: the check and its transcript).
  function reveal() {
    var id = decodeURIComponent(location.hash.slice(1));
    if (!id || id.indexOf("filter=") === 0) return;
    var el = doc.getElementById(id);
    if (!el) return;
    var check = el.closest("details.check");
    if ((check || el).hidden || (el.closest("[data-filter-container]") || {}).hidden) only({});
    if (check) check.open = true;
    if (el.tagName === "DETAILS") el.open = true;
    if (el.matches("details.tx[data-tx]")) renderTx(el);
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
  // Reproduce: the copy button copies the script next to it.
  doc.addEventListener("click", function (ev) {
    var b = ev.target.closest && ev.target.closest("button[data-copy]");
    if (!b) return;
    var pre = b.closest("details.repro").querySelector("pre.script");
    var done = function () { b.textContent = "copied"; setTimeout(function () { b.textContent = "copy"; }, 1500); };
    if (navigator.clipboard && navigator.clipboard.writeText) {
      navigator.clipboard.writeText(pre.textContent).then(done, function () { selectText(pre); });
    } else {
      selectText(pre);
      try { if (document.execCommand("copy")) done(); } catch (e) { /* selected: copy by hand */ }
    }
  });
  function selectText(el) {
    var r = document.createRange();
    r.selectNodeContents(el);
    var s = window.getSelection();
    s.removeAllRanges();
    s.addRange(r);
  }
  window.addEventListener("hashchange", reveal);
  reveal();
  root.setAttribute("data-js", "ready");
})();
