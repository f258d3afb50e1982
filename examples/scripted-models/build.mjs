#!/usr/bin/env node
// Builds the scripted models (examples/scripted-models/<model>.json) from their plans.
//
//   node examples/scripted-models/build.mjs           write every <model>.json
//   node examples/scripted-models/build.mjs --check   build in memory; exit 1 if a checked-in
//                                                     <model>.json differs (or is missing / extra)
//
// A scripted model is not a model: it is a fixed list of replies per task (the format is
// src/provider/script-schema.ts) that the scripted model server plays back to the real Nanocoder.
// The plans in models.mjs say what each model does on each task; this script turns a plan into
// those replies:
//
//   explore   the plan's tool calls, one assistant turn each (an array = one turn, several calls)
//   edits     for every file the plan changes: read_file first when the file exists and was not
//             read yet (Nanocoder refuses to edit or overwrite an unread file), then either
//             string_replace calls (one per changed region, old_str grown with context lines until
//             it is unique) or one write_file with the full new content. New files get write_file.
//   test      an execute_bash call, when the plan has one
//   then      optionally, a further { edits, test } stage after the test run (and so on)
//   fail      instead of edits: a model-server failure ({"fail": kind}), which ends the run
//   final     the closing message
//
// The content after an edit is exact: `golden` is the task's golden file
// (examples/fixtures/<repo>/<task_id>/<path>), anything else is the full file under
// edits/<model>/<task_id>/<path>. The base content a task starts from is the repository's
// 00-initial tree with the earlier tasks' files laid over it (in merged_at order, as
// examples/fixtures/build.mjs commits them). Every generated script is then replayed here with
// Nanocoder's rules (read-before-edit, unique old_str, String.prototype.replace semantics) and must
// produce exactly the planned contents, or the build fails.
//
// Plain Node ESM, no dependencies, Node 20+.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MODELS } from './models.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const EXAMPLES = join(HERE, '..');
const FIXTURES = join(EXAMPLES, 'fixtures');
const EDITS = join(HERE, 'edits');

// Regions of a file separated by at most this many unchanged lines are edited with one
// string_replace; a file with more regions than MAX_REPLACES is rewritten with write_file.
const MERGE_GAP = 2;
const MAX_REPLACES = 2;

// ---------------------------------------------------------------------------------------------
// Tasks and their base trees

const TASKS = new Map(
  readdirSync(join(EXAMPLES, 'tasks'))
    .filter((n) => n.endsWith('.json'))
    .map((n) => JSON.parse(readFileSync(join(EXAMPLES, 'tasks', n), 'utf8')))
    .map((t) => [t.task_id, t]),
);

function task(taskId) {
  const t = TASKS.get(taskId);
  if (!t) throw new Error(`no task ${taskId} in examples/tasks`);
  return t;
}

const repoDir = (t) => t.repo.split('/').pop();

/** Step directories that make up a task's base: 00-initial, then the earlier tasks of its repo. */
function baseLayers(t) {
  const earlier = [...TASKS.values()]
    .filter((o) => o.repo === t.repo && o.merged_at < t.merged_at)
    .sort((a, b) => a.merged_at.localeCompare(b.merged_at))
    .map((o) => o.task_id);
  return ['00-initial', ...earlier].map((d) => join(FIXTURES, repoDir(t), d));
}

/** Content of `path` at the task's base commit, or undefined when the file does not exist. */
function baseContent(t, path) {
  let content;
  for (const layer of baseLayers(t)) {
    const file = join(layer, path);
    if (existsSync(file)) content = readFileSync(file, 'utf8');
  }
  return content;
}

function baseHasDir(t, dir) {
  return dir === '.' || baseLayers(t).some((layer) => existsSync(join(layer, dir)));
}

function editedContent(model, t, edit) {
  const file =
    edit.from === 'golden'
      ? join(FIXTURES, repoDir(t), t.task_id, edit.path)
      : join(EDITS, edit.from ?? model, t.task_id, edit.path);
  if (!existsSync(file)) throw new Error(`${model}/${t.task_id}: no content file ${file}`);
  return readFileSync(file, 'utf8');
}

// ---------------------------------------------------------------------------------------------
// Line diff -> string_replace calls

const splitLines = (s) => s.split(/(?<=\n)/);

/** Changed regions of old -> new as [oldStart, oldEnd, newStart, newEnd] (line indexes, LCS). */
function hunks(oldLines, newLines) {
  const n = oldLines.length;
  const m = newLines.length;
  const lcs = Array.from({ length: n + 1 }, () => new Uint16Array(m + 1));
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--)
      lcs[i][j] =
        oldLines[i] === newLines[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
  const out = [];
  let i = 0;
  let j = 0;
  let open = null;
  const close = () => {
    if (open) out.push([open[0], i, open[1], j]);
    open = null;
  };
  while (i < n || j < m) {
    if (i < n && j < m && oldLines[i] === newLines[j]) {
      close();
      i++;
      j++;
    } else {
      open ??= [i, j];
      if (j < m && (i === n || lcs[i][j + 1] >= lcs[i + 1][j])) j++;
      else i++;
    }
  }
  close();
  // Merge regions that are close together, as one would edit them.
  const merged = [];
  for (const h of out) {
    const last = merged.at(-1);
    if (last && h[0] - last[1] <= MERGE_GAP) {
      last[1] = h[1];
      last[3] = h[3];
    } else merged.push([...h]);
  }
  return merged;
}

const count = (text, part) => text.split(part).length - 1;

// Special replacement patterns of String.prototype.replace that Nanocoder would expand.
const REPLACE_PATTERN = /\$[$&`']/;

/** string_replace arguments that turn `before` into `after`, or undefined to use write_file. */
function replaceCalls(path, before, after) {
  const regions = hunks(splitLines(before), splitLines(after));
  if (regions.length > MAX_REPLACES) return undefined;
  const calls = [];
  let cur = splitLines(before);
  const target = splitLines(after);
  let shift = 0;
  for (const [a0, a1, b0, b1] of regions) {
    const s = a0 + shift;
    const e = a1 + shift;
    // Context lines before / after the region; a pure insertion needs at least one.
    let k1 = s === e && s > 0 ? 1 : 0;
    let k2 = s === e && s === 0 ? 1 : 0;
    const text = cur.join('');
    const old = () => cur.slice(s - k1, e + k2).join('');
    while (!old() || count(text, old()) !== 1) {
      if (s - k1 > 0 && (k1 <= k2 || e + k2 >= cur.length)) k1++;
      else if (e + k2 < cur.length) k2++;
      else return undefined;
    }
    const next = [...cur.slice(s - k1, s), ...target.slice(b0, b1), ...cur.slice(e, e + k2)].join('');
    if (REPLACE_PATTERN.test(next)) return undefined;
    calls.push({ tool: 'string_replace', args: { path, old_str: old(), new_str: next } });
    cur = [...cur.slice(0, s), ...target.slice(b0, b1), ...cur.slice(e)];
    shift += b1 - b0 - (a1 - a0);
  }
  return calls;
}

// ---------------------------------------------------------------------------------------------
// Plan -> steps

function planSteps(model, t, plan) {
  const where = `${model}/${t.task_id}`;
  const steps = [];
  const read = new Set();
  for (const turn of plan.explore ?? []) {
    const calls = Array.isArray(turn) ? turn : [turn];
    for (const c of calls) if (c.tool === 'read_file') read.add(c.args.path);
    steps.push(calls.length === 1 ? calls[0] : { tools: calls });
  }
  if (plan.fail) {
    if (plan.edits?.length || plan.final) throw new Error(`${where}: a failing plan has no edits or final`);
    steps.push({ fail: plan.fail });
    replay(where, t, steps, new Map());
    return steps;
  }
  const current = new Map();
  for (let stage = plan; stage; stage = stage.then) {
    editSteps(where, model, t, stage.edits ?? [], { steps, read, current });
    if (stage.test) steps.push({ tool: 'execute_bash', args: { command: stage.test } });
  }
  if (!plan.final) throw new Error(`${where}: plan has no final message`);
  steps.push({ final: plan.final });
  replay(where, t, steps, current);
  return steps;
}

/** Steps that make the planned edits; `current` holds the files' contents as edited so far. */
function editSteps(where, model, t, edits, { steps, read, current }) {
  for (const edit of edits) {
    const before = current.has(edit.path) ? current.get(edit.path) : baseContent(t, edit.path);
    const after = editedContent(model, t, edit);
    if (before === after) throw new Error(`${where}: ${edit.path} is unchanged`);
    let calls;
    if (before !== undefined) {
      if (!read.has(edit.path)) {
        steps.push({ tool: 'read_file', args: { path: edit.path } });
        read.add(edit.path);
      }
      if (edit.how !== 'write') calls = replaceCalls(edit.path, before, after);
      if (edit.how === 'replace' && !calls) throw new Error(`${where}: ${edit.path} cannot be edited with string_replace`);
    }
    calls ??= [{ tool: 'write_file', args: { path: edit.path, content: after } }];
    steps.push(...calls);
    read.add(edit.path); // Nanocoder marks a file it wrote as seen
    current.set(edit.path, after);
  }
}

/** Play the steps with Nanocoder's file-tool rules; the files must end up as planned. */
function replay(where, t, steps, expected) {
  const files = new Map();
  const get = (p) => (files.has(p) ? files.get(p) : baseContent(t, p));
  const seen = new Set();
  const calls = steps.flatMap((s) => ('tools' in s ? s.tools : 'tool' in s ? [s] : []));
  for (const { tool, args } of calls) {
    const fail = (why) => {
      throw new Error(`${where}: ${tool} ${args.path ?? args.command}: ${why}`);
    };
    if (tool === 'read_file') {
      if (get(args.path) === undefined) fail('no such file at base');
      seen.add(args.path);
    } else if (tool === 'list_directory') {
      if (!baseHasDir(t, args.path ?? '.')) fail('no such directory at base');
    } else if (tool === 'write_file') {
      if (get(args.path) !== undefined && !seen.has(args.path)) fail('overwrites a file not read first');
      if (!baseHasDir(t, dirname(args.path))) fail('parent directory does not exist');
      files.set(args.path, args.content);
      seen.add(args.path);
    } else if (tool === 'string_replace') {
      const text = get(args.path);
      if (text === undefined) fail('no such file');
      if (!seen.has(args.path)) fail('file not read first');
      if (count(text, args.old_str) !== 1) fail(`old_str occurs ${count(text, args.old_str)} times`);
      files.set(args.path, text.replace(args.old_str, args.new_str));
    } else if (!['execute_bash', 'find_files', 'search_file_contents'].includes(tool)) {
      fail('tool not known to this build script');
    }
  }
  for (const [path, content] of expected)
    if (files.get(path) !== content) throw new Error(`${where}: replaying the steps does not produce ${path}`);
  for (const path of files.keys())
    if (!expected.has(path)) throw new Error(`${where}: the steps change ${path}, which the plan does not list`);
}

function behaviour(model, t, plan) {
  if (plan.variants) return { variants: plan.variants.map((v) => behaviour(model, t, v)) };
  return { steps: planSteps(model, t, plan) };
}

/**
 * A reply to the bare agent: its text, or the planned files' whole new contents in the bare
 * format (src/agent/bare-format.ts: "=== FILE: path" and a fenced block), after one line of prose.
 */
function bareBehaviour(model, t, plan) {
  if (plan.text) return { steps: [{ final: plan.text }] };
  const blocks = plan.edits.map((edit) => {
    const content = editedContent(model, t, edit);
    if (/^```/m.test(content)) throw new Error(`${model}/${t.task_id}: ${edit.path} holds a fence line`);
    return `=== FILE: ${edit.path}\n\`\`\`\n${content}\`\`\``;
  });
  return { steps: [{ final: `Here is the change.\n\n${blocks.join('\n\n')}\n` }] };
}

export function buildScripts() {
  const out = new Map();
  for (const [model, spec] of Object.entries(MODELS)) {
    const tasks = {};
    for (const [taskId, plan] of Object.entries(spec.tasks)) tasks[taskId] = behaviour(model, task(taskId), plan);
    const script = { model, description: spec.description, tasks };
    if (spec.bare) {
      script.bare = {};
      for (const [taskId, plan] of Object.entries(spec.bare)) script.bare[taskId] = bareBehaviour(model, task(taskId), plan);
    }
    out.set(`${model}.json`, `${JSON.stringify(script, null, 2)}\n`);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------

function main() {
  const check = process.argv.includes('--check');
  const built = buildScripts();
  if (!check) {
    for (const [name, text] of built) writeFileSync(join(HERE, name), text);
    console.log(`wrote ${[...built.keys()].join(', ')}`);
    return 0;
  }
  const problems = [];
  for (const [name, text] of built) {
    const file = join(HERE, name);
    if (!existsSync(file)) problems.push(`${name} is missing`);
    else if (readFileSync(file, 'utf8') !== text) problems.push(`${name} is stale`);
  }
  for (const name of readdirSync(HERE).filter((n) => n.endsWith('.json')))
    if (!built.has(name)) problems.push(`${name} is not built from models.mjs`);
  if (problems.length) {
    console.error(`${problems.join('\n')}\nrun: node examples/scripted-models/build.mjs`);
    return 1;
  }
  console.log(`${built.size} scripted models are up to date`);
  return 0;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) process.exitCode = main();
