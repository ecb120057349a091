import { describe, expect, it } from "vitest";
import { findBrowserExecutable, NO_BROWSER_REASON } from "./executable.js";

/** A fake file system: exactly these paths are executable files. */
const only =
  (...paths: string[]) =>
  (path: string): boolean =>
    paths.includes(path);

describe("findBrowserExecutable", () => {
  it("takes browser.executable_path first, then the environment, then the install paths, then PATH", () => {
    const all = only("/opt/custom/chrome", "/env/chrome", "/usr/bin/chromium", "/home/u/bin/google-chrome");
    const env = { CHROME_PATH: "/env/chrome", PATH: "/home/u/bin", HOME: "/home/u" };
    expect(findBrowserExecutable("/opt/custom/chrome", env, all)).toEqual({ ok: true, path: "/opt/custom/chrome", source: "browser.executable_path" });
    expect(findBrowserExecutable(undefined, env, all)).toEqual({ ok: true, path: "/env/chrome", source: "CHROME_PATH" });
    expect(findBrowserExecutable(undefined, { PATH: "/home/u/bin", HOME: "/home/u" }, all)).toEqual({ ok: true, path: "/usr/bin/chromium", source: "installed" });
    expect(findBrowserExecutable(undefined, { PATH: "/home/u/bin", HOME: "/home/u" }, only("/home/u/bin/google-chrome"))).toEqual({
      ok: true,
      path: "/home/u/bin/google-chrome",
      source: "PATH",
    });
  });

  it("reads PLAYWRIGHT_CHROMIUM_EXECUTABLE_PATH and Hermes' AGENT_BROWSER_EXECUTABLE_PATH too", () => {
    expect(findBrowserExecutable(undefined, { PLAYWRIGHT_CHROMIUM_EXECUTABLE_PATH: "/p/chromium" }, only("/p/chromium"))).toMatchObject({ ok: true, path: "/p/chromium" });
    expect(findBrowserExecutable(undefined, { AGENT_BROWSER_EXECUTABLE_PATH: "/a/chrome" }, only("/a/chrome"))).toMatchObject({ ok: true, source: "AGENT_BROWSER_EXECUTABLE_PATH" });
  });

  it("finds the macOS application bundles, under ~ too", () => {
    const mac = "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome";
    expect(findBrowserExecutable(undefined, { HOME: "/Users/ada" }, only(mac))).toMatchObject({ ok: true, path: mac });
    const userMac = "/Users/ada/Applications/Chromium.app/Contents/MacOS/Chromium";
    expect(findBrowserExecutable(undefined, { HOME: "/Users/ada" }, only(userMac))).toMatchObject({ ok: true, path: userMac });
  });

  it("resolves a configured bare name on PATH and expands ~", () => {
    expect(findBrowserExecutable("chromium", { PATH: "/snap/bin" }, only("/snap/bin/chromium"))).toMatchObject({ ok: true, path: "/snap/bin/chromium" });
    expect(findBrowserExecutable("~/chrome/chrome", { HOME: "/home/ada" }, only("/home/ada/chrome/chrome"))).toMatchObject({ ok: true, path: "/home/ada/chrome/chrome" });
  });

  it("reports a named path that is not executable instead of picking another browser", () => {
    const result = findBrowserExecutable("/nope/chrome", {}, only("/usr/bin/chromium"));
    expect(result).toEqual({ ok: false, reason: expect.stringContaining("browser.executable_path is set to /nope/chrome, which is not an executable file") });
  });

  it("says what to do when nothing is installed", () => {
    expect(findBrowserExecutable(undefined, { PATH: "/usr/bin" }, only())).toEqual({ ok: false, reason: NO_BROWSER_REASON });
    expect(NO_BROWSER_REASON).toContain("browser.executable_path");
  });
});
