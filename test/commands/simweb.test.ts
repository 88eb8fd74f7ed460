import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { request } from 'undici';

const cli = new URL('../../pipeline/cli.ts', import.meta.url).pathname;

test('observatory simweb prints its address, resolve rule and seed list, serves, and stops on SIGTERM', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'simweb-'));
  const seeds = join(dir, 'core.txt');
  const truth = join(dir, 'truth.jsonl');
  const child = spawn(process.execPath, [
    cli,
    'simweb',
    '--port',
    '0',
    '--docs',
    '300',
    '--plds',
    '20',
    '--latency-scale',
    '0',
    '--seeds-out',
    seeds,
    '--truth',
    truth,
  ]);
  let out = '';
  const rule = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (c) => {
      out += c;
      const m = /--resolve '\*=127\.0\.0\.1:(\d+)'/.exec(out);
      if (m && out.includes('core seed list')) resolve(m[1]);
    });
    child.once('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
  });
  const res = await request(`http://127.0.0.1:${rule}/__sim/info`);
  assert.equal(((await res.body.json()) as { documents: number }).documents, 300);
  assert.ok((await readFile(seeds, 'utf8')).includes('http://xmlns.com/foaf/spec/index.rdf'));
  assert.ok((await readFile(truth, 'utf8')).trim().split('\n').length >= 300);
  const code = await new Promise((resolve) => {
    child.once('exit', resolve);
    child.kill('SIGTERM');
  });
  assert.equal(code, 0);
});

test('observatory simweb rejects bad options with one line and exit 2', () => {
  for (const args of [
    ['--docs', '5'],
    ['--faults', 'lots'],
    ['--port', '70000'],
  ]) {
    const r = spawnSync(process.execPath, [cli, 'simweb', ...args], { encoding: 'utf8' });
    assert.equal(r.status, 2, args.join(' '));
    assert.equal(r.stderr.trim().split('\n').length, 1);
    assert.match(r.stderr, new RegExp(args[0]));
  }
});
