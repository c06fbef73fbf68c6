// The typed client of graphmem's HTTP API: types generated from docs/openapi.json
// (openapi-typescript) and openapi-fetch's thin fetch wrapper. Every call carries the
// key the user entered (a key opens one tenant).
import createClient from "openapi-fetch";
import type { components, paths } from "./schema";

export type Schemas = components["schemas"];
export type Entity = Schemas["Entity-Output"];
export type Relationship = Schemas["Relationship-Output"];
export type Subgraph = Schemas["Subgraph"];
export type Turn = Schemas["Turn"];
export type Belief = Schemas["Belief"];
export type BeliefCheck = Schemas["BeliefCheck"];
export type MindFact = Schemas["MindFact-Output"];
export type Problem = Schemas["Problem"];

const KEY_STORE = "graphmem-inspector-key";

export const api = createClient<paths>({ baseUrl: window.location.origin });

let key: string | null = window.sessionStorage.getItem(KEY_STORE);

export function currentKey(): string | null {
  return key;
}

export function setKey(value: string | null): void {
  key = value && value.trim() ? value.trim() : null;
  if (key) window.sessionStorage.setItem(KEY_STORE, key);
  else window.sessionStorage.removeItem(KEY_STORE);
}

api.use({
  onRequest({ request }) {
    if (key) request.headers.set("Authorization", `Bearer ${key}`);
    return request;
  },
});

/** A failed call: the problem document the server answered (status, title, detail). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly problem: Partial<Problem>,
  ) {
    super(`${status} ${problem.title ?? ""}: ${problem.detail ?? ""}`.trim());
  }
}

const listeners: ((error: ApiError) => void)[] = [];

export function onApiError(listener: (error: ApiError) => void): void {
  listeners.push(listener);
}

/** The data of a call, or an ApiError (also told to the listeners, e.g. a 401 asks for a key). */
export async function need<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call;
  if (error !== undefined || data === undefined) {
    const failure = new ApiError(response.status, (error ?? {}) as Partial<Problem>);
    for (const listener of listeners) listener(failure);
    throw failure;
  }
  return data;
}

/** Entity names by id, fetched once (the views print names, not ids). */
const names = new Map<string, string>();

export function nameOf(id: string): string {
  return names.get(id) ?? id;
}

export function remember(entities: readonly Entity[]): void {
  for (const e of entities) names.set(e.id, e.name);
}

export async function loadNames(ids: Iterable<string>): Promise<void> {
  const missing = [...new Set(ids)].filter((id) => !names.has(id));
  for (let i = 0; i < missing.length; i += 200) {
    const chunk = missing.slice(i, i + 200);
    const found = await Promise.all(
      chunk.map((id) =>
        api.GET("/v1/entities/{entity_id}", { params: { path: { entity_id: id } } }).then((r) => r.data),
      ),
    );
    remember(found.filter((e): e is Entity => e !== undefined));
  }
}

export function factText(fact: MindFact): string {
  const subject = nameOf(fact.subject);
  const predicate = fact.predicate.replaceAll("_", " ");
  const object = fact.object != null ? nameOf(fact.object) : JSON.stringify(fact.value);
  return `${subject} ${fact.holds ? "" : "NOT "}${predicate} ${object}`;
}

export function clearNames(): void {
  names.clear();
}
