/**
 * The boot data's contract, with no runtime dependencies (the web app's entry imports it): the
 * Worker puts the answers of these calls in the app's document (lib/boot-data.ts), and the web
 * app seeds its query cache with them (web/src/app/boot-data.ts). Each part is its call's answer
 * exactly.
 */
export const BOOT_ELEMENT_ID = "trackyard-boot";

/** Each part and the API call whose answer it is. */
export const BOOT_CALLS = { user: "/api/user", reportTimeZone: "/api/settings/report-time-zone" } as const;
export type BootPart = keyof typeof BOOT_CALLS;
