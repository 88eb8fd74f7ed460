import { type ChildProcess, spawn } from 'node:child_process';
import type { RequestLogEntry } from '../../pipeline/simweb/index.ts';
import type { Version } from './cli-process.ts';
import { sampleTree, type TreeSampler } from './process-tree.ts';

/** `observatory simweb` in its own process, driven over its control endpoints (docs/simweb.md). */
export interface SimWebServer {
  readonly port: number;
  readonly resolveRule: string;
  readonly child: ChildProcess;
  readonly sampler: TreeSampler;
  setClock(ms: number): Promise<void>;
  setUnreachable(plds: readonly string[]): Promise<void>;
  /** Request log entries after `since`, then emptied on the server (its memory stays flat over a year). */
  drainLog(since: number): Promise<RequestLogEntry[]>;
  /** The ground truth at `atMs`, one record a line. */
  truth(atMs: number): Promise<TruthLine[]>;
  stop(): Promise<void>;
}

/** What the year reads of the ground truth: each document's changes over the whole span. */
export interface TruthLine {
  readonly uri: string;
  readonly kind: string;
  readonly pld: string;
  readonly rdf: boolean;
  readonly changes: ReadonlyArray<{
    readonly at: string;
    readonly kind: string;
    readonly graphChanged: boolean;
  }>;
}

async function control(port: number, path: string, init: { method?: string; body?: unknown } = {}) {
  const res = await fetch(`http://127.0.0.1:${port}/__sim/${path}`, {
    method: init.method ?? 'GET',
    headers: { 'content-type': 'application/json' },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`simweb ${init.method ?? 'GET'} /__sim/${path}: ${res.status} ${text}`);
  return text;
}

const lines = <T>(text: string): T[] =>
  text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as T);

/** Starts the simulated Web (`observatory simweb ARGS --port 0`) and waits until it listens. */
export async function startSimWebServer(version: Version, args: readonly string[]): Promise<SimWebServer> {
  const child = spawn(process.execPath, [version.cli, 'simweb', '--port', '0', ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout!.on('data', (c) => {
      out += c;
      const m = /--resolve '\*=127\.0\.0\.1:(\d+)'/.exec(out);
      if (m && out.includes('core seed list')) resolve(Number(m[1]));
    });
    child.once('exit', (code) => reject(new Error(`simweb exited ${code}: ${out}`)));
  });
  const sampler = sampleTree(child.pid!, 1000);
  return {
    port,
    resolveRule: `*=127.0.0.1:${port}`,
    child,
    sampler,
    setClock: async (ms) => {
      await control(port, 'clock', { method: 'POST', body: { now: new Date(ms).toISOString() } });
    },
    setUnreachable: async (plds) => {
      await control(port, 'outages', { method: 'POST', body: { unreachable: plds } });
    },
    drainLog: async (since) => {
      const entries = lines<RequestLogEntry>(await control(port, `log?since=${since}`));
      await control(port, 'log', { method: 'DELETE' });
      return entries;
    },
    truth: async (atMs) =>
      lines<TruthLine>(await control(port, `truth?at=${encodeURIComponent(new Date(atMs).toISOString())}`)),
    stop: async () => {
      sampler.stop();
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
