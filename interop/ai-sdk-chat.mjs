// The AI SDK's own client side (`ai` 7 on Node 22) against runstream's `/v1/ai-sdk/chat`:
// `DefaultChatTransport` sends a chat's messages (or reconnects to its stream) and validates every
// chunk against the SDK's `uiMessageChunkSchema`; `readUIMessageStream` builds the UIMessage from
// them, as `useChat` does. Prints one JSON document: the HTTP status and headers, the chunks, the
// message as it ended (and whether `safeValidateUIMessages` accepts it), and any error.
//
//   node ai-sdk-chat.mjs '{"op":"send","baseUrl":"http://127.0.0.1:8787","token":"…","chatId":"c1","messages":[…]}'
//   node ai-sdk-chat.mjs '{"op":"resume","baseUrl":"…","token":"…","chatId":"c1"}'
//
// `send` may carry `message` (the assistant message a continuation goes on from, as `useChat` passes
// the last one) and `body` (fields the transport adds, e.g. `tools`).
//
//   node ai-sdk-chat.mjs '{"op":"read","streams":["data: {…}\n\n…"]}'
//
// `read` parses UI message streams made without a server (a test's run log) exactly as the transport
// parses a response's body, and prints `{"results": [...]}`, one result (no status) per stream.
import { DefaultChatTransport, readUIMessageStream, safeValidateUIMessages } from 'ai';

const request = JSON.parse(process.argv[2] ?? '{}');
let status = 0;
let headers = {};

const transport = new DefaultChatTransport({
  api: `${request.baseUrl}/v1/ai-sdk/chat`,
  headers: { authorization: `Bearer ${request.token}` },
  ...(request.body === undefined ? {} : { body: request.body }),
  fetch: async (input, init) => {
    const response = await fetch(input, init);
    status = response.status;
    headers = Object.fromEntries(response.headers.entries());
    return response;
  },
});

async function main() {
  if (request.op === 'read') {
    const results = [];
    for (const sse of request.streams)
      results.push(
        await collect(transport.processResponseStream(new Response(sse).body)).catch((error) => ({
          error: { name: error?.name, message: String(error?.message ?? error) },
        })),
      );
    return { results };
  }
  const stream =
    request.op === 'resume'
      ? await transport.reconnectToStream({ chatId: request.chatId })
      : await transport.sendMessages({
          chatId: request.chatId,
          messages: request.messages,
          trigger: 'submit-message',
          messageId: undefined,
          abortSignal: undefined,
        });
  if (stream === null) return { status, headers, chunks: [], message: null };
  return { status, headers, ...(await collect(stream)) };
}

/** The chunks of a parsed stream, the message `readUIMessageStream` builds, and whether it is valid. */
async function collect(stream) {
  const [forChunks, forMessage] = stream.tee();
  const chunks = [];
  const collecting = (async () => {
    for await (const chunk of forChunks) chunks.push(chunk);
  })();
  let message = null;
  for await (const snapshot of readUIMessageStream({
    stream: forMessage,
    ...(request.message === undefined ? {} : { message: request.message }),
    terminateOnError: true,
  }))
    message = snapshot;
  await collecting;
  // As an app validates the messages it stores and sends back: the message must be a valid UIMessage.
  const validation = message === null ? null : await safeValidateUIMessages({ messages: [message] });
  return {
    chunks,
    message,
    valid: validation === null ? null : validation.success ? true : String(validation.error?.message),
  };
}

main().then(
  (result) => process.stdout.write(`${JSON.stringify(result)}\n`),
  (error) =>
    process.stdout.write(
      `${JSON.stringify({ status, headers, error: { name: error?.name, message: String(error?.message ?? error), statusCode: error?.statusCode, responseBody: error?.responseBody } })}\n`,
    ),
);
