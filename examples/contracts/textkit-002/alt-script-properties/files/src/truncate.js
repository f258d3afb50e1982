import { assertString, assertWidth } from './assert.js';
import { displayWidth, fitWidth } from './width.js';

// Shortens text to at most `maxLength` terminal columns, ellipsis included, and marks the cut
// with the ellipsis. With `wordBoundary`, the cut moves back to the last space so no word is split.
export function truncate(text, maxLength, { ellipsis = '…', wordBoundary = false } = {}) {
  assertString('truncate', text);
  assertWidth('truncate', 'maxLength', maxLength);
  if (displayWidth(text) <= maxLength) return text;
  // Not even the ellipsis fits: return as much of it as the limit allows.
  const ellipsisWidth = displayWidth(ellipsis);
  if (ellipsisWidth >= maxLength) return fitWidth(ellipsis, maxLength);

  let cut = fitWidth(text, maxLength - ellipsisWidth);
  if (wordBoundary) {
    const lastSpace = cut.lastIndexOf(' ');
    if (lastSpace > 0) cut = cut.slice(0, lastSpace);
  }
  return cut.trimEnd() + ellipsis;
}
