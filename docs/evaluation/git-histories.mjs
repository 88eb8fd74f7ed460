#!/usr/bin/env node
// Turns a git repository's history into change histories (JSON Lines for `observatory evaluate
// --histories FILE --format jsonl`): one document per file path, created by its first commit,
// changed by every later commit that touched it (committer date: when the edit landed), watched
// until it was deleted or, if it still exists, until the newest commit. Renames are not followed
// (a renamed file ends and a new one starts), so renamed paths look like deleted documents.
//
//   node docs/evaluation/git-histories.mjs GIT_DIR [PATH_PREFIX] > histories.jsonl
import { execFileSync } from 'node:child_process';

const [gitDir, prefix = ''] = process.argv.slice(2);
if (!gitDir) {
  process.stderr.write('usage: git-histories.mjs GIT_DIR [PATH_PREFIX]\n');
  process.exit(2);
}
const git = (...args) =>
  execFileSync('git', ['--git-dir', gitDir, ...args], { encoding: 'utf8', maxBuffer: 1 << 30 });
const head = git('log', '-1', '--format=%cI').trim();
const log = git('log', '--reverse', '--no-renames', '--name-status', '--format=@%cI', 'HEAD', '--', ...(prefix ? [prefix] : []));
const docs = new Map();
let at = '';
for (const line of log.split('\n')) {
  if (line.startsWith('@')) {
    at = line.slice(1);
    continue;
  }
  const [status, path] = line.split('\t');
  if (!path) continue;
  let doc = docs.get(path);
  if (status === 'A' || !doc || doc.end) {
    // (re)created: a new history for this path
    doc = { id: path, start: at, changes: [], end: undefined };
    docs.set(path, doc);
  } else if (status === 'D') doc.end = at;
  else doc.changes.push(at);
}
for (const doc of docs.values()) {
  // commits can carry committer dates out of order; keep what lies in (start, end]
  const start = Date.parse(doc.start);
  const end = doc.end ?? head;
  const changes = doc.changes.filter((c) => Date.parse(c) > start && Date.parse(c) <= Date.parse(end));
  if (Date.parse(end) <= start) continue;
  process.stdout.write(`${JSON.stringify({ id: doc.id, start: doc.start, end, changes })}\n`);
}
