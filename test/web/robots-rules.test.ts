import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseRobots } from '../../pipeline/web/index.ts';
import { robotsText } from '../../pipeline/web/robots-rules.ts';

const ORIGIN = 'http://example.org';
const TOKEN = 'LinkedDataObservatory';

const allowed = (robots: string, path: string) =>
  parseRobots(robots, ORIGIN, TOKEN).isAllowed(new URL(path, ORIGIN));

// [rule (RFC 9309 section), robots.txt, path, allowed?]
const CASES: [string, string, string, boolean][] = [
  ['no file content: everything allowed', '', '/a', true],
  ['no matching group: no rules apply (2.2.1)', 'User-agent: OtherBot\nDisallow: /', '/a', true],
  ['* group applies when ours is absent (2.2.1)', 'User-agent: *\nDisallow: /a', '/a/b', false],
  [
    'our group wins over * (2.2.1)',
    'User-agent: *\nDisallow: /\n\nUser-agent: LinkedDataObservatory\nAllow: /',
    '/a',
    true,
  ],
  [
    'our group alone is used, * rules ignored',
    'User-agent: *\nDisallow: /x\n\nUser-agent: LinkedDataObservatory\nDisallow: /y',
    '/x',
    true,
  ],
  [
    'product token matched case-insensitively (2.2.1)',
    'User-agent: linkeddataobservatory\nDisallow: /',
    '/a',
    false,
  ],
  [
    'agent line with version names the token',
    'User-agent: LinkedDataObservatory/2.0\nDisallow: /',
    '/a',
    false,
  ],
  [
    'agent line with comment-like suffix names the token',
    'User-agent: LinkedDataObservatory (+https://x)\nDisallow: /',
    '/a',
    false,
  ],
  [
    'another token that starts with ours is not ours',
    'User-agent: LinkedDataObservatoryX\nDisallow: /',
    '/a',
    true,
  ],
  [
    'groups for our token are merged (2.2.1)',
    'User-agent: LinkedDataObservatory\nDisallow: /a\n\nUser-agent: LinkedDataObservatory\nDisallow: /b',
    '/b',
    false,
  ],
  [
    'several agents share one group',
    'User-agent: a\nUser-agent: LinkedDataObservatory\nDisallow: /p',
    '/p',
    false,
  ],
  ['prefix match (2.2.2)', 'User-agent: *\nDisallow: /fish', '/fish.html', false],
  ['prefix match is case-sensitive', 'User-agent: *\nDisallow: /fish', '/Fish', true],
  ['longest match wins (2.2.2)', 'User-agent: *\nDisallow: /a\nAllow: /a/b', '/a/b/c', true],
  ['longest match wins, the other way', 'User-agent: *\nAllow: /a\nDisallow: /a/b', '/a/b/c', false],
  ['Allow wins an equal-length tie (2.2.2)', 'User-agent: *\nDisallow: /page\nAllow: /page', '/page', true],
  ['* matches any sequence (2.2.3)', 'User-agent: *\nDisallow: /*.php', '/x/index.php?a=1', false],
  ['$ anchors the end (2.2.3)', 'User-agent: *\nDisallow: /*.php$', '/index.php', false],
  ['$ anchors: longer path not matched', 'User-agent: *\nDisallow: /*.php$', '/index.php?x', true],
  ['query string is part of the path', 'User-agent: *\nDisallow: /search?q=', '/search?q=rdf', false],
  ['empty Disallow allows all', 'User-agent: *\nDisallow:', '/a', true],
  [
    'percent-encoded unreserved equals the character (2.2.2)',
    'User-agent: *\nDisallow: /%7Ejoe',
    '/~joe/x',
    false,
  ],
  ['character equals its encoding in the URL', 'User-agent: *\nDisallow: /~joe', '/%7ejoe/x', false],
  ['hex case does not matter', 'User-agent: *\nDisallow: /a%2fb', '/a%2Fb', false],
  ['non-ASCII pattern matches its UTF-8 encoding', 'User-agent: *\nDisallow: /café', '/caf%C3%A9', false],
  ['encoded reserved / is not a path separator', 'User-agent: *\nDisallow: /a/b', '/a%2Fb', true],
  ['comments are ignored (2.2.4)', 'User-agent: * # all\nDisallow: /a # no', '/a', false],
  ['keys are case-insensitive', 'USER-AGENT: *\nDISALLOW: /a', '/a', false],
  ['CR line endings', 'User-agent: *\rDisallow: /a\r', '/a', false],
  ['UTF-8 byte order mark does not hide the first line', '\uFEFFUser-agent: *\nDisallow: /a', '/a', false],
  ['/robots.txt is implicitly allowed (2.2.2)', 'User-agent: *\nDisallow: /', '/robots.txt', true],
  ['rules before any group are ignored', 'Disallow: /a\nUser-agent: *\nAllow: /', '/a', true],
];

describe('robots.txt rules (RFC 9309)', () => {
  for (const [name, robots, path, expected] of CASES) {
    it(name, () => assert.equal(allowed(robots, path), expected, `${JSON.stringify(robots)} ${path}`));
  }
});

describe('Crawl-delay', () => {
  const delay = (robots: string) => parseRobots(robots, ORIGIN, TOKEN).crawlDelayMs;
  it('is read from our group, in milliseconds', () =>
    assert.equal(delay('User-agent: LinkedDataObservatory\nCrawl-delay: 2.5'), 2500));
  it('falls back to the * group', () => assert.equal(delay('User-agent: *\nCrawl-delay: 3'), 3000));
  it('is absent when our group has none', () =>
    assert.equal(
      delay('User-agent: *\nCrawl-delay: 3\n\nUser-agent: LinkedDataObservatory\nDisallow: /x'),
      null,
    ));
  it('ignores garbage', () => assert.equal(delay('User-agent: *\nCrawl-delay: soon'), null));
});

describe('robots.txt cut at the size limit', () => {
  it('drops the line the cut left incomplete, so a cut rule cannot widen', () => {
    const full = Buffer.from('User-agent: *\nAllow: /\nDisallow: /private\n');
    const cut = full.subarray(0, full.indexOf('/private') + 1); // "...Disallow: /"
    const text = robotsText(cut, true);
    assert.equal(text, 'User-agent: *\nAllow: /\n');
    assert.equal(parseRobots(text, ORIGIN, TOKEN).isAllowed(new URL('/public', ORIGIN)), true);
  });
  it('has no text when cut inside its byte order mark', () =>
    assert.equal(robotsText(Buffer.from([0xef, 0xbb, 0xbf, 0x55]), true), ''));
  it('keeps a file that was not cut whole', () =>
    assert.equal(robotsText(Buffer.from('a\nb'), false), 'a\nb'));
});
