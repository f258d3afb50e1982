// The derived behaviours as the bare agent's model plays them (issue 29: bare on real tasks
// offline). The bare agent offers no tools (src/agent/bare.ts), so the behaviours of
// behaviours.ts are said in the bare format (src/agent/bare-format.ts): golden, hallucinated and
// interface answer at once with the whole new content of every file they change; wanderer asks
// to read its files, then answers no change; nothing and overflow are as for Nanocoder.
import { MAX_BARE_READS, showFiles } from '../agent/bare-format.js';
import type { Step } from '../provider/script-schema.js';
import {
  type BehaviourName,
  behaviourSteps,
  type DerivedTask,
  type Dialect,
  FINAL,
} from './behaviours.js';
import type { GoldenChange, Unbuildable } from './golden-edits.js';

/**
 * The bare format: READ lines (at most MAX_BARE_READS; in hinted mode the one request gets them,
 * which is no change either) and whole files. "Nothing" and wanderer's last answer hold no file
 * block, which the bare agent reads as an unusable edit: its "no change".
 */
export const BARE_DIALECT: Dialect = {
  reads: (paths) => [
    FINAL(
      paths
        .slice(0, MAX_BARE_READS)
        .map((p) => `READ: ${p}`)
        .join('\n'),
    ),
  ],
  change: bareAnswer,
};

/** The replies to the bare agent of one behaviour on one task, or why it cannot be built. */
export const bareBehaviourSteps = (d: DerivedTask, name: BehaviourName) =>
  behaviourSteps(d, name, BARE_DIALECT);

/**
 * The change as whole-file blocks. The format replaces files and cannot delete one: a deletion is
 * said in prose and not made (the tests that need it fail, as they would for a real model). A
 * file is written with a final newline, as the format reads every block.
 */
function bareAnswer(change: GoldenChange): Step[] | Unbuildable {
  const files = change.edits.flatMap((e) =>
    e.action === 'delete' ? [] : [{ path: e.path, content: e.after }],
  );
  const deleted = change.edits.filter((e) => e.action === 'delete').map((e) => e.path);
  if (!files.length)
    return {
      unbuildable:
        'the golden change only deletes files, and the bare format replaces files: it cannot delete one',
    };
  const prose = deleted.length
    ? `The change is below. These files should also be deleted, which this format cannot do: ${deleted.join(', ')}.`
    : 'The change is below.';
  return [FINAL(`${prose}\n\n${showFiles(files)}`)];
}
