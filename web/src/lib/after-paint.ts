import { useEffect, useState } from "react";

/**
 * False until the browser has painted the component's first render, then true: for what may wait
 * until the screen's own content is on screen (Stats' chart, whose library is the largest script
 * the app loads: docs/screens.md "First load: the screen's data in its document").
 */
export function useAfterFirstPaint(): boolean {
  const [painted, setPainted] = useState(false);
  useEffect(() => {
    // The frame after this one has begun once the current one was painted.
    let frame = requestAnimationFrame(() => (frame = requestAnimationFrame(() => setPainted(true))));
    return () => cancelAnimationFrame(frame);
  }, []);
  return painted;
}
