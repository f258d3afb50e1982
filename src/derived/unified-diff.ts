// A task's golden patch as data: the files it changes, each with its hunks, read from git's
// unified diff (the form src/task/patches.ts derives: --full-index, --binary, no renames; the
// inline patches of hand-written tasks have abbreviated object names). Applying the hunks to a
// file's base content gives its golden content, checked against the patch's own object names.
import { createHash } from 'node:crypto';

export interface HunkLine {
  op: ' ' | '-' | '+';
  /** The line with its newline, unless the patch says the file ends without one. */
  text: string;
}

export interface Hunk {
  oldStart: number;
  oldCount: number;
  newStart: number;
  newCount: number;
  lines: HunkLine[];
}

export interface FileDiff {
  path: string;
  status: 'modified' | 'added' | 'deleted';
  /** "Binary files differ" or a GIT binary patch: no text hunks. */
  binary: boolean;
  /** File modes (100644, 100755, 120000 for a symlink), when the patch names them. */
  oldMode?: string;
  newMode?: string;
  /** Object names of the index line (full or abbreviated). */
  oldBlob?: string;
  newBlob?: string;
  hunks: Hunk[];
}

/** C-style quoted paths (git quotes names with special characters): "a/x\tb" -> a/x<TAB>b. */
function unquote(p: string): string {
  if (!p.startsWith('"')) return p;
  const body = p.slice(1, -1);
  const bytes: number[] = [];
  const simple: Record<string, number> = { n: 10, t: 9, r: 13, '"': 34, '\\': 92, a: 7, b: 8 };
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c !== '\\') {
      bytes.push(...Buffer.from(c, 'utf8'));
      continue;
    }
    const next = body[++i];
    if (/[0-7]/.test(next)) {
      bytes.push(Number.parseInt(body.slice(i, i + 3), 8));
      i += 2;
    } else bytes.push(simple[next] ?? next.charCodeAt(0));
  }
  return Buffer.from(bytes).toString('utf8');
}

const stripPrefix = (p: string) => unquote(p).replace(/^[ab]\//, '');
/** A ---/+++ line's path: git ends it with a tab when the name holds a space. */
const markerPath = (line: string) => stripPrefix(line.slice(4).replace(/\t$/, ''));

/** The path of a "diff --git a/P b/P" header (no renames: both halves are the same path). */
function headerPath(line: string): string {
  const rest = line.slice('diff --git '.length);
  if (rest.startsWith('"')) {
    const end = rest.indexOf('" ', 1);
    return stripPrefix(rest.slice(0, end + 1));
  }
  return stripPrefix(rest.slice(0, (rest.length - 1) / 2));
}

const HUNK = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;

/** Every file of a git diff, in the patch's order. */
export function parseUnifiedDiff(patch: string): FileDiff[] {
  const lines = patch.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  const files: FileDiff[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (!line.startsWith('diff --git ')) {
      i++;
      continue;
    }
    const file: FileDiff = { path: headerPath(line), status: 'modified', binary: false, hunks: [] };
    files.push(file);
    i++;
    // Extended header lines, up to the first hunk or the next file.
    for (; i < lines.length && !lines[i].startsWith('diff --git ') && !HUNK.test(lines[i]); i++) {
      const h = lines[i];
      if (h.startsWith('new file mode ')) {
        file.status = 'added';
        file.newMode = h.slice(14);
      } else if (h.startsWith('deleted file mode ')) {
        file.status = 'deleted';
        file.oldMode = h.slice(18);
      } else if (h.startsWith('old mode ')) file.oldMode = h.slice(9);
      else if (h.startsWith('new mode ')) file.newMode = h.slice(9);
      else if (h.startsWith('index ')) {
        const m = /^index ([0-9a-f]+)\.\.([0-9a-f]+)(?: (\d+))?/.exec(h);
        if (m) {
          file.oldBlob = m[1];
          file.newBlob = m[2];
          if (m[3]) {
            file.oldMode ??= m[3];
            file.newMode ??= m[3];
          }
        }
      } else if (h.startsWith('Binary files ') || h === 'GIT binary patch') file.binary = true;
      else if (h.startsWith('+++ ') && h !== '+++ /dev/null') file.path = markerPath(h);
      else if (h.startsWith('--- ') && h !== '--- /dev/null' && file.status === 'deleted')
        file.path = markerPath(h);
    }
    while (i < lines.length && HUNK.test(lines[i])) i = readHunk(lines, i, file);
  }
  return files;
}

/** One hunk starting at lines[i]; returns the index after it. */
function readHunk(lines: string[], i: number, file: FileDiff): number {
  const m = HUNK.exec(lines[i])!;
  const hunk: Hunk = {
    oldStart: Number(m[1]),
    oldCount: m[2] === undefined ? 1 : Number(m[2]),
    newStart: Number(m[3]),
    newCount: m[4] === undefined ? 1 : Number(m[4]),
    lines: [],
  };
  file.hunks.push(hunk);
  let old = hunk.oldCount;
  let neu = hunk.newCount;
  i++;
  while (i < lines.length && (old > 0 || neu > 0 || lines[i].startsWith('\\'))) {
    const l = lines[i++];
    if (l.startsWith('\\')) {
      // "\ No newline at end of file": the line before it has none.
      const last = hunk.lines[hunk.lines.length - 1];
      if (last) last.text = last.text.replace(/\n$/, '');
      continue;
    }
    const op = (l[0] ?? ' ') as HunkLine['op'];
    hunk.lines.push({ op, text: `${l.slice(1)}\n` });
    if (op !== '+') old--;
    if (op !== '-') neu--;
  }
  return i;
}

/** A file's content as lines, each with its newline (the last one may have none). */
export function splitLines(content: string): string[] {
  const out = content.split(/(?<=\n)/);
  return out[out.length - 1] === '' ? out.slice(0, -1) : out;
}

/** The hunks applied to `base`; throws when a context or removed line does not match. */
export function applyHunks(base: string, hunks: Hunk[]): string {
  const src = splitLines(base);
  const out: string[] = [];
  let at = 0; // index into src
  for (const h of hunks) {
    const start = h.oldCount === 0 ? h.oldStart : h.oldStart - 1;
    if (start < at || start > src.length)
      throw new Error(`hunk at line ${h.oldStart} is out of order or past the end`);
    out.push(...src.slice(at, start));
    at = start;
    for (const l of h.lines) {
      if (l.op === '+') {
        out.push(l.text);
        continue;
      }
      if (src[at] !== l.text)
        throw new Error(`line ${at + 1} does not match the patch (${JSON.stringify(l.text)})`);
      if (l.op === ' ') out.push(l.text);
      at++;
    }
  }
  out.push(...src.slice(at));
  return out.join('');
}

/** git's object name of a blob with this content. */
export function blobId(content: Buffer | string): string {
  const buf = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
  return createHash('sha1').update(`blob ${buf.length}\0`).update(buf).digest('hex');
}

/** Whether `content` is the blob the patch names (full or abbreviated). */
export function isBlob(content: Buffer | string, name: string | undefined): boolean {
  if (!name) return true;
  if (/^0+$/.test(name)) return false;
  return blobId(content).startsWith(name);
}
