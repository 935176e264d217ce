/**
 * The parts of the OpenAPI document (openapi/document.ts) the app's API reference page reads, as
 * plain JSON types. zod-openapi types its result as the whole OpenAPI 3.1 model, whose extension
 * fields are `any`; the route answers with this narrower shape so the page's types stay exact.
 */
import type { Access } from "../access-rules";

/** A JSON Schema (2020-12) node, as far as the page renders one. */
export interface SchemaNode {
  type?: string | string[];
  description?: string;
  properties?: Record<string, SchemaNode>;
  required?: string[];
  additionalProperties?: SchemaNode | boolean;
  items?: SchemaNode;
  enum?: (string | number | boolean | null)[];
  const?: string | number | boolean | null;
  default?: JsonValue;
  format?: string;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  anyOf?: SchemaNode[];
  oneOf?: SchemaNode[];
  allOf?: SchemaNode[];
  $ref?: string;
}

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

export interface Reference {
  $ref: string;
}

export interface MediaType {
  schema?: SchemaNode;
  example?: JsonValue;
}

export interface ResponseDescription {
  description: string;
  headers?: Record<string, Reference | { description: string }>;
  content?: Record<string, MediaType>;
}

export interface ParameterDescription {
  in: "path" | "query";
  name: string;
  required: boolean;
  description?: string;
  schema: SchemaNode;
}

export interface OperationDescription {
  operationId: string;
  summary: string;
  description: string;
  tags: string[];
  security: Record<string, string[]>[];
  "x-access": Access;
  "x-api-key-scopes": string[];
  parameters?: ParameterDescription[];
  requestBody?: { required: boolean; content: Record<string, MediaType> };
  responses: Record<string, ResponseDescription | Reference>;
}

export const HTTP_METHODS = ["get", "post", "put", "patch", "delete"] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

export interface ApiDescription {
  openapi: string;
  info: { title: string; version: string; description: string };
  tags: { name: string; description?: string }[];
  paths: Record<string, Partial<Record<HttpMethod, OperationDescription>>>;
  components: {
    schemas?: Record<string, SchemaNode>;
    responses: Record<string, ResponseDescription>;
    securitySchemes: Record<string, { type: string; scheme?: string; in?: string; name?: string; description?: string }>;
  };
}
