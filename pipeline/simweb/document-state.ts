/** Everything about one generated document that does not depend on the request. */

import type { RdfFormat } from '../core/index.ts';
import { extraStatements } from './doc-sizes.ts';
import { type DocAddress, docAddress, docFormat } from './documents.ts';
import {
  alive,
  type ChangeEvent,
  type ChangeProcess,
  changeEvents,
  changeProcess,
  type DocVersion,
  type Lifetime,
  lifetime,
  versionAt,
} from './dynamics.ts';
import { docFault, type FaultKind } from './faults.ts';
import type { GeneratedWeb } from './web-shape.ts';

export interface DocumentState {
  readonly address: DocAddress;
  readonly format: RdfFormat;
  readonly process: ChangeProcess;
  readonly life: Lifetime;
  readonly fault: FaultKind | null;
  /** Statements beyond the document's small core (its size profile's draw; 0 for vocabularies). */
  readonly extraStatements: number;
}

/** The request-independent facts of document `doc`. */
export function documentState(web: GeneratedWeb, doc: number): DocumentState {
  const address = docAddress(web, doc);
  const stable = address.vocabulary !== null || address.local < 3;
  const process = stable
    ? ({ bucket: 'never', kind: 'never', meanIntervalMs: Number.POSITIVE_INFINITY, stamped: false } as const)
    : changeProcess(web, doc);
  const format = docFormat(web, address);
  const fault = docFault(web, doc, stable);
  return {
    address,
    format,
    process,
    life: lifetime(web, doc, address.local, stable),
    fault,
    extraStatements: address.vocabulary ? 0 : extraStatements(web, doc, format, fault),
  };
}

/** Whether the document exists at `t`. */
export function isAlive(state: DocumentState, t: number): boolean {
  return alive(state.life, t);
}

/** The document's changes up to `until`. */
export function eventsUntil(web: GeneratedWeb, state: DocumentState, until: number): ChangeEvent[] {
  return changeEvents(web, state.address.doc, state.process, state.life, until);
}

/** The document's version at `t`. */
export function versionOf(web: GeneratedWeb, state: DocumentState, t: number): DocVersion {
  const start = Math.max(web.options.epochMs, state.life.bornAt ?? web.options.epochMs);
  return versionAt(eventsUntil(web, state, t), start, t);
}
