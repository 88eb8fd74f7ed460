/**
 * The simulated Web of Data: a deterministic, lazily generated Web with the shape, syntaxes,
 * HTTP behaviour and dynamics of the real one, served from one port for every host name (and a
 * TLS port beside it with `https`).
 * See docs/simweb.md.
 */
export { CHANGE_BUCKETS, type ChangeKind } from './dynamics.ts';
export { FAULT_RATES, type FaultKind } from './faults.ts';
export { FORMATS } from './formats.ts';
export { coreSeeds } from './links.ts';
export {
  DOC_SIZE_PROFILES,
  type DocSizeProfile,
  SIMWEB_DEFAULTS,
  type SimWebOptions,
  simWebOptions,
  type WebOptions,
} from './options.ts';
export type { RequestLogEntry } from './request-log.ts';
export type { RobotsVariant } from './robots.ts';
export {
  SCENARIOS,
  type Scenario,
  type ScenarioExpectation,
  type ScenarioGroup,
  TLS_SCENARIOS,
} from './scenarios.ts';
export { type SimWeb, startSimWeb } from './server.ts';
export { type PldHabits, pldHabits, summarize, type WebSummary } from './summary.ts';
export { TLS_OK_HOST, TLS_TROUBLE_HOSTS, TLS_UPGRADE_HOST, type TlsTrouble } from './tls-lab.ts';
export { dereference, TRUTH_ACCEPT, type TruthChange, type TruthRecord, truthRecords } from './truth.ts';
export {
  type GeneratedWeb,
  generateWeb,
  HTTPS_REDIRECT_SHARE,
  type SimPld,
  type ValidatorHabit,
} from './web-shape.ts';
