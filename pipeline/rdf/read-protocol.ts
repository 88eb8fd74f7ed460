import type { ErrorCode, RdfFormat } from '../core/index.ts';
import type { StatementWire } from './statement-wire.ts';

/** What the main thread learnt about a remote JSON-LD context: its text, a refusal, or a failure. */
export type ContextAnswer =
  | { readonly text: string }
  | { readonly refused: string }
  | { readonly failed: string };

/** One document for a parse worker (read-worker.ts), with the contexts it asked for last time. */
export interface ReadRequest {
  readonly body: Uint8Array;
  readonly contentType: string | null;
  readonly documentUrl: string;
  readonly maxContexts: number;
  /** Which context loader the answers come from; a worker forgets answers of another source. */
  readonly source: number;
  readonly contexts: readonly (readonly [string, ContextAnswer])[];
}

/** A worker's answer: the document read and hashed, or the remote contexts it still needs. */
export type ReadReply =
  | { readonly kind: 'needs'; readonly urls: readonly string[]; readonly cpuMs: number }
  | {
      readonly kind: 'done';
      readonly format: RdfFormat | null;
      readonly error: ErrorCode | null;
      readonly errorMessage: string | null;
      readonly graphHash: string | null;
      readonly wire: StatementWire;
      readonly cpuMs: number;
      /** The worker's V8 heap after the job, committed bytes (the pool replaces a grown worker). */
      readonly heapBytes: number;
    };
