// The files a trial keeps in its artifacts directory, each name spelled once: the trial writes
// them, the viewer and the audit export read them.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const ARTIFACT = {
  /** What the agent was asked, kept with its answer: the viewer shows it without the dataset. */
  prompt: 'prompt.md',
  agentStdout: 'agent.stdout',
  agentStderr: 'agent.stderr',
  /** The agent's change, as a patch. */
  diff: 'agent.diff',
  /** A Harbor task's judge: every submission and its grade. */
  judge: 'judge.json',
} as const;

/** A test suite's output files: tests-<suite>.stdout and .stderr. */
export const suiteArtifact = (suite: string, stream: 'stdout' | 'stderr') =>
  `tests-${suite}.${stream}`;

/** The suites whose output an artifacts directory holds, from its file names. */
export const suitesIn = (files: string[]): string[] =>
  files
    .filter((f) => /^tests-.+\.stdout$/.test(f))
    .map((f) => f.slice('tests-'.length, -'.stdout'.length));

export interface TrialArtifacts {
  prompt: string;
  agent?: { stdout: string; stderr: string };
  patch?: string;
  suites?: { name: string; stdout: string; stderr: string }[];
  judge?: unknown;
}

export function saveArtifacts(dir: string, a: TrialArtifacts): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, ARTIFACT.prompt), a.prompt);
  if (a.agent) {
    writeFileSync(join(dir, ARTIFACT.agentStdout), a.agent.stdout);
    writeFileSync(join(dir, ARTIFACT.agentStderr), a.agent.stderr);
  }
  if (a.patch !== undefined) writeFileSync(join(dir, ARTIFACT.diff), a.patch);
  for (const s of a.suites ?? []) {
    writeFileSync(join(dir, suiteArtifact(s.name, 'stdout')), s.stdout);
    writeFileSync(join(dir, suiteArtifact(s.name, 'stderr')), s.stderr);
  }
  if (a.judge !== undefined)
    writeFileSync(join(dir, ARTIFACT.judge), `${JSON.stringify(a.judge, null, 2)}\n`);
}
