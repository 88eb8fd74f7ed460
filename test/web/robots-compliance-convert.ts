/**
 * Turns the compliance cases of google/robotstxt-spec-test (Apache-2.0, Copyright 2020 Google LLC;
 * https://github.com/google/robotstxt-spec-test) into the JSON fixtures of
 * test/web/fixtures/robots-compliance, which robots-compliance.test.ts walks. Run it again only to
 * follow a new upstream commit:
 *
 *   node test/web/robots-compliance-convert.ts <checkout of robotstxt-spec-test> <its commit>
 *
 * The cases are kept as data, one JSON file per .textproto file, in their order: a case is a
 * robots.txt body and its expectations (URL, user agent, outcome, the authors' explanation, and
 * whether they marked it Google-specific). A body that is not valid UTF-8 (only the cut-short byte
 * order marks) keeps its leading bytes apart, as hex, since JSON strings hold text.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';

/** A value of the protobuf text format, as far as the case files use it. */
type Value = Buffer | string | Value[] | { [key: string]: Value };

/** Parses the subset of the protobuf text format the case files use (messages, lists, C-escaped strings, enums). */
function parseTextproto(src: string): { [key: string]: Value } {
  let i = 0;
  const skip = () => {
    for (;;) {
      while (i < src.length && /[\s,]/.test(src[i])) i++;
      if (src[i] !== '#') return;
      while (i < src.length && src[i] !== '\n') i++;
    }
  };
  const name = () => {
    const m = /^[A-Za-z_]\w*/.exec(src.slice(i));
    if (!m) throw new Error(`a field name or enum at offset ${i}`);
    i += m[0].length;
    return m[0];
  };
  const ESCAPES: Record<string, number> = { n: 10, r: 13, t: 9, '"': 34, "'": 39, '\\': 92 };
  // adjacent string literals are one value, as in C; the result is bytes (`\xNN` need not be UTF-8)
  const bytes = () => {
    const out: number[] = [];
    for (skip(); src[i] === '"'; skip()) {
      for (i++; src[i] !== '"'; ) {
        if (src[i] !== '\\') {
          const c = String.fromCodePoint(src.codePointAt(i)!);
          out.push(...Buffer.from(c));
          i += c.length;
        } else if (src[i + 1] === 'x') {
          out.push(Number.parseInt(src.slice(i + 2, i + 4), 16));
          i += 4;
        } else {
          const code = ESCAPES[src[i + 1]];
          if (code === undefined) throw new Error(`escape \\${src[i + 1]} at offset ${i}`);
          out.push(code);
          i += 2;
        }
      }
      i++;
    }
    return Buffer.from(out);
  };
  const fields = (end: string | undefined) => {
    const o: { [key: string]: Value } = {};
    for (skip(); i < src.length && src[i] !== end; skip()) {
      const key = name();
      skip();
      if (src[i] === ':') i++;
      o[key] = value();
    }
    i++;
    return o;
  };
  const value = (): Value => {
    skip();
    if (src[i] === '"') return bytes();
    if (src[i] === '{') {
      i++;
      return fields('}');
    }
    if (src[i] === '[') {
      const list: Value[] = [];
      for (i++, skip(); src[i] !== ']'; skip()) list.push(value());
      i++;
      return list;
    }
    return name();
  };
  return fields(undefined);
}

const text = (v: Value | undefined) => (v === undefined ? '' : (v as Buffer).toString('utf8'));

/** The body as text, and the bytes before the first point from which it is valid UTF-8 (hex). */
function splitBody(body: Buffer): { leadingBytes?: string; robotstxt: string } {
  for (let n = 0; n <= body.length; n++) {
    const rest = body.subarray(n);
    if (Buffer.from(rest.toString('utf8')).equals(rest)) {
      const robotstxt = rest.toString('utf8');
      return n === 0 ? { robotstxt } : { leadingBytes: body.subarray(0, n).toString('hex'), robotstxt };
    }
  }
  throw new Error('unreachable: an empty buffer is valid UTF-8');
}

function convert(file: string, source: string) {
  const spec = parseTextproto(readFileSync(file, 'utf8'));
  const cases = (spec.tests as { [key: string]: Value }[]).map((test) => ({
    ...splitBody(test.robotstxt as Buffer),
    expectations: (test.test_expectations as { [key: string]: Value }[]).map((e) => ({
      url: text(e.testurl),
      userAgent: text(e.useragent),
      outcome: (e.expected_outcome as string).toLowerCase(),
      ...(e.test_type === 'GOOGLE_SPECIFIC' ? { googleSpecific: true } : {}),
      ...(text(e.additional_explanation) ? { why: text(e.additional_explanation) } : {}),
    })),
  }));
  // U+FEFF escaped: an invisible character in a fixture would be easy to lose
  return `${JSON.stringify({ source, cases }, null, 2).replaceAll('\uFEFF', '\\ufeff')}\n`;
}

const [checkout, commit] = process.argv.slice(2);
if (!checkout || !/^[0-9a-f]{40}$/.test(commit ?? '')) {
  process.stderr.write('usage: node test/web/robots-compliance-convert.ts <checkout> <commit>\n');
  process.exit(2);
}
const out = join(import.meta.dirname, 'fixtures', 'robots-compliance');
for (const suite of ['correctness', 'stress']) {
  const folder = join('src', 'main', 'resources', 'CTC', suite);
  mkdirSync(join(out, suite), { recursive: true });
  for (const name of readdirSync(join(checkout, folder)).filter((f) => f.endsWith('.textproto'))) {
    const source = `https://github.com/google/robotstxt-spec-test/blob/${commit}/${folder}/${name}`;
    const target = join(out, suite, `${basename(name, '.textproto').toLowerCase()}.json`);
    writeFileSync(target, convert(join(checkout, folder, name), source));
  }
}
