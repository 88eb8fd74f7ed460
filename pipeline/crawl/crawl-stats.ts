import type { DocumentRecord, ErrorCode } from '../core/index.ts';

/** One round's figures (the observatory paper's Figures 2-4: documents, statements, PLDs, new PLDs). */
export interface RoundStats {
  readonly round: number;
  documents: number;
  /** Documents that dereferenced to RDF (at least one statement). */
  rdfDocuments: number;
  statements: number;
  plds: number;
  /** PLDs with an RDF document in this round and none in an earlier round. */
  newPlds: number;
}

export interface CrawlStatsSnapshot {
  readonly documents: number;
  readonly rdfDocuments: number;
  readonly statements: number;
  readonly plds: number;
  readonly errors: Readonly<Partial<Record<ErrorCode, number>>>;
  readonly rounds: readonly RoundStats[];
}

/** True when a fetch dereferenced to RDF: the kernel is made of these. */
export function isRdfDocument(record: DocumentRecord): boolean {
  return record.statements > 0 && record.format !== null;
}

/** Accumulates a crawl's figures as documents finish (and when a journal is replayed). */
export class CrawlStats {
  private readonly rounds = new Map<number, RoundStats & { pldSet: Set<string> }>();
  private readonly rdfPlds = new Set<string>();
  private readonly allPlds = new Set<string>();
  private readonly errors: Partial<Record<ErrorCode, number>> = {};
  private documents = 0;
  private rdfDocuments = 0;
  private statements = 0;

  add(record: DocumentRecord): void {
    let r = this.rounds.get(record.round);
    if (!r) {
      r = {
        round: record.round,
        documents: 0,
        rdfDocuments: 0,
        statements: 0,
        plds: 0,
        newPlds: 0,
        pldSet: new Set(),
      };
      this.rounds.set(record.round, r);
    }
    this.documents++;
    r.documents++;
    this.allPlds.add(record.pld);
    if (record.error) this.errors[record.error] = (this.errors[record.error] ?? 0) + 1;
    if (!isRdfDocument(record)) return;
    // a graph reached through several URLs is counted once, by the fetch that downloaded it
    const own = record.downloadedBy === undefined ? record.statements : 0;
    this.rdfDocuments++;
    this.statements += own;
    r.rdfDocuments++;
    r.statements += own;
    if (!r.pldSet.has(record.pld)) {
      r.pldSet.add(record.pld);
      r.plds++;
    }
    if (!this.rdfPlds.has(record.pld)) {
      this.rdfPlds.add(record.pld);
      r.newPlds++;
    }
  }

  get done(): number {
    return this.documents;
  }

  /** Statements of the graphs downloaded so far (each graph once). */
  get statementCount(): number {
    return this.statements;
  }

  /** The error kinds seen so far, most frequent first, as `code:n` words for the progress line. */
  topErrors(n = 3): string {
    return Object.entries(this.errors)
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([code, count]) => `${code}:${count}`)
      .join(' ');
  }

  snapshot(): CrawlStatsSnapshot {
    return {
      documents: this.documents,
      rdfDocuments: this.rdfDocuments,
      statements: this.statements,
      plds: this.allPlds.size,
      errors: { ...this.errors },
      rounds: [...this.rounds.values()].sort((a, b) => a.round - b.round).map(({ pldSet: _, ...r }) => r),
    };
  }
}
