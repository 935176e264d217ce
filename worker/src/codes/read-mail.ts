import PostalMime, { type Email, type RawEmail } from "postal-mime";
import { extractCode } from "./extract";

/**
 * Parse limits for untrusted mail. postal-mime's defaults allow 256 nested parts and 2 MiB of
 * headers; a code email needs a fraction of that, and less nesting means less work per message.
 */
const PARSE_LIMITS = { maxNestingDepth: 50, maxHeadersSize: 512 * 1024, maxRfc822NestingDepth: 3 };
/** Messages forwarded as attachments that are opened, at most, in one mail. */
const MAX_ATTACHED_MESSAGES = 3;

export const parseMail = (raw: RawEmail): Promise<Email> => PostalMime.parse(raw, PARSE_LIMITS);

/**
 * The code in a parsed message, looking into messages forwarded as attachments too: postal-mime
 * inlines a `message/rfc822` part only when it is not marked `Content-Disposition: attachment`,
 * and "Forward as attachment" in Gmail and Outlook marks it so.
 */
export async function findCode(email: Email): Promise<string | null> {
  const code = extractCode(email);
  if (code) return code;
  const attached = email.attachments.filter((a) => a.mimeType === "message/rfc822").slice(0, MAX_ATTACHED_MESSAGES);
  for (const attachment of attached) {
    const content = attachment.content;
    const inner = await parseMail(typeof content === "string" ? content : new Uint8Array(content));
    const innerCode = extractCode(inner);
    if (innerCode) return innerCode;
  }
  return null;
}

/** Parses raw mail and returns its code, or null. */
export const readCode = async (raw: RawEmail) => findCode(await parseMail(raw));
