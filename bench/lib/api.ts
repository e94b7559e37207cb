// Calls against the local stack's API, and autocannon runs in a child process.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { root } from './report';

export interface AutocannonResult {
  latency: { p50: number; p99: number; average: number; max: number };
  requests: { average: number; total: number };
  non2xx: number;
  errors: number;
  timeouts: number;
  '2xx': number;
  duration: number;
}

// HTTP helpers against the stack

export function multipartBody(fields: Record<string, string | { filename: string; content: string }>): { contentType: string; body: Buffer } {
  const boundary = `----bench${randomUUID().replace(/-/g, '')}`;
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) {
    if (typeof value === 'object') {
      parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"; filename="${value.filename}"\r\nContent-Type: text/csv\r\n\r\n`), Buffer.from(value.content), Buffer.from('\r\n'));
    } else {
      parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
    }
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { contentType: `multipart/form-data; boundary=${boundary}`, body: Buffer.concat(parts) };
}

export class Api {
  constructor(
    readonly base: string,
    readonly headers: Record<string, string>,
  ) {}

  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  async call(method: string, path: string, options: { query?: Record<string, string | number>; form?: Record<string, string | { filename: string; content: string }>; json?: unknown } = {}): Promise<{ status: number; body: any }> {
    const url = new URL(path, this.base);
    for (const [key, value] of Object.entries(options.query ?? {})) url.searchParams.set(key, String(value));
    const init: RequestInit = { method, headers: { ...this.headers } };
    if (options.form) {
      const { contentType, body } = multipartBody(options.form);
      init.headers = { ...this.headers, 'Content-Type': contentType };
      init.body = body;
    } else if (options.json !== undefined) {
      init.headers = { ...this.headers, 'Content-Type': 'application/json' };
      init.body = JSON.stringify(options.json);
    }
    const response = await fetch(url, init);
    const text = await response.text();
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    let body: any = text;
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON
    }
    return { status: response.status, body };
  }

  async ok(method: string, path: string, options: Parameters<Api['call']>[2] = {}) {
    const result = await this.call(method, path, options);
    if (result.status !== 200) throw new Error(`${method} ${path} answered ${result.status}: ${JSON.stringify(result.body).slice(0, 400)}`);
    return result.body;
  }

  /** Every record of a list, following `next_cursor` (the load scenarios leave thousands of contact types). */
  async listAll<T>(path: string, key: string): Promise<T[]> {
    const records: T[] = [];
    let cursor: string | null = null;
    do {
      const body = await this.ok('GET', path, { query: { limit: 1000, ...(cursor ? { cursor } : {}) } });
      records.push(...((body.message?.[key] ?? []) as T[]));
      cursor = (body.message?.next_cursor ?? null) as string | null;
    } while (cursor);
    return records;
  }

  async contactTypeId(name: string): Promise<number> {
    const list = await this.listAll<{ id: number; name: string }>('contacts-type', 'contactTypes');
    const found = list.filter((type) => type.name === name).sort((a, b) => b.id - a.id)[0];
    if (!found) throw new Error(`contact type '${name}' not in the list`);
    return found.id;
  }

  async contactId(email: string): Promise<number> {
    const list = await this.listAll<{ id: number; email: string }>('contacts/list', 'contacts');
    const found = list.find((contact) => contact.email === email);
    if (!found) throw new Error(`contact '${email}' not in the list`);
    return found.id;
  }
}

/** One autocannon run in a child process (bench/lib/load.cjs), so the load generator does not share the stack's event loop. */
export function loadInChild(options: Record<string, unknown>): Promise<AutocannonResult> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [join(root, 'bench/lib/load.cjs'), JSON.stringify(options)], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (code) => {
      if (code !== 0) fail(new Error(`autocannon exited ${code}: ${stderr.slice(-400)}`));
      else done(JSON.parse(stdout) as AutocannonResult);
    });
  });
}
