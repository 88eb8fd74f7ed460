import type { Command } from 'commander';
import { invalidInput, parseInstant } from '../core/index.ts';
import { type DocSizeProfile, SIMWEB_DEFAULTS, type SimWebOptions, simWebOptions } from '../simweb/index.ts';

/** The simulated Web's options as commander hands them over. */
export interface SimWebCliOptions {
  port: string;
  seed: string;
  docs: string;
  plds: string;
  faults: string;
  latencyScale: string;
  docSizes: string;
  now?: string;
  /** Only `simweb` offers these (the demo crawls plain HTTP). */
  https?: boolean;
  tlsPort?: string;
}

/** Adds the options that shape a simulated Web (shared by `simweb` and `demo`). */
export function addSimWebOptions(command: Command, defaults: Partial<SimWebOptions> = {}): Command {
  const d = { ...SIMWEB_DEFAULTS, ...defaults };
  return command
    .option('--port <n>', 'TCP port on 127.0.0.1 (0: any free port)', String(d.port))
    .option('--seed <n>', 'seed: the same seed serves the same Web', String(d.seed))
    .option('--docs <n>', 'documents', String(d.docs))
    .option('--plds <n>', 'pay-level domains', String(d.plds))
    .option('--faults <x>', 'multiplier of realistic fault rates (0: a clean Web)', String(d.faults))
    .option('--latency-scale <x>', 'multiplier of per-PLD service times (0: instant)', String(d.latencyScale))
    .option(
      '--doc-sizes <profile>',
      'statements per document: small (about 16 each) or dyldo (heavy-tailed: median about 30, up to 100,000)',
      d.docSizes,
    )
    .option('--now <iso>', 'start of the virtual clock (default: the start of the simulated span)');
}

function number(flag: string, text: string): number {
  const n = Number(text);
  if (text.trim() === '' || !Number.isFinite(n)) throw invalidInput(flag, 'a number', text);
  return n;
}

/** Validates the CLI strings into simulated-Web options (one-line errors, exit 2). */
export function simWebOptionsFromCli(o: SimWebCliOptions): SimWebOptions {
  const named: Array<[keyof SimWebOptions, string, string]> = [
    ['port', '--port', o.port],
    ['seed', '--seed', o.seed],
    ['docs', '--docs', o.docs],
    ['plds', '--plds', o.plds],
    ['faults', '--faults', o.faults],
    ['latencyScale', '--latency-scale', o.latencyScale],
    ...(o.tlsPort === undefined
      ? []
      : [['tlsPort', '--tls-port', o.tlsPort] as [keyof SimWebOptions, string, string]]),
  ];
  const values: Record<string, number> = {};
  for (const [key, flag, text] of named) values[key] = number(flag, text);
  try {
    return simWebOptions({
      ...values,
      docSizes: o.docSizes as DocSizeProfile,
      https: o.https === true,
      ...(o.now !== undefined ? { now: parseInstant(o.now) } : {}),
    });
  } catch (error) {
    // name the flag, not the internal option
    if (error instanceof Error) {
      const flags = [...named, ['docSizes', '--doc-sizes']];
      const hit = flags.find(([key]) => error.message.startsWith(`${key}:`));
      if (hit) error.message = error.message.replace(`${hit[0]}:`, `${hit[1]}:`);
    }
    throw error;
  }
}
