// Validate a value against one of the checked-in JSON Schemas (draft 2020-12) with Ajv.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { ROOT } from './cli.js';

const ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false });

/** Error strings ("/path: message"), empty when valid. */
export function validateAgainst(schemaFile: string, value: unknown): string[] {
  const schema = JSON.parse(readFileSync(join(ROOT, 'schemas', schemaFile), 'utf8'));
  const check = ajv.getSchema(schema.$id ?? schemaFile) ?? ajv.compile(schema);
  return check(value)
    ? []
    : (check.errors ?? []).map((e) => `${e.instancePath || '/'}: ${e.message}`);
}
