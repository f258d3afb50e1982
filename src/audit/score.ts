// `audit score`: the agreement between a reviewer's labels and the rule engine's, over the items
// of one blinded export. Humans audit the classification only; no score ever changes.
import { wilson } from '../stats/wilson.js';
import { UserError } from '../util/errors.js';
import { AUDIT_CHOICES, type AuditKey } from './export.js';
import { AUDIT_AGREEMENT_REQUIRED } from './policy.js';

export interface AuditResult {
  run_id: string;
  reviewer: string;
  items: number;
  agreed: number;
  agreement: number;
  ci95: { low: number; high: number };
  /** engine label -> reviewer label -> count */
  confusion: Record<string, Record<string, number>>;
  collapsed: boolean;
  disagreements: { id: string; task_id: string; engine: string; reviewer: string }[];
}

/** Reviewer labels by item id, from the filled-in export or a plain {"<id>": "<label>"} map. */
export function reviewerLabels(reviewed: unknown, file: string): Map<string, string> {
  const doc = reviewed as { items?: { id?: unknown; label?: unknown }[] } | null;
  const pairs: [unknown, unknown][] = Array.isArray(doc?.items)
    ? doc.items.map((i) => [i.id, i.label])
    : reviewed && typeof reviewed === 'object'
      ? Object.entries(reviewed)
      : [];
  const out = new Map<string, string>();
  for (const [id, label] of pairs) {
    if (typeof id !== 'string') throw new UserError('BAD_LABELS', `${file}: an item has no id`);
    if (label === null || label === undefined || label === '') continue;
    if (typeof label !== 'string' || !(AUDIT_CHOICES as readonly string[]).includes(label))
      throw new UserError(
        'BAD_LABELS',
        `${file}: item ${id}: label must be one of ${AUDIT_CHOICES.join(', ')}, got ${JSON.stringify(label)}`,
      );
    out.set(id, label);
  }
  return out;
}

export function scoreAudit(
  key: AuditKey,
  labels: Map<string, string>,
  reviewer: string,
): AuditResult {
  const ids = Object.keys(key.items);
  const unknown = [...labels.keys()].filter((id) => !key.items[id]);
  if (unknown.length)
    throw new UserError(
      'BAD_LABELS',
      `labels for items not in the key: ${unknown.join(', ')} (wrong key file?)`,
    );
  const missing = ids.filter((id) => !labels.has(id));
  if (missing.length)
    throw new UserError(
      'BAD_LABELS',
      `${missing.length} of ${ids.length} item(s) have no label yet: ${missing.slice(0, 5).join(', ')}`,
    );
  const confusion: AuditResult['confusion'] = {};
  const disagreements: AuditResult['disagreements'] = [];
  for (const id of ids) {
    const engine = key.items[id].engine_label;
    const human = labels.get(id)!;
    confusion[engine] ??= {};
    confusion[engine][human] = (confusion[engine][human] ?? 0) + 1;
    if (engine !== human)
      disagreements.push({ id, task_id: key.items[id].task_id, engine, reviewer: human });
  }
  const agreed = ids.length - disagreements.length;
  const agreement = ids.length ? agreed / ids.length : 0;
  return {
    run_id: key.run_id,
    reviewer,
    items: ids.length,
    agreed,
    agreement,
    ci95: wilson(agreed, ids.length),
    confusion,
    collapsed: agreement < AUDIT_AGREEMENT_REQUIRED,
    disagreements,
  };
}
