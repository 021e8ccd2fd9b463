/**
 * What both pages share: calls to the servers' JSON APIs, their problem+json
 * refusals as errors with a code, and small DOM helpers. Amounts arrive as
 * JSON numbers written exactly by the server; they are shown as that text,
 * never computed with.
 */
export class ApiProblem extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    detail: string,
  ) {
    super(detail);
  }
}

export async function api<T>(method: 'GET' | 'POST', path: string, body?: unknown, token?: string): Promise<T> {
  const headers: Record<string, string> = {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (token !== undefined) headers.authorization = `Bearer ${token}`;
  const answer = await fetch(path, { method, headers, ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }) });
  const text = await answer.text();
  let value: unknown;
  try {
    value = text === '' ? undefined : JSON.parse(text);
  } catch {
    throw new ApiProblem(answer.status, 'INVALID_ANSWER', `${path} answered ${answer.status} with no JSON`);
  }
  if (!answer.ok) {
    const problem = (value ?? {}) as { code?: string; detail?: string };
    throw new ApiProblem(answer.status, problem.code ?? `HTTP_${answer.status}`, problem.detail ?? `${path} answered ${answer.status}`);
  }
  return value as T;
}

export interface Player {
  playerId: string;
  currency: string;
  balance: number;
  blocked: boolean;
  country?: string;
}

/** The element with this id, which the page's HTML must have. */
export function $<E extends HTMLElement = HTMLElement>(id: string): E {
  const element = document.getElementById(id);
  if (!element) throw new Error(`the page has no #${id}`);
  return element as E;
}

/** An element with text and attributes; children appended in order. */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> = {},
  ...children: (Node | string)[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, value);
  node.append(...children);
  return node;
}

/** An amount as the server wrote it, with its currency. */
export function money(amount: number, currency: string): string {
  return `${String(amount)} ${currency}`;
}

/** Tells the person what went wrong, in a live region, by the code the server gave. */
export function report(region: HTMLElement, error: unknown): void {
  const text = error instanceof ApiProblem ? `${error.code}: ${error.message}` : String((error as Error).message ?? error);
  region.textContent = text;
  region.hidden = false;
}

/** A form's fields by name, as trimmed text. */
export function fields(form: HTMLFormElement): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of new FormData(form)) out[name] = String(value).trim();
  return out;
}
