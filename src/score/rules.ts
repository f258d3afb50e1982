// The ordered, deterministic scoring rules (docs/ARCHITECTURE.md, "Scoring"). First match wins.
// No model is involved anywhere: inputs are the diff, the test outcomes, the agent's exit and
// the files it read (its tool calls).

/**
 * Which rules scored a trial; every run records it, and `compare` warns when two runs differ.
 * 1: the rules until files read entered them. 2: navigation-mode insufficient_context_read needed
 * at least CONTEXT_EXPLOSION_FILES files read (else zero_signal). 3: the whitepaper's rule 2 as
 * it stands (every navigation run that misses the required files; files read are its evidence
 * and the flag context_explosion); a provider's refusal (rate limit, quota) is no longer rule 1
 * but an infra error, and a task that cannot report its targets is the task's error. 4: the bare
 * agent's answer that could not be parsed or applied, with nothing changed, is unusable_edit
 * (rule 1), not zero_signal or insufficient_context_read.
 */
export const SCORING_RULES_VERSION = 4;

import { type ExitKind, type Mode, STOP_KINDS } from '../agent/types.js';
import {
  CONTEXT_EXPLOSION_FILES,
  type ConfidenceLevel,
  LABELS,
  type Label,
  PATHFINDING_CREDIT,
} from './labels.js';
import { defines, isInterfaceMismatch, missingSymbols, references } from './symbols.js';

export interface TargetTest {
  id: string;
  suite: string;
  passed: boolean;
  message?: string;
}

export interface ScoreInput {
  mode: Mode;
  requiredFiles: string[];
  filesChanged: string[];
  agentExit: ExitKind;
  failToPass: TargetTest[];
  passToPass: TargetTest[];
  /** Suite name -> language, for the cross-language rule. */
  suiteLanguages: Record<string, string>;
  /** Extra failure text (suite stderr), searched with the failed tests' messages. */
  failureText: string;
  /** Lines the agent's change added. */
  agentAddedLines: string[];
  /** Whether `sym` appears in the repository at base_commit (without the PR's test files). */
  existsAtBase: (sym: string) => boolean;
  /**
   * Distinct files the agent read and the required ones among them, from its tool calls;
   * undefined when the agent reports no tool calls (command and control agents).
   */
  filesRead?: { count: number; required: string[] };
}

export interface ScoreOutcome {
  label: Label;
  score: number;
  confidenceLevel: ConfidenceLevel;
  flags: string[];
  explanation: string;
  /** The symbol that made a run hallucinated_api. */
  symbol?: string;
}

/**
 * The rule behind each label, numbered in the order classify() tries them, in a reader's words
 * (the viewer shows it beside the explanation). Keep in step with classify() below.
 */
export const RULES: Record<Label, { rule: number | null; when: string }> = {
  context_window_exceeded: {
    rule: 1,
    when: "the agent stopped on a context-length error (the provider's or NanoBench's token budget) before changing any file",
  },
  unusable_edit: {
    rule: 1,
    when: "the bare agent's answer could not be parsed or applied (no file changed); the reason is in the trial's details",
  },
  pass: {
    rule: 2,
    when: 'every fail_to_pass and pass_to_pass test passes (checked before the required files)',
  },
  insufficient_context_read: {
    rule: 3,
    when: 'navigation mode: the change touches none of the required files',
  },
  zero_signal: { rule: 3, when: 'hinted mode: the change touches none of the required files' },
  hallucinated_api: {
    rule: 4,
    when: 'no fail_to_pass test passes and the failures name a symbol the change uses that exists neither at base nor in the change',
  },
  wrong_abstraction_layer: {
    rule: 5,
    when: 'no fail_to_pass test passes and the failures are an interface mismatch (arity, keywords, argument types, not a constructor)',
  },
  partial_fix_only: { rule: 6, when: 'at least half of the fail_to_pass tests pass' },
  missing_cross_language_change: {
    rule: 7,
    when: "navigation mode, several languages: one language's tests all pass while another's fail",
  },
  incorrect_fix: { rule: 8, when: 'none of the rules above matched' },
  partial_reward: {
    rule: null,
    when: "Harbor task: the verifier's reward is above 0 and below 1 (the score is the reward)",
  },
  no_reward: { rule: null, when: "Harbor task: the verifier's reward is 0 or less" },
  implementation_error: {
    rule: null,
    when: 'hallucinated_api or wrong_abstraction_layer, shown as implementation_error because the latest Level-4 audit agreed on less than 90%',
  },
};

// A rate limit or an exhausted quota is the provider refusing service, not the model filling its
// context: such trials never get here (an infra error, src/trial/agent.ts; the deviation from
// the whitepaper's rule 1 is in docs/ARCHITECTURE.md). The stops are STOP_KINDS (src/agent/types.ts).

function outcome(
  label: Label,
  explanation: string,
  extra: Partial<ScoreOutcome> = {},
): ScoreOutcome {
  return {
    label,
    score: LABELS[label].base,
    confidenceLevel: LABELS[label].level,
    flags: [],
    explanation,
    ...extra,
  };
}

function hallucinatedSymbol(input: ScoreInput, text: string): string | undefined {
  return missingSymbols(text).find(
    (sym) =>
      references(input.agentAddedLines, sym) &&
      !defines(input.agentAddedLines, sym) &&
      !input.existsAtBase(sym),
  );
}

/** Apply the rules in order and return the first match, with pathfinding credit in navigation mode. */
export function score(input: ScoreInput): ScoreOutcome {
  const result = classify(input);
  const overlap = input.filesChanged.some((f) => input.requiredFiles.includes(f));
  if (
    input.mode === 'navigation' &&
    result.label !== 'pass' &&
    overlap &&
    result.score < PATHFINDING_CREDIT
  ) {
    result.score = PATHFINDING_CREDIT;
    result.flags.push('pathfinding_credit');
  }
  return result;
}

function classify(input: ScoreInput): ScoreOutcome {
  const { failToPass: f2p, passToPass: p2p } = input;
  const f2pPassed = f2p.filter((t) => t.passed).length;
  const counts = `${f2pPassed}/${f2p.length} fail_to_pass, ${p2p.filter((t) => t.passed).length}/${p2p.length} pass_to_pass`;
  const overlap = input.filesChanged.filter((f) => input.requiredFiles.includes(f));

  // 1. Halted on a context-size / rate-limit error before editing anything.
  if (STOP_KINDS.includes(input.agentExit) && input.filesChanged.length === 0)
    return outcome(
      'context_window_exceeded',
      `agent stopped (${input.agentExit}) before changing any file`,
    );

  // 1. The bare agent's answer could not be used: the model's failure, not a missed file.
  if (input.agentExit === 'unusable_edit' && input.filesChanged.length === 0)
    return outcome('unusable_edit', 'the answer could not be parsed or applied; nothing changed');

  // 2. Everything passes. A correct alternative fix is never scored 0 (deviation from the whitepaper).
  if (f2p.length > 0 && f2pPassed === f2p.length && p2p.every((t) => t.passed)) {
    const flags = overlap.length === 0 ? ['pass_outside_required_files'] : [];
    return outcome('pass', `all tests pass (${counts})`, { flags });
  }

  // 3. No required file touched: insufficient_context_read in navigation mode, whatever was read
  // (whitepaper §9.1 rule 2); zero_signal in hinted mode. What the agent read is the label's
  // evidence, and a run that read many files is flagged context_explosion (§9's definition).
  if (overlap.length === 0) {
    if (input.mode !== 'navigation')
      return outcome(
        'zero_signal',
        `changed none of the required files in hinted mode (${counts})`,
      );
    const read = input.filesRead;
    const evidence = read
      ? readText(read.count, read.required.length, input.requiredFiles.length)
      : 'files read unknown (the agent reports no tool calls)';
    const explosion = read !== undefined && read.count >= CONTEXT_EXPLOSION_FILES;
    return outcome(
      'insufficient_context_read',
      `${evidence}, and changed none of the required files (${counts})`,
      { flags: explosion ? ['context_explosion'] : [] },
    );
  }

  const failedText = [...f2p, ...p2p]
    .filter((t) => !t.passed)
    .map((t) => t.message ?? '')
    .concat(input.failureText)
    .join('\n');

  if (f2pPassed === 0) {
    // 4. A symbol the agent's own change uses that exists nowhere.
    const sym = hallucinatedSymbol(input, failedText);
    if (sym)
      return outcome(
        'hallucinated_api',
        `tests fail on "${sym}", which the change uses but which exists neither at base nor in the change`,
        { symbol: sym },
      );
    // 5. Interface mismatch.
    if (isInterfaceMismatch(failedText))
      return outcome('wrong_abstraction_layer', `tests fail on an interface mismatch (${counts})`);
  }

  // 6. At least half of the target tests pass (>=, not >).
  if (f2p.length > 0 && f2pPassed * 2 >= f2p.length)
    return outcome('partial_fix_only', `partial fix (${counts})`);

  // 7. Polyglot, navigation: one language's tests all pass while another's fail.
  const languages = new Set(Object.values(input.suiteLanguages));
  if (input.mode === 'navigation' && languages.size > 1) {
    const byLang = new Map<string, boolean>();
    for (const t of [...f2p, ...p2p]) {
      const lang = input.suiteLanguages[t.suite];
      byLang.set(lang, (byLang.get(lang) ?? true) && t.passed);
    }
    const states = [...byLang.values()];
    if (states.includes(true) && states.includes(false)) {
      const ok = [...byLang].filter(([, v]) => v).map(([k]) => k);
      const bad = [...byLang].filter(([, v]) => !v).map(([k]) => k);
      return outcome(
        'missing_cross_language_change',
        `${ok.join(', ')} tests pass but ${bad.join(', ')} tests fail`,
      );
    }
  }

  // 8. Everything else.
  return outcome('incorrect_fix', `fix is incorrect (${counts})`);
}

/** "read 41 files, none of the required ones" and the like. */
export function readText(count: number, requiredRead: number, requiredTotal: number): string {
  const files = `read ${count} file${count === 1 ? '' : 's'}`;
  if (requiredTotal === 0) return files;
  if (requiredRead === 0) return `${files}, none of the required ones`;
  if (requiredRead === requiredTotal)
    return `${files}, ${requiredTotal === 1 ? 'the required one' : `all ${requiredTotal} required ones`}`;
  return `${files}, ${requiredRead} of the ${requiredTotal} required ones`;
}
