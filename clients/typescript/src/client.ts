/**
 * A small typed client of graphmem's HTTP API, on plain `fetch` (Node 20+, browsers).
 *
 * Every type comes from `schema.d.ts`, which `npm run generate` makes from graphmem's
 * committed OpenAPI document (`docs/openapi.json`): when the API changes, `tsc` says
 * where this client no longer fits.
 */
import type { components, operations } from "./schema.js";

type Schemas = components["schemas"];
type Body<Op extends keyof operations> = operations[Op] extends {
  requestBody: { content: { "application/json": infer B } };
}
  ? B
  : never;
type Answer<Op extends keyof operations> = operations[Op] extends {
  responses: { 200: { content: { "application/json": infer A } } };
}
  ? A
  : never;

export type Entity = Schemas["Entity-Output"];
export type Relationship = Schemas["Relationship-Output"];
export type Turn = Schemas["Turn"];
export type TurnIn = Schemas["TurnIn"];
export type Branch = Schemas["Branch"];
export type NPCIdentity = Schemas["NPCIdentity"];
export type PerspectiveIdentity = Schemas["PerspectiveIdentity"];
export type Event = Schemas["Event"];
export type Belief = Schemas["Belief"];
export type BeliefCheck = Schemas["BeliefCheck"];
export type Subgraph = Schemas["Subgraph"];
export type ContextResult = Schemas["ContextResult"];
export type GraphAnswer = Schemas["GraphAnswerOut"];
export type Problem = Schemas["Problem"];

/** A graphmem error answer (RFC 9457 problem): `problem.title` names the error class. */
export class GraphmemError extends Error {
  readonly status: number;
  readonly problem: Problem;

  constructor(status: number, problem: Problem) {
    super(`${problem.title}: ${problem.detail}`);
    this.name = "GraphmemError";
    this.status = status;
    this.problem = problem;
  }
}

/** Read at world time `asOf` and / or as the memory stood at `recordedAsOf` (ISO 8601). */
export interface Clocks {
  asOf?: string;
  recordedAsOf?: string;
}

/** Which beliefs: about an entity, of a relation, nested (`of`), every version. */
export interface BeliefQuery extends Clocks {
  about?: string;
  of?: string[];
  predicate?: string;
  history?: boolean;
}

type Query = Record<string, string | number | boolean | string[] | undefined>;

function clocks(options: Clocks): Query {
  return { as_of: options.asOf, recorded_as_of: options.recordedAsOf };
}

export interface ClientOptions {
  /** An API key made by `graphmem keys add` (not needed for a `--tenant` server). */
  apiKey?: string | undefined;
  /** Another fetch (a test double, a proxy); default: the global one. */
  fetch?: typeof fetch | undefined;
}

/** One graphmem server, as one tenant: the tenant its API key opens. */
export class GraphmemClient {
  readonly baseUrl: string;
  private readonly headers: Record<string, string>;
  private readonly fetcher: typeof fetch;

  constructor(baseUrl: string, options: ClientOptions = {}) {
    this.baseUrl = baseUrl.replace(/\/+$/, "");
    this.headers = { Accept: "application/json" };
    if (options.apiKey) this.headers["Authorization"] = `Bearer ${options.apiKey}`;
    this.fetcher = options.fetch ?? fetch;
  }

  private async call<T>(
    method: string,
    path: string,
    body?: unknown,
    query?: Query,
  ): Promise<T> {
    const url = new URL(this.baseUrl + path);
    for (const [key, value] of Object.entries(query ?? {})) {
      if (Array.isArray(value)) for (const item of value) url.searchParams.append(key, item);
      else if (value !== undefined) url.searchParams.set(key, String(value));
    }
    const init: RequestInit = { method, headers: { ...this.headers } };
    if (body !== undefined) {
      init.body = JSON.stringify(body);
      (init.headers as Record<string, string>)["Content-Type"] = "application/json";
    }
    const response = await this.fetcher(url, init);
    const payload: unknown = await response.json();
    if (!response.ok) throw new GraphmemError(response.status, payload as Problem);
    return payload as T;
  }

  /** Insert or replace entities by id, in one batch. */
  async upsertEntities(entities: Body<"upsert_entities">["entities"]): Promise<Entity[]> {
    const answer = await this.call<Answer<"upsert_entities">>("POST", "/v1/entities", { entities });
    return answer.entities;
  }

  /** One entity; a `GraphmemError` (404 NotFound) when there is none. */
  getEntity(entityId: string): Promise<Answer<"get_entity">> {
    return this.call("GET", `/v1/entities/${encodeURIComponent(entityId)}`);
  }

  /** Insert or replace facts between entities, keyed by (source, target, type). */
  async upsertRelationships(
    relationships: Body<"upsert_relationships">["relationships"],
  ): Promise<Relationship[]> {
    const answer = await this.call<Answer<"upsert_relationships">>("POST", "/v1/relationships", {
      relationships,
    });
    return answer.relationships;
  }

  /** Who an NPC is: the entity, its facts both ways, their other ends; now or then. */
  snapshot(npcId: string, options: Clocks = {}): Promise<NPCIdentity> {
    const path = `/v1/npcs/${encodeURIComponent(npcId)}/snapshot`;
    return this.call("GET", path, undefined, clocks(options));
  }

  /** The NPC's snapshot (or, with `perspective`, its beliefs) as prompt text within `maxTokens`. */
  prompt(
    npcId: string,
    maxTokens?: number,
    options: Clocks & { perspective?: boolean } = {},
  ): Promise<Answer<"snapshot_prompt">> {
    return this.call("GET", `/v1/npcs/${encodeURIComponent(npcId)}/prompt`, undefined, {
      max_tokens: maxTokens,
      perspective: options.perspective,
      ...clocks(options),
    });
  }

  /** Who an NPC is as it sees things: its own beliefs, true or not. */
  perspective(npcId: string, options: Clocks = {}): Promise<PerspectiveIdentity> {
    const path = `/v1/npcs/${encodeURIComponent(npcId)}/perspective`;
    return this.call("GET", path, undefined, clocks(options));
  }

  /** Record that something happened: the world changes, and those present believe it. */
  recordEvent(event: Body<"record_event">): Promise<Event> {
    return this.call("POST", "/v1/events", event);
  }

  /**
   * One NPC claims something to another, in private (true or a lie); the listener's
   * beliefs about it afterwards (its trust policy decides whether it believes it).
   */
  async tell(request: Body<"tell">): Promise<Belief[]> {
    const answer = await this.call<Answer<"tell">>("POST", "/v1/tell", request);
    return answer.beliefs;
  }

  /**
   * One NPC claims something in public: everyone at the place (or the `audience`) hears
   * it and knows the others did. The `announced` event; `adopted` says who believed it.
   */
  announce(request: Body<"announce">): Promise<Event> {
    return this.call("POST", "/v1/announce", request);
  }

  /** What an NPC believes (oldest first), now or at the clocks given. */
  async beliefs(npcId: string, query: BeliefQuery = {}): Promise<Belief[]> {
    const answer = await this.call<Answer<"beliefs">>(
      "GET",
      `/v1/npcs/${encodeURIComponent(npcId)}/beliefs`,
      undefined,
      {
        about: query.about,
        of: query.of,
        predicate: query.predicate,
        history: query.history,
        ...clocks(query),
      },
    );
    return answer.beliefs;
  }

  /**
   * An NPC's beliefs beside the world's truth: `truth` is what the world holds for each
   * belief's subject and predicate, and `agrees: false` marks a false belief.
   */
  async checkBeliefs(npcId: string, options: Clocks = {}): Promise<BeliefCheck[]> {
    const path = `/v1/npcs/${encodeURIComponent(npcId)}/beliefs/truth`;
    const answer = await this.call<Answer<"beliefs_beside_truth">>("GET", path, undefined, clocks(options));
    return answer.checks;
  }

  /** An entity's facts (both ways, with provenance and validity) and their other ends; now or then. */
  neighborhood(
    entityId: string,
    options: Clocks & { relTypes?: string[]; nodeTypes?: string[]; includeInvalid?: boolean; limit?: number } = {},
  ): Promise<Subgraph> {
    return this.call("GET", `/v1/entities/${encodeURIComponent(entityId)}/neighborhood`, undefined, {
      rel_types: options.relTypes,
      node_types: options.nodeTypes,
      include_invalid: options.includeInvalid,
      limit: options.limit,
      ...clocks(options),
    });
  }

  /** Append a turn after the conversation's head; it becomes the head. */
  appendTurn(sessionId: string, turn: TurnIn): Promise<Turn> {
    return this.call("POST", `/v1/conversations/${encodeURIComponent(sessionId)}/turns`, turn);
  }

  /** Move the head back to an earlier turn (its id, or the turn_id you gave it). */
  fork(sessionId: string, turn: string): Promise<Turn> {
    return this.call("POST", `/v1/conversations/${encodeURIComponent(sessionId)}/fork`, { turn });
  }

  /** The active branch, oldest first. */
  async history(sessionId: string, limit?: number): Promise<Turn[]> {
    const answer = await this.call<Answer<"history">>(
      "GET",
      `/v1/conversations/${encodeURIComponent(sessionId)}/history`,
      undefined,
      { limit },
    );
    return answer.turns;
  }

  /** Every branch of the conversation: leaf, fork point, length, whether active. */
  async branches(sessionId: string): Promise<Branch[]> {
    const answer = await this.call<Answer<"branches">>(
      "GET",
      `/v1/conversations/${encodeURIComponent(sessionId)}/branches`,
    );
    return answer.branches;
  }

  /** GraphRAG retrieval, every result with its provenance. */
  retrieve(request: Body<"retrieve">): Promise<Answer<"retrieve">> {
    return this.call("POST", "/v1/retrieve", request);
  }

  /** Relate two entities through the governance rules: an edge of the graph once believed. */
  relate(request: Body<"relate">): Promise<Answer<"relate">> {
    return this.call("POST", "/v1/facts/relate", request);
  }

  /** A question about the entity graph, answered by a typed walk with its chain of facts. */
  async ask(request: Body<"ask">): Promise<GraphAnswer[]> {
    const answer = await this.call<Answer<"ask">>("POST", "/v1/ask", request);
    return answer.answers;
  }

  /** Write one governed fact (trust, PII, conflicts, audit). */
  learn(request: Body<"learn">): Promise<Answer<"learn">> {
    return this.call("POST", "/v1/facts", request);
  }
}
