// The trial page's diff: files and hunks from agent.diff, with the task's required files marked.
import { describe, expect, it } from 'vitest';
import { parseDiff } from '../../src/view/diff.js';

const PATCH = `diff --git a/src/pad.js b/src/pad.js
index 1111111..2222222 100644
--- a/src/pad.js
+++ b/src/pad.js
@@ -4,3 +4,3 @@ function padding(fn, text, width, fill) {
   assertString(fn, text);
-  const missing = width - text.length;
+  const missing = width - columns(text);
   if (missing <= 0) return '';
diff --git a/src/width.js b/src/width.js
new file mode 100644
index 0000000..3333333
--- /dev/null
+++ b/src/width.js
@@ -0,0 +1,2 @@
+export const columns = (s) => s.length;
+// --- not a header: an added line that starts with dashes
diff --git "a/docs/caf\\303\\251 notes.md" "b/docs/caf\\303\\251 notes.md"
deleted file mode 100644
index 4444444..0000000
--- "a/docs/caf\\303\\251 notes.md"
+++ /dev/null
@@ -1 +0,0 @@
-old
\\ No newline at end of file
diff --git a/logo.png b/logo.png
new file mode 100644
index 0000000..5555555
GIT binary patch
literal 4
LcmZQzWMT#Y01f~L

literal 0
HcmV?d00001

`;

describe('parseDiff', () => {
  it('splits files and hunks, counts lines, marks required files', () => {
    const files = parseDiff(PATCH, ['src/pad.js', 'src/missing.js']);
    expect(files.map((f) => [f.path, f.status, f.additions, f.deletions, f.required])).toEqual([
      ['src/pad.js', 'modified', 1, 1, true],
      ['src/width.js', 'added', 2, 0, false],
      ['docs/café notes.md', 'deleted', 0, 1, false],
      ['logo.png', 'binary', 0, 0, false],
    ]);
    expect(files[0].lines.map((l) => l.kind)).toEqual(['hunk', 'ctx', 'del', 'add', 'ctx']);
    // a line added inside a hunk is an addition even when it looks like a header
    expect(files[1].lines.at(-1)).toEqual({
      kind: 'add',
      text: '+// --- not a header: an added line that starts with dashes',
    });
    expect(files[2].lines.at(-1)).toEqual({ kind: 'meta', text: '\\ No newline at end of file' });
    // the base85 payload of a binary patch is not shown
    expect(files[3].lines.map((l) => l.text)).toEqual(['new file mode 100644', 'GIT binary patch']);
  });

  it('without the required files, marks nothing either way', () => {
    expect(parseDiff(PATCH, null).map((f) => f.required)).toEqual([null, null, null, null]);
    expect(parseDiff('', null)).toEqual([]);
  });
});
