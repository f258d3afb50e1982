// What the scoring rules must say about each derived behaviour, per mode: the one place the
// expectations come from. Each behaviour is described by what it does (does its change touch the
// required files, do the tests pass, what fails, how many files it read, how it stops); the
// expected label, score and flags follow from the rules as docs/ARCHITECTURE.md states them
// ("Scoring order", rule 2 as the whitepaper's, pathfinding credit), with the taxonomy's own
// numbers (src/score/labels.ts). Nothing here is per task.
import type { Mode } from '../agent/types.js';
import {
  CONTEXT_EXPLOSION_FILES,
  LABELS,
  type Label,
  PATHFINDING_CREDIT,
} from '../score/labels.js';
import { type BehaviourName, WANDER_FILES } from './behaviours.js';

/** What a behaviour does, in the terms the rules read. */
interface Conduct {
  /** The agent stops on the provider's context-length error before changing anything. */
  stopsOnContextError?: boolean;
  /** Its change touches the required files. */
  changesRequired: boolean;
  /** Every fail_to_pass and pass_to_pass test passes. */
  testsPass: boolean;
  /** Why no fail_to_pass test passes, when one of the Level-4 rules should see it. */
  failure?: 'missing_symbol' | 'interface_mismatch';
  /** Distinct files read through read_file. */
  filesRead: number;
}

const CONDUCT: Record<BehaviourName, Conduct> = {
  golden: { changesRequired: true, testsPass: true, filesRead: 0 },
  nothing: { changesRequired: false, testsPass: false, filesRead: 0 },
  wanderer: { changesRequired: false, testsPass: false, filesRead: WANDER_FILES },
  hallucinated: {
    changesRequired: true,
    testsPass: false,
    failure: 'missing_symbol',
    filesRead: 0,
  },
  interface: {
    changesRequired: true,
    testsPass: false,
    failure: 'interface_mismatch',
    filesRead: 0,
  },
  overflow: { stopsOnContextError: true, changesRequired: false, testsPass: false, filesRead: 0 },
};

/** The flags a selftest compares (others, such as target_tests_missing, may come and go). */
export const EXPECTED_FLAGS = [
  'pathfinding_credit',
  'context_explosion',
  'pass_outside_required_files',
];

export interface Expectation {
  label: Label;
  score: number;
  /** Exactly these of EXPECTED_FLAGS. */
  flags: string[];
}

/** The rules, in their order, applied to what a behaviour does. */
function labelOf(c: Conduct, mode: Mode): Label {
  if (c.stopsOnContextError) return 'context_window_exceeded'; // rule 1: nothing changed
  if (c.testsPass) return 'pass'; // rule 2, before the required files
  if (!c.changesRequired)
    return mode === 'navigation' ? 'insufficient_context_read' : 'zero_signal';
  if (c.failure === 'missing_symbol') return 'hallucinated_api'; // rule 4
  if (c.failure === 'interface_mismatch') return 'wrong_abstraction_layer'; // rule 5
  return 'incorrect_fix';
}

export function expectation(behaviour: BehaviourName, mode: Mode): Expectation {
  const c = CONDUCT[behaviour];
  const label = labelOf(c, mode);
  const flags: string[] = [];
  let score: number = LABELS[label].base;
  // Navigation mode: a failed run that changed a required file earns the pathfinding credit.
  if (
    mode === 'navigation' &&
    label !== 'pass' &&
    c.changesRequired &&
    score < PATHFINDING_CREDIT
  ) {
    score = PATHFINDING_CREDIT;
    flags.push('pathfinding_credit');
  }
  if (label === 'insufficient_context_read' && c.filesRead >= CONTEXT_EXPLOSION_FILES)
    flags.push('context_explosion');
  return { label, score, flags };
}
