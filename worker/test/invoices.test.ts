import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { invoices } from "../src/db/schema";
import type { ApiErrorBody } from "../src/lib/errors";
import { bodyOf, call, client, db, idParam, makeAdmin, makeUser, uniqueName } from "./helpers";

const form = (overrides: Record<string, unknown> = {}) => ({
  mediaBuyer: uniqueName("buyer"),
  invoiceDate: "2025-01-31",
  amountPaid: "1234.56",
  revenueSharePercent: "12.5",
  profit: "-20.10",
  notes: "January",
  ...overrides,
});

describe("invoices", () => {
  it("creates an invoice with money exact to the cent and the percent in basis points", async () => {
    const admin = await makeAdmin();
    const created = await bodyOf(await client(admin).invoices.$post({ json: form({ amountPaid: "0.29", revenueSharePercent: "33.33", profit: 1.1 }) }), 201);
    expect(created).toMatchObject({ invoiceDate: "2025-01-31", amountPaid: "0.29", revenueSharePercent: "33.33", profit: "1.10", notes: "January" });
    expect(created.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T.*Z$/);
    const [row] = await db().select().from(invoices).where(eq(invoices.id, created.id));
    expect(row).toMatchObject({ amountPaidCents: 29, revenueShareBps: 3333, profitCents: 110 });
  });

  it("lists newest invoice date first", async () => {
    const admin = await makeAdmin();
    const buyer = uniqueName("order");
    for (const invoiceDate of ["2024-11-30", "2025-03-31", "2025-01-31"]) {
      await client(admin).invoices.$post({ json: form({ mediaBuyer: buyer, invoiceDate }) });
    }
    const list = await bodyOf(await client(admin).invoices.$get(), 200);
    const mine = list.filter((i) => i.mediaBuyer === buyer).map((i) => i.invoiceDate);
    expect(mine).toEqual(["2025-03-31", "2025-01-31", "2024-11-30"]);
    const dates = list.map((i) => i.invoiceDate);
    expect(dates).toEqual([...dates].sort().reverse());
  });

  it("answers the product's messages for missing fields", async () => {
    const admin = await makeAdmin();
    const res = await call("/api/invoices", {
      cookie: admin.cookie,
      json: { mediaBuyer: " ", invoiceDate: "", amountPaid: "", revenueSharePercent: null, notes: "" },
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: "Invalid request body: Media buyer is required",
      details: [
        "mediaBuyer: Media buyer is required",
        "invoiceDate: Invoice date is required",
        "amountPaid: Amount paid is required",
        "revenueSharePercent: Revenue share % is required",
        "profit: Profit is required",
      ],
    });
  });

  it("refuses values that are not exact amounts, percents or dates", async () => {
    const admin = await makeAdmin();
    const res = await call("/api/invoices", {
      cookie: admin.cookie,
      json: form({ invoiceDate: "2025-02-30", amountPaid: "-5", revenueSharePercent: "100.5", profit: "1.234" }),
    });
    expect(res.status).toBe(400);
    expect((await res.json<ApiErrorBody>()).details).toEqual([
      "invoiceDate: Invoice date must be a real date written YYYY-MM-DD",
      "amountPaid: Amount paid cannot be negative",
      "revenueSharePercent: Revenue share % must be between 0 and 100",
      "profit: Profit must be a number with at most 2 decimals",
    ]);
  });

  it("updates the fields sent, keeps the others, and clears notes sent empty", async () => {
    const admin = await makeAdmin();
    const api = client(admin);
    const created = await bodyOf(await api.invoices.$post({ json: form() }), 201);
    const edited = await bodyOf(await api.invoices[":id"].$patch({ ...idParam(created.id), json: { profit: "99.9", notes: "" } }), 200);
    expect(edited).toEqual({ ...created, profit: "99.90", notes: null });

    const full = await bodyOf(await api.invoices[":id"].$patch({ ...idParam(created.id), json: form({ mediaBuyer: "renamed", amountPaid: "10" }) }), 200);
    expect(full).toMatchObject({ mediaBuyer: "renamed", amountPaid: "10.00", notes: "January" });

    const fetched = await bodyOf(await api.invoices[":id"].$get(idParam(created.id)), 200);
    expect(fetched).toMatchObject({ id: created.id, mediaBuyer: "renamed" });

    const nothing = await call(`/api/invoices/${created.id}`, { method: "PATCH", cookie: admin.cookie, json: {} });
    expect(nothing.status).toBe(400);
    expect(await nothing.json()).toEqual({ error: "Send at least one field to change", details: ["Send at least one field to change"] });
    const blank = await call(`/api/invoices/${created.id}`, { method: "PATCH", cookie: admin.cookie, json: { amountPaid: "" } });
    expect((await blank.json<ApiErrorBody>()).error).toBe("Amount paid is required");
  });

  it("deletes an invoice, and answers 404 for one that does not exist", async () => {
    const admin = await makeAdmin();
    const api = client(admin);
    const created = await bodyOf(await api.invoices.$post({ json: form() }), 201);
    expect(await bodyOf(await api.invoices[":id"].$delete(idParam(created.id)), 200)).toEqual({ ok: true });
    expect(await db().select().from(invoices).where(eq(invoices.id, created.id))).toEqual([]);

    for (const [method, json] of [
      ["DELETE", undefined],
      ["PATCH", { profit: "1" }],
      ["GET", undefined],
    ] as const) {
      const gone = await call(`/api/invoices/${created.id}`, { method, json, cookie: admin.cookie });
      expect(gone.status, method).toBe(404);
      expect(await gone.json()).toEqual({ error: "Invoice not found" });
    }
    const bad = await call("/api/invoices/abc", { cookie: admin.cookie });
    expect(bad.status).toBe(400);
  });

  it("is for admins only", async () => {
    const member = await makeUser("user", ["dashboard", "offers", "campaigns", "landers", "clicks", "sparks", "performance"]);
    expect((await call("/api/invoices", { cookie: member.cookie })).status).toBe(403);
    expect((await call("/api/invoices", { cookie: member.cookie, json: form() })).status).toBe(403);
  });
});
