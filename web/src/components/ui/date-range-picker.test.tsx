import { fireEvent, screen, within } from "@testing-library/react";
import type { ReactElement } from "react";
import { describe, expect, it, vi } from "vitest";
import { admin, renderWithUser } from "@/test/render";
import { DateRangePicker } from "./date-range-picker";

const render = (ui: ReactElement, timeZone?: string) => renderWithUser(ui, admin(), { timeZone });

const captions = () => screen.getAllByRole("grid").map((g) => g.getAttribute("aria-label"));

/** Opens the picker and waits for its calendar, which is fetched on demand (its own chunk). */
async function open() {
  fireEvent.click(screen.getByRole("button", { name: /Date range/ }));
  await screen.findAllByRole("grid");
}

describe("DateRangePicker", () => {
  it("shows the previous and the current month, never a month after today", async () => {
    const today = new Date(2026, 10, 23);
    render(<DateRangePicker value={{ startDate: "2026-11-23", endDate: "2026-11-23" }} onChange={vi.fn()} today={today} />);
    await open();
    expect(captions()).toEqual(["October 2026", "November 2026"]);
    const next = screen.getByRole("button", { name: /Next Month/i });
    expect(next.hasAttribute("disabled") || next.getAttribute("aria-disabled") === "true").toBe(true);
  });

  it("opens on the chosen range's last month and the one before", async () => {
    const onChange = vi.fn();
    render(<DateRangePicker value={{ startDate: "2026-07-28", endDate: "2026-08-03" }} onChange={onChange} today={new Date(2026, 10, 23)} />);
    await open();
    expect(captions()).toEqual(["July 2026", "August 2026"]);
    // Picking a past range still works: two days of July, then Apply.
    const july = screen.getAllByRole("grid")[0]!;
    fireEvent.click(within(july).getByRole("button", { name: /July 6th, 2026/ }));
    fireEvent.click(within(july).getByRole("button", { name: /July 9th, 2026/ }));
    fireEvent.click(screen.getByRole("button", { name: "Apply" }));
    expect(onChange).toHaveBeenCalledWith({ startDate: "2026-07-06", endDate: "2026-07-09" });
  });

  it("counts Today in the report time zone and says which zone it shows", async () => {
    const onChange = vi.fn();
    // Far ahead of UTC: in the last hours of a UTC day it is already the next day there.
    render(<DateRangePicker value={{ startDate: "2026-11-01", endDate: "2026-11-01" }} onChange={onChange} />, "Pacific/Kiritimati");
    await open();
    expect(screen.getByText("Pacific/Kiritimati").parentElement!.textContent).toBe("Days in Pacific/Kiritimati (the report time zone)");
    fireEvent.click(screen.getByRole("button", { name: "Today" }));
    fireEvent.click(screen.getByRole("button", { name: "Apply" }));
    const today = new Intl.DateTimeFormat("en-CA", { timeZone: "Pacific/Kiritimati" }).format(new Date());
    expect(onChange).toHaveBeenCalledWith({ startDate: today, endDate: today });
  });
});
