import { fireEvent, screen, waitFor } from "@testing-library/react";
import { MemoryRouter, Route, Routes } from "react-router";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { admin, renderWithUser } from "@/test/render";
import RuleEditorScreen from "./rule-editor-screen";

const channel = (id: number, name: string, kind: string, brokenAt: string | null = null) => ({
  id,
  name,
  kind,
  settings: {},
  secretHint: null,
  builtin: false,
  brokenAt,
  brokenReason: brokenAt ? "answered 410" : null,
  lastSentAt: null,
  lastStatus: null,
  createdAt: "2026-11-20T10:00:00.000Z",
});

let posted: unknown[] = [];
let channels: ReturnType<typeof channel>[] = [];

async function answer(input: RequestInfo | URL, init?: RequestInit) {
  const path = new URL(String(input), "http://localhost").pathname;
  if (path === "/api/rules/options") return Response.json({ campaigns: [], offers: [], sparks: [], adGroups: [] });
  if (path === "/api/alert-channels") return Response.json({ channels, email: { problem: null, destinations: [] } });
  if (path === "/api/rules" && init?.method === "POST") {
    posted.push(JSON.parse(String(init.body)));
    return Response.json({ id: 7 }, { status: 201 });
  }
  return Response.json({});
}

const renderEditor = () =>
  renderWithUser(
    <MemoryRouter initialEntries={["/rules/new"]}>
      <Routes>
        <Route path="/rules/new" element={<RuleEditorScreen />} />
        <Route path="/rules/:id" element={<p>saved</p>} />
      </Routes>
    </MemoryRouter>,
    admin(),
  );

describe("Rule editor: where a firing is sent", () => {
  beforeEach(() => {
    posted = [];
    vi.stubGlobal("fetch", vi.fn(answer));
  });
  afterEach(() => vi.unstubAllGlobals());

  it("offers the channels by name and kind, says which is broken, and saves the ids of those ticked", async () => {
    channels = [channel(3, "Ops Slack", "slack"), channel(4, "Night pager", "webhook", "2026-11-25T01:00:00.000Z")];
    renderEditor();
    fireEvent.change(screen.getByLabelText("Name"), { target: { value: "Spend, no sales" } });
    const slack = await screen.findByRole("checkbox", { name: "Send to Ops Slack (Slack)" });
    expect(screen.getByRole("checkbox", { name: "Send to Night pager (Webhook) · broken: not sent to until fixed" })).toBeTruthy();
    fireEvent.click(slack);
    fireEvent.click(screen.getByRole("button", { name: "Create rule" }));
    await waitFor(() => expect(posted).toHaveLength(1));
    expect(posted[0]).toMatchObject({ name: "Spend, no sales", target: { admins: true, channelIds: [3] } });
  });

  it("points to Channels when there are none", async () => {
    channels = [];
    renderEditor();
    const note = await screen.findByText(/No channels yet: add email, Slack, Telegram or a webhook on/);
    expect(note.querySelector("a")?.getAttribute("href")).toBe("/rules/channels");
  });
});
