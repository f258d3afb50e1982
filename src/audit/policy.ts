// The Level-4 audit policy (whitepaper §9.2): hallucinated_api and wrong_abstraction_layer rest
// on string matching in stack traces, so a periodic human audit checks them. When the latest
// audit agrees with the rule engine on less than 90% of the sampled trials, reports show both as
// the coarser implementation_error until the rules improve. Scores never change.

import type { RecordLabel } from '../score/labels.js';

export const AUDIT_AGREEMENT_REQUIRED = 0.9;
export const LEVEL4_LABELS = ['hallucinated_api', 'wrong_abstraction_layer'] as const;
export const COLLAPSED_LABEL = 'implementation_error';

/** The label a report shows, given the latest audit's agreement (undefined: never audited). */
export function effectiveLabel(
  label: RecordLabel | null,
  auditAgreement: number | null | undefined,
): RecordLabel | null {
  if (auditAgreement === undefined || auditAgreement === null) return label;
  if (auditAgreement >= AUDIT_AGREEMENT_REQUIRED) return label;
  return (LEVEL4_LABELS as readonly (string | null)[]).includes(label) ? COLLAPSED_LABEL : label;
}

/** Trials as a report should show them (copies; the stored trials keep the engine's label). */
export function applyAudit<T extends { label: RecordLabel | null }>(
  trials: T[],
  auditAgreement: number | null | undefined,
): T[] {
  return trials.map((t) => {
    const label = effectiveLabel(t.label, auditAgreement);
    return label === t.label ? t : { ...t, label };
  });
}

/** What reports state about the audit their labels follow. */
export interface AuditSummary {
  /** The run whose sample was audited, the reviewer and when. */
  run_id: string;
  reviewer: string;
  created_at: string;
  /** Sample size and how many labels the reviewer agreed with. */
  items: number;
  agreed: number;
  agreement: number;
  required: number;
  /** Below the required agreement: both Level-4 labels are shown as implementation_error. */
  collapsed: boolean;
}

export function auditSummary(
  a:
    | {
        run_id: string;
        reviewer: string;
        created_at: string;
        items: number;
        agreed: number;
        agreement: number;
      }
    | undefined
    | null,
): AuditSummary | null {
  if (!a) return null;
  return {
    run_id: a.run_id,
    reviewer: a.reviewer,
    created_at: a.created_at,
    items: a.items,
    agreed: a.agreed,
    agreement: a.agreement,
    required: AUDIT_AGREEMENT_REQUIRED,
    collapsed: a.agreement < AUDIT_AGREEMENT_REQUIRED,
  };
}

/** The audit the labels follow, in one sentence (agreement and its sample size). */
export function auditSentence(a: AuditSummary | null): string {
  if (!a)
    return 'No Level-4 audit recorded: hallucinated_api and wrong_abstraction_layer are unaudited string matches (nanobench audit export / score).';
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
  const head = `Level-4 audit (run ${a.run_id}, ${a.reviewer}, ${a.created_at.slice(0, 10)}): ${a.agreed} of ${a.items} sampled trials agreed with the rules (${pct(a.agreement)})`;
  return a.collapsed
    ? `${head}, below the ${pct(a.required)} required: hallucinated_api and wrong_abstraction_layer are shown as ${COLLAPSED_LABEL}.`
    : `${head}, at least the ${pct(a.required)} required: Level-4 labels are shown as the rules gave them.`;
}

/** Of two audits, the one that collapses (the lower agreement), so both sides read alike. */
export function stricterAudit<T extends { agreement: number }>(a?: T, b?: T): T | undefined {
  if (!a) return b;
  if (!b) return a;
  return b.agreement < a.agreement ? b : a;
}
