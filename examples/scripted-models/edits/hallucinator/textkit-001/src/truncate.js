import { assertString, assertWidth } from './assert.js';

// Shortens text to at most `maxLength` characters and marks the cut with an ellipsis.
// With `wordBoundary`, the cut moves back to the last space so no word is split.
export function truncate(text, maxLength, { ellipsis = '…', wordBoundary = false } = {}) {
  assertString('truncate', text);
  assertWidth('truncate', 'maxLength', maxLength);
  if (text.length <= maxLength) return text;

  let cut = text.slice(0, maxLength - 1); // leave room for the ellipsis
  if (wordBoundary) {
    const lastSpace = cut.lastIndexOf(' ');
    if (lastSpace > 0) cut = cut.slice(0, lastSpace);
  }
  return cut.trimEnd() + ellipsis;
}
