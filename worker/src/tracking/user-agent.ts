/**
 * Device type, OS and browser of a click, from its user agent. Parsed when the click batch is
 * written (click-writer.ts), after the visitor has been answered: /r/ itself never parses.
 *
 * ua-parser-js 1.x (MIT; the 2.x line is AGPL) because it names the in-app browsers ad traffic
 * arrives in (TikTok, Facebook, Instagram), which a browser-only detector reports as Safari or
 * Chrome. Its TikTok rule only knows the iOS app; the Android app ("trill" / "musical_ly") is
 * added below.
 */
import UAParser from "ua-parser-js";

export interface ParsedAgent {
  /** "Mobile", "Tablet", "Desktop", "Smart TV", ...; null when the agent does not say. */
  deviceType: string | null;
  /** Name only ("iOS", "Android", "Windows"): versions would split the groupings into slivers. */
  os: string | null;
  browser: string | null;
}

/** Checked before the library's own rules (ua-parser-js puts extensions first). */
const EXTENSIONS = {
  browser: [
    [/\b(?:trill|musical_ly)_(\d[\w.]*)/i, /\bAppName\/(?:trill|musical_ly)\b/i],
    [["name", "TikTok"], "version"],
  ],
};

const DEVICE_LABELS: Record<string, string> = {
  mobile: "Mobile",
  tablet: "Tablet",
  smarttv: "Smart TV",
  console: "Console",
  wearable: "Wearable",
  embedded: "Embedded",
};

/** The library leaves a computer's device type empty; these systems only run on one. */
const DESKTOP_OS = /^(windows|mac os|linux|ubuntu|debian|fedora|chromium os|freebsd|openbsd|netbsd|solaris|unix|mint|suse|red ?hat|centos|arch|gentoo)/i;

/** Longest stored label: the groupings show these, and odd agents can carry odd names. */
const LABEL_MAX = 64;
const label = (v: string | undefined) => (v ? v.trim().slice(0, LABEL_MAX) || null : null);

export function parseUserAgent(ua: string | null | undefined): ParsedAgent {
  if (!ua) return { deviceType: null, os: null, browser: null };
  let result: UAParser.IResult;
  try {
    result = new UAParser(ua, EXTENSIONS).getResult();
  } catch {
    // The parser is regular expressions over a string; a throw would be its bug, not the visitor's.
    return { deviceType: null, os: null, browser: null };
  }
  const os = label(result.os.name);
  const type = result.device.type;
  const deviceType = type ? (DEVICE_LABELS[type] ?? label(type)) : os && DESKTOP_OS.test(os) ? "Desktop" : null;
  return { deviceType, os, browser: label(result.browser.name) };
}
