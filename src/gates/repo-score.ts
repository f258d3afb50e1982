// Gate 6, repository scoring matrix (whitepaper §7): 20 points, at least 12 to be admitted. The
// axes git can measure at base_commit are computed; the rest are recorded by the dataset
// maintainer in dataset.json (repos.<owner/name>). The axes are documented in
// docs/CONTRIBUTING-TASKS.md; change both together.

import { MAINTAINER_AXES, type MaintainerAxis, type RepoRecord } from '../task/manifest.js';
import { isTestPath, languageOf } from '../task/test-paths.js';
import { git } from '../util/git.js';
import type { GateContext } from './context.js';
import { fail, type GateOutcome, pass } from './types.js';

export const REPO_SCORE_MAX = 20;
export const REPO_SCORE_REQUIRED = 12;

export interface RepoFacts {
  sourceFiles: number;
  sourceBytes: number;
  testFiles: number;
  /** Directories holding non-test source files. */
  sourceDirs: number;
  languages: string[];
  contributors: number;
  commits: number;
  license: boolean;
  shallow: boolean;
}

export interface AxisScore {
  axis: string;
  points: number;
  max: number;
  from: 'computed' | 'maintainer';
  why: string;
}

/** Points for `value` given ascending thresholds: one point per threshold reached. */
const steps = (value: number, thresholds: number[]) => thresholds.filter((t) => value >= t).length;

export function computedAxes(f: RepoFacts): AxisScore[] {
  const kb = Math.round(f.sourceBytes / 1024);
  return [
    {
      axis: 'test_suite',
      points: steps(f.testFiles, [1, 10, 50]),
      max: 3,
      from: 'computed',
      why: `${f.testFiles} test files (1 / 10 / 50 for 1-3 points)`,
    },
    {
      axis: 'size',
      points: steps(f.sourceBytes, [30_720, 204_800, 2_097_152]),
      max: 3,
      from: 'computed',
      why: `${kb} KB of source in ${f.sourceFiles} files (30 KB / 200 KB / 2 MB)`,
    },
    {
      axis: 'module_structure',
      points: steps(f.sourceDirs, [2, 5]),
      max: 2,
      from: 'computed',
      why: `${f.sourceDirs} source directories (2 / 5)`,
    },
    {
      axis: 'languages',
      points: Math.min(f.languages.length, 2),
      max: 2,
      from: 'computed',
      why: f.languages.join(', ') || 'no source files',
    },
    {
      axis: 'contributors',
      points: steps(f.contributors, [2, 5, 20]),
      max: 3,
      from: 'computed',
      why: `${f.contributors} commit authors up to base_commit (2 / 5 / 20)`,
    },
    {
      axis: 'history',
      points: steps(f.commits, [50, 500]),
      max: 2,
      from: 'computed',
      why: `${f.commits} commits up to base_commit (50 / 500)${f.shallow ? '; the clone is shallow, so this undercounts' : ''}`,
    },
    {
      axis: 'license',
      points: f.license ? 1 : 0,
      max: 1,
      from: 'computed',
      why: f.license ? 'a LICENSE file at the root' : 'no LICENSE file at the root',
    },
  ];
}

export function repoFacts(clone: string, base: string): RepoFacts {
  const entries = git(clone, ['ls-tree', '-r', '-l', '-z', base])
    .split('\0')
    .filter(Boolean)
    .map((line) => {
      const [meta, path] = line.split('\t');
      const size = Number(meta.trim().split(/\s+/)[3]);
      return { path, size: Number.isFinite(size) ? size : 0 };
    });
  const code = entries.filter((e) => languageOf(e.path) !== undefined);
  const tests = code.filter((e) => isTestPath(e.path));
  const sources = code.filter((e) => !isTestPath(e.path));
  const dirOf = (p: string) => (p.includes('/') ? p.slice(0, p.lastIndexOf('/')) : '.');
  const langCount = new Map<string, number>();
  for (const s of sources)
    langCount.set(languageOf(s.path)!, (langCount.get(languageOf(s.path)!) ?? 0) + 1);
  const authors = git(clone, ['log', '--format=%aE', base]).split('\n').filter(Boolean);
  return {
    sourceFiles: sources.length,
    sourceBytes: sources.reduce((n, s) => n + s.size, 0),
    testFiles: tests.length,
    sourceDirs: new Set(sources.map((s) => dirOf(s.path))).size,
    // A language counts when it has a few files, not a stray script.
    languages: [...langCount]
      .filter(([, n]) => n >= 3)
      .map(([l]) => l)
      .sort(),
    contributors: new Set(authors.map((a) => a.toLowerCase())).size,
    commits: Number(git(clone, ['rev-list', '--count', base]).trim()),
    license: entries.some((e) => /^(licen[cs]e|copying)(\.[a-z]+)?$/i.test(e.path)),
    shallow: git(clone, ['rev-parse', '--is-shallow-repository']).trim() === 'true',
  };
}

/**
 * The verdict on a repository's computed axes and what the maintainer recorded for it. Below the
 * required score, a recorded waiver passes the gate, and the reason starts with "waived:" so the
 * waiver is seen wherever the gate is.
 */
export function repoScoreOutcome(
  repo: string,
  computed: AxisScore[],
  recorded: RepoRecord | undefined,
  manifestFile: string,
  facts?: RepoFacts,
): GateOutcome {
  const missing: MaintainerAxis[] = [];
  const maintainer: AxisScore[] = (Object.keys(MAINTAINER_AXES) as MaintainerAxis[]).map((axis) => {
    const v = recorded?.[axis];
    if (v === undefined) missing.push(axis);
    return {
      axis,
      points: v ?? 0,
      max: MAINTAINER_AXES[axis],
      from: 'maintainer',
      why: v === undefined ? 'not recorded' : (recorded?.note ?? 'recorded by the maintainer'),
    };
  });
  const axes = [...computed, ...maintainer];
  const total = axes.reduce((n, a) => n + a.points, 0);
  const summary = axes.map((a) => `${a.axis} ${a.points}/${a.max}`).join(', ');
  const details = { total, axes, facts };
  const score = `${repo} scores ${total}/${REPO_SCORE_MAX}`;
  // The maintainer's judgement is part of admitting a repository, not a bonus: a computed score
  // high enough on its own still needs it recorded (a waived fixture repository does not).
  if (missing.length && !recorded?.waiver)
    return fail(
      `${score} without the maintainer axes ${missing.join(', ')} (${summary})`,
      `record the maintainer's judgement of the repository: add ${missing.map((m) => `"${m}": 0-${MAINTAINER_AXES[m]}`).join(', ')} and a "note" saying why, under repos["${repo}"] in ${manifestFile} (axes: docs/CONTRIBUTING-TASKS.md, section 4)`,
      details,
    );
  if (total >= REPO_SCORE_REQUIRED) return pass(`${score} (${summary})`, details);
  if (recorded?.waiver)
    return pass(
      `waived: ${recorded.waiver} (${score}, below the required ${REPO_SCORE_REQUIRED}: ${summary})`,
      { ...details, waiver: recorded.waiver },
    );
  const record = missing.length
    ? `the maintainer axes ${missing.join(', ')} are not recorded: add them under repos["${repo}"] in ${manifestFile}. If the score stays below ${REPO_SCORE_REQUIRED}, the`
    : 'The';
  return fail(
    `${score}, below the required ${REPO_SCORE_REQUIRED} (${summary})`,
    `${record} repository is too small, too young or too thinly tested for the benchmark: take tasks from one that scores at least ${REPO_SCORE_REQUIRED} (axes: docs/CONTRIBUTING-TASKS.md)`,
    details,
  );
}

export async function repoScoreGate(ctx: GateContext): Promise<GateOutcome> {
  const t = ctx.task;
  const facts = repoFacts(await ctx.clone(), t.base_commit);
  return repoScoreOutcome(
    t.repo,
    computedAxes(facts),
    ctx.manifest?.repos[t.repo],
    `${ctx.datasetDir}/dataset.json`,
    facts,
  );
}
