import { assertString } from './assert.js';

// Columns a string takes in a monospace terminal, read from Unicode properties: marks take none,
// the scripts and forms terminals draw double-width take two, everything else one.
const NONE = /\p{M}|[\u200b-\u200f\u2060\ufeff]/u;
const DOUBLE =
  /[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}\p{sc=Hangul}\u3000-\u303f\u30fc\uff01-\uff60\uffe0-\uffe6]/u;

function columns(char) {
  if (NONE.test(char)) return 0;
  return DOUBLE.test(char) ? 2 : 1;
}

export function displayWidth(text) {
  assertString('displayWidth', text);
  return [...text].reduce((sum, char) => sum + columns(char), 0);
}

/** The characters of `text` that fit in `width` columns, from the start. */
export function fitWidth(text, width) {
  const kept = [];
  let used = 0;
  for (const char of text) {
    used += columns(char);
    if (used > width) break;
    kept.push(char);
  }
  return kept.join('');
}
