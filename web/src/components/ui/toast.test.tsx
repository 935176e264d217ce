import { act, render, screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { toast, Toaster } from "./toast";

describe("toasts", () => {
  it("shows one toast at a time: a new one replaces the old", () => {
    render(<Toaster />);
    act(() => {
      toast({ title: "Refreshed", description: "Code list updated" });
    });
    expect(screen.getByText("Refreshed")).toBeTruthy();
    act(() => {
      toast({ title: "Code copied!", description: "482913" });
    });
    expect(screen.queryByText("Refreshed")).toBeNull();
    expect(screen.getByText("Code copied!")).toBeTruthy();
  });

  it("labels the notification region for the F8 hotkey", () => {
    render(<Toaster />);
    expect(screen.getByRole("region").getAttribute("aria-label")).toContain("Notification");
  });
});
