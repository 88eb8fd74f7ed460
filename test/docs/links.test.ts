/**
 * Every relative link in README.md and docs/ points at a file that exists and, with a #fragment,
 * at a heading (or an `id`) of that file, as GitHub renders it: the README is a landing page that
 * sends readers into docs/, so a moved section must not leave a dead link behind.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { test } from 'node:test';

const repo = new URL('../../', import.meta.url).pathname;

function markdownFiles(): string[] {
  const docs = readdirSync(join(repo, 'docs'), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.md'))
    .map((entry) => join(entry.parentPath, entry.name));
  return [join(repo, 'README.md'), ...docs];
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
function slug(heading: string): string {
  const text = heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .replace(/[`*]/g, '');
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** Every anchor a Markdown file offers: its headings (repeats numbered as GitHub does) and ids. */
function anchors(text: string): Set<string> {
  const found = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of text.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const heading = !fenced && /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading) {
      const base = slug(heading[1]);
      const count = seen.get(base) ?? 0;
      seen.set(base, count + 1);
      found.add(count === 0 ? base : `${base}-${count}`);
    }
    for (const id of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) found.add(id[1]);
  }
  return found;
}

/** The relative link targets of a Markdown file, outside code. */
function links(text: string): string[] {
  const prose = text.replace(/^\s*(```|~~~)[\s\S]*?^\s*\1/gm, '').replace(/`[^`\n]*`/g, '');
  const targets = [...prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]);
  const sources = [...prose.matchAll(/<img\s[^>]*src="([^"]+)"/g)].map((m) => m[1]);
  return [...targets, ...sources].filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

test('every relative link in README.md and docs/ resolves, fragment included', () => {
  const broken: string[] = [];
  let checked = 0;
  for (const file of markdownFiles()) {
    const text = readFileSync(file, 'utf8');
    for (const link of links(text)) {
      checked++;
      const [path, fragment] = link.split('#', 2);
      const target = path === '' ? file : join(dirname(file), decodeURIComponent(path));
      const where = `${relative(repo, file)}: ${link}`;
      if (!existsSync(target)) {
        broken.push(`${where} (no such file)`);
      } else if (fragment && target.endsWith('.md') && statSync(target).isFile()) {
        if (!anchors(readFileSync(target, 'utf8')).has(fragment)) broken.push(`${where} (no such heading)`);
      }
    }
  }
  assert.ok(checked > 100, `only ${checked} links found: the scan is broken`);
  assert.deepEqual(broken, []);
});

test('anchors are made as GitHub makes them', () => {
  assert.equal(slug('The `latest` alias'), 'the-latest-alias');
  assert.equal(slug('Health: observatory status'), 'health-observatory-status');
  assert.equal(
    slug('Issue 17: a strategy that wins everywhere? (`burst`; the goal is not met)'),
    'issue-17-a-strategy-that-wins-everywhere-burst-the-goal-is-not-met',
  );
  assert.deepEqual([...anchors('# A\n## A\n```\n# not a heading\n```\n<a id="x"></a>')], ['a', 'a-1', 'x']);
});
