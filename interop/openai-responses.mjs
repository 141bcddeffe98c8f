// The official `openai` 7 package (Node 22) against runstream's /v1/responses, in the plain shape
// (no extension header) and, for one response, the extension shape. Usage:
//   node openai-responses.mjs <baseUrl> <token>
// Prints one JSON document: what each step saw.
import OpenAI from 'openai';

const [baseUrl, token] = process.argv.slice(2);
const client = new OpenAI({ baseURL: `${baseUrl}/v1`, apiKey: token, maxRetries: 0 });
const READ_FILE = {
  type: 'function',
  name: 'read_file',
  description: 'Read a text file from the local disk',
  parameters: {
    type: 'object',
    properties: { path: { type: 'string' } },
    required: ['path'],
    additionalProperties: false,
  },
  strict: false,
};
const NOTES = 'Buy milk.\nCall Alice at 3pm.';
const report = {};

// 0. responses.stream(), a plain answer (no function tools).
{
  const stream = client.responses.stream({ model: 'novashop', input: '你好' });
  let text = '';
  stream.on('response.output_text.delta', (event) => {
    text += event.delta;
  });
  const final = await stream.finalResponse();
  report.textOnly = { status: final.status, output_text: final.output_text, deltas: text };
}

// 1. responses.stream(), a function tool round trip answered with previous_response_id.
{
  const first = client.responses.stream({ model: 'novashop', input: 'read notes.txt', tools: [READ_FILE] });
  const types = [];
  first.on('event', (event) => types.push(event.type));
  const waiting = await first.finalResponse();
  const call = waiting.output.find((item) => item.type === 'function_call');
  const second = client.responses.stream({
    model: 'novashop',
    previous_response_id: waiting.id,
    input: [{ type: 'function_call_output', call_id: call.call_id, output: NOTES }],
    tools: [READ_FILE],
  });
  let text = '';
  second.on('response.output_text.delta', (event) => {
    text += event.delta;
  });
  const answered = await second.finalResponse();
  report.streamHelper = {
    firstTypes: [...new Set(types)],
    waiting: { id: waiting.id, status: waiting.status, output: waiting.output.map((item) => item.type) },
    call: { name: call.name, arguments: call.arguments },
    answered: {
      id: answered.id,
      status: answered.status,
      previous_response_id: answered.previous_response_id,
      output: answered.output.map((item) => item.type),
      output_text: answered.output_text,
    },
    deltas: text,
  };
}

// 2. responses.create({ stream: true }), the call answered statelessly with the whole history.
{
  const events = [];
  for await (const event of await client.responses.create({
    model: 'novashop',
    input: 'read notes.txt',
    tools: [READ_FILE],
    stream: true,
  }))
    events.push(event);
  const waiting = events.at(-1).response;
  const call = waiting.output.find((item) => item.type === 'function_call');
  const more = [];
  for await (const event of await client.responses.create({
    model: 'novashop',
    input: [
      { role: 'user', content: 'read notes.txt' },
      ...waiting.output,
      { type: 'function_call_output', call_id: call.call_id, output: NOTES },
    ],
    tools: [READ_FILE],
    store: false,
    stream: true,
  }))
    more.push(event);
  const retrieved = await client.responses.retrieve(more.at(-1).response.id);
  report.createStream = {
    firstTypes: events.map((event) => event.type),
    firstSequence: events.map((event) => event.sequence_number),
    secondTypes: more.map((event) => event.type),
    answered: {
      status: retrieved.status,
      output_text: retrieved.output_text,
      previous: retrieved.previous_response_id,
    },
    waitingId: waiting.id,
  };
}

// 3. A server tool and a confirmation of the offline NovaShop model, approved with mcp_approval_response.
{
  const waiting = await client.responses
    .stream({ model: 'novashop', input: '我买的那块表还没发货的话，帮我取消吧，不想要了。' })
    .finalResponse();
  const request = waiting.output.find((item) => item.type === 'mcp_approval_request');
  const approved = await client.responses
    .stream({
      model: 'novashop',
      previous_response_id: waiting.id,
      input: [{ type: 'mcp_approval_response', approval_request_id: request.id, approve: true }],
    })
    .finalResponse();
  report.confirmation = {
    waiting: waiting.output.map((item) =>
      item.type === 'mcp_call' || item.type === 'mcp_approval_request'
        ? { type: item.type, name: item.name, server_label: item.server_label }
        : { type: item.type },
    ),
    approved: approved.output.map((item) =>
      item.type === 'mcp_call'
        ? { type: item.type, name: item.name, status: item.status, error: item.error }
        : { type: item.type },
    ),
    approvedText: approved.output_text,
  };
}

// 4. The extension shape, asked for with its header: runstream's own events.
{
  const extended = new OpenAI({
    baseURL: `${baseUrl}/v1`,
    apiKey: token,
    maxRetries: 0,
    defaultHeaders: { 'x-runstream-extensions': '1' },
  });
  const types = [];
  for await (const event of await extended.responses.create({
    model: 'novashop',
    input: 'read notes.txt',
    tools: [READ_FILE],
    stream: true,
  }))
    types.push(event.type);
  report.extension = { lastType: types.at(-1) };
}

process.stdout.write(JSON.stringify(report));
