/**
 * A few numbers as the built site renders them, held against the independent figures: the home
 * page's cards (the latest weekly snapshot at a glance) and, on every snapshot's page, its cards,
 * its changes table and its status codes. Catches a page that reads the wrong field of portal.json
 * (as the snapshot page once read `availabilityChanged` from the manifest's stats).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseDocument } from 'htmlparser2';
import type { SnapshotTruth, Truth } from './independent-figures.ts';
import type { AuditRow } from './portal-audit.ts';

type Node = ReturnType<typeof parseDocument>['children'][number];

function textOf(node: Node): string {
  if (node.type === 'text') return (node as unknown as { data: string }).data;
  const children = (node as unknown as { children?: Node[] }).children ?? [];
  return children.map(textOf).join('');
}

function elements(node: Node, name: string, out: Node[] = []): Node[] {
  const n = node as unknown as { name?: string; children?: Node[] };
  if (n.name === name) out.push(node);
  for (const c of n.children ?? []) elements(c, name, out);
  return out;
}

/** The cards of a page (`<li><span class="value">12</span>documents</li>`): label -> value as shown. */
function cards(root: Node): Map<string, string> {
  const out = new Map<string, string>();
  for (const li of elements(root, 'li')) {
    const spans = elements(li, 'span');
    const value = spans.find(
      (s) => (s as unknown as { attribs: Record<string, string> }).attribs.class === 'value',
    );
    if (!value) continue;
    out.set(textOf(li).slice(textOf(value).length).trim(), textOf(value).trim());
  }
  return out;
}

/** The rows of the table after the heading with `id`: first cell -> second cell, as shown. */
function tableAfter(root: Node, id: string): Map<string, string> {
  const html = root as unknown as { children: Node[] };
  const out = new Map<string, string>();
  let found = false;
  const walk = (node: Node) => {
    const n = node as unknown as { name?: string; attribs?: Record<string, string>; children?: Node[] };
    if (n.name === 'h2') found = n.attribs?.id === id;
    if (found && n.name === 'tr') {
      const cells = elements(node, 'td');
      if (cells.length >= 2 && !out.has(textOf(cells[0]).trim()))
        out.set(textOf(cells[0]).trim(), textOf(cells[1]).trim());
    }
    for (const c of n.children ?? []) walk(c);
  };
  for (const c of html.children) walk(c);
  return out;
}

const n = (v: number) => v.toLocaleString('en-US');
const pct = (part: number, whole: number) => (whole > 0 ? `${((100 * part) / whole).toFixed(1)}%` : '–');

/** The cards a snapshot shows, as the independent figures would render them. */
function expectedCards(s: SnapshotTruth): Array<[string, string]> {
  const c = s.stats.changes as { changed: number; unchanged: number };
  return [
    ['documents', n(s.rows.length)],
    ['statements', n(s.stats.statements as number)],
    ['pay-level domains', n(s.plds.size)],
    ['availability', pct(s.digest.available as number, s.rows.length)],
    ['documents changed', pct(c.changed, c.changed + c.unchanged)],
    ['new PLDs', n(s.newPlds)],
  ];
}

/** Compares the rendered numbers of the site in `site` with the independent figures. */
export async function auditRenderedPages(site: string, truth: Truth): Promise<AuditRow[]> {
  const rows: AuditRow[] = [];
  const add = (page: string, label: string, shown: string | undefined, want: string) =>
    rows.push({
      figure: `${page} ${label}`,
      pattern: `html ${label}`,
      portal: shown ?? '(not shown)',
      independent: want,
      verdict: shown === want ? 'agrees' : 'DIFFERS',
      leaves: 1,
    });
  const load = async (path: string) =>
    parseDocument(await readFile(join(site, path), 'utf8')) as unknown as Node;

  const home = cards(await load('index.html'));
  for (const [label, want] of expectedCards(truth.snapshots.get(truth.latestWeekly)!))
    add('home', label, home.get(label), want);

  for (const name of truth.order) {
    const s = truth.snapshots.get(name)!;
    const page = await load(join('snapshots', name, 'index.html'));
    const shown = cards(page);
    for (const [label, want] of expectedCards(s)) add(`snapshots/${name}/`, label, shown.get(label), want);
    const c = s.stats.changes as Record<string, number>;
    const changes = tableAfter(page, 'changes');
    for (const [label, want] of [
      ['content changed', c.changed],
      ['unchanged', c.unchanged],
      ['first observation', c.new],
      ['not comparable (one side returned no RDF)', c.notComparable],
      ['availability changed (status or error; a 304 is not one)', c.availabilityChanged],
      ['triples added (sum)', c.triplesAdded],
      ['triples removed (sum)', c.triplesRemoved],
    ] as const)
      add(`snapshots/${name}/ changes:`, label, changes.get(label), n(want));
    const statuses = tableAfter(page, 'status');
    for (const [status, count] of Object.entries(s.stats.byStatus as Record<string, number>))
      add(`snapshots/${name}/ status`, status, statuses.get(status), n(count));
  }
  return rows;
}
