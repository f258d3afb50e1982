// JSON Schemas generated from the zod schemas, so the checked-in files in schemas/ can never
// drift from the code (a test compares them).
import { zodToJsonSchema } from 'zod-to-json-schema';
import { MatrixSchema } from '../run/matrix.js';
import { TaskSchema } from '../task/schema.js';
import { ResultsSchema } from './results-schema.js';

const OPTIONS = {
  $refStrategy: 'none',
  effectStrategy: 'input',
  pipeStrategy: 'input',
} as const;

export function generatedSchemas(): Record<string, object> {
  const task = zodToJsonSchema(TaskSchema, OPTIONS);
  const results = zodToJsonSchema(ResultsSchema, OPTIONS);
  return {
    'task.schema.json': {
      ...task,
      $id: 'https://nanobench.dev/schemas/task.schema.json',
      title: 'NanoBench task (schema v1)',
    },
    'results.schema.json': {
      ...results,
      // The keywords zod-to-json-schema emits here mean the same in draft 2020-12, which the
      // repository's other schemas (and their tests) use.
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      $id: 'https://nanobench.dev/schemas/results.schema.json',
      title: 'NanoBench results (run --json, report --format json)',
      description:
        'One run and its trials with their telemetry, as `nanobench run --json` prints it; `report --format json` adds `report`, `demo --json` adds `matrix`. Generated from src/report/results-schema.ts.',
    },
    'matrix.schema.json': {
      ...zodToJsonSchema(MatrixSchema, OPTIONS),
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      $id: 'https://nanobench.dev/schemas/matrix.schema.json',
      title: 'NanoBench run matrix (nanobench run --matrix FILE)',
    },
  };
}
