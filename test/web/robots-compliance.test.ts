/**
 * The compliance cases of the robots.txt authors (google/robotstxt-spec-test, Apache-2.0,
 * Copyright 2020 Google LLC; https://github.com/google/robotstxt-spec-test), kept as data in
 * fixtures/robots-compliance (converted by robots-compliance-convert.ts), run through our own
 * robots.txt code: the body's bytes as robots-cache.ts reads them (robotsText), the policy for the
 * expectation's user agent as our product token (parseRobots), asked about the URL.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parseRobots, robotsText } from '../../pipeline/web/robots-rules.ts';

type Outcome = 'allowed' | 'disallowed';

interface Expectation {
  readonly url: string;
  readonly userAgent: string;
  readonly outcome: Outcome;
  readonly googleSpecific?: true;
  readonly why?: string;
}

interface ComplianceCase {
  /** Bytes (hex) before `robotstxt` that are not UTF-8 text. */
  readonly leadingBytes?: string;
  readonly robotstxt: string;
  readonly expectations: readonly Expectation[];
}

const NO_URL = 'an empty URL: a crawler asks only about absolute URLs';
const NO_TOKEN =
  'no product token (RFC 9309 2.2.1: a-z, A-Z, _ and - only), so never ours: --product-token refuses it';
const RAW_URL = "the URL as raw UTF-8: a crawler's URLs are parsed (WHATWG URL), so percent-encoded";
const ROBOTS_TXT = 'older than RFC 9309, whose 2.2.2 makes /robots.txt implicitly allowed';

/**
 * Expectations that do not hold for this crawler, by id (`suite/file#case.expectation`, counted
 * from 1): `ours` is what we answer instead, asserted like an expectation; null when the URL or the
 * user agent is none a crawler can have, and the expectation is skipped.
 */
const NOT_APPLICABLE: readonly [id: string, ours: Outcome | null, reason: string][] = [
  ['correctness/empty-string#1.1', null, NO_URL],
  ['correctness/empty-string#1.2', null, `${NO_URL}; an empty user agent is ${NO_TOKEN}`],
  ['correctness/empty-string#2.1', null, `${NO_URL}; an empty user agent is ${NO_TOKEN}`],
  ['correctness/empty-string#2.2', null, NO_URL],
  ['correctness/user-agent-name#1.2', null, `"Foo Bar" is ${NO_TOKEN}`],
  ['stress/369883#1.7', null, `"AB42bot" is ${NO_TOKEN}`],
  ['stress/369883#1.8', null, `"AB42bot" is ${NO_TOKEN}`],
  ['stress/860237#1.9', null, `"XYZ123bot" is ${NO_TOKEN}`],
  ['correctness/non-ascii-paths#2.2', 'allowed', RAW_URL],
  ['correctness/non-ascii-paths#3.2', 'allowed', RAW_URL],
  [
    'correctness/non-ascii-paths#4.1',
    'allowed',
    'older than RFC 9309, whose 2.2.2 decodes encoded unreserved octets: /foo/bar/%62%61%7A is /foo/bar/baz',
  ],
  ['stress/327748#1.6', 'allowed', ROBOTS_TXT],
  ['stress/369883#1.6', 'allowed', ROBOTS_TXT],
  ['stress/369883#1.10', 'allowed', ROBOTS_TXT],
  ['stress/860237#1.10', 'allowed', ROBOTS_TXT],
  [
    'correctness/accepted-mistakes#3.1',
    'allowed',
    'Google-specific: "disallow /" read as a rule; RFC 9309 2.2 needs the colon, so it is no record',
  ],
  [
    'correctness/index-page#1.1',
    'disallowed',
    'Google-specific: allowing .../index.html allows .../ too; RFC 9309 has no such rule',
  ],
];

const FIXTURES = join(import.meta.dirname, 'fixtures', 'robots-compliance');

/** Every expectation of the fixtures, with its id and its case's body as bytes. */
function expectations(): { id: string; body: Buffer; e: Expectation }[] {
  const all: { id: string; body: Buffer; e: Expectation }[] = [];
  for (const suite of ['correctness', 'stress']) {
    for (const file of readdirSync(join(FIXTURES, suite)).sort()) {
      const { cases } = JSON.parse(readFileSync(join(FIXTURES, suite, file), 'utf8')) as {
        cases: ComplianceCase[];
      };
      cases.forEach((c, i) => {
        const body = Buffer.concat([Buffer.from(c.leadingBytes ?? '', 'hex'), Buffer.from(c.robotstxt)]);
        c.expectations.forEach((e, j) => {
          all.push({ id: `${suite}/${file.replace(/\.json$/, '')}#${i + 1}.${j + 1}`, body, e });
        });
      });
    }
  }
  return all;
}

/** Our answer: the body read as the robots.txt cache reads it, the user agent as our product token. */
function answer(body: Buffer, e: Expectation): Outcome {
  const url = new URL(e.url);
  return parseRobots(robotsText(body, false), url.origin, e.userAgent).isAllowed(url)
    ? 'allowed'
    : 'disallowed';
}

const ALL = expectations();

describe('robots.txt compliance cases (google/robotstxt-spec-test)', () => {
  const exceptions = new Map(NOT_APPLICABLE.map(([id, ours, reason]) => [id, { ours, reason }]));
  for (const { id, body, e } of ALL) {
    const exception = exceptions.get(id);
    const title = `${id} ${e.userAgent} ${e.url}`;
    if (exception?.ours === null) {
      it(title, { skip: exception.reason }, () => {});
      continue;
    }
    it(exception ? `${title} (ours: ${exception.reason})` : title, () =>
      assert.equal(
        answer(body, e),
        exception?.ours ?? e.outcome,
        `${JSON.stringify(body.toString('latin1'))}\n${e.why ?? ''}`,
      ),
    );
  }

  it('holds every expectation of the upstream commit, and lists as not applicable only ones that exist', () => {
    assert.equal(ALL.length, 400);
    const ids = new Set(ALL.map((x) => x.id));
    assert.deepEqual(
      NOT_APPLICABLE.map(([id]) => id).filter((id) => !ids.has(id)),
      [],
    );
  });
});
