// A deliberately tiny JSON Schema (2020-12) checker for the keywords our schemas/ files use:
// type, enum, const, properties, required, additionalProperties:false, items, minimum, allOf,
// if/then and local $ref. Enough to test schemas/nanocoder-report.schema.json without a new
// dependency; it throws on any keyword it does not know so it can never pass by ignorance.
type Schema = Record<string, unknown>;

const KNOWN = new Set([
  '$schema',
  '$id',
  '$defs',
  'title',
  'description',
  'type',
  'enum',
  'const',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'minimum',
  'allOf',
  'if',
  'then',
  '$ref',
]);

function typeOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

export function validate(schema: Schema, value: unknown, root: Schema = schema, at = ''): string[] {
  for (const k of Object.keys(schema))
    if (!KNOWN.has(k)) throw new Error(`json-schema-mini: unsupported keyword ${k}`);
  const errs: string[] = [];
  const where = at || '(root)';
  if (typeof schema.$ref === 'string') {
    const name = schema.$ref.replace(/^#\/\$defs\//, '');
    return validate((root.$defs as Record<string, Schema>)[name], value, root, at);
  }
  if (schema.type !== undefined) {
    const types = ([] as string[]).concat(schema.type as string | string[]);
    const t = typeOf(value);
    if (!types.includes(t) && !(t === 'integer' && types.includes('number')))
      return [`${where}: expected ${types.join('|')}, got ${t}`];
  }
  if (schema.enum && !(schema.enum as unknown[]).includes(value))
    errs.push(`${where}: not in enum`);
  if ('const' in schema && schema.const !== value)
    errs.push(`${where}: expected ${JSON.stringify(schema.const)}`);
  if (typeof schema.minimum === 'number' && typeof value === 'number' && value < schema.minimum)
    errs.push(`${where}: below ${schema.minimum}`);
  if (typeOf(value) === 'object') {
    const obj = value as Record<string, unknown>;
    const props = (schema.properties ?? {}) as Record<string, Schema>;
    for (const r of (schema.required ?? []) as string[])
      if (!(r in obj)) errs.push(`${at}.${r}: required`);
    for (const [k, v] of Object.entries(obj)) {
      if (props[k]) errs.push(...validate(props[k], v, root, `${at}.${k}`));
      else if (schema.additionalProperties === false) errs.push(`${at}.${k}: not allowed`);
    }
  }
  if (Array.isArray(value) && schema.items)
    for (const [i, v] of value.entries())
      errs.push(...validate(schema.items as Schema, v, root, `${at}[${i}]`));
  for (const sub of (schema.allOf ?? []) as Schema[]) errs.push(...validate(sub, value, root, at));
  if (schema.if && validate(schema.if as Schema, value, root, at).length === 0 && schema.then)
    errs.push(...validate(schema.then as Schema, value, root, at));
  return errs;
}
