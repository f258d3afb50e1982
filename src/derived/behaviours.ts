// Behaviours derived from a task (issue 28): what a scripted model does on it through Nanocoder
// 1.30's own tools, computed from the task as it is loaded (its golden patch, the repository at
// base_commit) when a run needs it, never checked in. The golden change stays data
// (golden-edits.ts), so another agent's scripted replies can be built from it too.
import type { ScriptToolCall, Step } from '../provider/script-schema.js';
import type { ResolvedTask } from '../task/patches.js';
import { asText, type BaseTree } from './base-tree.js';
import {
  appendReplacement,
  type GoldenChange,
  type GoldenEdit,
  goldenChange,
  isUnbuildable,
  MAX_LINE_CHARS,
  READ_WHOLE_MAX_LINES,
  type Unbuildable,
} from './golden-edits.js';
import {
  hallucinatedCall,
  interfaceCall,
  type ModuleLanguage,
  moduleLanguage,
  undefinedName,
} from './statements.js';
import { parseUnifiedDiff } from './unified-diff.js';

export const BEHAVIOURS = [
  'golden',
  'nothing',
  'wanderer',
  'hallucinated',
  'interface',
  'overflow',
] as const;
export type BehaviourName = (typeof BEHAVIOURS)[number];

export const DERIVED_PREFIX = 'derived:';

/** `derived:golden` -> golden; undefined for any other model name. */
export function derivedBehaviour(model: string): BehaviourName | undefined {
  if (!model.startsWith(DERIVED_PREFIX)) return undefined;
  const name = model.slice(DERIVED_PREFIX.length);
  return (BEHAVIOURS as readonly string[]).includes(name) ? (name as BehaviourName) : undefined;
}

/** The wanderer reads this many files (CONTEXT_EXPLOSION_FILES is 10: a margin above it). */
export const WANDER_FILES = 12;
/** Files the wanderer may pick: small enough to come back whole. */
const WANDER_MAX_BYTES = 64 * 1024;

/** Everything the behaviours are built from, derived once per task. */
export interface DerivedTask {
  taskId: string;
  golden: GoldenChange | Unbuildable;
  /** Files outside required_files the wanderer reads. */
  wander: string[] | Unbuildable;
  /** Required files the golden change leaves in place, whose module-level code runs on import. */
  modules: { path: string; language: ModuleLanguage }[];
  /** The function that exists nowhere, per language. */
  undefinedNames: Record<ModuleLanguage, string>;
}

/** Files a model could wander through: text that read_file returns whole, none required. */
function wanderFiles(task: ResolvedTask, tree: BaseTree): string[] | Unbuildable {
  const required = new Set(task.required_files);
  const candidates = tree.files
    .filter(
      (f) =>
        (f.mode === '100644' || f.mode === '100755') &&
        !required.has(f.path) &&
        (f.size ?? 0) > 0 &&
        (f.size ?? 0) <= WANDER_MAX_BYTES,
    )
    .sort(
      (a, b) => a.path.split('/').length - b.path.split('/').length || (a.path < b.path ? -1 : 1),
    );
  const picked: string[] = [];
  for (const f of candidates) {
    const text = asText(tree.read(f.blob));
    if (text === undefined) continue;
    const lines = text.split('\n');
    if (lines.length > READ_WHOLE_MAX_LINES || lines.some((l) => l.length > MAX_LINE_CHARS))
      continue;
    picked.push(f.path);
    if (picked.length === WANDER_FILES) return picked;
  }
  return {
    unbuildable: `the repository has only ${picked.length} text files outside required_files that read_file returns whole (the wanderer reads ${WANDER_FILES})`,
  };
}

export function deriveTask(task: ResolvedTask, tree: BaseTree): DerivedTask {
  const golden = goldenChange(parseUnifiedDiff(task.ground_truth_patch), tree);
  const required = new Set(task.required_files);
  const modules = isUnbuildable(golden)
    ? []
    : golden.edits
        .filter((e) => e.action !== 'delete' && required.has(e.path))
        .map((e) => ({ path: e.path, language: moduleLanguage(e.path) }))
        .filter((m): m is { path: string; language: ModuleLanguage } => m.language !== undefined);
  const name = (language: ModuleLanguage) =>
    undefinedName(task.task_id, language, (n) => tree.mentions(n));
  return {
    taskId: task.task_id,
    golden,
    wander: wanderFiles(task, tree),
    modules,
    undefinedNames: { python: name('python'), javascript: name('javascript') },
  };
}

const read = (path: string, range = {}): ScriptToolCall => ({
  tool: 'read_file',
  args: { path, ...range },
});

/** The golden change as Nanocoder tool calls: read what it edits, then edit, in two turns. */
export function editSteps(change: GoldenChange): Step[] {
  const reads = change.edits.flatMap((e) =>
    e.action === 'create' ? [] : e.reads.map((r) => read(e.path, r)),
  );
  const edits: ScriptToolCall[] = [
    ...change.mkdirs.map((path) => ({ tool: 'file_op', args: { operation: 'mkdir', path } })),
    ...change.edits.flatMap(editCalls),
  ];
  return [...(reads.length ? [{ tools: reads }] : []), { tools: edits }];
}

function editCalls(e: GoldenEdit): ScriptToolCall[] {
  if (e.action === 'delete')
    return [{ tool: 'file_op', args: { operation: 'delete', path: e.path } }];
  if (e.action === 'modify' && e.replacements)
    return e.replacements.map((r) => ({ tool: 'string_replace', args: { path: e.path, ...r } }));
  return [{ tool: 'write_file', args: { path: e.path, content: e.after } }];
}

/** The golden change with `statement` added at module level (the end) of each module. */
function withStatement(
  d: DerivedTask,
  change: GoldenChange,
  statement: (language: ModuleLanguage) => string,
): GoldenChange | Unbuildable {
  if (d.modules.length === 0)
    return {
      unbuildable:
        'no module-level place in a required file: none of the files the golden patch changes in required_files is a Python or JavaScript/TypeScript module',
    };
  const edits = change.edits.map((e): GoldenEdit => {
    const m = d.modules.find((x) => x.path === e.path);
    if (!m || e.action === 'delete') return e;
    const stmt = statement(m.language);
    const after = `${e.after}${e.after.endsWith('\n') || !e.after ? '' : '\n'}${stmt}\n`;
    if (e.action === 'create') return { ...e, after };
    const extra = e.replacements && appendReplacement(e.after, stmt);
    return extra
      ? { ...e, after, replacements: [...e.replacements!, extra] }
      : { ...e, after, replacements: undefined };
  });
  return { ...change, edits };
}

export const FINAL = (text: string): Step => ({ final: text });

/**
 * How a behaviour's two moves are said to one agent: reading files, and making a change. The
 * behaviours are the same for every agent (behaviourSteps); only their wording differs.
 */
export interface Dialect {
  /** The turns that read these files (they are never required ones). */
  reads(paths: string[]): Step[];
  /** The turns that make the change, or why this agent cannot be told it. */
  change(change: GoldenChange): Step[] | Unbuildable;
}

/** Nanocoder 1.30's own tools: read_file, then string_replace / write_file / file_op. */
export const NANOCODER_DIALECT: Dialect = {
  reads: (paths) => [{ tools: paths.map((p) => read(p)) }],
  change: (change) => [...editSteps(change), FINAL('The change is made.')],
};

/** The replies of one behaviour on one task, or why it cannot be built. */
export function behaviourSteps(
  d: DerivedTask,
  name: BehaviourName,
  dialect: Dialect = NANOCODER_DIALECT,
): Step[] | Unbuildable {
  switch (name) {
    case 'nothing':
      return [FINAL('I have looked at the task and I am not changing anything.')];
    case 'overflow':
      return [{ fail: 'context_http' }];
    case 'wanderer':
      if (isUnbuildable(d.wander)) return d.wander;
      return [...dialect.reads(d.wander), FINAL('I have read around the repository.')];
    default: {
      const change = behaviourChange(d, name);
      return isUnbuildable(change) ? change : dialect.change(change);
    }
  }
}

/** The behaviours that change files. */
export type ChangingBehaviour = Exclude<BehaviourName, 'nothing' | 'overflow' | 'wanderer'>;

/** What a changing behaviour does to the files, as data (any agent's replies are built from it). */
export function behaviourChange(
  d: DerivedTask,
  name: ChangingBehaviour,
): GoldenChange | Unbuildable {
  if (isUnbuildable(d.golden)) return d.golden;
  if (name === 'hallucinated')
    return withStatement(d, d.golden, (lang) => hallucinatedCall(lang, d.undefinedNames[lang]));
  if (name === 'interface') return withStatement(d, d.golden, interfaceCall);
  return d.golden;
}
