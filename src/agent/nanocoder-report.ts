// The report `nanocoder --plain --json run` prints on stdout. This zod schema mirrors
// schemas/nanocoder-report.schema.json (a test checks both accept and reject the same payloads).
// Field set taken from Nanocoder 1.30 (dist/plain/shell.js) and checked on captured payloads.
import { type ZodIssue, z } from 'zod';

export const REPORT_KINDS = ['success', 'error', 'tool-approval-required'] as const;
export type ReportKind = (typeof REPORT_KINDS)[number];

const EXIT_CODE_OF: Record<ReportKind, number> = {
  success: 0,
  error: 1,
  'tool-approval-required': 2,
};

export const ReportToolCallSchema = z
  .object({
    name: z.string(),
    // The parsed arguments object the model sent ({} when it sent none).
    arguments: z.record(z.unknown()),
    result: z.string().nullable(),
    error: z.string().nullable(),
  })
  .strict();

const count = z.number().int().nonnegative();

export const NanocoderReportSchema = z
  .object({
    kind: z.enum(REPORT_KINDS),
    exitCode: z.number().int(),
    finalText: z.string(),
    reasoning: z.string().nullable(),
    toolCalls: z.array(ReportToolCallSchema),
    filesChanged: z.array(z.string()),
    // Only present when the model server streamed usage.
    usage: z
      .object({ inputTokens: count, outputTokens: count, totalTokens: count })
      .strict()
      .optional(),
    message: z.string().optional(),
    toolNames: z.array(z.string()).optional(),
  })
  .strict()
  .superRefine((r, ctx) => {
    const code = EXIT_CODE_OF[r.kind];
    if (r.exitCode !== code)
      ctx.addIssue({
        code: 'custom',
        path: ['exitCode'],
        message: `expected ${code} for kind "${r.kind}"`,
      });
    if (r.kind === 'error' && r.message === undefined)
      ctx.addIssue({ code: 'custom', path: ['message'], message: 'required when kind is "error"' });
    if (r.kind === 'tool-approval-required' && r.toolNames === undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['toolNames'],
        message: 'required when kind is "tool-approval-required"',
      });
  });

export type NanocoderReport = z.infer<typeof NanocoderReportSchema>;

export type ReportParse =
  | { ok: true; report: NanocoderReport }
  | { ok: false; empty: boolean; error: string; raw?: unknown };

function issueText(i: ZodIssue): string {
  const where = i.path.length ? i.path.join('.') : '(root)';
  let expected = i.message;
  if (i.code === 'invalid_type') expected = `expected ${i.expected}, got ${i.received}`;
  else if (i.code === 'invalid_enum_value') expected = `expected one of ${i.options.join(', ')}`;
  else if (i.code === 'unrecognized_keys') expected = `unexpected field(s) ${i.keys.join(', ')}`;
  return `${where}: ${expected}`;
}

/** Parse stdout as one report. Empty stdout is reported as such: it is never a success. */
export function parseNanocoderReport(stdout: string): ReportParse {
  const text = stdout.trim();
  if (!text) return { ok: false, empty: true, error: 'stdout is empty (no --json report)' };
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    const head = text.slice(0, 120).replace(/\s+/g, ' ');
    // Seen with Nanocoder 1.30 on pyparsing-652 (a ~600 KB report): stdout ends mid-report,
    // always at the same byte. Named apart from output that is no report at all.
    if (text.startsWith('{') && !text.endsWith('}'))
      return {
        ok: false,
        empty: false,
        error: `stdout holds a --json report cut short after ${Buffer.byteLength(text)} bytes (Nanocoder ended without writing all of it; starts: ${head.slice(0, 60)})`,
      };
    return { ok: false, empty: false, error: `stdout is not one JSON document (starts: ${head})` };
  }
  const parsed = NanocoderReportSchema.safeParse(raw);
  if (parsed.success) return { ok: true, report: parsed.data };
  const detail = parsed.error.issues.slice(0, 5).map(issueText).join('; ');
  return {
    ok: false,
    empty: false,
    error: `report does not match the Nanocoder 1.30 shape: ${detail}`,
    raw,
  };
}
