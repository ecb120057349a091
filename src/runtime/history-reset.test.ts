import { describe, expect, it } from "vitest";
import type { ChatMessage } from "../llm/types.js";
import { afterLastReset, isResetMarker, resetMarker } from "./history-reset.js";

describe("reset marker", () => {
  it("keeps what follows the last marker, or everything without one", () => {
    const a: ChatMessage = { role: "user", content: "a" };
    const b: ChatMessage = { role: "user", content: "b" };
    const c: ChatMessage = { role: "user", content: "c" };
    const same = (message: ChatMessage) => message;
    expect(afterLastReset([a, b], same)).toEqual([a, b]);
    expect(afterLastReset([a, resetMarker(), b, resetMarker(), c], same)).toEqual([c]);
    expect(afterLastReset([a, resetMarker()], same)).toEqual([]);
  });

  it("is recognised only by its exact text", () => {
    expect(isResetMarker(resetMarker())).toBe(true);
    expect(isResetMarker({ role: "system", content: "other" })).toBe(false);
    expect(isResetMarker({ role: "user", content: resetMarker().content as string })).toBe(false);
  });
});
