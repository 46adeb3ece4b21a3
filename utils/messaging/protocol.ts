/**
 * How a message is declared, once: who may send it, its request as a zod schema, and the type of
 * its reply. Each feature declares its own messages with `message()` in `<feature>.messages.ts`;
 * features/protocol.ts joins them into the one map from which the router's check
 * (entrypoints/background/router.ts), the handlers' types and the senders' types all come.
 *
 * Only `import type` of zod here, and the content script imports this file's types only: zod stays
 * out of the page's bundle.
 */
import type { z } from 'zod';

/**
 * Who may send a message: `extension` — the extension's own pages (popup, options, confirmation
 * window); `page` — a tracker page's content script, speaking for its own tab only.
 */
export type Sender = 'extension' | 'page';

/** Where a content script's message came from: taken from the browser, never from the message. */
export interface PageOrigin {
  tabId: number;
  url: string;
}

declare const replyType: unique symbol;

export interface MessageDeclaration<From extends Sender = Sender, Request extends z.ZodType = z.ZodType, Reply = unknown> {
  readonly from: From;
  /** Checked by the router before any handler runs (the `type` field aside); anything else is dropped unanswered. */
  readonly request: Request;
  /** The reply's type (no value: types only). */
  readonly [replyType]?: Reply;
}

/** `message<Reply>()('extension', z.object({...}))`: the reply type first, as it cannot be inferred. */
export function message<Reply>() {
  return <From extends Sender, Request extends z.ZodType>(from: From, request: Request): MessageDeclaration<From, Request, Reply> => ({ from, request });
}

export type MessageMap = Record<string, MessageDeclaration>;

export type RequestOf<D> = D extends MessageDeclaration<Sender, infer Request, unknown> ? z.output<Request> : never;
/** What a sender writes: the schema's input (fields with defaults may be left out). */
export type SentRequestOf<D> = D extends MessageDeclaration<Sender, infer Request, unknown> ? z.input<Request> : never;
export type ReplyOf<D> = D extends MessageDeclaration<Sender, z.ZodType, infer Reply> ? Reply : never;

/** One handler per message of a map, typed from its declaration; a page's message also gets where it came from. */
export type Handlers<M extends MessageMap> = {
  [K in keyof M]: M[K] extends MessageDeclaration<'page'>
    ? (request: RequestOf<M[K]>, from: PageOrigin) => Promise<ReplyOf<M[K]>>
    : (request: RequestOf<M[K]>) => Promise<ReplyOf<M[K]>>;
};

/**
 * An event the background sends (a broadcast to the extension's pages, or to one tab's content
 * script): its type and body, declared beside the feature's messages. Events are not requests:
 * nothing answers them, and they carry what changed, never a reply to a message.
 */
export interface EventDeclaration<To extends 'extension' | 'tab' = 'extension' | 'tab', Body = unknown> {
  readonly to: To;
  readonly [replyType]?: Body;
}

export function event<Body>() {
  return <To extends 'extension' | 'tab'>(to: To): EventDeclaration<To, Body> => ({ to });
}

export type EventBody<D> = D extends EventDeclaration<'extension' | 'tab', infer Body> ? Body : never;
