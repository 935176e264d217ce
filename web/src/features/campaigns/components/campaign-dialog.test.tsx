import { fireEvent, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { Toaster } from "@/components/ui/toast";
import { admin, renderWithUser } from "@/test/render";
import { CampaignDialog } from "./campaign-dialog";

/**
 * The API as the dialog reads it: one lander, no offers, no tracking domains; posts recorded, and
 * answered with `refusal` (a 400's body) when one is given.
 */
function stubApi(refusal?: { error: string; details: string[] }) {
  const posts: unknown[] = [];
  vi.stubGlobal(
    "fetch",
    vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
      const url = new URL(String(input instanceof Request ? input.url : input), "http://localhost");
      const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
      if (url.pathname === "/api/landers") return json([{ id: 7, name: "Quiz", url: "https://lander.test/", createdAt: "2026-11-01T00:00:00.000Z" }]);
      if (url.pathname === "/api/offers") return json([]);
      if (url.pathname === "/api/campaigns/tracking-domains") return json({ domains: [], defaultRedirectBase: null });
      if (url.pathname === "/api/campaigns" && (init?.method ?? (input instanceof Request ? input.method : "GET")) === "POST") {
        const body = input instanceof Request ? await input.json() : JSON.parse(String(init?.body));
        posts.push(body);
        return refusal ? json(refusal, 400) : json({ id: 1 }, 201);
      }
      return json({ error: "not stubbed" }, 404);
    }),
  );
  return posts;
}

afterEach(() => vi.unstubAllGlobals());

describe("the campaign dialog checks with the API's own schema", () => {
  it("says under each field what is missing, and sends nothing", async () => {
    const posts = stubApi();
    renderWithUser(<CampaignDialog campaign={null} onClose={vi.fn()} />, admin());
    fireEvent.click(screen.getByRole("button", { name: "Create Campaign" }));
    // The server schema's own sentences, under their fields.
    await screen.findByText("Campaign name is required");
    expect(screen.getAllByRole("alert").map((a) => a.textContent)).toEqual(["Campaign name is required", "Select a lander"]);
    expect(screen.getByRole("textbox", { name: "Campaign Name" }).getAttribute("aria-invalid")).toBe("true");
    expect(posts).toEqual([]);
  });

  it("sends the values the API takes: ids as numbers, no offer or domain left out", async () => {
    const posts = stubApi();
    const onClose = vi.fn();
    renderWithUser(<CampaignDialog campaign={null} onClose={onClose} />, admin());
    fireEvent.change(screen.getByRole("textbox", { name: "Campaign Name" }), { target: { value: "  Spring sweeps " } });
    fireEvent.click(await screen.findByRole("combobox", { name: "Lander" }));
    fireEvent.click(await screen.findByRole("option", { name: "Quiz" }));
    fireEvent.click(screen.getByRole("button", { name: "Create Campaign" }));
    await waitFor(() => expect(posts).toEqual([{ name: "Spring sweeps", landerId: 7, bhToggle: false }]));
    await waitFor(() => expect(onClose).toHaveBeenCalled());
  });

  it("a refusal only the server can make: its sentence under the field, and the screen's failure toast", async () => {
    // The lander was deleted by a teammate after the dialog listed it.
    stubApi({ error: "Lander 7 does not exist", details: ["landerId: Lander 7 does not exist"] });
    const onClose = vi.fn();
    renderWithUser(
      <>
        <CampaignDialog campaign={null} onClose={onClose} />
        <Toaster />
      </>,
      admin(),
    );
    fireEvent.change(screen.getByRole("textbox", { name: "Campaign Name" }), { target: { value: "Spring sweeps" } });
    fireEvent.click(await screen.findByRole("combobox", { name: "Lander" }));
    fireEvent.click(await screen.findByRole("option", { name: "Quiz" }));
    fireEvent.click(screen.getByRole("button", { name: "Create Campaign" }));
    // The toast region keeps one toast: wait for this failure's to replace an earlier test's.
    await waitFor(() => expect(screen.getByRole("status").textContent).toMatch(/Error.*Lander 7 does not exist/));
    const underField = screen.getAllByRole("alert").map((a) => a.textContent);
    expect(underField).toEqual(["Lander 7 does not exist"]);
    expect(screen.getByRole("combobox", { name: "Lander" }).getAttribute("aria-invalid")).toBe("true");
    expect(onClose).not.toHaveBeenCalled();
  });
});
