// JUnit XML (pytest --junitxml, vitest/jest-junit, xmlrunner, Surefire). Ids are
// "classname::name", or the name alone when classname is empty. A <failure> or <error> child
// fails the test, <skipped> skips it. The XML reader below is deliberately small: elements,
// attributes, text, CDATA, the five named entities and numeric references; comments,
// processing instructions and DOCTYPE are skipped. No DTD or namespaces are interpreted.
// Files that failed to load: pytest's collection errors (classname "", name = the module, its
// tests are "module::test" or "module.Class::test") and vitest's file-level failures
// (classname = name = the file, its tests are "file::...").
import type { FileError, Parser, TestOutcome, TestResult } from '../types.js';
import { finish, trimBlankLines } from './common.js';

export interface XmlElement {
  name: string;
  attrs: Record<string, string>;
  children: XmlElement[];
  /** Text and CDATA directly inside this element, decoded. */
  text: string;
}

const NAMED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

export function decodeEntities(s: string): string {
  return s.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|lt|gt|amp|quot|apos);/g, (m, e: string) => {
    if (e[0] !== '#') return NAMED[e];
    const cp = e[1] === 'x' ? Number.parseInt(e.slice(2), 16) : Number.parseInt(e.slice(1), 10);
    return cp <= 0x10ffff ? String.fromCodePoint(cp) : m;
  });
}

const START_TAG = /<([^\s/>!?]+)((?:\s+[^\s=/>]+\s*=\s*(?:"[^"]*"|'[^']*'))*)\s*(\/?)>/y;
const ATTR = /([^\s=/>]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g;

/** Parses XML into a tree under a synthetic "#root"; tolerant of truncated input. */
export function parseXml(xml: string): XmlElement {
  const root: XmlElement = { name: '#root', attrs: {}, children: [], text: '' };
  const stack = [root];
  let i = 0;
  // Skips a construct that ends with `close`; returns the index after it (or the end).
  const skip = (from: number, close: string): number => {
    const end = xml.indexOf(close, from);
    return end < 0 ? xml.length : end + close.length;
  };
  while (i < xml.length) {
    const top = stack[stack.length - 1];
    const lt = xml.indexOf('<', i);
    if (lt < 0) {
      top.text += decodeEntities(xml.slice(i));
      break;
    }
    top.text += decodeEntities(xml.slice(i, lt));
    if (xml.startsWith('<![CDATA[', lt)) {
      const end = xml.indexOf(']]>', lt);
      top.text += xml.slice(lt + 9, end < 0 ? xml.length : end);
      i = end < 0 ? xml.length : end + 3;
    } else if (xml.startsWith('<!--', lt)) i = skip(lt + 4, '-->');
    else if (xml.startsWith('<?', lt)) i = skip(lt + 2, '?>');
    else if (xml.startsWith('<!', lt)) i = skip(lt + 2, '>');
    else if (xml.startsWith('</', lt)) {
      i = skip(lt + 2, '>');
      const name = xml.slice(lt + 2, i - 1).trim();
      const at = stack.map((e) => e.name).lastIndexOf(name);
      if (at > 0) stack.length = at; // close it (and anything left open inside it)
    } else {
      START_TAG.lastIndex = lt;
      const m = START_TAG.exec(xml);
      if (!m) {
        top.text += '<'; // not a tag: keep the character as text
        i = lt + 1;
        continue;
      }
      const attrs: Record<string, string> = {};
      for (const a of m[2].matchAll(ATTR)) attrs[a[1]] = decodeEntities(a[2] ?? a[3]);
      const el: XmlElement = { name: m[1], attrs, children: [], text: '' };
      top.children.push(el);
      if (m[3] !== '/') stack.push(el);
      i = START_TAG.lastIndex;
    }
  }
  return root;
}

function collect(el: XmlElement, name: string, out: XmlElement[] = []): XmlElement[] {
  for (const c of el.children) {
    if (c.name === name) out.push(c);
    else collect(c, name, out);
  }
  return out;
}

function toResult(tc: XmlElement): TestResult {
  const classname = tc.attrs.classname ?? '';
  const name = tc.attrs.name ?? '';
  const id = classname !== '' ? `${classname}::${name}` : name;
  const failures = tc.children.filter((c) => c.name === 'failure' || c.name === 'error');
  let outcome: TestOutcome = 'passed';
  if (failures.length > 0) outcome = 'failed';
  else if (tc.children.some((c) => c.name === 'skipped')) outcome = 'skipped';
  const result: TestResult = { id, outcome };
  if (outcome === 'failed') {
    const parts = failures.map((f) => {
      const body = trimBlankLines(f.text);
      const msg = f.attrs.message ?? '';
      // pytest repeats the message in the body; keep both only when they differ.
      return body.includes(msg) ? body : trimBlankLines(`${msg}\n${body}`);
    });
    const message = parts.filter((p) => p !== '').join('\n\n');
    result.message = message !== '' ? message : failures[0].name;
  }
  return result;
}

function loadError(tc: XmlElement, result: TestResult): FileError | undefined {
  if (result.outcome !== 'failed') return undefined;
  const { classname = '', name = '' } = tc.attrs;
  const collection = tc.children.some(
    (c) => c.name === 'error' && c.attrs.message === 'collection failure',
  );
  const message = result.message ?? '';
  if (classname === '' && collection)
    return { file: name, message, idPrefixes: [`${name}::`, `${name}.`] };
  if (classname === name && /\.[cm]?[jt]sx?$/.test(name))
    return { file: name, message, idPrefixes: [`${name}::`] };
  return undefined;
}

export const parse: Parser = (raw) => {
  const xml = raw.resultFile ?? raw.stdout;
  const cases = collect(parseXml(xml), 'testcase');
  const tests = cases.map(toResult);
  const fileErrors = cases.flatMap((tc, i) => loadError(tc, tests[i]) ?? []);
  return finish(raw, tests, {
    fileErrors,
    looksLike: /<(testsuites?|testcase)[\s>/]/.test(xml),
    expected:
      raw.resultFile === undefined
        ? 'a JUnit XML result file (none was found)'
        : 'JUnit XML (<testsuite>/<testcase> elements)',
  });
};
