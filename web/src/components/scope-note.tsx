import { queryOptions, useQuery } from "@tanstack/react-query";
import type { InferResponseType } from "hono/client";
import { Info } from "lucide-react";
import { api, unwrap } from "@/lib/api";
import { isAdmin, useUser } from "@/lib/auth";

export type UserScope = InferResponseType<typeof api.user.scope.$get, 200>;

/**
 * What limits the signed-in member's view (GET /api/user/scope). Assignments are not part of the
 * access key every answer carries (that key is only what the session load reads), so the note
 * asks again every 30 seconds while it is shown, as Stats refreshes its figures.
 */
export const userScopeQuery = queryOptions({
  queryKey: ["user", "scope"],
  queryFn: () => unwrap(api.user.scope.$get()),
  refetchInterval: 30_000,
});

/** A member's scope; nothing for admins, who see everything. */
export function useUserScope() {
  const { data: user } = useUser();
  return useQuery({ ...userScopeQuery, enabled: !!user && !isAdmin(user) });
}

export type ScopeKind = "mediaBuyers" | "cards" | "sparks";

const SHOWN = 8;
const list = (names: string[]) => (names.length <= SHOWN ? names.join(", ") : `${names.slice(0, SHOWN).join(", ")} and ${names.length - SHOWN} more`);

/** The sentence for a member whose view of `kind` is limited to `names`. */
export function scopeSentence(kind: ScopeKind, names: string[]): string {
  switch (kind) {
    case "mediaBuyers":
      return names.length
        ? `You see the traffic and revenue of the media buyers an admin assigned to you: ${list(names)}.`
        : "No media buyers are assigned to you yet, so there is nothing to show here; an admin assigns them on Users.";
    case "cards":
      return names.length
        ? `You see the transactions of the cards an admin assigned to you: ${list(names)}.`
        : "No cards are assigned to you yet, so there is nothing to show here; an admin assigns them on Users.";
    case "sparks":
      return names.length
        ? `You see the sparks assigned to you and those you create: ${list(names)}.`
        : "No sparks are assigned to you yet; a spark you create is yours, and an admin assigns others on Users.";
  }
}

/**
 * The line a member reads above a screen whose data is scoped to them (docs/product-rules.md
 * "Who may do what"): what it is limited to, and who changes that. Nothing for admins.
 */
export function ScopeNote({ kind }: { kind: ScopeKind }) {
  const scope = useUserScope();
  const data = scope.data;
  if (!data?.scoped) return null;
  const names = kind === "mediaBuyers" ? data.mediaBuyers : kind === "cards" ? data.vcnNicknames : data.sparks;
  return (
    <p role="note" className="flex items-start gap-2 rounded-md bg-slate-50 px-3 py-2 text-sm text-slate-600 ring-1 ring-inset ring-slate-200">
      <Info className="mt-0.5 size-4 shrink-0 text-slate-400" aria-hidden="true" />
      <span>{scopeSentence(kind, names)}</span>
    </p>
  );
}
