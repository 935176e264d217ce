import { describe, expect, it } from "vitest";
import { normaliseBaseUrl } from "../src/schemas/settings";
import { writeSetting } from "../src/db/queries/settings";
import { dayIn } from "../src/lib/calendar-days";
import type { ApiErrorBody } from "../src/lib/errors";
import { call, client, db, makeAdmin, makeUser } from "./helpers";

describe("settings", () => {
  it("starts with the defaults", async () => {
    const admin = await makeAdmin();
    const res = await call("/api/settings", { cookie: admin.cookie });
    expect(await res.json()).toEqual(
      expect.arrayContaining([
        { key: "redirect_domain", value: "" },
        { key: "global_exit_domain", value: "" },
        { key: "max_domain_price", value: "5.00" },
      ]),
    );
  });

  it("normalises the domains and the price", async () => {
    const admin = await makeAdmin();
    const save = (key: string, value: unknown) => call("/api/settings", { cookie: admin.cookie, json: { key, value } });
    expect(await (await save("redirect_domain", "  Trk.Example.com/ ")).json()).toEqual({ key: "redirect_domain", value: "https://trk.example.com" });
    expect(await (await save("global_exit_domain", "http://exit.example.com/click")).json()).toEqual({
      key: "global_exit_domain",
      value: "http://exit.example.com",
    });
    expect(await (await save("global_exit_domain", "")).json()).toEqual({ key: "global_exit_domain", value: "" });
    expect(await (await save("max_domain_price", 12)).json()).toEqual({ key: "max_domain_price", value: "12.00" });

    const list = await (await call("/api/settings", { cookie: admin.cookie })).json();
    expect(list).toEqual(expect.arrayContaining([{ key: "redirect_domain", value: "https://trk.example.com" }]));
  });

  it("refuses bad values with clear messages", async () => {
    const admin = await makeAdmin();
    const save = (json: unknown) => call("/api/settings", { cookie: admin.cookie, json });
    const cases: [unknown, string][] = [
      [{ key: "redirect_domain", value: "" }, "Redirect domain is required"],
      [{ key: "redirect_domain", value: "javascript:alert(1)" }, "Enter a domain such as trk.example.com (optionally with https://)"],
      [{ key: "redirect_domain", value: "trk.example.com/path" }, "Enter a domain such as trk.example.com (optionally with https://)"],
      [{ key: "max_domain_price", value: "-1" }, "Maximum domain price must be a number of at least 0 with at most 2 decimals"],
      [{ key: "colour", value: "red" }, "Unknown setting"],
    ];
    for (const [json, message] of cases) {
      const res = await save(json);
      expect(res.status, JSON.stringify(json)).toBe(400);
      expect((await res.json<ApiErrorBody>()).error, JSON.stringify(json)).toBe(message);
    }
  });

  it("is admin-only", async () => {
    const member = await makeUser("user", ["dashboard", "campaigns"]);
    expect((await call("/api/settings", { cookie: member.cookie })).status).toBe(403);
  });

  it("tells every signed-in user the report time zone and its today, and no one else", async () => {
    const member = await makeUser("user", ["clicks"]);
    await writeSetting(db(), "report_timezone", "Asia/Manila");
    try {
      const res = await client(member).settings["report-time-zone"].$get();
      expect(res.status).toBe(200);
      if (res.status !== 200) return;
      const body = await res.json();
      expect(body).toEqual({ timeZone: "Asia/Manila", today: dayIn(Date.now(), "Asia/Manila") });
      expect((await client().settings["report-time-zone"].$get()).status).toBe(401);
    } finally {
      await writeSetting(db(), "report_timezone", "UTC");
    }
  });

  it("normaliseBaseUrl keeps ports and refuses credentials", () => {
    expect(normaliseBaseUrl("localhost:8787")).toBe("https://localhost:8787");
    expect(normaliseBaseUrl("https://user:pw@trk.example.com")).toBeNull();
    expect(normaliseBaseUrl("https://trk.example.com?x=1")).toBeNull();
    expect(normaliseBaseUrl("https://exit.example.com/CLICK/", { stripClick: true })).toBe("https://exit.example.com");
  });
});
