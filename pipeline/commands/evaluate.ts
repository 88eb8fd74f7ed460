import { writeFile } from 'node:fs/promises';
import { Command } from 'commander';
import {
  claimOutputFolder,
  createProgress,
  invalidInput,
  parseDuration,
  systemClock,
} from '../core/index.ts';
import {
  type ChangeHistory,
  compareAtEqualDownloads,
  comparisonTable,
  defaultStrategy,
  EVALUATION_MARKER,
  evaluate,
  HISTORY_FORMATS,
  HISTORY_INSTANT,
  type HistoryFormat,
  historiesToJsonl,
  historyInstant,
  loadHistories,
  PUBLISHED_STRATEGIES,
  resultsTable,
  SCALED_FAMILIES,
  STRATEGIES,
  SYNTHETIC_KINDS,
  type SyntheticKind,
  strategyByName,
  syntheticHistories,
  writeEvaluationFiles,
} from '../schedule/index.ts';

interface EvaluateCliOptions {
  histories?: string;
  format?: string;
  keepMinor: boolean;
  synthetic?: string;
  kinds: string;
  seed: string;
  start: string;
  writeHistories?: string;
  strategies: string;
  span: string;
  min: string;
  max: string;
  initial: string;
  out?: string;
  compare: boolean;
  challenger: string;
}

/** The families `--challenger` accepts: every scaled one but the oracle, which is always shown as the bound. */
const CHALLENGERS = Object.keys(SCALED_FAMILIES).filter((name) => name !== 'gold');

function list(text: string): string[] {
  return text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

function wholeNumber(name: string, text: string, least: number): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < least)
    throw invalidInput(name, `a whole number of at least ${least}`, text);
  return n;
}

async function histories(o: EvaluateCliOptions, span: number): Promise<ChangeHistory[]> {
  if ((o.histories === undefined) === (o.synthetic === undefined)) {
    throw invalidInput(
      '--histories / --synthetic',
      'exactly one of them',
      o.histories ?? o.synthetic ?? null,
    );
  }
  if (o.synthetic !== undefined) {
    const kinds = list(o.kinds);
    for (const k of kinds) {
      if (!SYNTHETIC_KINDS.includes(k as SyntheticKind))
        throw invalidInput('--kinds', SYNTHETIC_KINDS.join(', '), k);
    }
    // the synthetic histories' start obeys what history files hold, so that --write-histories reads back
    const start = historyInstant(o.start);
    if (start === null) throw invalidInput('--start', HISTORY_INSTANT, o.start);
    return syntheticHistories({
      perBucket: wholeNumber('--synthetic', o.synthetic, 1),
      kinds: kinds as SyntheticKind[],
      seed: wholeNumber('--seed', o.seed, 0),
      span,
      start,
    });
  }
  if (o.format !== undefined && !HISTORY_FORMATS.includes(o.format as HistoryFormat)) {
    throw invalidInput('--format', HISTORY_FORMATS.join(', '), o.format);
  }
  return loadHistories(o.histories!, {
    format: o.format as HistoryFormat | undefined,
    keepMinor: o.keepMinor,
  });
}

/** `observatory evaluate`: replays change histories against the re-visit strategies. */
export function evaluateCommand(): Command {
  return new Command('evaluate')
    .description('replay change histories against the re-visit strategies: recall, precision, downloads')
    .option(
      '--histories <path>',
      'JSON Lines file, MediaWiki revisions (.json file or folder), or snapshots (folder or .parquet)',
    )
    .option(
      '--format <format>',
      `history format (${HISTORY_FORMATS.join(', ')}); detected from the path by default`,
    )
    .option('--keep-minor', 'count MediaWiki minor revisions as changes', false)
    .option('--synthetic <n>', 'instead of --histories: n synthetic documents per dynamicity bucket and kind')
    .option('--kinds <list>', 'kinds of synthetic documents', SYNTHETIC_KINDS.join(','))
    .option('--seed <n>', 'seed of the synthetic histories', '1')
    .option('--start <date>', 'start of the synthetic histories', '2020-01-01T00:00:00Z')
    .option('--write-histories <file>', 'also write the histories evaluated as JSON Lines')
    .option('--strategies <list>', 'strategies to replay', Object.keys(STRATEGIES).join(','))
    .option('--span <duration>', 'span evaluated from the start of each history', '3y')
    .option('--min <duration>', 'shortest re-visit interval', '1d')
    .option('--max <duration>', 'longest re-visit interval (6mo is six months; m is minutes)', '6mo')
    .option('--initial <duration>', 'first re-visit interval', '1w')
    .option(
      '--out <dir>',
      'write results.csv, monthly.csv, results.json, monthly.svg, tradeoff.svg there: a new or empty folder, or an earlier evaluation (marked .observatory-evaluate), emptied first',
    )
    .option(
      '--no-compare',
      'skip comparing the published strategies with the challenger (and the oracle) at equal downloads',
    )
    .option(
      '--challenger <name>',
      `strategy compared at equal downloads (${CHALLENGERS.join(', ')})`,
      defaultStrategy,
    )
    .action(async (o: EvaluateCliOptions) => {
      // checked before hours of replay, written only at the end (core/output-folder.ts)
      const out = o.out
        ? claimOutputFolder(o.out, {
            option: '--out',
            command: 'evaluate',
            marker: EVALUATION_MARKER,
            apart: o.histories ? [o.histories] : [],
          })
        : null;
      const span = parseDuration(o.span, '--span', 'd');
      const min = parseDuration(o.min, '--min', 'd');
      const max = parseDuration(o.max, '--max', 'd');
      const initial = parseDuration(o.initial, '--initial', 'd');
      if (min <= 0 || max < min)
        throw invalidInput(
          '--min / --max',
          'a positive --min not above --max (6mo is six months)',
          `${o.min} / ${o.max}`,
        );
      if (!CHALLENGERS.includes(o.challenger))
        throw invalidInput('--challenger', CHALLENGERS.join(', '), o.challenger);
      const strategies = list(o.strategies).map(strategyByName);
      if (strategies.length === 0)
        throw invalidInput('--strategies', 'at least one strategy name', o.strategies);
      const docs = await histories(o, span);
      if (docs.length === 0)
        throw invalidInput('--histories', 'at least one document with a history', o.histories);
      if (o.writeHistories) await writeFile(o.writeHistories, historiesToJsonl(docs));
      const settings = { span, bounds: { min, max }, initial };
      const evaluation = evaluate(docs, strategies, settings, createProgress('evaluate', systemClock));
      process.stdout.write(`${docs.length} documents\n\n${resultsTable(evaluation)}\n`);
      const published = PUBLISHED_STRATEGIES.filter((p) => strategies.some((s) => s.name === p));
      const compare = (name: string) =>
        compareAtEqualDownloads(
          docs,
          evaluation,
          published,
          SCALED_FAMILIES[name],
          createProgress(`compare ${name}`, systemClock),
        );
      const comparison = o.compare && published.length > 0 ? compare(o.challenger) : null;
      const oracle = comparison ? compare('gold') : null;
      if (comparison && oracle) {
        process.stdout.write(`\nAt equal downloads (${o.challenger} with its budget matched to each):\n\n`);
        process.stdout.write(`${comparisonTable(comparison, o.challenger)}\n`);
        process.stdout.write(
          "\nOracle bound (gold: knows each document's true mean change interval, not when its changes come):\n\n",
        );
        process.stdout.write(`${comparisonTable(oracle, 'gold')}\n`);
      }
      if (out) {
        const paths = await writeEvaluationFiles(out, evaluation, comparison, o.challenger, oracle);
        process.stdout.write(`\nwrote ${paths.join(', ')}\n`);
      }
    });
}
