import { describe, expect, it } from "vitest";
import { userQuery, type CurrentUser } from "@/lib/auth";
import { reportTimeZoneQuery } from "@/lib/report-zone-query";
import { BOOT_ELEMENT_ID } from "../../../worker/src/boot-parts";
import { seedBootData } from "./boot-data";
import { createQueryClient } from "./query-client";

const USER = {
  id: "7c1d2f7e-0000-4000-8000-000000000001",
  username: "anna",
  role: "user",
  permissions: ["clicks"],
  twoFactorEnabled: false,
  mustSetUpTwoFactor: false,
  accessKey: "k1",
} satisfies CurrentUser; // the API's answer's shape: a field added there fails to compile here
const ZONE = { timeZone: "Asia/Manila", today: "2026-11-26" };

function pageWith(text: string) {
  const doc = document.implementation.createHTMLDocument("Trackyard");
  const element = doc.createElement("script");
  element.type = "application/json";
  element.id = BOOT_ELEMENT_ID;
  element.textContent = text;
  doc.body.appendChild(element);
  return doc;
}

describe("seedBootData", () => {
  it("puts the document's answers in the cache as the calls' own, and takes them out of the page", () => {
    const client = createQueryClient();
    const doc = pageWith(JSON.stringify({ user: USER, reportTimeZone: ZONE }));
    seedBootData(client, doc);
    expect(client.getQueryData(userQuery.queryKey)).toEqual(USER);
    expect(client.getQueryData(reportTimeZoneQuery.queryKey)).toEqual(ZONE);
    expect(doc.getElementById(BOOT_ELEMENT_ID)).toBeNull();
  });

  it("leaves out a part that is missing or not of its call's shape, and a block that is not JSON", () => {
    const client = createQueryClient();
    seedBootData(client, pageWith(JSON.stringify({ user: { ...USER, role: "owner" }, reportTimeZone: ZONE })));
    expect(client.getQueryData(userQuery.queryKey)).toBeUndefined();
    expect(client.getQueryData(reportTimeZoneQuery.queryKey)).toEqual(ZONE);

    const other = createQueryClient();
    seedBootData(other, pageWith(JSON.stringify({ user: USER, reportTimeZone: { timeZone: 7 } })));
    expect(other.getQueryData(userQuery.queryKey)).toEqual(USER);
    expect(other.getQueryData(reportTimeZoneQuery.queryKey)).toBeUndefined();

    const broken = createQueryClient();
    seedBootData(broken, pageWith("{not json"));
    seedBootData(broken, pageWith("[1, 2]"));
    seedBootData(broken, document.implementation.createHTMLDocument("no block"));
    expect(broken.getQueryCache().getAll()).toHaveLength(0);
  });
});
