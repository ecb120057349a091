import { describe, expect, it } from "vitest";
import { clientPath, isAbsoluteClientPath } from "./client-path.js";

describe("clientPath", () => {
  it("turns Windows spellings into one form and leaves other platforms alone", () => {
    expect(clientPath("C:\\Users\\me\\proj", "win32")).toBe("C:\\Users\\me\\proj");
    expect(clientPath("c:/Users/me/proj/", "win32")).toBe("C:\\Users\\me\\proj\\");
    expect(clientPath("/C:/Users/me/proj", "win32")).toBe("C:\\Users\\me\\proj");
    expect(clientPath("\\\\server\\share\\proj", "win32")).toBe("\\\\server\\share\\proj");
    expect(clientPath("/C:/x", "linux")).toBe("/C:/x");
    expect(clientPath("/home/me/proj", "linux")).toBe("/home/me/proj");
  });
});

describe("isAbsoluteClientPath", () => {
  it("accepts drive letters and UNC paths on Windows, and only rooted paths elsewhere", () => {
    for (const value of ["C:\\proj", "d:/proj", "/C:/proj", "\\\\server\\share\\proj"]) expect(isAbsoluteClientPath(value, "win32")).toBe(true);
    for (const value of ["proj", "C:proj", "\\proj", "/proj", ".\\proj", "\\\\.\\pipe\\x", "\\\\.\\COM1", "\\\\?\\C:\\x"]) expect(isAbsoluteClientPath(value, "win32")).toBe(false);
    expect(isAbsoluteClientPath("/home/me", "linux")).toBe(true);
    expect(isAbsoluteClientPath("C:\\proj", "linux")).toBe(false);
    expect(isAbsoluteClientPath("home/me", "darwin")).toBe(false);
  });
});
