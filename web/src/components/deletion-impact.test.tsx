import { screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { admin, renderWithUser } from "@/test/render";
import { DeletionImpactSummary, type DeletionImpact } from "./deletion-impact";

const loaded = (data: DeletionImpact) => ({ isPending: false, isError: false, error: null, data });

describe("what a delete takes along", () => {
  it("names a lander's campaigns (the first five), their clicks and the days of stats they carry", () => {
    const campaigns = Array.from({ length: 7 }, (_, i) => ({ id: i + 1, name: `C${i + 1}`, clicks: i }));
    renderWithUser(
      <DeletionImpactSummary
        name="Quiz"
        kind="lander"
        consequence="This cannot be undone."
        impact={loaded({ campaigns, clicks: 21, firstClickAt: "2026-11-01T10:00:00.000Z", lastClickAt: "2026-11-23T10:00:00.000Z" })}
      />,
      admin(),
    );
    const items = screen.getAllByRole("listitem").map((li) => li.textContent);
    expect(items).toEqual([
      "7 campaigns using it: C1 (0 clicks), C2 (1 click), C3 (2 clicks), C4 (3 clicks), C5 (4 clicks) and 2 more",
      "21 recorded clicks and their exits",
      "Their stats history: link clicks, exit clicks and lander CTR from Nov 01, 2026 to Nov 23, 2026",
    ]);
    expect(screen.getByText("This cannot be undone.")).toBeTruthy();
  });

  it("names the campaigns an offer's delete leaves without an offer, or says none uses it", () => {
    const { rerender } = renderWithUser(
      <DeletionImpactSummary
        name="Sweeps"
        kind="offer"
        consequence="Their exit links show a not-found page."
        impact={loaded({
          campaigns: [
            { id: 1, name: "Spring", clicks: 12 },
            { id: 2, name: "Summer", clicks: 1 },
          ],
          clicks: 13,
          firstClickAt: null,
          lastClickAt: null,
        })}
      />,
      admin(),
    );
    expect(screen.getByText("Deleting Sweeps changes:")).toBeTruthy();
    expect(screen.getAllByRole("listitem").map((li) => li.textContent)).toEqual([
      "2 campaigns using it, left without an offer: Spring (12 clicks), Summer (1 click)",
    ]);
    expect(screen.getByText("Their exit links show a not-found page.")).toBeTruthy();
    rerender(
      <DeletionImpactSummary name="Sweeps" kind="offer" consequence="x" impact={loaded({ campaigns: [], clicks: 0, firstClickAt: null, lastClickAt: null })} />,
    );
    expect(screen.getByText("No campaign uses Sweeps: only the offer is deleted.")).toBeTruthy();
  });

  it("says when nothing else goes, while it counts, and when counting failed", () => {
    const { rerender } = renderWithUser(
      <DeletionImpactSummary name="Quiz" kind="lander" consequence="x" impact={loaded({ campaigns: [], clicks: 0, firstClickAt: null, lastClickAt: null })} />,
      admin(),
    );
    expect(screen.getByText("No campaign uses Quiz: only the lander is deleted.")).toBeTruthy();
    rerender(
      <DeletionImpactSummary
        name="Spring"
        kind="campaign"
        consequence="x"
        impact={loaded({ campaigns: [{ id: 1, name: "Spring", clicks: 0 }], clicks: 0, firstClickAt: null, lastClickAt: null })}
      />,
    );
    expect(screen.getAllByRole("listitem").map((li) => li.textContent)).toEqual(["Its tracking link (no clicks recorded yet)"]);
    rerender(
      <DeletionImpactSummary name="Spring" kind="campaign" consequence="x" impact={{ isPending: true, isError: false, error: null, data: undefined }} />,
    );
    expect(screen.getByText("Counting what goes with Spring...")).toBeTruthy();
    rerender(
      <DeletionImpactSummary
        name="Spring"
        kind="campaign"
        consequence="Ads get a not-found page."
        impact={{ isPending: false, isError: true, error: new Error("Campaign not found"), data: undefined }}
      />,
    );
    expect(screen.getByText("Could not count what goes with Spring (Campaign not found).")).toBeTruthy();
    expect(screen.getByText("Ads get a not-found page.")).toBeTruthy();
  });
});
