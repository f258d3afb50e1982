// The bare agent's protocol with its model (src/agent/bare.ts): the prompt text, the "READ:"
// lines a model asks for files with in navigation mode, and the whole-file replacements it
// answers with. Pure text in, text out: no I/O, no NanoBench imports (this module runs inside the
// agent's sandbox, where only it and bare-main.js are visible).

/** Bumped whenever a word of the prompt or the format changes; stored with every trial. */
export const BARE_PROMPT_VERSION = 'bare-1';

/** Files a navigation-mode model may read before it must answer with the change. */
export const MAX_BARE_READS = 8;

/** Repository files listed to the model in navigation mode, at most. */
export const MAX_LISTED_FILES = 2000;

export const BARE_SYSTEM_PROMPT = `You are a programmer fixing an issue in a repository. You cannot run commands or tests.

Answer with the complete new content of every file you change or create, each in this format:

=== FILE: relative/path/to/file
\`\`\`
the whole file, every line, as it must be after your change
\`\`\`

The header line starts with "=== FILE: " followed by the path relative to the repository root.
The next line opens a fence of three or more backticks; the file ends at the next line that is
exactly the same fence. If the file itself contains a line of three backticks, use a longer fence
(four or more). Every file you name is replaced entirely by the block: never abbreviate, never
write "..." for unchanged parts. Files you do not name stay as they are. Text outside the blocks
is ignored.`;

export const READ_RULES = (left: number) =>
  `Before answering you may read up to ${left} more file${left === 1 ? '' : 's'}: reply with lines of the form
READ: relative/path/to/file
one per file, and nothing else. You will get their contents. When you know enough, answer with the change instead.`;

export interface FileText {
  path: string;
  /** null: the file does not exist in the repository. */
  content: string | null;
}

const fenceFor = (content: string) => {
  let n = 3;
  for (const m of content.matchAll(/^(`{3,})/gm)) n = Math.max(n, m[1].length + 1);
  return '`'.repeat(n);
};

/** Files shown to the model, each in the same fenced form it answers in. */
export function showFiles(files: FileText[]): string {
  return files
    .map((f) => {
      if (f.content === null) return `=== FILE: ${f.path}\n(this file does not exist)`;
      const fence = fenceFor(f.content);
      const body = f.content.endsWith('\n') ? f.content : `${f.content}\n`;
      return `=== FILE: ${f.path}\n${fence}\n${body}${fence}`;
    })
    .join('\n\n');
}

/** Hinted mode: the single request, with the statement and the required files. */
export function hintedPrompt(statement: string, files: FileText[]): string {
  return `# Issue\n\n${statement}\n\n# Files to change\n\nThe fix belongs in these files (current content below):\n\n${showFiles(files)}\n\nAnswer with the change now, in the format described.`;
}

/** Navigation mode: the first request, with the statement and the repository's file list. */
export function navigationPrompt(statement: string, paths: string[], maxReads: number): string {
  const shown = paths.slice(0, MAX_LISTED_FILES);
  const more =
    paths.length > shown.length ? `\n(${paths.length - shown.length} more files not listed)` : '';
  return `# Issue\n\n${statement}\n\n# Repository files\n\n${shown.join('\n')}${more}\n\n${READ_RULES(maxReads)}`;
}

/** Navigation mode: the answer to READ lines. */
export function readReply(files: FileText[], refused: string[], left: number): string {
  const parts = [showFiles(files)];
  if (refused.length) parts.push(`Not read:\n${refused.map((r) => `- ${r}`).join('\n')}`);
  parts.push(
    left > 0
      ? READ_RULES(left)
      : 'You cannot read more files. Answer with the change now, in the format described.',
  );
  return parts.join('\n\n');
}

/** The paths of a reply's READ lines, in order, each once. */
export function parseReads(reply: string): string[] {
  const out: string[] = [];
  for (const m of reply.matchAll(/^[ \t]*READ:[ \t]*(\S.*?)[ \t]*$/gm)) {
    const p = m[1].replace(/^`(.*)`$/, '$1');
    if (!out.includes(p)) out.push(p);
  }
  return out;
}

export interface FileEdit {
  path: string;
  content: string;
}

export type ParsedEdits = { ok: true; edits: FileEdit[] } | { ok: false; reason: string };

const HEADER = /^=== FILE:[ \t]*(.*?)[ \t]*$/;
const OPEN = /^(`{3,})[^`]*$/;

/**
 * The whole-file replacements of a reply. Every header must be followed (blank lines aside) by a
 * fence and its closing line; a path named twice, an empty path or no block at all is refused.
 */
export function parseEdits(reply: string): ParsedEdits {
  const lines = reply.replace(/\r\n/g, '\n').split('\n');
  const edits: FileEdit[] = [];
  for (let i = 0; i < lines.length; i++) {
    const h = HEADER.exec(lines[i]);
    if (!h) continue;
    const path = h[1].replace(/^`(.*)`$/, '$1');
    if (!path) return { ok: false, reason: `line ${i + 1}: "=== FILE:" without a path` };
    let j = i + 1;
    while (j < lines.length && lines[j].trim() === '') j++;
    const open = OPEN.exec(lines[j] ?? '');
    if (!open)
      return { ok: false, reason: `${path}: the header is not followed by a fenced block` };
    const close = lines.indexOf(open[1], j + 1);
    if (close < 0) return { ok: false, reason: `${path}: the fenced block is never closed` };
    if (edits.some((e) => e.path === path))
      return { ok: false, reason: `${path}: named twice in one reply` };
    const body = lines.slice(j + 1, close);
    edits.push({ path, content: body.length ? `${body.join('\n')}\n` : '' });
    i = close;
  }
  if (!edits.length)
    return { ok: false, reason: 'the reply holds no "=== FILE: path" block (no change to apply)' };
  return { ok: true, edits };
}
