// tracegate view: the page. Plain browser JavaScript, embedded in the binary as text.
// Every piece of record content reaches the DOM through text nodes (textContent,
// createTextNode) or plain attributes we name ourselves (title, class); there is no
// HTML parsing of anything a record holds, so a hostile tool output cannot run script.
"use strict";
(() => {
  const TOKEN = new URLSearchParams(location.search).get("token") || "";
  const root = document.getElementById("app");
  const PAGE = 50;
  const state = { list: { q: "", harness: "", outcome: "", offset: 0 }, session: null, seen: new Set(), live: false, liveText: "○ offline" };

  // ---- DOM helpers: text only -------------------------------------------------
  function h(tag, props, ...kids) {
    const el = document.createElement(tag);
    if (props) {
      for (const [k, v] of Object.entries(props)) {
        if (v === undefined || v === null || v === false) continue;
        if (k === "class") el.className = v;
        else if (k === "text") el.textContent = String(v);
        else if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
        else if (k === "id" || k === "title" || k === "type" || k === "placeholder" || k === "value" || k.startsWith("data-") || k === "open") el.setAttribute(k, String(v));
        else throw new Error(`attribute ${k} is not allowed`);
      }
    }
    for (const kid of kids.flat()) {
      if (kid === null || kid === undefined || kid === false) continue;
      el.append(kid instanceof Node ? kid : document.createTextNode(String(kid)));
    }
    return el;
  }
  function clear(el) {
    while (el.firstChild) el.removeChild(el.firstChild);
  }

  const MARK = /\[REDACTED:[^\]\s]{1,120}\]/g;
  /** Text with redaction marks shown as marks. */
  function marked(s) {
    const frag = document.createDocumentFragment();
    let last = 0;
    for (const m of s.matchAll(MARK)) {
      if (m.index > last) frag.append(document.createTextNode(s.slice(last, m.index)));
      frag.append(h("span", { class: "redacted", title: "redacted by tracegate before it was written", text: m[0] }));
      last = m.index + m[0].length;
    }
    if (last < s.length) frag.append(document.createTextNode(s.slice(last)));
    return frag;
  }
  function isCut(v) {
    return v && typeof v === "object" && v.cut === true && typeof v.head === "string";
  }
  function cutMark(v) {
    return h("span", { class: "cutmark", title: `sha256 ${v.sha256}`, text: ` … cut: ${fmtBytes(v.bytes)} in full, sha256 ${String(v.sha256).slice(0, 12)}…` });
  }
  /** A stored string (or cut string) as marked text. */
  function str(v) {
    if (isCut(v)) return h("span", null, marked(v.head), cutMark(v));
    if (v === null || v === undefined) return h("span", { class: "dim", text: "—" });
    return h("span", null, marked(typeof v === "string" ? v : JSON.stringify(v)));
  }
  function plain(v) {
    if (isCut(v)) return v.head;
    if (typeof v === "string") return v;
    if (v === null || v === undefined) return "";
    return JSON.stringify(v);
  }
  function pre(s, cls) {
    return h("pre", { class: cls || "block" }, marked(s));
  }
  function jsonBlock(v) {
    if (typeof v === "string") return pre(v);
    if (isCut(v)) return h("pre", { class: "block" }, marked(v.head), cutMark(v));
    // An object of mostly strings (a tool's stdout/stderr, a file's content): each field as its own text block.
    if (v && typeof v === "object" && !Array.isArray(v)) {
      const entries = Object.entries(v);
      const flat = entries.length > 0 && entries.length <= 12 && entries.every(([, x]) => x === null || typeof x !== "object" || isCut(x));
      if (flat && entries.some(([, x]) => typeof x === "string" && x.includes("\n"))) {
        return h("dl", { class: "fields" }, entries.flatMap(([k, x]) => [h("dt", { text: k }), h("dd", null, typeof x === "string" || isCut(x) ? jsonBlock(x) : h("code", { text: JSON.stringify(x) }))]));
      }
    }
    return pre(JSON.stringify(v, null, 2));
  }
  function sizeOf(v) {
    if (v === null || v === undefined) return 0;
    if (isCut(v)) return v.bytes;
    return new TextEncoder().encode(typeof v === "string" ? v : JSON.stringify(v)).length;
  }
  function fmtBytes(n) {
    if (typeof n !== "number") return "?";
    if (n < 1024) return `${n} B`;
    if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
    return `${(n / 1024 / 1024).toFixed(1)} MiB`;
  }
  function fmtDur(ms) {
    if (typeof ms !== "number") return "—";
    if (ms < 1000) return `${ms} ms`;
    const s = Math.round(ms / 1000);
    if (s < 60) return `${s} s`;
    const m = Math.floor(s / 60);
    if (m < 60) return `${m} min ${s % 60} s`;
    return `${Math.floor(m / 60)} h ${m % 60} min`;
  }
  function fmtTime(ts) {
    if (typeof ts !== "string") return "—";
    const d = new Date(ts);
    return Number.isNaN(d.getTime()) ? ts : d.toLocaleString();
  }
  function badge(textValue, cls) {
    return h("span", { class: `badge ${cls || ""}`, text: textValue });
  }
  function outcomeBadge(o) {
    return badge(o, `o-${String(o).replace(/[^a-z_]/g, "")}`);
  }
  /** How a claimed flip fared when its signature was checked again. */
  function flipMark(r) {
    if (r.outcome_check === "ok") return h("span", { class: "sig-ok", title: "the last verdict's signature checks out with the configured oracle key", text: " ✓" });
    if (r.outcome_check === "fails") return h("span", { class: "badge s-forged", title: "the records claim a flip but the last verdict's signature does not verify", text: "unverified flip" });
    if (r.outcome_check === "unchecked") return h("span", { class: "dim", title: "no oracle.public_key configured to check the signature", text: " ?" });
    return null;
  }

  // ---- API --------------------------------------------------------------------
  async function api(path, params) {
    const q = new URLSearchParams(params || {});
    const res = await fetch(`${path}?${q}`, { headers: { "x-tracegate-token": TOKEN }, cache: "no-store" });
    const body = await res.json().catch(() => ({ error: `HTTP ${res.status}` }));
    if (!res.ok) throw new Error(body.error || `HTTP ${res.status}`);
    return body;
  }

  // ---- diffs ------------------------------------------------------------------
  function diffLine(line) {
    const c = line[0];
    const cls = line.startsWith("@@") ? "d-hunk" : line.startsWith("+++") || line.startsWith("---") || line.startsWith("diff ") || line.startsWith("index ") ? "d-meta" : c === "+" ? "d-add" : c === "-" ? "d-del" : "d-ctx";
    return h("span", { class: `dl ${cls}` }, marked(line), "\n");
  }
  /** A unified diff as coloured lines (text nodes only). */
  function diffBlock(patch) {
    const lines = patch.split("\n");
    if (lines[lines.length - 1] === "") lines.pop();
    return h("pre", { class: "diff" }, lines.map(diffLine));
  }
  /** Line diff of two short texts (LCS); long ones go as all-removed, all-added. */
  function lineDiff(a, b) {
    const x = a.split("\n");
    const y = b.split("\n");
    if (x.length * y.length > 250000) return [...x.map((l) => `-${l}`), ...y.map((l) => `+${l}`)];
    const dp = Array.from({ length: x.length + 1 }, () => new Uint32Array(y.length + 1));
    for (let i = x.length - 1; i >= 0; i--) for (let j = y.length - 1; j >= 0; j--) dp[i][j] = x[i] === y[j] ? dp[i + 1][j + 1] + 1 : Math.max(dp[i + 1][j], dp[i][j + 1]);
    const out = [];
    let i = 0;
    let j = 0;
    while (i < x.length && j < y.length) {
      if (x[i] === y[j]) {
        out.push(` ${x[i]}`);
        i++;
        j++;
      } else if (dp[i + 1][j] >= dp[i][j + 1]) out.push(`-${x[i++]}`);
      else out.push(`+${y[j++]}`);
    }
    while (i < x.length) out.push(`-${x[i++]}`);
    while (j < y.length) out.push(`+${y[j++]}`);
    return out;
  }
  /** The change an edit-like tool call made, as diff text, when its input or output says. */
  function toolDiff(r) {
    const input = r.input && typeof r.input === "object" ? r.input : {};
    const output = r.output && typeof r.output === "object" ? r.output : {};
    const file = plain(input.file_path || input.path || output.filePath || "");
    // Paths relative to the session's directory, as git would print them.
    const cwd = state.session && state.session.cwd ? `${state.session.cwd.replace(/\/+$/, "")}/` : null;
    const rel = (cwd && file.startsWith(cwd) ? file.slice(cwd.length) : file).replace(/^\/+/, "");
    const head = [`--- a/${rel}`, `+++ b/${rel}`];
    if (Array.isArray(output.structuredPatch) && output.structuredPatch.length) {
      const out = [...head];
      for (const hk of output.structuredPatch) {
        if (!hk || !Array.isArray(hk.lines)) continue;
        out.push(`@@ -${hk.oldStart},${hk.oldLines} +${hk.newStart},${hk.newLines} @@`, ...hk.lines.map(plain));
      }
      return out.join("\n");
    }
    if (input.old_string !== undefined && input.new_string !== undefined) return [...head, "@@ edit @@", ...lineDiff(plain(input.old_string), plain(input.new_string))].join("\n");
    if (Array.isArray(input.edits)) {
      const out = [...head];
      for (const e of input.edits) if (e && e.old_string !== undefined) out.push("@@ edit @@", ...lineDiff(plain(e.old_string), plain(e.new_string)));
      return out.join("\n");
    }
    if (input.content !== undefined && /write/i.test(plain(r.tool_name))) return [`--- /dev/null`, `+++ b/${rel}`, "@@ new content @@", ...plain(input.content).split("\n").map((l) => `+${l}`)].join("\n");
    return null;
  }

  // ---- timeline -----------------------------------------------------------------
  function section(title, body, open) {
    return h("details", { class: "sect", open: open ? "" : null }, h("summary", { text: title }), body);
  }
  /** A collapsed section whose body is built the first time it is opened (outputs can be megabytes). */
  function lazySection(cls, title, build) {
    const d = h("details", { class: cls }, h("summary", { text: title }));
    d.addEventListener("toggle", () => {
      if (d.open && d.childNodes.length === 1) d.append(build());
    });
    return d;
  }
  function oneLine(v, n) {
    const s = plain(v).replace(/\s+/g, " ");
    return s.length > n ? `${s.slice(0, n)}…` : s;
  }
  function toolSummary(input) {
    if (!input || typeof input !== "object") return oneLine(input, 120);
    for (const k of ["command", "file_path", "path", "pattern", "url", "query", "description"]) if (input[k] !== undefined) return oneLine(input[k], 120);
    return oneLine(input, 120);
  }
  function liveCutNote(r) {
    return r.view_cut ? h("div", { class: "note", text: `cut for live display (${fmtBytes(r.view_cut.bytes)} in full); reopen the session to see it whole` }) : null;
  }
  function item(r, body, cls, call) {
    const agent = r.agent_type || r.agent_id ? h("span", { class: "agent", title: plain(r.agent_id), text: `subagent ${plain(r.agent_type) || plain(r.agent_id)}` }) : null;
    return h("li", { class: `ev ${cls || ""}`, "data-type": r.type, "data-id": plain(r.id), "data-call": call }, h("div", { class: "when", title: plain(r.ts), text: fmtTime(r.ts).split(", ").pop() }), h("div", { class: "what" }, agent, body, liveCutNote(r)));
  }
  /** The tool_use_id a PreToolUse record announces (its payload is the whole event). */
  function preCallId(r) {
    return r.type === "pre_tool_use" && r.payload && typeof r.payload === "object" ? plain(r.payload.tool_use_id) : "";
  }
  /** A record that cannot be drawn (a hostile or corrupt shape) still shows, as its JSON text. */
  function renderRecord(r) {
    try {
      return drawRecord(r);
    } catch (e) {
      return h("li", { class: "ev other", "data-type": "unrenderable" }, h("div", { class: "when", text: "" }), h("div", { class: "what" }, h("span", { class: "error", text: `unrenderable record (${e && e.message})` }), pre(JSON.stringify(r))));
    }
  }
  /** What the viewer found when it checked a stored "verified" verdict's signature again. */
  function checkBadge(r) {
    const c = state.checks && typeof r.id === "string" ? state.checks[r.id] : null;
    if (!c) return null;
    if (c.state === "ok") return h("span", { class: "badge s-ok sig", title: "signature checked again with the configured oracle key", text: "signature ✓" });
    if (c.state === "fails") return h("span", { class: "badge s-forged sig", title: plain(c.problem), text: "signature does not verify" });
    return h("span", { class: "badge sig", title: plain(c.problem), text: "signature not re-checked" });
  }
  function drawRecord(r) {
    switch (r.type) {
      case "session_start":
        return item(r, [h("div", { class: "head" }, badge("session start", "t-start"), " ", str(r.cwd)), h("div", { class: "meta" }, `base ${plain(r.base_commit) || "none"}`, r.model ? ` · model ${plain(r.model)}` : "", r.source ? ` · ${plain(r.source)}` : "")], "start");
      case "message":
        return item(r, [h("div", { class: "head" }, badge(r.role === "user" ? "prompt" : "assistant", r.role === "user" ? "t-prompt" : "t-assistant")), r.text === undefined ? null : h("div", { class: "msg" }, isCut(r.text) ? h("pre", { class: "block" }, marked(r.text.head), cutMark(r.text)) : pre(plain(r.text)))], r.role === "user" ? "prompt" : "assistant");
      case "tool_call": {
        const diff = r.view_cut ? null : toolDiff(r);
        const outSize = sizeOf(r.output);
        const body = h(
          "details",
          { class: "tool" },
          h("summary", null, badge(plain(r.tool_name) || "tool", "t-tool"), " ", badge(r.status || "?", r.status === "error" ? "s-error" : "s-ok"), " ", h("span", { class: "dim", text: fmtDur(r.duration_ms) }), " ", h("span", { class: "preview", text: toolSummary(r.input) })),
          h("div", { class: "meta", text: `tool_use_id ${plain(r.tool_use_id) || "—"}` }),
          diff ? section("Change", diffBlock(diff), true) : null,
          r.input !== undefined ? section("Input", jsonBlock(r.input), !diff) : null,
          r.error !== undefined ? section("Error", jsonBlock(r.error), true) : null,
          r.output !== undefined ? lazySection("sect output", `Output (${fmtBytes(outSize)})`, () => jsonBlock(r.output)) : null,
        );
        return item(r, body, "tool");
      }
      case "oracle_verdict": {
        const v = plain(r.verdict);
        const diffNote =
          typeof r.diff === "string"
            ? section("Diff sent to the oracle", diffBlock(r.diff), true)
            : h("div", { class: "note" }, "Diff sent to the oracle: ", r.diff_sha256 ? `sha256 ${plain(r.diff_sha256)}, ${fmtBytes(r.diff_bytes)}, ${r.diff_files ?? "?"} file${r.diff_files === 1 ? "" : "s"}` : "not recorded", ". The record keeps the diff's digest and size, not the patch itself.");
        return item(
          r,
          [
            h("div", { class: "head" }, badge(`verdict ${v}`, `v-${v.toLowerCase().replace(/[^a-z]/g, "")}`), " ", badge(r.verified ? "verified" : "not verified", r.verified ? "s-ok" : "s-error"), " ", checkBadge(r), " ", r.decision ? badge(r.decision === "block" ? "blocked" : "allowed", r.decision === "block" ? "s-error" : "s-ok") : null, " ", h("span", { class: "dim", text: `attempt ${r.attempt ?? "?"}` })),
            r.problem ? h("div", { class: "meta" }, str(r.problem)) : null,
            diffNote,
            section("Signed verdict", jsonBlock(r.signed), false),
          ],
          "verdict",
        );
      }
      case "pre_tool_use": {
        // A call that has started and not finished: PostToolUse replaces it with the tool call.
        const p = r.payload && typeof r.payload === "object" ? r.payload : {};
        return item(r, h("details", { class: "tool" }, h("summary", null, badge(plain(p.tool_name) || "tool", "t-tool"), " ", badge("running", "s-run"), " ", h("span", { class: "preview", text: toolSummary(p.tool_input) })), p.tool_input !== undefined ? section("Input", jsonBlock(p.tool_input), true) : null), "tool pending", preCallId(r) || null);
      }
      case "session_end":
        return item(r, h("div", { class: "head" }, badge("session end", "t-end"), " ", outcomeBadge(plain(r.outcome)), " ", h("span", { class: "dim" }, str(r.reason))), "end");
      default:
        return item(r, h("details", { class: "other" }, h("summary", null, badge(plain(r.type), "t-other"), " ", h("span", { class: "dim", text: plain(r.event) })), jsonBlock(r.payload !== undefined ? r.payload : r.head !== undefined ? r.head : r)), "other");
    }
  }

  // ---- views --------------------------------------------------------------------
  function header(...extra) {
    return h("header", null, h("a", { class: "brand", onclick: () => (location.hash = "#/"), title: "all sessions", text: "tracegate view" }), h("span", { class: `live ${state.live ? "on" : "off"}`, id: "live", text: state.liveText }), ...extra);
  }

  let listTimer = null;
  let listSeq = 0;
  async function showList() {
    state.session = null;
    const s = state.list;
    const seq = ++listSeq;
    let data;
    try {
      data = await api("/api/sessions", { q: s.q, harness: s.harness, outcome: s.outcome, offset: s.offset, limit: PAGE });
      if (seq !== listSeq) return; // a newer query is on its way
    } catch (e) {
      clear(root);
      root.append(header(), h("p", { class: "error", text: e.message }));
      return;
    }
    if (state.session !== null || !location.hash.match(/^#?\/?$/)) return;
    const search = h("input", { type: "search", placeholder: "search id, repo, prompt…", value: s.q, class: "search" });
    search.addEventListener("input", () => {
      s.q = search.value;
      s.offset = 0;
      clearTimeout(listTimer);
      listTimer = setTimeout(showList, 200);
    });
    const select = (name, values) => {
      const el = h("select", { class: "filter", "data-filter": name }, h("option", { value: "", text: name === "harness" ? "all harnesses" : `all ${name}s` }), values.map((v) => h("option", { value: v, text: v })));
      el.value = s[name];
      el.addEventListener("change", () => {
        s[name] = el.value;
        s.offset = 0;
        showList();
      });
      return el;
    };
    const from = data.total ? s.offset + 1 : 0;
    const to = Math.min(data.total, s.offset + data.rows.length);
    const pager = h(
      "span",
      { class: "pager" },
      h("button", { onclick: () => ((s.offset = Math.max(0, s.offset - PAGE)), showList()), text: "‹ newer" }),
      h("span", { class: "count", text: ` ${from}–${to} of ${data.total} ` }),
      h("button", { onclick: () => (s.offset + PAGE < data.total ? ((s.offset += PAGE), showList()) : null), text: "older ›" }),
    );
    const rows = data.rows.map((r) =>
      h(
        "tr",
        { class: "row", "data-key": r.key, onclick: () => (location.hash = `#/s/${encodeURIComponent(r.key)}`), title: r.session_id },
        h("td", { class: "c-start", text: fmtTime(r.start) }),
        h("td", { text: r.harness || "—" }),
        h("td", { class: "c-repo", title: r.cwd || "", text: r.repo || "—" }),
        h("td", { class: "num", text: fmtDur(r.duration_ms) }),
        h("td", { class: "num", title: r.tool_calls_exact ? "" : "at least; open the session for the exact count", text: `${r.tool_calls_exact ? "" : "≥"}${r.tool_calls}` }),
        h("td", null, outcomeBadge(r.outcome), flipMark(r), r.ended ? null : h("span", { class: "dim", title: "no session_end yet", text: " open" })),
        h("td", { class: "c-prompt" }, r.first_prompt === null ? h("span", { class: "dim", text: "—" }) : marked(oneLine(r.first_prompt, 140))),
      ),
    );
    clear(root);
    root.append(
      header(h("span", { class: "dim src", text: data.source })),
      h("div", { class: "controls" }, search, select("harness", data.harnesses), select("outcome", data.outcomes), pager),
      h("table", { class: "sessions" }, h("thead", null, h("tr", null, ["Start", "Harness", "Repo", "Duration", "Tools", "Outcome", "First prompt"].map((t) => h("th", { text: t })))), h("tbody", null, rows)),
      data.total ? null : h("p", { class: "dim", text: "no sessions" }),
    );
    if (document.activeElement === document.body && s.q) {
      search.focus();
      search.setSelectionRange(s.q.length, s.q.length);
    }
  }

  async function showSession(key) {
    let data;
    try {
      data = await api("/api/session", { key });
    } catch (e) {
      clear(root);
      root.append(header(), h("p", { class: "error", text: e.message }));
      return;
    }
    const r = data.row;
    state.session = { key, session_id: r.session_id, cwd: r.cwd };
    state.checks = data.checks || {};
    state.seen = new Set(data.records.map((x) => x.id));
    // A PreToolUse whose call has finished is shown by its tool call alone.
    const finished = new Set(data.records.filter((x) => x.type === "tool_call").map((x) => plain(x.tool_use_id)));
    const shown = data.records.filter((x) => !(x.type === "pre_tool_use" && finished.has(preCallId(x))));
    const timeline = h("ol", { class: "timeline", id: "timeline" }, shown.map(renderRecord));
    clear(root);
    root.append(
      header(h("a", { class: "back", onclick: () => (location.hash = "#/"), text: "‹ sessions" })),
      h(
        "section",
        { class: "summary" },
        h("h1", { text: r.session_id }),
        h("div", { class: "meta" }, `${r.harness || "—"} · ${r.repo || "—"} · started ${fmtTime(r.start)} · ${fmtDur(r.duration_ms)} · ${r.tool_calls} tool calls · `, outcomeBadge(r.outcome), r.ended ? "" : " · no session end yet"),
        data.problems.length ? h("p", { class: "error", text: `${data.problems.length} corrupt line(s) skipped` }) : null,
      ),
      timeline,
    );
  }

  function onLive(ev) {
    if (ev.kind !== "records" || !Array.isArray(ev.records)) return;
    if (state.session) {
      if (ev.checks && typeof ev.checks === "object") state.checks = Object.assign(state.checks || {}, ev.checks);
      const tl = document.getElementById("timeline");
      if (!tl) return;
      for (const r of ev.records) {
        if (!r || r.session_id !== state.session.session_id || state.seen.has(r.id)) continue;
        state.seen.add(r.id);
        if (r.type === "tool_call") {
          const id = plain(r.tool_use_id);
          for (const el of [...tl.children]) if (id && el.getAttribute("data-type") === "pre_tool_use" && el.getAttribute("data-call") === id) el.remove();
        }
        const li = renderRecord(r);
        li.classList.add("fresh");
        tl.append(li);
      }
    } else {
      clearTimeout(listTimer);
      listTimer = setTimeout(showList, 150);
    }
  }

  function connect() {
    const es = new EventSource(`/api/events?token=${encodeURIComponent(TOKEN)}`);
    let forwarding = true;
    const mark = (on) => {
      state.live = on && forwarding;
      const el = document.getElementById("live");
      if (el) {
        el.className = `live ${state.live ? "on" : "off"}`;
      }
      state.liveText = state.live ? "● live" : on ? "read-only" : "○ offline";
      if (el) el.textContent = state.liveText;
    };
    es.onopen = () => mark(true);
    es.onerror = () => mark(false);
    es.onmessage = (m) => {
      let ev;
      try {
        ev = JSON.parse(m.data);
      } catch {
        return;
      }
      if (ev.kind === "hello") {
        forwarding = ev.live !== false;
        mark(true);
      }
      onLive(ev);
    };
  }

  function route() {
    const m = location.hash.match(/^#\/s\/(.+)$/);
    if (m) showSession(decodeURIComponent(m[1]));
    else showList();
  }
  window.addEventListener("hashchange", route);
  connect();
  route();
})();
