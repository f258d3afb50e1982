// Gate 1, schema: the file is a valid task (schema v1) with every curator placeholder filled in.
import { loadTaskFile } from '../task/load.js';
import { UserError } from '../util/errors.js';
import type { GateContext } from './context.js';
import { fail, type GateOutcome, pass } from './types.js';

export async function schemaGate(ctx: GateContext): Promise<GateOutcome> {
  try {
    ctx.loaded = loadTaskFile(ctx.file, ctx.datasetDir);
  } catch (e) {
    if (!(e instanceof UserError)) throw e;
    const problems = e.message.split('\n').map((l) => l.replace(`${ctx.file}: `, ''));
    const placeholders = problems.some((p) => p.includes('placeholder not filled in'));
    return fail(
      `${problems.length} problem(s): ${problems.join('; ')}`,
      placeholders
        ? 'replace every TODO(curator) placeholder with the real value (see docs/CONTRIBUTING-TASKS.md, "Filling in a task"), then correct the other fields named'
        : 'correct the fields named (the schema: schemas/task.schema.json)',
      { problems },
    );
  }
  const t = ctx.loaded.task;
  return pass(
    `valid task schema v1 (${t.task_type}, tier ${t.complexity_tier}, ${t.languages.join(' + ')})`,
  );
}
