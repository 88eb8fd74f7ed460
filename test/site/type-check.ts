/**
 * `npm run check`'s type check of the portal (site/): its .ts files and the frontmatter and
 * template expressions of every .astro file, props of the components they use included.
 * `astro check` refuses TypeScript 7, which the rest of the project is checked with, so each
 * .astro file is converted to TSX (@astrojs/astro2tsx, the converter of Astro's own editor tooling)
 * into a mirror of the repository under node_modules/.cache: inside the repository, so that bare
 * imports find node_modules, and with `rootDirs`, so that relative ones reach the real site/ and
 * pipeline/. tsc checks the mirror; its messages are mapped back to lines of the .astro files.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { convertToTsx } from '@astrojs/astro2tsx';

const repo = new URL('../../', import.meta.url).pathname;
const site = join(repo, 'site');
const cache = join(repo, 'node_modules', '.cache');

/** How a generated file's offsets go back to its .astro source. */
interface Converted {
  readonly source: string;
  readonly text: string;
  readonly code: string;
  readonly mappings: ReturnType<typeof convertToTsx>['mappings'];
}

function astroFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.astro'))
    .map((entry) => join(entry.parentPath, entry.name));
}

/** Line and column (1-based) of a UTF-16 offset. */
function position(text: string, offset: number): [number, number] {
  const before = text.slice(0, offset).split('\n');
  return [before.length, before.at(-1)!.length + 1];
}

/** Offset of a 1-based line and column. */
function offsetOf(text: string, line: number, column: number): number {
  let offset = 0;
  for (let l = 1; l < line; l++) offset = text.indexOf('\n', offset) + 1;
  return offset + column - 1;
}

/** The .astro position of a position in the generated TSX; the generated code's own lines have none. */
function original(file: Converted, line: number, column: number): string {
  const at = offsetOf(file.code, line, column);
  const span = file.mappings.find(([start, length]) => at >= start && at <= start + length);
  const where = span ? position(file.text, span[2] + Math.min(at - span[0], span[3])) : undefined;
  return `${relative(repo, file.source)}${where ? `(${where[0]},${where[1]})` : ' (generated code)'}`;
}

mkdirSync(cache, { recursive: true });
// one mirror per run: two checks of one work tree at once must not write into each other's
const mirror = mkdtempSync(join(cache, 'site-type-check-'));
const converted = new Map<string, Converted>();
const parseErrors: string[] = [];
for (const source of astroFiles(join(site, 'src'))) {
  const text = readFileSync(source, 'utf8');
  const result = convertToTsx(text, { filename: basename(source), ambientTypes: true });
  for (const d of result.diagnostics) {
    const [line, column] = position(text, d.position.start);
    parseErrors.push(`${relative(repo, source)}(${line},${column}): ${d.message}`);
  }
  // `import X from './X.astro'` resolves to X.astro.tsx, as to any file with an unknown extension
  const target = join(mirror, relative(repo, source) + '.tsx');
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, result.code);
  converted.set(relative(mirror, target), { source, text, code: result.code, mappings: result.mappings });
}

const config = {
  compilerOptions: {
    target: 'es2024',
    module: 'esnext',
    moduleResolution: 'bundler',
    lib: ['es2024', 'dom', 'dom.iterable'],
    types: ['node', 'astro/client'],
    jsx: 'preserve',
    jsxImportSource: 'astro',
    strict: true,
    noEmit: true,
    allowImportingTsExtensions: true,
    verbatimModuleSyntax: true,
    skipLibCheck: true,
    resolveJsonModule: true,
    rootDirs: [repo, mirror],
    // apache-arrow 13 ships types only beside its CommonJS files, which its package.json "exports"
    // hide from every resolution but the legacy one; its browser build is the one the console loads
    paths: { 'apache-arrow': [join(repo, 'node_modules', 'apache-arrow', 'Arrow.dom.d.ts')] },
  },
  // the pipeline's declarations of untyped libraries, for the pipeline modules the site imports
  include: [
    join(mirror, 'site', 'src'),
    join(site, 'src', '**', '*.ts'),
    join(repo, 'pipeline', '**', '*.d.ts'),
  ],
};
writeFileSync(join(mirror, 'tsconfig.json'), JSON.stringify(config, null, 2));

const tsc = spawnSync(join(repo, 'node_modules', '.bin', 'tsc'), ['-p', mirror, '--pretty', 'false'], {
  cwd: repo,
  encoding: 'utf8',
});
rmSync(mirror, { recursive: true, force: true });
if (tsc.error) throw tsc.error;
const messages = `${tsc.stdout}${tsc.stderr}`
  .split('\n')
  .filter((line) => line !== '')
  .map((line) => {
    const match = /^(.+?)\((\d+),(\d+)\): (.*)$/.exec(line);
    const file = match && converted.get(relative(mirror, join(repo, match[1])));
    return file ? `${original(file, Number(match[2]), Number(match[3]))}: ${match[4]}` : line;
  });
for (const line of [...parseErrors, ...messages]) console.error(line);
if (parseErrors.length > 0 || tsc.status !== 0) {
  process.exitCode = 1;
} else {
  console.log(`site: ${converted.size} .astro files and site/src/**/*.ts type-checked`);
}
