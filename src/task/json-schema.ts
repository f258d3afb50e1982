// JSON Schemas generated from the zod schemas, so the checked-in files in schemas/ can never
// drift from the code (a test compares them).
import { zodToJsonSchema } from 'zod-to-json-schema';
import { TaskSchema } from './schema.js';

export function generatedSchemas(): Record<string, object> {
  const task = zodToJsonSchema(TaskSchema, {
    $refStrategy: 'none',
    effectStrategy: 'input',
    pipeStrategy: 'input',
  });
  return {
    'task.schema.json': {
      ...task,
      $id: 'https://nanobench.dev/schemas/task.schema.json',
      title: 'NanoBench task (schema v1)',
    },
  };
}
