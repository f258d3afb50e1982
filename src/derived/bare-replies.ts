// The derived behaviours as the bare agent's model plays them (issue 29: bare on real tasks
// offline). The bare agent offers no tools (src/agent/bare.ts), so each behaviour is text in the
// bare format (src/agent/bare-format.ts), built from the same derived data as Nanocoder's tool
// calls (behaviours.ts): golden, hallucinated and interface answer at once with the whole new
// content of every file they change; wanderer asks to read its files, then answers no change;
// nothing answers no change; overflow is the provider's context error, as for Nanocoder.
import { MAX_BARE_READS, showFiles } from '../agent/bare-format.js';
import type { Step } from '../provider/script-schema.js';
import { type BehaviourName, behaviourChange, type DerivedTask, FINAL } from './behaviours.js';
import { type GoldenChange, isUnbuildable, type Unbuildable } from './golden-edits.js';

/** The replies to the bare agent of one behaviour on one task, or why it cannot be built. */
export function bareBehaviourSteps(d: DerivedTask, name: BehaviourName): Step[] | Unbuildable {
  switch (name) {
    case 'nothing':
      // No file block: the bare agent reads it as an unusable edit, its "no change".
      return [FINAL('I have looked at the task and I am not changing anything.')];
    case 'overflow':
      return [{ fail: 'context_http' }];
    case 'wanderer':
      if (isUnbuildable(d.wander)) return d.wander;
      // In hinted mode the one request gets these READ lines: no change either.
      return [
        FINAL(
          d.wander
            .slice(0, MAX_BARE_READS)
            .map((p) => `READ: ${p}`)
            .join('\n'),
        ),
        FINAL('I have read around the repository.'),
      ];
    default: {
      const change = behaviourChange(d, name);
      return isUnbuildable(change) ? change : bareAnswer(change);
    }
  }
}

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
