import type { Email } from "postal-mime";
import { acceptedRecipients, acceptedSenders, RECIPIENTS_EMPTY, recipientAccepted, SENDERS_UNSET, sendersUnset } from "../codes/config";
import { forgetCodesVersion } from "../codes/version";
import { findCode, parseMail } from "../codes/read-mail";
import { insertCode } from "../db/queries/codes";
import type { Bindings } from "../env";
import { createDb } from "../middleware/database";

/**
 * The largest message the inbox reads: 5 MiB. Code emails are a few tens of KB; Email Routing
 * itself allows 25 MiB, but parsing that much buys nothing here and costs memory and CPU, so
 * bigger mail is refused before a byte of it is read.
 */
export const MAX_MESSAGE_BYTES = 5 * 1024 * 1024;
const TOO_LARGE = `Message too large: the verification-code inbox accepts up to ${MAX_MESSAGE_BYTES / 1024 / 1024} MiB`;
export const MAX_SUBJECT_LENGTH = 200;
const MAX_SENDER_LENGTH = 254;
/** Message-IDs longer than this are stored as a hash: the unique index stays small and exact. */
const MAX_MESSAGE_ID_LENGTH = 250;
/** A Date header older than this, or unreadable, is not believed: the arrival time is used. */
const PLAUSIBLE_AGE_MS = 30 * 24 * 60 * 60 * 1000;

/**
 * Email Routing's entry point (`email()` in index.ts): accepts mail for CODES_RECIPIENTS only (and,
 * when CODES_SENDERS is set, from those forwarding mailboxes only; unset, it logs so with each message),
 * refuses oversized mail, and stores the verification code of each message once. Nothing a
 * message contains can make it throw: a message that cannot be read is logged and dropped.
 * A storage failure is not swallowed: the delivery fails rather than lose a code silently (a
 * redelivered message is deduplicated by its Message-ID).
 */
export async function handleEmail(message: ForwardableEmailMessage, env: Bindings): Promise<void> {
  const recipients = acceptedRecipients(env.CODES_RECIPIENTS);
  if (!recipientAccepted(recipients, message.to)) {
    message.setReject("Recipient not accepted: this address does not receive verification codes");
    console.log(
      recipients.kind === "none" ? `codes: rejected a message because ${RECIPIENTS_EMPTY}` : "codes: rejected a message for an address not in CODES_RECIPIENTS",
    );
    return;
  }
  const senderAllowed = acceptedSenders(env.CODES_SENDERS);
  // Said with every message it lets in, so the log shows it wherever one is read (and the Codes screen tells admins).
  if (sendersUnset(env.CODES_SENDERS)) console.log(`codes: ${SENDERS_UNSET}`);
  if (senderAllowed && !senderAllowed(message.from)) {
    message.setReject("Sender not accepted: this inbox takes mail only from its forwarding mailboxes");
    console.log("codes: rejected a message from a sender not in CODES_SENDERS");
    return;
  }
  if (message.rawSize > MAX_MESSAGE_BYTES) {
    message.setReject(TOO_LARGE);
    console.log(`codes: rejected a message of ${message.rawSize} bytes`);
    return;
  }

  let email: Email;
  let code: string | null;
  try {
    const raw = await readAtMost(message.raw, MAX_MESSAGE_BYTES);
    if (!raw) {
      message.setReject(TOO_LARGE);
      console.log("codes: rejected a message larger than its declared size");
      return;
    }
    email = await parseMail(raw);
    code = await findCode(email);
  } catch (err) {
    // Never the error's message: it can quote the mail it failed on.
    console.log(`codes: unreadable message dropped (${err instanceof Error ? err.name : "unknown error"})`);
    return;
  }
  if (!code) {
    console.log("codes: message without a verification code, not stored");
    return;
  }

  const now = Date.now();
  const stored = await insertCode(createDb(env.DB), {
    code,
    subject: cut(oneLine(email.subject ?? ""), MAX_SUBJECT_LENGTH),
    sender: cut(senderOf(email) ?? message.from, MAX_SENDER_LENGTH),
    messageId: await messageIdOf(email, message.headers),
    receivedAt: receivedAt(email.date, now),
    extractedAt: now,
  });
  if (stored) forgetCodesVersion();
  console.log(stored ? "codes: stored a verification code" : "codes: duplicate message (same Message-ID), already stored");
}

/** The whole stream, or null as soon as it passes `limit` bytes. */
async function readAtMost(stream: ReadableStream<Uint8Array>, limit: number): Promise<Uint8Array | null> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      return null;
    }
    chunks.push(value);
  }
  const raw = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    raw.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return raw;
}

const oneLine = (text: string) => text.replace(/\s+/g, " ").trim();

/** Cuts on code points, so a cut never leaves half a surrogate pair. */
function cut(text: string, max: number) {
  const points = Array.from(text);
  return points.length <= max ? text : `${points.slice(0, max - 1).join("")}…`;
}

/** The From header's address (the service, even through Gmail auto-forwarding, which rewrites only the envelope). */
function senderOf(email: Email): string | null {
  const from = email.from;
  if (!from) return null;
  const address = from.address ?? from.group?.[0]?.address;
  return address?.trim() || null;
}

async function messageIdOf(email: Email, headers: Headers): Promise<string | null> {
  const id = (email.messageId ?? headers.get("message-id") ?? "").trim();
  if (!id) return null;
  if (id.length <= MAX_MESSAGE_ID_LENGTH) return id;
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(id));
  return `sha256:${[...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("")}`;
}

/** The message's Date when it is believable; a date in the future is clock skew and becomes now. */
function receivedAt(date: string | undefined, now: number): number {
  const ms = date ? Date.parse(date) : Number.NaN;
  if (!Number.isFinite(ms) || ms < now - PLAUSIBLE_AGE_MS) return now;
  return Math.min(ms, now);
}
