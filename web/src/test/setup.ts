import { cleanup, configure } from "@testing-library/react";
import { afterAll, afterEach } from "vitest";

// findBy… and waitFor give up after 1 s by default: on a loaded 2-core CI machine a screen's
// render after its (mocked) fetch took longer. They still return as soon as the screen is there.
configure({ asyncUtilTimeout: 10_000 });

afterEach(() => {
  cleanup();
  document.cookie = "sidebar_state=; max-age=0; path=/";
});

// A file shares its Vitest worker's window with the files before and after it (isolate: false in
// vitest.config.ts): it leaves no storage, address or cookie behind.
afterAll(() => {
  localStorage.clear();
  sessionStorage.clear();
  window.history.replaceState(null, "", "/");
  for (const cookie of document.cookie.split(";")) {
    const name = cookie.split("=")[0]!.trim();
    if (name) document.cookie = `${name}=; max-age=0; path=/`;
  }
});
