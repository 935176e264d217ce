import { z } from "zod";
import { isCommonPassword } from "./common-passwords";

export const USERNAME_MAX = 64;
export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 256;

/** What sign-in accepts: bounded so a 10,000-character username is a clear 400, not work. */
export const loginSchema = z.object({
  username: z
    .string({ error: "Username is required" })
    .trim()
    .min(1, "Username is required")
    .max(USERNAME_MAX, `Username must be at most ${USERNAME_MAX} characters`),
  password: z.string({ error: "Password is required" }).min(1, "Password is required").max(PASSWORD_MAX, `Password must be at most ${PASSWORD_MAX} characters`),
});
export type LoginInput = z.infer<typeof loginSchema>;

/** Rules for a new username. */
export const newUsername = z
  .string({ error: "Username is required" })
  .trim()
  .min(3, "Username must be at least 3 characters")
  .max(USERNAME_MAX, `Username must be at most ${USERNAME_MAX} characters`)
  .regex(/^[A-Za-z0-9._@-]+$/, "Username may only contain letters, digits, dots, dashes, underscores and @");

/** Rules for a new password (docs/product-rules.md: 8 to 256 characters, and none of the most common ones). */
export const newPassword = z
  .string({ error: "Password is required" })
  .min(PASSWORD_MIN, `Password must be at least ${PASSWORD_MIN} characters`)
  .max(PASSWORD_MAX, `Password must be at most ${PASSWORD_MAX} characters`)
  .refine((v) => !isCommonPassword(v), "This password is one of the most common ones: choose another");

export const registerSchema = z.object({
  username: newUsername,
  password: newPassword,
  /** The deployment's SETUP_TOKEN secret, where one is set. */
  setupToken: z.string().trim().max(256, "The setup token is at most 256 characters").optional(),
});
export type RegisterInput = z.infer<typeof registerSchema>;

/** The second sign-in step: a 6-digit code from the app, or a recovery code (xxxxx-xxxxx). */
export const secondFactorSchema = z.object({
  code: z
    .string({ error: "Enter the 6-digit code from your app or a recovery code" })
    .trim()
    .min(1, "Enter the 6-digit code from your app or a recovery code")
    .max(32, "Enter the 6-digit code from your app or a recovery code"),
});

/** The code that confirms an authenticator app was set up. */
export const totpCodeSchema = z.object({
  code: z
    .string({ error: "Enter the 6-digit code from your app" })
    .trim()
    .transform((v) => v.replace(/\s/g, ""))
    .pipe(z.string().regex(/^\d{6}$/, "Enter the 6-digit code from your app")),
});

/** The current code where two-factor sign-in is on: 6 digits or a recovery code; the server says when it is missing. */
const currentCode = z.string().trim().max(32, "Enter the 6-digit code from your app or a recovery code").optional();

const currentPassword = (required: string) =>
  z.string({ error: required }).min(1, required).max(PASSWORD_MAX, `Password must be at most ${PASSWORD_MAX} characters`);

export const changePasswordSchema = z.object({
  currentPassword: currentPassword("Current password is required"),
  /** Needed when two-factor sign-in is on. */
  code: currentCode,
  newPassword: newPassword,
});
export type ChangePasswordInput = z.infer<typeof changePasswordSchema>;

/**
 * Proof it is the account's owner (auth/reauth.ts): the password, and the current code where
 * two-factor sign-in is on. Setting up or turning off two-factor sign-in, and re-authenticating an
 * admin session, ask for it.
 */
export const ownFactorsSchema = z.object({
  password: currentPassword("Password is required"),
  code: currentCode,
});
export type OwnFactorsInput = z.infer<typeof ownFactorsSchema>;
