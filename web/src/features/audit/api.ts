import { keepPreviousData, useQuery } from "@tanstack/react-query";
import type { InferResponseType } from "hono/client";
import { api, unwrap } from "@/lib/api";
import { usersQuery } from "@/lib/entities";
import type { DayRange } from "@/lib/date-ranges";
import type { AuditKind } from "../../../../worker/src/schemas/audit";

export type AuditEntry = InferResponseType<typeof api.audit.$get, 200>["entries"][number];

export interface AuditFilters {
  range: DayRange;
  /** "all" or a user id. */
  userId: string;
  /** "all" or an entity kind. */
  entityKind: "all" | AuditKind;
}

/** The query parameters the list and the CSV export share; "all" is no filter. */
export const auditParams = ({ range, userId, entityKind }: AuditFilters) => ({
  ...range,
  ...(userId !== "all" && { userId }),
  ...(entityKind !== "all" && { entityKind }),
});

export function useAuditLog(filters: AuditFilters, page: number) {
  return useQuery({
    queryKey: ["audit", filters, page],
    queryFn: () => unwrap(api.audit.$get({ query: { ...auditParams(filters), page: String(page) } })),
    placeholderData: keepPreviousData,
  });
}

/** Who to filter by (the same list and cache as the Users screen's). */
export const useUserChoices = () => useQuery(usersQuery);

export const auditExportUrl = (filters: AuditFilters) => `/api/audit/export?${new URLSearchParams(auditParams(filters))}`;
