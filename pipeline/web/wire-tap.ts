import { subscribe } from 'node:diagnostics_channel';
import type { Socket } from 'node:net';
import type { Dispatcher } from 'undici';

/** What one request put on the wire and what came back, before any decoding. */
export interface WireCapture {
  /** Request line and header lines exactly as undici wrote them, blank line included; null until sent. */
  requestHead: string | null;
  /** The address the connection that carried the request went to (the pinned, checked one). */
  remoteAddress: string | null;
  status: number | null;
  statusText: string;
  /** Header name/value pairs in the order received, names as the server spelled them. */
  headers: [string, string][];
  /** Body bytes as received: content-encoding kept, chunked transfer coding already removed. */
  readonly body: Buffer[];
  bodyBytes: number;
  /** Bytes past the cap arrived and were not kept. */
  overflow: boolean;
  /** The response ended normally (undici's onComplete). */
  complete: boolean;
}

export function newCapture(): WireCapture {
  return {
    requestHead: null,
    remoteAddress: null,
    status: null,
    statusText: '',
    headers: [],
    body: [],
    bodyBytes: 0,
    overflow: false,
    complete: false,
  };
}

type Handler = Dispatcher.DispatchHandler;
type Abort = (reason?: Error) => void;

/**
 * undici writes the request head and knows the socket only inside its client; it publishes both on
 * this diagnostics channel, with the core request whose `abort` is the very function handed to our
 * handler's onConnect just before. That identity ties the message to its capture without guessing.
 */
const sentBy = new WeakMap<Abort, WireCapture>();
subscribe('undici:client:sendHeaders', (message) => {
  const { request, headers, socket } = message as {
    request: { abort: Abort };
    headers: string;
    socket: Socket;
  };
  const capture = sentBy.get(request.abort);
  if (!capture) return;
  capture.requestHead = `${headers}\r\n`;
  capture.remoteAddress = socket.remoteAddress ?? null;
});

/** Wraps undici's handler of one request so that everything it receives is also kept in `capture`. */
function tapHandler(handler: Handler, capture: WireCapture, maxBytes: number): Handler {
  return {
    onConnect(abort) {
      sentBy.set(abort, capture);
      return handler.onConnect?.(abort);
    },
    onResponseStarted() {
      return handler.onResponseStarted?.();
    },
    onHeaders(status, rawHeaders, resume, statusText) {
      capture.status = status;
      capture.statusText = statusText;
      capture.headers = [];
      for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
        capture.headers.push([rawHeaders[i].toString('latin1'), rawHeaders[i + 1].toString('latin1')]);
      }
      return handler.onHeaders?.(status, rawHeaders, resume, statusText) ?? true;
    },
    onData(chunk) {
      // the chunk is the same buffer the body stream hands on: kept by reference, not copied
      if (capture.bodyBytes + chunk.length <= maxBytes) {
        capture.body.push(chunk);
        capture.bodyBytes += chunk.length;
      } else if (!capture.overflow) {
        capture.overflow = true;
        const room = maxBytes - capture.bodyBytes;
        capture.body.push(chunk.subarray(0, room));
        capture.bodyBytes += room;
      }
      return handler.onData?.(chunk) ?? true;
    },
    onComplete(trailers) {
      capture.complete = true;
      return handler.onComplete?.(trailers);
    },
    onError(error) {
      return handler.onError?.(error);
    },
    onUpgrade(status, headers, socket) {
      return handler.onUpgrade?.(status, headers, socket);
    },
    onBodySent(size, total) {
      return handler.onBodySent?.(size, total);
    },
  };
}

/**
 * `inner` for one request, seen through a tap: body bytes beyond `maxBytes` are not kept. The
 * handler is wrapped in undici's own (older) handler shape so that undici passes it through as is:
 * its onConnect then receives the core request's abort function (see sentBy).
 */
export function tappedDispatcher(inner: Dispatcher, capture: WireCapture, maxBytes: number): Dispatcher {
  const dispatch = (options: Dispatcher.DispatchOptions, handler: Handler) =>
    inner.dispatch(options, tapHandler(handler, capture, maxBytes));
  return new Proxy(inner, {
    get: (target, key) => (key === 'dispatch' ? dispatch : Reflect.get(target, key)),
  });
}
