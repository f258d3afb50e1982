// A Harbor verifier's reward: /logs/verifier/reward.txt (one number) or reward.json (named
// metrics, numbers). The score is the `reward` metric (reward.txt's number is that metric); a
// reward.json without one and with a single metric scores that metric; with several and no
// `reward`, their mean. Scores are clamped to [0, 1] (the raw values stay in details.reward).
// A `reward` that is there but is not a finite JSON number ("0.0", null, true), or a reward.txt
// that is not a decimal number ("0x1", "true"), is verify/bad_reward: never read as 1, and never
// replaced by another metric (a duration or a count once became a nop agent's pass).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type ExitKind, STOP_KINDS } from '../agent/types.js';
import { type ConfidenceLevel, LABELS, type Label } from '../score/labels.js';
import { InfraError } from '../util/errors.js';

export interface Reward {
  /** The number that becomes the score, before clamping. */
  value: number;
  metrics: Record<string, number>;
  file: 'reward.txt' | 'reward.json';
}

const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

export function readReward(logsDir: string): Reward {
  const json = join(logsDir, 'reward.json');
  const txt = join(logsDir, 'reward.txt');
  if (existsSync(json)) {
    let raw: unknown;
    try {
      raw = JSON.parse(readFileSync(json, 'utf8'));
    } catch (e) {
      throw new InfraError(
        'verify',
        `reward.json is not JSON: ${(e as Error).message}`,
        'bad_reward',
      );
    }
    const entries =
      typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? Object.entries(raw) : [];
    const given = entries.find(([k]) => k === 'reward');
    if (given && (typeof given[1] !== 'number' || !Number.isFinite(given[1])))
      throw new InfraError(
        'verify',
        `reward.json's "reward" is ${JSON.stringify(given[1])} (${given[1] === null ? 'null' : typeof given[1]}): it must be a finite number, e.g. {"reward": 1.0}`,
        'bad_reward',
      );
    const metrics: Record<string, number> = {};
    for (const [k, v] of entries)
      if (typeof v === 'number' && Number.isFinite(v)) metrics[k] = v;
      else if (typeof v === 'boolean') metrics[k] = v ? 1 : 0;
    const names = Object.keys(metrics);
    if (names.length === 0)
      throw new InfraError(
        'verify',
        'reward.json holds no numeric metric (expected e.g. {"reward": 1.0})',
        'bad_reward',
      );
    const value =
      metrics.reward ??
      (names.length === 1
        ? metrics[names[0]]
        : names.reduce((a, k) => a + metrics[k], 0) / names.length);
    return { value, metrics, file: 'reward.json' };
  }
  if (existsSync(txt)) {
    const text = readFileSync(txt, 'utf8').trim();
    const value = Number(text);
    // Number() also reads "0x1", "0b1" and "" as numbers: only a decimal literal is a reward.
    if (!DECIMAL.test(text) || !Number.isFinite(value))
      throw new InfraError(
        'verify',
        `reward.txt must hold one number, got "${text.slice(0, 80)}"`,
        'bad_reward',
      );
    return { value, metrics: { reward: value }, file: 'reward.txt' };
  }
  throw new InfraError(
    'verify',
    'the verifier wrote no reward (/logs/verifier/reward.txt or reward.json)',
    'no_reward',
  );
}

export interface HarborOutcome {
  label: Label;
  score: number;
  confidenceLevel: ConfidenceLevel;
  explanation: string;
}

// A provider's refusal (rate limit, quota) is an infra error before any reward is read.

/** The score and label of a Harbor trial: its reward, unless the agent never got to work. */
export function harborOutcome(
  reward: Reward,
  agentExit: ExitKind,
  filesChanged: number,
): HarborOutcome {
  const score = Math.min(1, Math.max(0, reward.value));
  const of = (label: Label, explanation: string, s = score): HarborOutcome => ({
    label,
    score: s,
    confidenceLevel: LABELS[label].level,
    explanation,
  });
  if (STOP_KINDS.includes(agentExit) && filesChanged === 0 && score < 1)
    return of(
      'context_window_exceeded',
      `the agent stopped on ${agentExit} before changing any file; reward ${reward.value}`,
      0,
    );
  if (score >= 1) return of('pass', `reward ${reward.value} (${reward.file})`);
  if (score > 0) return of('partial_reward', `reward ${reward.value} (${reward.file})`);
  return of('no_reward', `reward ${reward.value} (${reward.file})`);
}
