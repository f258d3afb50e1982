// Best-effort evidence in what the agent printed. Inside bwrap a forbidden path simply does not
// exist and a connection fails locally, so there is no denial log to read: what remains is the
// agent's own output (its shell tool echoes commands and errors). A clean output proves nothing.
import { normalize } from 'node:path';
import { isInside } from '../workspace/sandbox/toolchain.js';

const MAX_EVIDENCE = 5;

/** Absolute paths mentioned in text. */
function absolutePaths(text: string): string[] {
  const found = new Set<string>();
  for (const m of text.matchAll(/(?:^|[\s'"`=:([{,])(\/[^\s'"`)\]}:,;*?<>|\\]+)/gm))
    found.add(normalize(m[1].replace(/[.]+$/, '')));
  return [...found];
}

/**
 * Paths under a protected root (dataset, results, cache, NanoBench, the host home) that are not
 * under something the agent may use (its workspace, scratch, toolchain).
 */
export function protectedMentions(text: string, protectedRoots: string[], allowed: string[]) {
  return absolutePaths(text)
    .filter((p) => protectedRoots.some((r) => isInside(p, r)))
    .filter((p) => !allowed.some((a) => isInside(p, a)))
    .slice(0, MAX_EVIDENCE);
}

/** Errors a sandbox without network produces: unreachable networks, failed DNS, refusals. */
const NETWORK_ERRORS =
  /ENETUNREACH|Network is unreachable|EAI_AGAIN|Temporary failure in name resolution|Could not resolve host|getaddrinfo|ECONNREFUSED|Connection refused/i;

export function networkErrors(text: string): string[] {
  return text
    .split('\n')
    .filter((l) => NETWORK_ERRORS.test(l))
    .map((l) => l.trim().slice(0, 200))
    .slice(0, MAX_EVIDENCE);
}
