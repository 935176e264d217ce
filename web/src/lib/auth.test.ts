import { describe, expect, it } from "vitest";
import { safeReturnPath, signInPathFor } from "./auth";

const ORIGIN = "https://trackyard.example";

describe("the URL a sign-in returns to", () => {
  it("keeps one of our pages whole: path, search and hash", () => {
    const link = "/clicks?startDate=2026-11-19&endDate=2026-11-25&campaignId=3#top";
    expect(safeReturnPath(link, ORIGIN)).toBe(link);
    expect(safeReturnPath("/?tab=lander&includeBots=true", ORIGIN)).toBe("/?tab=lander&includeBots=true");
    // The sign-in screen's own link carries it through URLSearchParams and back.
    const signIn = new URL(signInPathFor(link), ORIGIN);
    expect(signIn.pathname).toBe("/auth");
    expect(safeReturnPath(signIn.searchParams.get("next"), ORIGIN)).toBe(link);
    expect(signInPathFor("/")).toBe("/auth");
  });

  it("never leads off the site (no open redirect)", () => {
    for (const value of [
      "https://evil.example/",
      "//evil.example/path",
      "/\\evil.example",
      "\\\\evil.example",
      "/\t/evil.example",
      "/\n/evil.example",
      " /clicks",
      "javascript:alert(1)",
      "data:text/html,hi",
      "evil.example",
      "clicks",
      "",
      null,
      undefined,
    ]) {
      expect(safeReturnPath(value, ORIGIN), JSON.stringify(value)).toBeNull();
    }
  });

  it("does not return to the sign-in screen itself", () => {
    expect(safeReturnPath("/auth", ORIGIN)).toBeNull();
    expect(safeReturnPath("/auth?next=%2Fclicks", ORIGIN)).toBeNull();
  });
});
