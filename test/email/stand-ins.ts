// vitest globalSetup, runs in Node: a real SMTP server and an HTTP server standing in for a Resend-style
// email API, both on 127.0.0.1, plus a control API (on the HTTP server) the tests in workerd call to
// read what arrived and to make the next deliveries to a recipient fail or wait.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import type { TestProject } from 'vitest/node';
import { HTTP_API_KEY, type ReceivedEmail, SMTP_PASSWORD, SMTP_USER } from './stand-in-contract';

declare module 'vitest' {
  interface ProvidedContext {
    emailSmtpPort: number;
    emailHttpPort: number;
  }
}

const received: ReceivedEmail[] = [];
/** Recipient → how many of the next deliveries fail and with which reply code / HTTP status. */
const failures = new Map<string, { channel: 'smtp' | 'http'; count: number; code: number }>();
/** Recipient → HTTP deliveries waiting for `release`. */
const held = new Map<string, { waiting: (() => void)[]; released: boolean }>();

function takeFailure(channel: 'smtp' | 'http', recipient: string): number | undefined {
  const rule = failures.get(recipient);
  if (!rule || rule.channel !== channel || rule.count <= 0) return undefined;
  rule.count -= 1;
  return rule.code;
}

function decodeQuotedPrintable(value: string): string {
  const bytes = value.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  return Buffer.from(bytes, 'latin1').toString('utf8');
}

function decodeHeader(value: string): string {
  return value.replace(/=\?UTF-8\?([BQ])\?([^?]*)\?=/gi, (_, encoding: string, text: string) =>
    encoding.toUpperCase() === 'B' ? Buffer.from(text, 'base64').toString('utf8') : decodeQuotedPrintable(text.replace(/_/g, ' ')),
  );
}

/** Just enough MIME for worker-mailer's multipart/alternative with quoted-printable parts. */
function parseMime(raw: string): Pick<ReceivedEmail, 'subject' | 'text' | 'html'> {
  const [head] = raw.split(/\r?\n\r?\n/);
  const subject = /^Subject: (.*(?:\r?\n[ \t].*)*)/im.exec(head)?.[1].replace(/\r?\n[ \t]/g, '') ?? '';
  const parts: Record<string, string> = {};
  for (const match of raw.matchAll(/Content-Type: text\/(plain|html)[^\r\n]*\r?\n(?:[^\r\n]+\r?\n)*\r?\n([\s\S]*?)\r?\n\r?\n--/g)) {
    parts[match[1]] = decodeQuotedPrintable(match[2]);
  }
  return { subject: decodeHeader(subject), text: parts.plain, html: parts.html };
}

function startSmtp(): Promise<SMTPServer & { port: number }> {
  const server = new SMTPServer({
    authOptional: true,
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === SMTP_USER && auth.password === SMTP_PASSWORD) callback(null, { user: auth.username });
      else callback(Object.assign(new Error('Invalid username or password'), { responseCode: 535 }));
    },
    onRcptTo(address, _session, callback) {
      const code = takeFailure('smtp', address.address);
      if (code) callback(Object.assign(new Error(`Stand-in refuses ${address.address}`), { responseCode: code }));
      else callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        received.push({
          channel: 'smtp',
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          credential: typeof session.user === 'string' ? session.user : undefined,
          ...parseMime(Buffer.concat(chunks).toString('latin1')),
        });
        callback();
      });
    },
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const port = (server.server.address() as AddressInfo).port;
      resolve(Object.assign(server, { port }));
    });
  });
}

async function readJson(req: IncomingMessage): Promise<any> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : {};
}

function answer(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify(body));
}

async function handleHttp(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  if (req.method === 'POST' && url.pathname === '/emails') {
    const body = await readJson(req);
    const recipient: string = body.to?.[0] ?? '';
    const hold = held.get(recipient);
    if (hold && !hold.released) await new Promise<void>((resolve) => hold.waiting.push(resolve));
    const code = takeFailure('http', recipient);
    if (code) return answer(res, code, { message: `stand-in answers ${code}` });
    if (req.headers.authorization !== `Bearer ${HTTP_API_KEY}`) return answer(res, 401, { message: 'bad API key' });
    received.push({
      channel: 'http',
      from: body.from,
      to: body.to,
      subject: body.subject,
      text: body.text,
      html: body.html,
      credential: req.headers.authorization,
    });
    return answer(res, 200, { id: `stand-in-${received.length}` });
  }
  if (req.method === 'GET' && url.pathname === '/control/received') {
    const to = url.searchParams.get('to');
    return answer(
      res,
      200,
      received.filter((m) => m.to.includes(to ?? '')),
    );
  }
  if (req.method === 'POST' && url.pathname === '/control/fail') {
    const { channel, recipient, count, code } = await readJson(req);
    failures.set(recipient, { channel, count, code });
    return answer(res, 200, {});
  }
  if (req.method === 'POST' && url.pathname === '/control/hold') {
    const { recipient } = await readJson(req);
    held.set(recipient, { waiting: [], released: false });
    return answer(res, 200, {});
  }
  if (req.method === 'GET' && url.pathname === '/control/held') {
    return answer(res, 200, { waiting: held.get(url.searchParams.get('to') ?? '')?.waiting.length ?? 0 });
  }
  if (req.method === 'POST' && url.pathname === '/control/release') {
    const { recipient } = await readJson(req);
    const hold = held.get(recipient);
    if (hold) {
      hold.released = true;
      hold.waiting.splice(0).forEach((release) => release());
    }
    return answer(res, 200, {});
  }
  answer(res, 404, { message: 'no such stand-in route' });
}

export default async function setup(project: TestProject) {
  const smtp = await startSmtp();
  const http = createServer((req, res) => {
    handleHttp(req, res).catch((error) => answer(res, 500, { message: String(error) }));
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  project.provide('emailSmtpPort', smtp.port);
  project.provide('emailHttpPort', (http.address() as AddressInfo).port);
  return async () => {
    held.forEach((hold) => hold.waiting.splice(0).forEach((release) => release()));
    await new Promise<void>((resolve) => smtp.close(() => resolve()));
    await new Promise<void>((resolve) => http.close(() => resolve()));
  };
}
