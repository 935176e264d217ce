import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import { MemoryRouter } from "react-router";
import { afterEach, describe, expect, it, vi } from "vitest";
import { admin, member, renderWithUser } from "@/test/render";
import { ApiKeysCard } from "./api-keys-card";

const NEW_KEY = `ty_${"k".repeat(43)}`;
const keyJson = (id: number, name: string, owner = member()) => ({
  id,
  name,
  prefix: `ty_abc${id}`,
  scopes: ["sparks:read"],
  owner: { id: owner.id, username: owner.username },
  createdAt: "2026-11-20T10:00:00.000Z",
  expiresAt: null,
  lastUsedAt: "2026-11-25T10:00:00.000Z",
  lastUsedIp: "198.51.100.4",
});

/** The API as the card calls it: the keys held in `keys`, and every request's method, path and body recorded. */
function fakeApi(keys: ReturnType<typeof keyJson>[], all: ReturnType<typeof keyJson>[] = []) {
  const calls: { method: string; path: string; body: unknown }[] = [];
  vi.stubGlobal(
    "fetch",
    vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
      const request = new Request(new URL(String(input instanceof Request ? input.url : input), "http://localhost"), init);
      const path = new URL(request.url).pathname;
      const body = request.method === "POST" ? await request.json() : undefined;
      calls.push({ method: request.method, path, body });
      if (path === "/api/api-keys" && request.method === "POST") {
        const created = keyJson(9, (body as { name: string }).name);
        keys.unshift(created);
        return Response.json({ key: NEW_KEY, apiKey: created }, { status: 201 });
      }
      if (path === "/api/api-keys") return Response.json(keys);
      if (path === "/api/api-keys/all") return Response.json(all);
      const revoke = /^\/api\/api-keys\/(\d+)$/.exec(path);
      if (revoke && request.method === "DELETE") {
        keys.splice(
          keys.findIndex((k) => k.id === Number(revoke[1])),
          1,
        );
        return Response.json({ ok: true });
      }
      return Response.json({ error: "Not found" }, { status: 404 });
    }),
  );
  return calls;
}

async function choose(trigger: HTMLElement, option: string) {
  trigger.focus();
  fireEvent.keyDown(trigger, { key: "Enter" });
  fireEvent.click(await screen.findByRole("option", { name: option }));
}

describe("the API keys card", () => {
  afterEach(() => vi.unstubAllGlobals());

  it("offers only the scopes the user holds, shows a new key once, and lists it with its last use", async () => {
    const calls = fakeApi([keyJson(1, "Old sheet")]);
    renderWithUser(
      <MemoryRouter>
        <ApiKeysCard />
      </MemoryRouter>,
      member(["sparks"]),
    );
    const list = await screen.findByRole("list", { name: "Your API keys" });
    // Where every route and its scope are described.
    expect(screen.getByRole("link", { name: "API reference" }).getAttribute("href")).toBe("/account/api");
    expect(within(list).getByText("Old sheet")).toBeTruthy();
    expect(within(list).getByText(/from 198\.51\.100\.4/)).toBeTruthy();

    fireEvent.click(screen.getByRole("button", { name: "Create API Key" }));
    const dialog = await screen.findByRole("dialog", { name: "Create an API key" });
    // A member with Sparks only: no Landers, and no admin area.
    expect(within(dialog).getByRole("combobox", { name: "Sparks access" })).toBeTruthy();
    expect(within(dialog).queryByRole("combobox", { name: "Landers access" })).toBeNull();
    expect(within(dialog).queryByRole("combobox", { name: "Users access" })).toBeNull();

    // No scope chosen: said in the form, nothing sent.
    fireEvent.change(within(dialog).getByLabelText("Name"), { target: { value: "Bot" } });
    fireEvent.click(within(dialog).getByRole("button", { name: "Create Key" }));
    expect(await within(dialog).findByText("Choose at least one scope")).toBeTruthy();
    expect(calls.some((c) => c.method === "POST")).toBe(false);

    await choose(within(dialog).getByRole("combobox", { name: "Sparks access" }), "Read and write");
    fireEvent.click(within(dialog).getByRole("button", { name: "Create Key" }));
    const shown = await screen.findByRole("dialog", { name: "Copy your new API key" });
    expect(within(shown).getByTestId("new-api-key").textContent).toBe(NEW_KEY);
    expect(calls.find((c) => c.method === "POST")?.body).toEqual({ name: "Bot", scopes: ["sparks:write"], expiresInDays: null });

    fireEvent.click(within(shown).getByRole("button", { name: "Done" }));
    await waitFor(() => expect(screen.queryByRole("dialog", { name: "Copy your new API key" })).toBeNull());
    expect(screen.queryByText(NEW_KEY)).toBeNull();
    expect(await within(screen.getByRole("list", { name: "Your API keys" })).findByText("Bot")).toBeTruthy();
  });

  it("revokes a key after asking; an admin also revokes other users' keys", async () => {
    const someone = { ...member(), id: "00000000-0000-4000-8000-000000000009", username: "ben" };
    const calls = fakeApi([keyJson(1, "Mine", admin())], [keyJson(1, "Mine", admin()), keyJson(2, "Ben's bot", someone)]);
    renderWithUser(
      <MemoryRouter>
        <ApiKeysCard />
      </MemoryRouter>,
      admin(),
    );
    const others = await screen.findByRole("list", { name: "Other users' API keys" });
    expect(within(others).queryByText("Mine")).toBeNull();
    fireEvent.click(within(others).getByRole("button", { name: "Revoke Ben's bot of ben" }));
    const ask = await screen.findByRole("alertdialog", { name: "Revoke this API key?" });
    fireEvent.click(within(ask).getByRole("button", { name: "Revoke" }));
    await waitFor(() => expect(calls.some((c) => c.method === "DELETE" && c.path === "/api/api-keys/2")).toBe(true));
  });
});
