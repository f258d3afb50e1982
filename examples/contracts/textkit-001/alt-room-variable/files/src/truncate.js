import { assertString, assertWidth } from './assert.js';

// Shortens text to at most `maxLength` characters, ellipsis included. With `wordBoundary`, the
// cut moves back to the last space so no word is split.
export function truncate(text, maxLength, { ellipsis = '…', wordBoundary = false } = {}) {
  assertString('truncate', text);
  assertWidth('truncate', 'maxLength', maxLength);
  if (text.length <= maxLength) return text;

  const room = maxLength - ellipsis.length;
  if (room <= 0) return ellipsis.slice(0, maxLength);
  let cut = text.slice(0, room);
  if (wordBoundary) {
    const lastSpace = cut.lastIndexOf(' ');
    if (lastSpace > 0) cut = cut.slice(0, lastSpace);
  }
  return cut.trimEnd() + ellipsis;
}
