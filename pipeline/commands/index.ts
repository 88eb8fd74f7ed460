import type { Command } from 'commander';
import { demoCommand } from './demo.ts';
import { estimateCommand } from './estimate.ts';
import { evaluateCommand } from './evaluate.ts';
import { expandCommand } from './expand.ts';
import { migrateCommand } from './migrate.ts';
import { planCommand } from './plan.ts';
import { portalCommand } from './portal.ts';
import { reparseCommand } from './reparse.ts';
import { reportCommand } from './report.ts';
import { simwebCommand } from './simweb.ts';
import { snapshotCommand } from './snapshot.ts';
import { statsCommand } from './stats.ts';
import { statusCommand } from './status.ts';
import { tickCommand } from './tick.ts';
import { verifyCommand } from './verify.ts';
import { waczCommand } from './wacz.ts';
import { workerCommand } from './worker.ts';

export { exitCodeFor, reportFailure } from './failure.ts';

/** Every subcommand of `observatory`, one factory per file in this folder. */
export const commands: Array<() => Command> = [
  expandCommand,
  snapshotCommand,
  tickCommand,
  estimateCommand,
  planCommand,
  evaluateCommand,
  verifyCommand,
  statusCommand,
  migrateCommand,
  reparseCommand,
  waczCommand,
  statsCommand,
  portalCommand,
  reportCommand,
  simwebCommand,
  demoCommand,
  workerCommand,
];
