import { describe, expect, it } from "vitest";
import { findCredentialUrls, maskCredentialUrls } from "./credential-url.js";

describe("credential URLs", () => {
  it("finds each URL token with its password", () => {
    const text = `DATABASE_URL="postgres://app:pw@db.example:5432/app?sslmode=require" redis://:s3cret@cache:6379/0`;
    expect(findCredentialUrls(text)).toEqual([
      { url: "postgres://app:pw@db.example:5432/app?sslmode=require", password: "pw" },
      { url: "redis://:s3cret@cache:6379/0", password: "s3cret" },
    ]);
  });

  it("masks only the password", () => {
    expect(maskCredentialUrls("git clone https://bot:ghp_abc@github.com/o/r.git")).toBe("git clone https://bot:***@github.com/o/r.git");
    expect(maskCredentialUrls("mongodb+srv://u:p%40ss@cluster0.example.net")).toBe("mongodb+srv://u:***@cluster0.example.net");
  });

  it("leaves ports, plain user@host and already masked URLs alone", () => {
    for (const text of ["http://localhost:8080/a@b", "ssh://git@github.com/o/r", "postgres://app:***@db/app", "user:pass@host"]) {
      expect(maskCredentialUrls(text)).toBe(text);
      expect(findCredentialUrls(text)).toEqual([]);
    }
  });
});
