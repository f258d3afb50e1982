// Artifact files ride back to the coordinator inside the job result (base64 in Redis), so
// workers need no shared filesystem. Files are capped: the record is what counts, artifacts are
// for reading; a cut file ends with a note saying so.
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const ARTIFACT_LIMITS = { fileBytes: 2 * 1024 * 1024, totalBytes: 8 * 1024 * 1024 };

const SAFE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

export function packArtifacts(
  dir: string | null,
  limits = ARTIFACT_LIMITS,
): Record<string, string> {
  const out: Record<string, string> = {};
  if (!dir || !existsSync(dir)) return out;
  let budget = limits.totalBytes;
  for (const name of readdirSync(dir).sort()) {
    const file = join(dir, name);
    if (!SAFE_NAME.test(name) || !statSync(file).isFile()) continue;
    let data = readFileSync(file);
    const cap = Math.min(limits.fileBytes, budget);
    if (data.length > cap) {
      const note = Buffer.from(`\n[nanobench: cut at ${cap} of ${data.length} bytes]\n`);
      data = Buffer.concat([data.subarray(0, Math.max(0, cap - note.length)), note]);
    }
    budget -= data.length;
    out[name] = data.toString('base64');
    if (budget <= 0) break;
  }
  return out;
}

/** Write shipped artifacts into `dir`. Names are checked: a worker cannot write outside it. */
export function unpackArtifacts(dir: string, files: Record<string, string>): void {
  mkdirSync(dir, { recursive: true });
  for (const [name, b64] of Object.entries(files)) {
    if (!SAFE_NAME.test(name)) continue;
    writeFileSync(join(dir, name), Buffer.from(b64, 'base64'));
  }
}
