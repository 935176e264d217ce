import { z } from "zod";
import { httpUrl } from "./http-url";

export const NAME_MAX = 255;

const landerName = z.string({ error: "Name is required" }).trim().min(1, "Name is required").max(NAME_MAX, `Name must be at most ${NAME_MAX} characters`);

export const createLanderSchema = z.object({ name: landerName, url: httpUrl("URL") });
export type CreateLanderInput = z.input<typeof createLanderSchema>;

export const updateLanderSchema = createLanderSchema.partial().refine((v) => v.name !== undefined || v.url !== undefined, "Send a name or a URL to change");
export type UpdateLanderInput = z.input<typeof updateLanderSchema>;
