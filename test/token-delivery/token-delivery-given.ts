// The outside services token messages go to, real and local: a fake of Twilio's Messages API
// (an HTTP server on 127.0.0.1 that checks what Twilio checks and answers as Twilio does) and a
// real SMTP server (smtp-server) that receives each message and lets the test read it.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface ReceivedSms {
  to: string;
  from: string;
  body: string;
}

export interface TwilioFake {
  baseUrl: string;
  accountSid: string;
  authToken: string;
  /** Every message it accepted (201). */
  received: ReceivedSms[];
  /** Every request that reached the Messages path, whatever it was answered. */
  requests: number;
  /** The next requests are answered with these statuses (Twilio's error JSON) instead of 201, in order. */
  failNext(...answers: Array<{ status: number; code: number }>): void;
  /** Resolves with the next message accepted. */
  nextMessage(): Promise<ReceivedSms>;
  /** Each accepted message is answered this many ms after it arrived (a slow carrier). */
  answerDelayMs: number;
  env(): Record<string, string>;
  close(): Promise<void>;
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function twilioError(status: number, code: number, message: string) {
  return { code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status };
}

export async function startTwilioFake(): Promise<TwilioFake> {
  const accountSid = `AC${randomBytes(16).toString('hex')}`;
  const authToken = randomBytes(16).toString('hex');
  const scripted: Array<{ status: number; code: number }> = [];
  const waiting: Array<(sms: ReceivedSms) => void> = [];
  const fake = { received: [] as ReceivedSms[], requests: 0, answerDelayMs: 0 };
  const server = createServer(async (request, response) => {
    const answer = (status: number, body: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(body));
    };
    const text = await readBody(request);
    if (request.method !== 'POST' || request.url !== `/2010-04-01/Accounts/${accountSid}/Messages.json`) return answer(404, twilioError(404, 20404, 'The requested resource was not found'));
    fake.requests += 1;
    const expected = `Basic ${Buffer.from(`${accountSid}:${authToken}`).toString('base64')}`;
    if (request.headers.authorization !== expected) return answer(401, twilioError(401, 20003, 'Authenticate'));
    if (!request.headers['content-type']?.startsWith('application/x-www-form-urlencoded')) return answer(400, twilioError(400, 20001, 'Bad content type'));
    const form = new URLSearchParams(text);
    const sms = { to: form.get('To') ?? '', from: form.get('From') ?? '', body: form.get('Body') ?? '' };
    if (!sms.to || !sms.from || !sms.body) return answer(400, twilioError(400, 21604, "A 'To', 'From' and 'Body' are required"));
    const scriptedAnswer = scripted.shift();
    if (scriptedAnswer) return answer(scriptedAnswer.status, twilioError(scriptedAnswer.status, scriptedAnswer.code, 'scripted failure'));
    if (fake.answerDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, fake.answerDelayMs));
    fake.received.push(sms);
    waiting.shift()?.(sms);
    return answer(201, { sid: `SM${randomBytes(16).toString('hex')}`, account_sid: accountSid, to: sms.to, from: sms.from, body: sms.body, status: 'queued' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return Object.assign(fake, {
    baseUrl,
    accountSid,
    authToken,
    failNext: (...answers: Array<{ status: number; code: number }>) => void scripted.push(...answers),
    nextMessage: () => new Promise<ReceivedSms>((resolve) => waiting.push(resolve)),
    env: () => ({ ERX_SMS_TWILIO_ACCOUNT_SID: accountSid, ERX_SMS_TWILIO_AUTH_TOKEN: authToken, ERX_SMS_FROM: '+61400000000', ERX_SMS_TWILIO_BASE_URL: baseUrl }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}

export interface ReceivedMail {
  from: string;
  to: string[];
  /** The raw message, quoted-printable soft breaks and escapes undone. */
  text: string;
}

export interface SmtpFake {
  url: string;
  received: ReceivedMail[];
  /** The next recipients are refused with these SMTP codes, in order. */
  refuseNext(...codes: number[]): void;
  nextMessage(): Promise<ReceivedMail>;
  env(): Record<string, string>;
  close(): Promise<void>;
}

function decodeQuotedPrintable(raw: string): string {
  return raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

export async function startSmtpServer(): Promise<SmtpFake> {
  const user = 'erx';
  const pass = randomBytes(8).toString('hex');
  const refusals: number[] = [];
  const waiting: Array<(mail: ReceivedMail) => void> = [];
  const received: ReceivedMail[] = [];
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === user && auth.password === pass) callback(null, { user });
      else callback(new Error('Invalid username or password'));
    },
    onRcptTo(_address, _session, callback) {
      const code = refusals.shift();
      if (code === undefined) return callback();
      return callback(Object.assign(new Error(code >= 500 ? 'Mailbox unavailable' : 'Try again later'), { responseCode: code }));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const mail = {
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
          text: decodeQuotedPrintable(Buffer.concat(chunks).toString('utf8')),
        };
        received.push(mail);
        waiting.shift()?.(mail);
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const url = `smtp://${user}:${pass}@127.0.0.1:${(server.server.address() as AddressInfo).port}`;
  return {
    url,
    received,
    refuseNext: (...codes: number[]) => void refusals.push(...codes),
    nextMessage: () => new Promise<ReceivedMail>((resolve) => waiting.push(resolve)),
    env: () => ({ ERX_SMTP_URL: url, ERX_SMTP_FROM: 'tokens@erx.example' }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
