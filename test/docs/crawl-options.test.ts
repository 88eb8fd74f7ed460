/**
 * docs/crawling.md lists every crawl option: its table of options has one row per entry of the
 * options' table (core/crawl-options.ts), and the page names every flag, so an option added to
 * the code without its documentation fails here.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { CRAWL_OPTION_ENTRIES, flagName } from '../../pipeline/core/index.ts';

const page = readFileSync(new URL('../../docs/crawling.md', import.meta.url), 'utf8');

/** The option names of the rows of the table under the heading "Options and their defaults". */
function documentedOptions(): string[] {
  const section = page.split(/^## Options and their defaults.*$/m)[1]?.split(/^#{2,3} /m)[0] ?? '';
  return [...section.matchAll(/^\| `(\w+)` \|/gm)].map((m) => m[1]);
}

test('docs/crawling.md has a row for every crawl option, and no row for an option that is not one', () => {
  assert.deepEqual(documentedOptions().sort(), CRAWL_OPTION_ENTRIES.map(([key]) => key).sort());
});

test("docs/crawling.md names every crawl option's flag", () => {
  for (const [key, option] of CRAWL_OPTION_ENTRIES) {
    const flag = flagName(option);
    if (flag !== null) assert.ok(page.includes(`\`${flag}`), `${key}: ${flag}`);
  }
});
