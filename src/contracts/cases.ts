// Contract cases: candidate changes kept next to a task that test its evaluator, not the agent.
//
//   <dataset>/contracts/<task_id>/<case_id>/case.json      what the case is and its expected vector
//                                           candidate.patch  the candidate as a patch against base_commit
//                                        or files/           the candidate as files laid over base_commit
//
// A case accepts (a valid solution the grader must accept: every criterion true) or rejects (it
// violates one criterion, named, which must come out false; every other criterion it also fails
// is listed in coupled_failures with the reason it necessarily fails too). The expected vector
// is complete: every criterion of the task, no other key.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { isAbsolute, join, normalize } from 'node:path';
import { z } from 'zod';
import type { CriteriaVector, Criterion } from '../score/criteria.js';
import { formatIssue } from '../task/load.js';

export const CONTRACTS_DIR = 'contracts';
export const CASE_FILE = 'case.json';
export const PATCH_CANDIDATE = 'candidate.patch';
export const FILES_CANDIDATE = 'files';
/** Cases every task has without a directory: the golden patch, and no change at all. */
export const BUILT_IN_CASES = ['reference', 'base'] as const;

const caseId = /^[a-z0-9][a-z0-9._-]*$/;

/** A path inside the workspace, relative, never into .git. */
const relPath = z
  .string()
  .min(1)
  .refine((p) => {
    const n = normalize(p);
    return !isAbsolute(n) && !n.startsWith('..') && n !== '.git' && !n.startsWith('.git/');
  }, 'a path relative to the repository root, outside .git');

const MetamorphicSchema = z
  .object({
    id: z.string().regex(caseId, 'lowercase letters, digits, ".", "_" or "-"'),
    relation: z
      .string()
      .min(1)
      .describe('the change that must not alter the verdict, e.g. "rename a local variable"'),
    rename: z
      .object({
        file: relPath,
        from: z.string().regex(/^[A-Za-z_$][\w$]*$/, 'an identifier'),
        to: z.string().regex(/^[A-Za-z_$][\w$]*$/, 'an identifier'),
      })
      .strict()
      .optional()
      .describe("rename an identifier (whole words) in one file of the case's candidate"),
    patch: z
      .string()
      .min(1)
      .optional()
      .describe("a patch in the case directory, applied on top of the case's candidate"),
  })
  .strict()
  .refine((m) => (m.rename === undefined) !== (m.patch === undefined), {
    message: 'give exactly one of "rename" and "patch"',
  });

export const CaseSchema = z
  .object({
    contract_version: z.literal(1),
    task_id: z.string().min(1),
    outcome: z.enum(['accept', 'reject']),
    criterion: z
      .string()
      .min(1)
      .optional()
      .describe('reject: the criterion this case violates (it must come out false)'),
    description: z.string().min(1),
    expected: z
      .record(z.boolean())
      .describe('the complete criteria vector the evaluator must give'),
    coupled_failures: z
      .record(z.string().min(1))
      .optional()
      .describe('reject: other criteria the case necessarily fails too, each with the reason'),
    duplicate_candidate_reason: z
      .string()
      .min(1)
      .optional()
      .describe('why this candidate may have the same content as another case'),
    delete: z
      .array(relPath)
      .optional()
      .describe('files candidate: paths removed from the repository'),
    metamorphic: z.array(MetamorphicSchema).optional(),
  })
  .strict();
export type CaseFile = z.infer<typeof CaseSchema>;

export type Candidate =
  | { kind: 'patch'; file: string }
  | { kind: 'files'; dir: string; delete: string[] };

export interface Metamorphic {
  id: string;
  relation: string;
  rename?: { file: string; from: string; to: string };
  /** Absolute path of the patch. */
  patch?: string;
}

export interface ContractCase {
  id: string;
  dir: string;
  file: string;
  outcome: 'accept' | 'reject';
  criterion?: string;
  description: string;
  expected: CriteriaVector;
  coupled: Record<string, string>;
  duplicateReason?: string;
  candidate: Candidate;
  metamorphic: Metamorphic[];
}

export function contractsDir(datasetDir: string, taskId: string): string {
  return join(datasetDir, CONTRACTS_DIR, taskId);
}

/** Every problem of one case file against the task's criteria, as one-line messages. */
export function checkCase(
  raw: unknown,
  file: string,
  taskId: string,
  criteria: readonly Criterion[],
): { data?: CaseFile; problems: string[] } {
  const r = CaseSchema.safeParse(raw);
  if (!r.success) return { problems: r.error.issues.map((i) => formatIssue(file, i)) };
  const c = r.data;
  const ids = criteria.map((k) => k.id);
  const problems: string[] = [];
  const at = (field: string, msg: string) => problems.push(`${file}: field "${field}": ${msg}`);
  if (c.task_id !== taskId)
    at('task_id', `"${c.task_id}", but the case is stored for task ${taskId}; correct it`);
  for (const id of ids)
    if (!(id in c.expected))
      at(
        'expected',
        `missing criterion "${id}"; the vector is complete: give every criterion (${ids.join(', ')})`,
      );
  for (const k of Object.keys(c.expected))
    if (!ids.includes(k))
      at(`expected.${k}`, `the task has no criterion "${k}" (criteria: ${ids.join(', ')})`);
  const coupled = c.coupled_failures ?? {};
  if (c.outcome === 'accept') {
    const falses = Object.keys(c.expected).filter((k) => c.expected[k] === false);
    if (falses.length)
      at(
        'expected',
        `an accepting case expects every criterion true, but ${falses.join(', ')} ${falses.length === 1 ? 'is' : 'are'} false; make it a rejecting case or expect true`,
      );
    if (c.criterion !== undefined)
      at('criterion', 'only a rejecting case names the criterion it violates; remove it');
    if (c.coupled_failures !== undefined)
      at('coupled_failures', 'only a rejecting case fails criteria; remove it');
  } else {
    if (c.criterion === undefined)
      at(
        'criterion',
        `missing; a rejecting case names the criterion it violates (${ids.join(', ')})`,
      );
    else if (!ids.includes(c.criterion))
      at('criterion', `the task has no criterion "${c.criterion}" (criteria: ${ids.join(', ')})`);
    else if (c.expected[c.criterion] !== false)
      at(
        `expected.${c.criterion}`,
        `the case rejects on "${c.criterion}", so it must be expected false`,
      );
    for (const k of Object.keys(c.expected))
      if (k !== c.criterion && c.expected[k] === false && !(k in coupled))
        at(
          `expected.${k}`,
          `expected false without a reason: a rejecting case keeps unrelated criteria true; if "${k}" necessarily fails too, say why in coupled_failures.${k}`,
        );
    for (const k of Object.keys(coupled)) {
      if (k === c.criterion)
        at(
          `coupled_failures.${k}`,
          'is the criterion the case targets, not a coupled one; remove it',
        );
      else if (c.expected[k] !== false)
        at(
          `coupled_failures.${k}`,
          `a coupled failure must be expected false (expected.${k} is ${String(c.expected[k])})`,
        );
    }
  }
  return { data: c, problems };
}

function candidateOf(dir: string, c: CaseFile, file: string): Candidate | string {
  const patch = join(dir, PATCH_CANDIDATE);
  const files = join(dir, FILES_CANDIDATE);
  const hasPatch = existsSync(patch);
  const hasFiles = existsSync(files) && statSync(files).isDirectory();
  if (hasPatch === hasFiles)
    return `${dir}: ${hasPatch ? 'both' : 'neither'} ${PATCH_CANDIDATE} and ${FILES_CANDIDATE}/: a case holds its candidate in exactly one of them`;
  if (hasPatch && c.delete)
    return `${file}: field "delete": only a ${FILES_CANDIDATE}/ candidate deletes paths (a patch deletes them itself); remove it`;
  return hasPatch
    ? { kind: 'patch', file: patch }
    : { kind: 'files', dir: files, delete: c.delete ?? [] };
}

/**
 * The cases stored for a task, each checked against its criteria. A case with problems is left
 * out and its problems returned (one line each: file, field, fix); `present` says whether the
 * task has a contracts directory at all.
 */
export function loadCases(
  datasetDir: string,
  taskId: string,
  criteria: readonly Criterion[],
): { present: boolean; cases: ContractCase[]; problems: string[] } {
  const root = contractsDir(datasetDir, taskId);
  if (!existsSync(root)) return { present: false, cases: [], problems: [] };
  const cases: ContractCase[] = [];
  const problems: string[] = [];
  const dirs = readdirSync(root, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort();
  for (const id of dirs) {
    const dir = join(root, id);
    const file = join(dir, CASE_FILE);
    if (!caseId.test(id) || (BUILT_IN_CASES as readonly string[]).includes(id)) {
      problems.push(
        `${dir}: a case directory is named with lowercase letters, digits, ".", "_" or "-", and not ${BUILT_IN_CASES.join(' or ')} (built-in cases); rename it`,
      );
      continue;
    }
    if (!existsSync(file)) {
      problems.push(`${dir}: no ${CASE_FILE}; every case directory holds one`);
      continue;
    }
    let raw: unknown;
    try {
      raw = JSON.parse(readFileSync(file, 'utf8'));
    } catch (e) {
      problems.push(`${file}: not valid JSON (${(e as Error).message})`);
      continue;
    }
    const checked = checkCase(raw, file, taskId, criteria);
    const candidate = checked.data ? candidateOf(dir, checked.data, file) : undefined;
    if (typeof candidate === 'string') checked.problems.push(candidate);
    const metamorphic: Metamorphic[] = [];
    for (const [i, m] of (checked.data?.metamorphic ?? []).entries()) {
      if (m.patch && !existsSync(join(dir, m.patch)))
        checked.problems.push(
          `${file}: field "metamorphic.${i}.patch": ${join(dir, m.patch)} does not exist`,
        );
      metamorphic.push({
        id: m.id,
        relation: m.relation,
        ...(m.rename && { rename: m.rename }),
        ...(m.patch && { patch: join(dir, m.patch) }),
      });
    }
    if (checked.problems.length || !checked.data || !candidate || typeof candidate === 'string') {
      problems.push(...checked.problems);
      continue;
    }
    const c = checked.data;
    cases.push({
      id,
      dir,
      file,
      outcome: c.outcome,
      ...(c.criterion !== undefined && { criterion: c.criterion }),
      description: c.description,
      expected: c.expected,
      coupled: c.coupled_failures ?? {},
      ...(c.duplicate_candidate_reason && { duplicateReason: c.duplicate_candidate_reason }),
      candidate,
      metamorphic,
    });
  }
  return { present: true, cases, problems };
}
