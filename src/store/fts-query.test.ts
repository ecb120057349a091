import { describe, expect, it } from "vitest";
import { likeContains, planSearch } from "./fts-query.js";

describe("planSearch", () => {
  it("quotes every word and keeps implicit AND", () => {
    expect(planSearch("docker compose")).toEqual({ kind: "words", match: '"docker" AND "compose"', terms: ["docker", "compose"] });
  });

  it("keeps OR / NOT between terms, phrases and prefixes", () => {
    expect(planSearch('redis OR memcached NOT "rate limit" migrat*')).toMatchObject({
      kind: "words",
      match: '"redis" OR "memcached" NOT "rate limit" AND "migrat"*',
    });
  });

  it("drops operators that are not between two terms", () => {
    expect(planSearch("OR NOT alpha AND")).toMatchObject({ match: '"alpha"' });
    expect(planSearch("alpha OR OR NOT beta")).toMatchObject({ match: '"alpha" NOT "beta"' });
    expect(planSearch("and or not")).toMatchObject({ match: '"and" AND "or" AND "not"' });
  });

  it("makes FTS5 syntax characters plain text", () => {
    expect(planSearch('content:secret (a OR b) NEAR(x y) -flag ^start "unbalanced')).toMatchObject({
      kind: "words",
      match: '"content:secret" AND "(a" OR "b)" AND "NEAR(x" AND "y)" AND "-flag" AND "^start" AND "unbalanced"',
    });
    expect(planSearch('say "hi" he said')).toMatchObject({ match: '"say" AND "hi" AND "he" AND "said"' });
    expect(planSearch('it"s')).toMatchObject({ match: '"it""s"' });
  });

  it("has nothing to search for punctuation, operators or blanks only", () => {
    for (const query of ["", "   ", "()", '""', "* - :", "AND OR NOT", "***"]) expect(planSearch(query)).toEqual({ kind: "none" });
  });

  it("sends CJK queries to the trigram index, short terms to LIKE", () => {
    expect(planSearch("東京タワー")).toEqual({ kind: "trigram", match: '"東京タワー"', likes: [], terms: ["東京タワー"] });
    expect(planSearch("東京タワー 高さ")).toEqual({ kind: "trigram", match: '"東京タワー"', likes: ["%高さ%"], terms: ["東京タワー", "高さ"] });
    expect(planSearch("东京")).toEqual({ kind: "substring", likes: ["%东京%"], terms: ["东京"] });
    expect(planSearch("한국어 docker")).toMatchObject({ kind: "trigram", match: '"한국어" AND "docker"' });
    expect(planSearch("ภาษาไทย")).toMatchObject({ kind: "trigram" });
  });

  it("cuts very long queries", () => {
    const plan = planSearch("word ".repeat(2000));
    expect(plan.kind).toBe("words");
    expect((plan as { terms: string[] }).terms).toHaveLength(16);
  });
});

describe("likeContains", () => {
  it("escapes LIKE wildcards", () => {
    expect(likeContains("100%_a\\b")).toBe("%100\\%\\_a\\\\b%");
  });
});
