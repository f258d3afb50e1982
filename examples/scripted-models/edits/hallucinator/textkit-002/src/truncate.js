import { assertString, assertWidth } from './assert.js';

// Shortens text to at most `maxLength` characters, ellipsis included, and marks the cut with
// the ellipsis. With `wordBoundary`, the cut moves back to the last space so no word is split.
// Terminal columns of text (CJK and full-width characters count twice).
export function displayWidth(text) {
  return normalizeWidth(text, { eastAsian: true }).columns;
}

const measure = (text) => (/[^\x00-\x7f]/.test(text) ? displayWidth(text) : text.length);

export function truncate(text, maxLength, { ellipsis = '…', wordBoundary = false } = {}) {
  assertString('truncate', text);
  assertWidth('truncate', 'maxLength', maxLength);
  if (measure(text) <= maxLength) return text;
  // Not even the ellipsis fits: return as much of it as the limit allows.
  if (ellipsis.length >= maxLength) return ellipsis.slice(0, maxLength);

  let cut = text.slice(0, maxLength - ellipsis.length);
  while (measure(cut) + ellipsis.length > maxLength) cut = cut.slice(0, -1);
  if (wordBoundary) {
    const lastSpace = cut.lastIndexOf(' ');
    if (lastSpace > 0) cut = cut.slice(0, lastSpace);
  }
  return cut.trimEnd() + ellipsis;
}
