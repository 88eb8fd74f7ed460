import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, symlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Version } from './cli-process.ts';

/**
 * The version the first half of the year runs: the last commit before the session that brought
 * schema 4 (its snapshots are schema 3), tagged so that the year can be run again from it.
 */
export const UPGRADE_FROM = { tag: 'wave2', commit: '56a0d0f' } as const;

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

/** The commit a checkout is at, noting uncommitted changes to the code the year runs. */
function describeCommit(dir: string): string {
  const commit = git(dir, 'rev-parse', '--short', 'HEAD');
  const dirty = git(dir, 'status', '--porcelain', '--', 'pipeline', 'site').length > 0;
  return dirty ? `${commit} + uncommitted changes` : commit;
}

/**
 * This checkout (`current`) and a git worktree of UPGRADE_FROM's tag (`wave2`) in `worktree`,
 * made if missing: the tag created at its commit if the repository lacks it, and node_modules
 * shared (a symbolic link) when both package-lock.json files are identical, else `npm ci` there.
 */
export function prepareVersions(
  repo: string,
  worktree: string,
  say: (line: string) => void,
): {
  old: Version;
  current: Version;
} {
  const { tag, commit } = UPGRADE_FROM;
  const tagged = (() => {
    try {
      return git(repo, 'rev-parse', '--verify', '--quiet', `refs/tags/${tag}^{commit}`);
    } catch {
      return null;
    }
  })();
  const expected = git(repo, 'rev-parse', '--verify', `${commit}^{commit}`);
  if (tagged === null) {
    git(repo, 'tag', tag, expected);
    say(`tagged ${commit} as ${tag}`);
  } else if (tagged !== expected)
    throw new Error(`tag ${tag} is at ${tagged}, not at ${commit}: move it or remove it`);
  if (!existsSync(join(worktree, '.git'))) {
    git(repo, 'worktree', 'add', '--detach', worktree, tag);
    say(`worktree of ${tag} at ${worktree}`);
  } else if (git(worktree, 'rev-parse', 'HEAD') !== expected)
    throw new Error(`${worktree} is not at ${tag}: remove it (git worktree remove ${worktree})`);
  if (!existsSync(join(worktree, 'node_modules'))) {
    const same =
      readFileSync(join(repo, 'package-lock.json'), 'utf8') ===
      readFileSync(join(worktree, 'package-lock.json'), 'utf8');
    if (same) symlinkSync(join(repo, 'node_modules'), join(worktree, 'node_modules'));
    else {
      say(`package-lock.json differs at ${tag}: npm ci in ${worktree}`);
      execFileSync('npm', ['ci', '--no-audit', '--no-fund'], {
        cwd: worktree,
        stdio: 'inherit',
        // npm's own node is whatever PATH has: the pinned one of this checkout
        env: { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH}` },
      });
    }
  }
  const version = (label: string, dir: string): Version => ({
    label,
    dir,
    cli: join(dir, 'pipeline', 'cli.ts'),
    commit: describeCommit(dir),
  });
  return { old: version(tag, worktree), current: version('current', repo) };
}
