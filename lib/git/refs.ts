/**
 * Resolving ref names to object ids from the files git keeps them in: loose
 * refs (`refs/heads/main`), `packed-refs`, and symbolic refs (`HEAD` ->
 * `ref: refs/heads/main`), with git's rev-parse search order for short
 * names (`main` -> `refs/heads/main`, `v1` -> `refs/tags/v1`, ...).
 *
 * A linked worktree keeps HEAD and its per-worktree refs (`refs/bisect/`,
 * `refs/worktree/`, `refs/rewritten/`) in its own git dir and everything
 * else in the common dir; both are given here.
 *
 * Done here rather than with isomorphic-git's resolveRef because importing
 * isomorphic-git costs 40-90 ms on this project's machines, more than a
 * third of git's whole diff at 10,000 files; repo.ts still asks
 * isomorphic-git when a name does not resolve here.
 *
 * @example
 * ```ts
 * const refs = new RefStore("/repo/.git", "/repo/.git");
 * refs.resolve("HEAD");  // "3f2a..." or null (unborn)
 * refs.resolve("main");  // via refs/heads/main
 * ```
 */
import fs from "node:fs";
import path from "node:path";
import { readTextBounded } from "../fs/safe-open.ts";
import { GIT_LIMITS } from "./limits.ts";

const HEX40 = /^[0-9a-f]{40}$/;

/** git's `ref_rev_parse_rules`, in order. */
const RULES = ["%s", "refs/%s", "refs/tags/%s", "refs/heads/%s", "refs/remotes/%s", "refs/remotes/%s/HEAD"];

/** A name that cannot be a ref (and must not become a path outside the git dir). */
function badName(name: string): boolean {
  return (
    name === "" ||
    name.startsWith("/") ||
    name.endsWith("/") ||
    name.includes("..") ||
    name.includes("//") ||
    name.includes("\\") ||
    name.includes("@{") ||
    /[\0-\x20\x7f~^:?*[]/.test(name)
  );
}

function perWorktree(name: string): boolean {
  return !name.includes("/") || /^refs\/(bisect|worktree|rewritten)\//.test(name);
}

/** The refs of one repository (or linked worktree). */
export class RefStore {
  private packed: Map<string, string> | null = null;

  constructor(
    private readonly gitdir: string,
    private readonly commondir: string,
  ) {}

  private packedRefs(): Map<string, string> {
    if (this.packed) return this.packed;
    const map = new Map<string, string>();
    let text = "";
    try {
      text = readTextBounded(path.join(this.commondir, "packed-refs"), GIT_LIMITS.packedRefs);
    } catch {
      // no packed refs
    }
    for (const line of text.split("\n")) {
      // "oid name"; "^oid" peels the tag above it; "#" is the header.
      if (line.length < 42 || line[40] !== " ") continue;
      const oid = line.slice(0, 40);
      if (HEX40.test(oid)) map.set(line.slice(41).trimEnd(), oid);
    }
    this.packed = map;
    return map;
  }

  /** A full ref name's value: an id, `ref: other` for a symbolic ref, or null. */
  private raw(name: string): string | null {
    const dirs = perWorktree(name) && this.gitdir !== this.commondir ? [this.gitdir] : [this.commondir];
    for (const dir of dirs) {
      let text: string;
      try {
        text = readTextBounded(path.join(dir, name), GIT_LIMITS.smallFile);
      } catch {
        continue;
      }
      // FETCH_HEAD and friends hold more than one line; the first id is the value.
      const first = text.split("\n")[0]!.trim();
      if (first.startsWith("ref:")) return first;
      const oid = first.slice(0, 40);
      return HEX40.test(oid) ? oid : null;
    }
    return this.packedRefs().get(name) ?? null;
  }

  /** A full ref name (`HEAD`, `refs/heads/main`) followed through symbolic refs. */
  resolveFull(name: string): string | null {
    for (let depth = 0; depth < 8; depth++) {
      if (badName(name)) return null;
      const v = this.raw(name);
      if (v === null) return null;
      if (!v.startsWith("ref:")) return v;
      name = v.slice(4).trim();
    }
    return null;
  }

  /**
   * A ref name as `git rev-parse` takes it: full, or short and found by
   * git's search order. Null when nothing matches.
   */
  resolve(name: string): string | null {
    if (badName(name)) return null;
    for (const rule of RULES) {
      const full = rule.replace("%s", name);
      // Only all-caps names like HEAD or ORIG_HEAD are looked up at the top of the git dir.
      if (rule === "%s" && !full.startsWith("refs/") && !/^[A-Z_]+$/.test(full)) continue;
      const oid = this.resolveFull(full);
      if (oid) return oid;
    }
    return null;
  }
}
