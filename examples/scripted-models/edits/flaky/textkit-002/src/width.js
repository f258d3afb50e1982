// Column width of text in a terminal.
const isWide = (cp) =>
  (cp >= 0x1100 && cp <= 0x115f) ||
  (cp >= 0x2e80 && cp <= 0xa4cf) ||
  (cp >= 0xac00 && cp <= 0xd7a3) ||
  (cp >= 0xf900 && cp <= 0xfaff) ||
  (cp >= 0xff00 && cp <= 0xff60) ||
  (cp >= 0xffe0 && cp <= 0xffe6) ||
  (cp >= 0x1f300 && cp <= 0x1f64f) ||
  (cp >= 0x20000 && cp <= 0x3fffd);

export function charWidth(ch) {
  if (/\p{Mn}/u.test(ch)) return 0;
  return isWide(ch.codePointAt(0)) ? 2 : 1;
}

export function displayWidth(text) {
  let n = 0;
  for (const ch of text) n += charWidth(ch);
  return n;
}
