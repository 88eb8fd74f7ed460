/**
 * Each folder of pipeline/ is a stage whose one public entry is its index.ts (docs/architecture.md,
 * "Stage boundaries"): a module outside a stage folder (another stage, pipeline/cli.ts, the portal
 * in site/) imports nothing of the stage but that file. Tests under test/ may import a stage's
 * internals, so they are not scanned.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { test } from 'node:test';

const repo = new URL('../../', import.meta.url).pathname;
const pipeline = join(repo, 'pipeline');

/**
 * The only imports of a stage's insides from outside it, each with the reason it cannot go through
 * the stage's index.ts. Every entry must still be in use.
 */
const EXCEPTIONS: ReadonlyArray<{ from: string; to: string; why: string }> = [
  {
    from: 'site/',
    to: 'pipeline/stats/portal-data.ts',
    why: "the portal's data types and file names; stats/index.ts would put DuckDB's native binding into the site's Vite build, portal/index.ts the builder that runs this build",
  },
  {
    from: 'site/',
    to: 'pipeline/stats/console-examples.ts',
    why: "the SQL console's tables, bundled into the page's browser script, where stats/index.ts's node: imports cannot run",
  },
  {
    from: 'site/',
    to: 'pipeline/portal/duckdb-wasm-bundle.ts',
    why: "the console's DuckDB-WASM files; as for portal-data.ts",
  },
  {
    from: 'site/',
    to: 'pipeline/stats/source-repository.ts',
    why: 'the source repository the About page and the links into docs/ name; as for portal-data.ts',
  },
  {
    from: 'site/',
    to: 'pipeline/portal/replay-bundle.ts',
    why: "the Replay page's ReplayWeb.page files and the WACZ it opens; as for portal-data.ts",
  },
];

/** Every import specifier of a module: static, dynamic, type-only and re-exports. */
function specifiers(text: string): string[] {
  const found: string[] = [];
  for (const pattern of [
    /\bfrom\s*['"]([^'"]+)['"]/g,
    /\bimport\s*['"]([^'"]+)['"]/g,
    /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g,
  ]) {
    for (const match of text.matchAll(pattern)) found.push(match[1]);
  }
  return found;
}

function sources(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.(ts|mts|mjs|js|astro)$/.test(entry.name))
    .filter(
      (entry) => !entry.parentPath.split(sep).some((part) => part === 'node_modules' || part === 'dist'),
    )
    .map((entry) => join(entry.parentPath, entry.name));
}

/** The stage folder a file of pipeline/ belongs to, if any. */
function stageOf(file: string): string | undefined {
  const parts = relative(pipeline, file).split(sep);
  return parts.length > 1 && parts[0] !== '..' ? parts[0] : undefined;
}

/** Every import, by a module outside a stage, of a file of that stage. */
function crossStageImports(): Array<{ from: string; to: string }> {
  const imports: Array<{ from: string; to: string }> = [];
  for (const file of [...sources(pipeline), ...sources(join(repo, 'site'))]) {
    for (const specifier of specifiers(readFileSync(file, 'utf8'))) {
      if (!specifier.startsWith('.')) continue;
      const target = resolve(dirname(file), specifier);
      const stage = stageOf(target);
      if (stage === undefined || stage === stageOf(file)) continue;
      imports.push({ from: relative(repo, file), to: relative(repo, target) });
    }
  }
  return imports;
}

test('a stage is imported from outside only through its index.ts', () => {
  const imports = crossStageImports();
  // the scan must see the imports the stages are built from, or it proves nothing
  assert.ok(imports.some((i) => i.from === 'pipeline/cli.ts' && i.to === 'pipeline/commands/index.ts'));
  const allowed = (i: { from: string; to: string }) =>
    i.to.endsWith('/index.ts') || EXCEPTIONS.some((e) => i.from.startsWith(e.from) && i.to === e.to);
  assert.deepEqual(
    imports.filter((i) => !allowed(i)).map((i) => `${i.from} imports ${i.to}`),
    [],
  );
  for (const e of EXCEPTIONS) {
    assert.ok(
      imports.some((i) => i.from.startsWith(e.from) && i.to === e.to),
      `stale exception: nothing in ${e.from} imports ${e.to}`,
    );
  }
});

test('the scan finds an import of a stage file in every form a module can write it', () => {
  const text = [
    "import { a } from '../crawl/journal.ts';",
    "import type { B } from '../crawl/journal.ts';",
    "export { c } from '../crawl/journal.ts';",
    'import "../crawl/journal.ts";',
    "const d = await import('../crawl/journal.ts');",
  ].join('\n');
  assert.deepEqual(specifiers(text), Array(5).fill('../crawl/journal.ts'));
});
