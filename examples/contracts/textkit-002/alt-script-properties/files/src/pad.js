import { assertString, assertWidth } from './assert.js';
import { displayWidth } from './width.js';

// Widths are terminal columns (see width.js), so padded CJK text lines up with ASCII text.
function padding(fn, text, width, fill) {
  assertString(fn, text);
  assertWidth(fn, 'width', width);
  if (fill.length === 0) throw new RangeError(`${fn}: fill must not be empty`);
  const missing = width - displayWidth(text);
  if (missing <= 0) return '';
  return fill.repeat(Math.ceil(missing / fill.length)).slice(0, missing);
}

export function padStart(text, width, fill = ' ') {
  return padding('padStart', text, width, fill) + text;
}

export function padEnd(text, width, fill = ' ') {
  return text + padding('padEnd', text, width, fill);
}

// Centers text in `width` columns; an odd leftover goes to the right.
export function center(text, width, fill = ' ') {
  const total = padding('center', text, width, fill);
  const left = Math.floor(total.length / 2);
  return total.slice(0, left) + text + total.slice(left);
}
