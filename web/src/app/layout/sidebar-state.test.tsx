import { act, renderHook } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { useSidebar } from "./sidebar-state";

describe("sidebar state", () => {
  it("starts expanded, toggles with Ctrl+B and Cmd+B, and saves the choice for 7 days", () => {
    const { result } = renderHook(() => useSidebar());
    expect(result.current.expanded).toBe(true);
    act(() => {
      window.dispatchEvent(new KeyboardEvent("keydown", { key: "b", ctrlKey: true }));
    });
    expect(result.current.expanded).toBe(false);
    expect(document.cookie).toContain("sidebar_state=false");
    act(() => {
      window.dispatchEvent(new KeyboardEvent("keydown", { key: "B", metaKey: true }));
    });
    expect(result.current.expanded).toBe(true);
  });

  it("reads the saved choice", () => {
    document.cookie = "sidebar_state=false; path=/";
    const { result } = renderHook(() => useSidebar());
    expect(result.current.expanded).toBe(false);
  });
});
