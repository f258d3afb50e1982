// The workspace diff (agent.diff, `git diff` of the baseline tree against the agent's tree) split
// into files and hunks for the trial page, with the task's required files marked.

export interface DiffLine {
  kind: 'add' | 'del' | 'ctx' | 'hunk' | 'meta';
  text: string;
}

export interface DiffFile {
  path: string;
  /** The path before, when git reports a rename. */
  from?: string;
  status: 'added' | 'deleted' | 'modified' | 'renamed' | 'binary';
  additions: number;
  deletions: number;
  /** One of the task's required_files (null when the viewer does not know them). */
  required: boolean | null;
  lines: DiffLine[];
}

/** The b/ path of a `diff --git a/X b/Y` header; quoted paths (git's C-style quoting) unquoted. */
function headerPaths(line: string): { a: string; b: string } {
  const rest = line.slice('diff --git '.length);
  const quoted = rest.match(/^"a\/((?:[^"\\]|\\.)*)" "b\/((?:[^"\\]|\\.)*)"$/);
  if (quoted) return { a: unquote(quoted[1]), b: unquote(quoted[2]) };
  // Unquoted: "a/X b/X" with X the same on both sides unless renamed (then the ---/+++ lines
  // and rename headers correct it).
  const half = (rest.length - 1) / 2;
  if (Number.isInteger(half) && rest.slice(2, half) === rest.slice(half + 3))
    return { a: rest.slice(2, half), b: rest.slice(half + 3) };
  const i = rest.indexOf(' b/');
  return { a: rest.slice(2, i), b: rest.slice(i + 3) };
}

function unquote(s: string): string {
  // Octal escapes are UTF-8 bytes; collect them as bytes, then decode once.
  const bytes: number[] = [];
  const simple: Record<string, string> = { n: '\n', t: '\t', '"': '"', '\\': '\\' };
  for (let i = 0; i < s.length; i++) {
    if (s[i] === '\\' && /[0-7]{3}/.test(s.slice(i + 1, i + 4))) {
      bytes.push(Number.parseInt(s.slice(i + 1, i + 4), 8));
      i += 3;
    } else if (s[i] === '\\' && simple[s[i + 1]]) {
      bytes.push(...Buffer.from(simple[s[i + 1]]));
      i += 1;
    } else bytes.push(...Buffer.from(s[i]));
  }
  return Buffer.from(bytes).toString('utf8');
}

export function parseDiff(patch: string, requiredFiles: string[] | null): DiffFile[] {
  const files: DiffFile[] = [];
  const required = requiredFiles ? new Set(requiredFiles) : null;
  let cur: DiffFile | undefined;
  let inHunk = false;
  for (const line of patch.split('\n')) {
    if (line.startsWith('diff --git ')) {
      const { a, b } = headerPaths(line);
      cur = {
        path: b,
        ...(a !== b && { from: a }),
        status: 'modified',
        additions: 0,
        deletions: 0,
        required: required ? required.has(b) : null,
        lines: [],
      };
      files.push(cur);
      inHunk = false;
      continue;
    }
    if (!cur) continue;
    if (line.startsWith('@@')) {
      inHunk = true;
      cur.lines.push({ kind: 'hunk', text: line });
    } else if (inHunk && line.startsWith('+')) {
      cur.additions++;
      cur.lines.push({ kind: 'add', text: line });
    } else if (inHunk && line.startsWith('-')) {
      cur.deletions++;
      cur.lines.push({ kind: 'del', text: line });
    } else if (inHunk && (line.startsWith(' ') || line === '')) {
      if (line !== '') cur.lines.push({ kind: 'ctx', text: line });
    } else if (inHunk && line.startsWith('\\')) {
      cur.lines.push({ kind: 'meta', text: line });
    } else {
      // File header lines: mode changes, index, ---/+++, rename and binary notes.
      if (line.startsWith('new file mode')) cur.status = 'added';
      else if (line.startsWith('deleted file mode')) cur.status = 'deleted';
      else if (line.startsWith('rename to ')) {
        cur.status = 'renamed';
        cur.path = line.slice('rename to '.length);
        if (required) cur.required = required.has(cur.path);
      } else if (line.startsWith('Binary files') || line === 'GIT binary patch')
        cur.status = 'binary';
      const noise =
        line.startsWith('index ') ||
        line.startsWith('---') ||
        line.startsWith('+++') ||
        !line.trim();
      // A --binary patch's payload (base85 lines) says nothing to a reader.
      const payload =
        cur.status === 'binary' && cur.lines.some((l) => l.text === 'GIT binary patch');
      if (!noise && !payload) cur.lines.push({ kind: 'meta', text: line });
    }
  }
  return files;
}
