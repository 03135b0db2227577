/** The page's stylesheet, embedded in the binary. */
export const APP_CSS = `
:root { --bg: #fbfbfa; --fg: #1d1f21; --dim: #6b7075; --line: #e3e4e6; --accent: #2f5fd0;
  --ok: #1f7a3a; --okbg: #e4f4e8; --err: #a8261f; --errbg: #fbe7e5; --warn: #8a5a00; --warnbg: #fdf1d8;
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", "DejaVu Sans", sans-serif; }
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg); }
main { max-width: 1280px; margin: 0 auto; padding: 0 20px 40px; }
header { display: flex; gap: 14px; align-items: baseline; padding: 14px 0 10px; border-bottom: 1px solid var(--line); margin-bottom: 12px; }
.brand { font-weight: 700; font-size: 16px; cursor: pointer; color: var(--fg); }
.back { cursor: pointer; color: var(--accent); }
.live.on { color: var(--ok); } .live.off { color: var(--dim); }
.src { margin-left: auto; font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 12px; }
.dim { color: var(--dim); }
.controls { display: flex; gap: 8px; align-items: center; margin-bottom: 10px; }
.search { flex: 1; padding: 6px 10px; border: 1px solid var(--line); border-radius: 6px; font: inherit; }
select, button { font: inherit; padding: 5px 8px; border: 1px solid var(--line); border-radius: 6px; background: #fff; cursor: pointer; }
.pager { margin-left: auto; white-space: nowrap; } .count { color: var(--dim); }
table.sessions { width: 100%; border-collapse: collapse; background: #fff; border: 1px solid var(--line); border-radius: 8px; }
.sessions th { text-align: left; font-weight: 600; color: var(--dim); font-size: 12px; text-transform: uppercase; letter-spacing: .03em; padding: 8px 10px; border-bottom: 1px solid var(--line); }
.sessions td { padding: 7px 10px; border-bottom: 1px solid var(--line); vertical-align: top; }
.sessions tr.row { cursor: pointer; } .sessions tr.row:hover { background: #f2f5fc; }
.num { text-align: right; white-space: nowrap; font-variant-numeric: tabular-nums; }
.c-start { white-space: nowrap; } .c-repo { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 12px; max-width: 260px; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.c-prompt { max-width: 420px; }
.badge { display: inline-block; padding: 1px 7px; border-radius: 10px; font-size: 12px; font-weight: 600; background: #eef0f3; color: #3b4046; white-space: nowrap; }
.s-ok, .o-flip, .v-pass { background: var(--okbg); color: var(--ok); }
.s-error, .o-no_flip, .v-fail, .v-error { background: var(--errbg); color: var(--err); }
.s-forged { background: var(--err); color: #fff; }
.sig-ok { color: var(--ok); font-weight: 700; }
.s-run { background: #e6edfb; color: #23479c; }
.agent { display: inline-block; margin-right: 6px; font-size: 11px; color: #5b3a99; border: 1px solid #d9ccef; border-radius: 8px; padding: 0 6px; }
.ev.pending .what { opacity: .85; }
.o-cap, .v-pending { background: var(--warnbg); color: var(--warn); }
.t-prompt { background: #e6edfb; color: #23479c; } .t-assistant { background: #efe8fa; color: #5b3a99; }
.t-tool { background: #eef0f3; color: #1d1f21; font-family: ui-monospace, "DejaVu Sans Mono", monospace; }
.summary h1 { font-size: 18px; margin: 6px 0 4px; font-family: ui-monospace, "DejaVu Sans Mono", monospace; }
.summary .meta { color: var(--dim); margin-bottom: 14px; }
ol.timeline { list-style: none; margin: 0; padding: 0; border-left: 2px solid var(--line); }
.ev { display: grid; grid-template-columns: 90px 1fr; gap: 10px; padding: 8px 0 8px 12px; position: relative; }
.ev::before { content: ""; position: absolute; left: -6px; top: 14px; width: 10px; height: 10px; border-radius: 50%; background: #c3c7cc; }
.ev.prompt::before { background: #3a66c9; } .ev.verdict::before { background: #c98a1a; } .ev.end::before { background: #555; }
.ev.fresh { animation: fresh 2s ease-out; } @keyframes fresh { from { background: #fff6c8; } to { background: transparent; } }
.when { color: var(--dim); font-size: 12px; font-variant-numeric: tabular-nums; padding-top: 2px; }
.what { min-width: 0; }
.meta { color: var(--dim); font-size: 12px; margin-top: 2px; }
.note { color: var(--dim); font-size: 12px; margin-top: 4px; font-style: italic; }
details > summary { cursor: pointer; }
.tool > summary .preview { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 12px; color: #40464d; }
.sect { margin: 6px 0 0 14px; } .sect > summary { color: var(--dim); font-size: 12px; }
pre.block, pre.diff { margin: 4px 0; padding: 8px 10px; background: #fff; border: 1px solid var(--line); border-radius: 6px; white-space: pre-wrap; word-break: break-word; font: 12px/1.4 ui-monospace, "DejaVu Sans Mono", monospace; max-height: 480px; overflow: auto; }
.msg pre.block { font: 13px/1.45 system-ui, "DejaVu Sans", sans-serif; }
pre.diff .dl { display: block; } .d-add { background: #e6f6ea; color: #125c26; } .d-del { background: #fbe9e7; color: #8b1f17; } .d-hunk { color: #5a53a8; background: #f1f0fa; } .d-meta { color: var(--dim); font-weight: 600; }
.redacted { background: #2b2d30; color: #ffd866; border-radius: 3px; padding: 0 3px; font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 11px; }
.cutmark { color: var(--warn); font-style: italic; }
.error { color: var(--err); }
dl.fields { margin: 4px 0; display: grid; grid-template-columns: max-content 1fr; gap: 2px 10px; }
dl.fields dt { color: var(--dim); font-size: 12px; padding-top: 9px; } dl.fields dd { margin: 0; min-width: 0; }
dl.fields code { display: inline-block; padding-top: 8px; font-size: 12px; }
`;
