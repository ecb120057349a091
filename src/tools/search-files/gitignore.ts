import { readFile } from "node:fs/promises";
import path from "node:path";
import ignore, { type Ignore } from "ignore";

/**
 * The `.gitignore` rules in force for one directory, as ripgrep applies them with
 * `--no-require-git` (and without `.ignore` / `.rgignore`, `.git/info/exclude` or the global
 * excludes file, which the ripgrep engine turns off too):
 * - `.gitignore` files of the search root's ancestors, up to the filesystem root, match paths
 *   relative to their own directory;
 * - `.gitignore` files met during the walk join for their subtree;
 * - the deepest file with a rule for a path decides (so a nested `!keep.log` re-includes).
 *
 * Matching uses the `ignore` package (gitignore semantics, case-sensitive like git on Linux). It
 * also treats a path as ignored when a parent directory is; during a walk ignored directories are
 * pruned first, so that only matters for the search root's own ancestors, which an ancestor
 * `.gitignore` could exclude (an explicit search inside `build/`). ripgrep still searches such a
 * root, so those ancestors are re-included with appended `!/<dir>/` rules.
 */
export interface IgnoreLayer {
  /** Absolute directory holding the `.gitignore`. */
  dir: string;
  rules: Ignore;
}

export class IgnoreStack {
  private constructor(private readonly layers: readonly IgnoreLayer[]) {}

  /** Rules from the `.gitignore` files of `root`'s ancestors and of `root` itself. */
  static async forRoot(root: string): Promise<IgnoreStack> {
    const dirs: string[] = [];
    for (let dir = path.resolve(root); ; dir = path.dirname(dir)) {
      dirs.unshift(dir);
      if (path.dirname(dir) === dir) break;
    }
    const layers: IgnoreLayer[] = [];
    for (const dir of dirs) {
      const text = await readGitignore(dir);
      if (text === undefined) continue;
      const rules = ignore({ ignorecase: false }).add(text);
      const between = path.relative(dir, root).split(path.sep).filter(Boolean);
      for (let depth = 1; depth <= between.length; depth += 1) {
        rules.add(`!/${between.slice(0, depth).map(escapeSegment).join("/")}/`);
      }
      layers.push({ dir, rules });
    }
    return new IgnoreStack(layers);
  }

  /** This stack plus the `.gitignore` of `dir` (a directory below the root), if it has one. */
  async enter(dir: string): Promise<IgnoreStack> {
    const text = await readGitignore(dir);
    if (text === undefined) return this;
    return new IgnoreStack([...this.layers, { dir, rules: ignore({ ignorecase: false }).add(text) }]);
  }

  /** Whether `absPath` is ignored; `isDir` selects directory-only rules (`build/`). */
  ignores(absPath: string, isDir: boolean): boolean {
    for (let index = this.layers.length - 1; index >= 0; index -= 1) {
      const layer = this.layers[index] as IgnoreLayer;
      const rel = path.relative(layer.dir, absPath).split(path.sep).join("/");
      if (rel === "" || rel === ".." || rel.startsWith("../")) continue;
      const verdict = layer.rules.test(isDir ? `${rel}/` : rel);
      if (verdict.ignored) return true;
      if (verdict.unignored) return false;
    }
    return false;
  }
}

async function readGitignore(dir: string): Promise<string | undefined> {
  try {
    return await readFile(path.join(dir, ".gitignore"), "utf8");
  } catch {
    return undefined;
  }
}

/** A path segment as a literal gitignore pattern. */
function escapeSegment(segment: string): string {
  return segment.replace(/[\\*?[\]!#\s]/g, "\\$&");
}
