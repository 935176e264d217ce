import { z } from "zod";

export const URL_MAX = 2048;

/**
 * A web address visitors are sent to: absolute http(s) only, so a stored value can never become
 * a `javascript:` or `data:` link, with no embedded credentials (`https://bank.example@evil.example`
 * is a phishing trick). Kept as typed, trimmed.
 */
export const httpUrl = (label: string) =>
  z
    .string({ error: `${label} is required` })
    .trim()
    .min(1, `${label} is required`)
    .max(URL_MAX, `${label} must be at most ${URL_MAX} characters`)
    .superRefine((value, ctx) => {
      const problem = httpUrlProblem(value);
      if (problem) ctx.addIssue({ code: "custom", message: `${label} ${problem}` });
    });

function httpUrlProblem(value: string): string | null {
  if (/[\s\u0000-\u001f\u007f]/.test(value)) return "cannot contain spaces or control characters";
  if (!/^https?:\/\//i.test(value)) return "must start with http:// or https://";
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return "is not a valid web address";
  }
  if (!url.hostname) return "must include a host name";
  if (url.username || url.password) return "must not contain a user name or password";
  return null;
}
