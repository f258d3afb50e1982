// The viewer's one stylesheet, served from /assets/style.css (the pages' CSP allows styles from
// the server only: no inline style attributes anywhere).
export const STYLE = `
:root{--fg:#1f2328;--muted:#59636e;--line:#d8dee4;--bg:#f6f8fa;--pass:#1a7f37;--fail:#cf222e;--warn:#9a6700;--link:#0969da;--add:#e6ffec;--del:#ffebe9;--hunk:#ddf4ff}
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--fg);margin:0;background:var(--bg)}
a{color:var(--link);text-decoration:none}a:hover{text-decoration:underline}
a:focus-visible,tr.selected a{outline:2px solid var(--link);outline-offset:1px}
header.top{background:#24292f;color:#fff;padding:8px 24px;display:flex;gap:16px;align-items:center}
header.top a{color:#fff}header.top .brand{font-weight:600}
header.top .crumbs a,header.top .crumbs span{color:#d0d7de}header.top .crumbs a::after{content:" ›";color:#8c959f}
header.top .keys-hint{margin-left:auto;color:#8c959f;font-size:12px}
main{max-width:1440px;margin:0 auto;padding:16px 24px 48px}
h1{font-size:20px;margin:8px 0}h2{font-size:16px;margin:24px 0 8px;padding-bottom:4px;border-bottom:1px solid var(--line)}
h3{font-size:14px;margin:14px 0 6px}
section{background:#fff;border:1px solid var(--line);border-radius:6px;padding:4px 16px 12px;margin:14px 0;overflow-x:auto}
nav.toc{display:flex;flex-wrap:wrap;gap:4px 14px;font-size:13px;margin:4px 0 8px}
.meta{color:var(--muted)}.note{background:#fff8c5;border:1px solid #d4a72c66;border-radius:6px;padding:6px 10px}
.error-note{background:var(--del);border:1px solid #cf222e55;border-radius:6px;padding:6px 10px}
table{border-collapse:collapse;width:100%;margin:6px 0 10px;font-size:13px}
th,td{border-bottom:1px solid var(--line);padding:4px 6px;text-align:left;vertical-align:top}
th{background:var(--bg);font-weight:600}
td.nowrap{white-space:nowrap}
th.num,td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
tr.selected td{background:#ddf4ff}
.pass{color:var(--pass)}.fail{color:var(--fail)}.warn{color:var(--warn)}
tr.cell-pass td.res{color:var(--pass)}tr.cell-fail td.res{color:var(--fail)}
.badge{display:inline-block;border-radius:10px;padding:0 8px;font-size:12px;border:1px solid var(--line);background:var(--bg);white-space:nowrap}
.badge.pass{background:#dafbe1;border-color:#1a7f3755}.badge.fail{background:var(--del);border-color:#cf222e55}
.badge.warn{background:#fff8c5;border-color:#d4a72c66}.badge.live{background:#ddf4ff;border-color:#0969da55}
.mark{color:var(--warn);white-space:nowrap;font-size:12px}
form.filters{display:flex;flex-wrap:wrap;gap:8px 14px;align-items:end}
form.filters label{display:flex;flex-direction:column;font-size:12px;color:var(--muted)}
select,button{font:inherit;padding:2px 6px}
pre{background:var(--bg);border:1px solid var(--line);border-radius:6px;padding:8px;overflow:auto;max-height:480px;white-space:pre-wrap;word-break:break-word;font:12px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;margin:6px 0}
pre.msg{max-height:320px;margin:4px 0 0}
summary.reason{color:var(--fg);font:12px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;word-break:break-word}
code{font:12px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
details>summary{cursor:pointer;color:var(--muted)}
nav.pager{display:flex;gap:12px;align-items:center;margin:6px 0}
nav.pager .disabled{color:var(--muted)}
.step{border-left:3px solid var(--line);padding:2px 0 2px 12px;margin:10px 0}
.step.failed{border-left-color:var(--fail)}
.step-head{font-size:12px;color:var(--muted)}
.text{white-space:pre-wrap;margin:4px 0}
.tool{border:1px solid var(--line);border-radius:6px;padding:4px 8px;margin:6px 0;background:#fff}
.tool.error{border-color:#cf222e88}
.tool-name{font-weight:600;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
.diff-file{border:1px solid var(--line);border-radius:6px;margin:10px 0;overflow:hidden}
.diff-file>.diff-head{background:var(--bg);padding:4px 8px;border-bottom:1px solid var(--line);display:flex;gap:8px;align-items:center}
.diff-file.required>.diff-head{background:#dafbe1}
.diff-body{margin:0;border:0;border-radius:0;max-height:none;white-space:pre;padding:0}
.diff-body span{display:block;padding:0 8px}
.diff-body .add{background:var(--add)}.diff-body .del{background:var(--del)}.diff-body .hunk{background:var(--hunk);color:var(--muted)}.diff-body .meta{color:var(--muted)}
dl.kv{display:grid;grid-template-columns:max-content 1fr;gap:2px 14px;margin:6px 0}
dl.kv dt{color:var(--muted)}dl.kv dd{margin:0}
.cols{display:grid;grid-template-columns:1fr 1fr;gap:0 24px}
dialog{border:1px solid var(--line);border-radius:8px;padding:12px 20px}
kbd{border:1px solid var(--line);border-bottom-width:2px;border-radius:4px;padding:0 4px;font:12px ui-monospace,monospace;background:var(--bg)}
footer{color:var(--muted);font-size:12px;text-align:center;margin:24px 0}
`;
