import { useEffect, useState } from "react";

/** The current time, refreshed every `ms`, so relative times ("5 seconds ago") keep moving. */
export function useNow(ms = 10_000) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(t);
  }, [ms]);
  return now;
}
