import { describe, expect, it } from "vitest";
import { contentText, IMAGE_PLACEHOLDER } from "./content-text.js";

describe("contentText", () => {
  const parts = [{ type: "text", text: "look at" }, { type: "image_url", image_url: { url: "data:," } }, { type: "text", text: "this" }];
  it("joins text parts, an image as the one placeholder", () => {
    expect(contentText(parts)).toBe(`look at\n${IMAGE_PLACEHOLDER}\nthis`);
    expect(contentText(parts, { images: "omit", separator: " " })).toBe("look at this");
    expect(contentText("plain")).toBe("plain");
    expect(contentText(null)).toBe("");
  });
});
