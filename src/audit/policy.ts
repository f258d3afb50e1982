// The Level-4 audit policy (whitepaper §9.2): hallucinated_api and wrong_abstraction_layer rest
// on string matching in stack traces, so a periodic human audit checks them. When the latest
// audit agrees with the rule engine on less than 90% of the sampled trials, reports show both as
// the coarser implementation_error until the rules improve. Scores never change.

export const AUDIT_AGREEMENT_REQUIRED = 0.9;
export const LEVEL4_LABELS = ['hallucinated_api', 'wrong_abstraction_layer'] as const;
export const COLLAPSED_LABEL = 'implementation_error';

/** The label a report shows, given the latest audit's agreement (undefined: never audited). */
export function effectiveLabel(
  label: string | null,
  auditAgreement: number | null | undefined,
): string | null {
  if (auditAgreement === undefined || auditAgreement === null) return label;
  if (auditAgreement >= AUDIT_AGREEMENT_REQUIRED) return label;
  return (LEVEL4_LABELS as readonly (string | null)[]).includes(label) ? COLLAPSED_LABEL : label;
}

/** Trials as a report should show them (copies; the stored trials keep the engine's label). */
export function applyAudit<T extends { label: string | null }>(
  trials: T[],
  auditAgreement: number | null | undefined,
): T[] {
  return trials.map((t) => {
    const label = effectiveLabel(t.label, auditAgreement);
    return label === t.label ? t : { ...t, label };
  });
}
