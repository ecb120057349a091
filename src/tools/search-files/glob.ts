/**
 * Globs with the semantics ripgrep gives `--glob` (gitignore-style, from the `globset` crate), so
 * the Node fallback filters exactly the files `rg -g <glob>` would:
 * - a glob without `/` (a trailing `/` aside) matches the entry's name at any depth (`*.ts`);
 * - a glob with `/` is anchored to the search root (`src/*.ts`, `/build`); a leading `/` is dropped;
 * - a trailing `/` matches directories only;
 * - `*` and `?` never cross `/`; `**` as a whole segment crosses any number of directories;
 * - `[abc]`, `[a-z]`, `[!x]` / `[^x]` classes, `{a,b}` alternatives, `\` escapes the next char.
 * Matching is against paths relative to the search root, with `/` separators.
 */
export interface CompiledGlob {
  /** The glob as given. */
  source: string;
  /** True for a trailing `/`: the glob can only match directories. */
  dirOnly: boolean;
  matches(relPath: string, isDir: boolean): boolean;
}

/** Compiles one glob. Never throws: an unbalanced `[` or `{` is taken literally. */
export function compileGlob(glob: string, options: { caseInsensitive?: boolean } = {}): CompiledGlob {
  let body = glob;
  const dirOnly = body.length > 1 && body.endsWith("/");
  if (dirOnly) body = body.slice(0, -1);
  const anchored = body.includes("/");
  if (body.startsWith("/")) body = body.slice(1);
  if (!anchored && !body.startsWith("**/")) body = `**/${body}`;
  const regex = new RegExp(`^${globToRegexSource(body)}$`, options.caseInsensitive ? "i" : "");
  return {
    source: glob,
    dirOnly,
    matches: (relPath, isDir) => (!dirOnly || isDir) && regex.test(relPath),
  };
}

/** Regex source for a glob body (no anchoring decisions; see `compileGlob`). */
export function globToRegexSource(glob: string): string {
  let out = "";
  let i = 0;
  while (i < glob.length) {
    const char = glob[i] as string;
    if (char === "*") {
      const atSegmentStart = i === 0 || glob[i - 1] === "/";
      if (glob[i + 1] === "*" && atSegmentStart && (i + 2 === glob.length || glob[i + 2] === "/")) {
        if (i + 2 === glob.length) {
          out += ".*";
          i += 2;
        } else {
          // `**/` : zero or more whole directories
          out += "(?:[^/]*/)*";
          i += 3;
        }
        continue;
      }
      while (glob[i] === "*") i += 1;
      out += "[^/]*";
      continue;
    }
    if (char === "?") {
      out += "[^/]";
      i += 1;
      continue;
    }
    if (char === "\\" && i + 1 < glob.length) {
      out += escapeRegex(glob[i + 1] as string);
      i += 2;
      continue;
    }
    if (char === "[") {
      const cls = readClass(glob, i);
      if (cls) {
        out += cls.source;
        i = cls.end;
        continue;
      }
    }
    if (char === "{") {
      const alt = readAlternatives(glob, i);
      if (alt) {
        out += `(?:${alt.options.map(globToRegexSource).join("|")})`;
        i = alt.end;
        continue;
      }
    }
    out += escapeRegex(char);
    i += 1;
  }
  return out;
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}

/** `[...]` starting at `start`; undefined when it never closes. */
function readClass(glob: string, start: number): { source: string; end: number } | undefined {
  let i = start + 1;
  let negated = false;
  if (glob[i] === "!" || glob[i] === "^") {
    negated = true;
    i += 1;
  }
  let body = "";
  let first = true;
  while (i < glob.length) {
    const char = glob[i] as string;
    if (char === "]" && !first) {
      return { source: `[${negated ? "^/" : ""}${body}]`, end: i + 1 };
    }
    if (char === "\\" && i + 1 < glob.length) {
      body += `\\${glob[i + 1]}`;
      i += 2;
    } else {
      body += char === "-" ? "-" : char.replace(/[\\\]^[]/g, "\\$&");
      i += 1;
    }
    first = false;
  }
  return undefined;
}

/** `{a,b,...}` starting at `start`, honouring nesting; undefined when it never closes. */
function readAlternatives(glob: string, start: number): { options: string[]; end: number } | undefined {
  const options: string[] = [];
  let depth = 0;
  let current = "";
  for (let i = start + 1; i < glob.length; i += 1) {
    const char = glob[i] as string;
    if (char === "\\" && i + 1 < glob.length) {
      current += char + (glob[i + 1] as string);
      i += 1;
    } else if (char === "{") {
      depth += 1;
      current += char;
    } else if (char === "}" && depth > 0) {
      depth -= 1;
      current += char;
    } else if (char === "}") {
      options.push(current);
      return { options, end: i + 1 };
    } else if (char === "," && depth === 0) {
      options.push(current);
      current = "";
    } else {
      current += char;
    }
  }
  return undefined;
}

/** True when the text has glob syntax (`*`, `?`, `[`, `{`); plain names are searched as substrings. */
export function hasGlobSyntax(text: string): boolean {
  return /[*?[{]/.test(text);
}
