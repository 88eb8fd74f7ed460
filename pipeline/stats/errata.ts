/**
 * The figures this observatory once published wrong, as a data publisher's errata list: one row per
 * defect (what was wrong, which schema versions carry it, since when it is correct), and, per
 * snapshot, the value its files state beside the corrected one the portal shows. docs/errata.md
 * says the same in prose; the portal's Errata page renders this.
 */
import type { SnapshotView } from './portal-data.ts';

/** One defect of published figures. */
export interface Erratum {
  readonly id: string;
  readonly title: string;
  /** The figure as the portal and the files name it. */
  readonly figure: string;
  readonly wrong: string;
  /** Schema versions whose files hold the wrong value. */
  readonly affectedSchemas: string;
  readonly correctSince: string;
  /** What readers of the files do about it. */
  readonly remedy: string;
  /** The value a snapshot's manifest states, and the corrected one; equal where it was not affected. */
  readonly values: (s: SnapshotView) => { readonly published: number; readonly corrected: number };
}

export const ERRATA: readonly Erratum[] = [
  {
    id: 'availability-304',
    title: 'A 304 Not Modified counted as an availability change',
    figure: 'availability changed (changes.availability_changed, manifest stats.changes.availabilityChanged)',
    wrong:
      'a 304 Not Modified answer to a conditional re-visit was counted as an availability change (200 -> 304 and 304 -> 200), ' +
      'although a 304 confirms the previous observation: available and unchanged',
    affectedSchemas: 'schema 3 (conditional re-visits, from 2026-11-22)',
    correctSince:
      'schema 4 (2026-11-27): the files hold the corrected value; for schema 1-3 folders every reader of this project derives it again',
    remedy:
      'query schema 1-3 changes.parquet with availability_changed recomputed: see docs/errata.md (the portal and all commands already do)',
    values: (s) => ({
      published: s.stats.changes.availabilityChanged,
      corrected: s.digest.availabilityChanged,
    }),
  },
  {
    id: 'bytes-304',
    title: 'A 304 Not Modified counted as downloaded bytes',
    figure: 'bytes downloaded (manifest stats.bytes)',
    wrong:
      'the bytes of a body confirmed by a 304 Not Modified were counted as downloaded again, although a 304 carries no body: ' +
      'its documents row repeats the size of the body it confirms',
    affectedSchemas: 'schema 3 (conditional re-visits, from 2026-11-22)',
    correctSince: 'schema 4 (2026-11-27); found by the truth audit (docs/audit.md)',
    remedy:
      "sum documents.bytes over the rows with downloaded_by = url AND validation IS DISTINCT FROM 'not_modified': see docs/errata.md",
    values: (s) => ({ published: s.stats.bytes, corrected: s.digest.bytes }),
  },
];

/** The errata as the portal shows them: each defect with the snapshots whose files state a wrong value. */
export interface ErratumView {
  readonly id: string;
  readonly title: string;
  readonly figure: string;
  readonly wrong: string;
  readonly affectedSchemas: string;
  readonly correctSince: string;
  readonly remedy: string;
  readonly snapshots: ReadonlyArray<{
    readonly name: string;
    readonly published: number;
    readonly corrected: number;
  }>;
}

/** Every erratum with the snapshots of `snapshots` whose published value differs from the corrected one. */
export function erratumViews(snapshots: readonly SnapshotView[]): ErratumView[] {
  return ERRATA.map(({ values, ...erratum }) => ({
    ...erratum,
    snapshots: snapshots
      .map((s) => ({ name: s.name, ...values(s) }))
      .filter((v) => v.published !== v.corrected),
  }));
}
