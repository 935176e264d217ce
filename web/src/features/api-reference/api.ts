import { queryOptions, useQuery } from "@tanstack/react-query";
import { api, unwrap } from "@/lib/api";
import type { ApiDescription } from "../../../../worker/src/openapi/description";

/**
 * The API's OpenAPI description (worker/src/openapi): the same for everyone, built once per isolate.
 * The route answers with ApiDescription; the typed client's JSON mapping flattens its recursive
 * schema type after a few levels, so it is named here again.
 */
export const apiDescriptionQuery = queryOptions({
  queryKey: ["openapi"],
  queryFn: async (): Promise<ApiDescription> => (await unwrap(api["openapi.json"].$get())) as ApiDescription,
  staleTime: Infinity,
});
export const useApiDescription = () => useQuery(apiDescriptionQuery);
