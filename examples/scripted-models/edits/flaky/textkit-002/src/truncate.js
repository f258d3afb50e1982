import { assertString, assertWidth } from './assert.js';
import { charWidth, displayWidth } from './width.js';

// Shortens text to at most `maxLength` columns, ellipsis included.
export function truncate(text, maxLength, { ellipsis = '…', wordBoundary = false } = {}) {
  assertString('truncate', text);
  assertWidth('truncate', 'maxLength', maxLength);
  if (displayWidth(text) <= maxLength) return text;
  const budget = maxLength - displayWidth(ellipsis);
  if (budget <= 0) return ellipsis.slice(0, maxLength);

  let cut = '';
  let used = 0;
  for (const ch of text) {
    if (used + charWidth(ch) > budget) break;
    cut += ch;
    used += charWidth(ch);
  }
  if (wordBoundary) {
    const lastSpace = cut.lastIndexOf(' ');
    if (lastSpace > 0) cut = cut.slice(0, lastSpace);
  }
  return cut.trimEnd() + ellipsis;
}
