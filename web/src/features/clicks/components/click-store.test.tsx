import { render, screen, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import type { ClickRetention, RefusedClicks } from "../api";
import { RefusedClicksCard } from "./refused-clicks";
import { RetentionNotice } from "./retention-notice";

const retention = (over: Partial<ClickRetention> = {}): ClickRetention => ({
  retentionDays: 90,
  retentionProblem: null,
  archivedBefore: "2025-01-04T00:00:00.000Z",
  reachesPastRetention: true,
  archives: [
    { day: "2025-01-01", rows: 12345, bytes: 2_500_000, from: "2025-01-01T00:00:00.000Z", to: "2025-01-02T00:00:00.000Z" },
    { day: "2025-01-03", rows: 7, bytes: 900, from: "2025-01-03T00:00:00.000Z", to: "2025-01-04T00:00:00.000Z" },
  ],
  ...over,
});

describe("RetentionNotice", () => {
  it("says how long raw clicks are kept when the range is inside it", () => {
    render(<RetentionNotice retention={retention({ reachesPastRetention: false, archives: [] })} />);
    expect(screen.getByText(/Raw clicks are kept for 90 days/)).toBeTruthy();
    expect(screen.queryByTestId("retention-notice")).toBeNull();
  });

  it("offers the archived days of a range reaching past it as downloads", () => {
    render(<RetentionNotice retention={retention()} />);
    const notice = screen.getByTestId("retention-notice");
    expect(within(notice).getByText("This range reaches past the click retention")).toBeTruthy();
    const links = within(screen.getByRole("list", { name: "Archived days" })).getAllByRole("link");
    expect(links.map((a) => a.getAttribute("href"))).toEqual(["/api/clicks/archives/2025-01-01", "/api/clicks/archives/2025-01-03"]);
    expect(links[0]!.textContent).toContain("Jan 01, 2025");
    expect(links[0]!.textContent).toContain("12,345 clicks · 2.4 MB");
    expect(links[1]!.textContent).toContain("7 clicks · 1 KB");
  });

  it("says so when no archived day falls in the range, and shows a setting problem", () => {
    render(<RetentionNotice retention={retention({ archives: [], retentionProblem: 'CLICKS_RETENTION_DAYS is "x"; using the default of 90 days' })} />);
    expect(screen.getByText("No archived day falls in this range yet.")).toBeTruthy();
    expect(screen.getByText(/using the default of 90 days/)).toBeTruthy();
  });
});

describe("RefusedClicksCard", () => {
  it("is hidden without refusals", () => {
    const { container } = render(<RefusedClicksCard refused={{ clicks: 0, exits: 0, days: [] }} />);
    expect(container.textContent).toBe("");
  });

  it("lists the refusals per day and campaign", () => {
    const refused: RefusedClicks = {
      clicks: 9400,
      exits: 25,
      days: [
        { date: "2025-01-02", campaignId: 3, campaignName: "Spring", clicks: 9000, exits: 25 },
        { date: "2025-01-01", campaignId: 4, campaignName: null, clicks: 400, exits: 0 },
      ],
    };
    render(<RefusedClicksCard refused={refused} />);
    expect(screen.getByText(/9,400 clicks and 25 exits/)).toBeTruthy();
    const rows = screen
      .getAllByRole("row")
      .slice(1)
      .map((r) => r.textContent);
    expect(rows).toEqual(["Jan 02, 2025Spring9,00025", "Jan 01, 2025Campaign 44000"]);
  });
});
