import { act, renderHook, waitFor } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import { onDemand } from "./on-demand";

describe("onDemand", () => {
  it("fetches nothing until wanted or preloaded, once however often it is asked, and has it at once after a preload", async () => {
    const load = vi.fn(async () => ({ name: "calendar" }));
    const chunk = onDemand(load);
    const idle = renderHook(() => chunk.useModule(false));
    expect(load).not.toHaveBeenCalled();
    expect(idle.result.current).toEqual({ module: undefined, failed: false });

    await Promise.all([chunk.preload(), chunk.preload()]);
    expect(load).toHaveBeenCalledTimes(1);
    // Drawn with the module from its first render: no placeholder once it is here.
    const opened = renderHook(() => chunk.useModule(true));
    expect(opened.result.current.module).toEqual({ name: "calendar" });
    expect(load).toHaveBeenCalledTimes(1);
  });

  it("fetches when first wanted, says when that failed only while wanted, and asks again the next time", async () => {
    const load = vi.fn().mockRejectedValueOnce(new Error("offline")).mockResolvedValue({ name: "form" });
    const chunk = onDemand<{ name: string }>(load);
    const { result, rerender } = renderHook(({ wanted }) => chunk.useModule(wanted), { initialProps: { wanted: true } });
    await waitFor(() => expect(result.current.failed).toBe(true));
    rerender({ wanted: false });
    expect(result.current).toEqual({ module: undefined, failed: false });
    rerender({ wanted: true });
    await waitFor(() => expect(result.current.module).toEqual({ name: "form" }));
    expect(result.current.failed).toBe(false);
    expect(load).toHaveBeenCalledTimes(2);
    await act(async () => {
      await chunk.preload();
    });
    expect(load).toHaveBeenCalledTimes(2);
  });
});
