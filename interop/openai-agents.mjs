// The OpenAI Agents SDK (Node 22) runs an agent with a local function tool against runstream's
// /v1/responses: the SDK sends the whole history each turn (no previous_response_id). Usage:
//   node openai-agents.mjs <baseUrl> <token>
// Prints one JSON document: the final output and the tool's invocations, non-streamed and streamed.
import { Agent, run, setDefaultOpenAIClient, setOpenAIAPI, setTracingDisabled, tool } from '@openai/agents';
import OpenAI from 'openai';
import { z } from 'zod';

const [baseUrl, token] = process.argv.slice(2);
setTracingDisabled(true);
setDefaultOpenAIClient(new OpenAI({ baseURL: `${baseUrl}/v1`, apiKey: token, maxRetries: 0 }));
setOpenAIAPI('responses');

const invocations = [];
const readFile = tool({
  name: 'read_file',
  description: 'Read a text file from the local disk',
  parameters: z.object({ path: z.string() }),
  execute: async ({ path }) => {
    invocations.push(path);
    return path === 'notes.txt' ? 'Buy milk.\nCall Alice at 3pm.' : `no file ${path}`;
  },
});
const agent = new Agent({
  name: 'Notes',
  instructions: 'Answer with the help of the local files.',
  model: 'novashop',
  tools: [readFile],
});

const report = {};
{
  const result = await run(agent, 'read notes.txt');
  report.nonStreamed = {
    finalOutput: result.finalOutput,
    invocations: [...invocations],
    items: result.newItems.map((item) => item.type),
  };
}
invocations.length = 0;
{
  const result = await run(agent, 'read notes.txt', { stream: true });
  let text = '';
  for await (const chunk of result.toTextStream()) text += chunk;
  await result.completed;
  report.streamed = {
    finalOutput: result.finalOutput,
    text,
    invocations: [...invocations],
    items: result.newItems.map((item) => item.type),
  };
}
invocations.length = 0;
{
  // A second turn with the whole history: the earlier calls are answered, the new message starts a
  // new run that sees them.
  const first = await run(agent, 'read notes.txt');
  const result = await run(agent, [...first.history, { role: 'user', content: 'now read README.md' }]);
  report.secondTurn = { finalOutput: result.finalOutput, invocations: [...invocations] };
}
invocations.length = 0;
{
  // Two local tools, as `runstream host` has them: the history carries every call and output.
  const localTime = tool({
    name: 'local_time',
    description: 'Get the local time of the host',
    parameters: z.object({}),
    execute: async () => {
      invocations.push('local_time');
      return '2025-05-01T10:00:00+08:00';
    },
  });
  const both = agent.clone({ tools: [readFile, localTime] });
  const result = await run(both, 'read notes.txt and tell me the local time');
  report.twoTools = {
    finalOutput: result.finalOutput,
    invocations: [...invocations],
    items: result.newItems.map((item) => item.type),
  };
}
invocations.length = 0;
{
  // Server-managed state: each call names the previous response, and sends only what is new.
  const first = await run(agent, 'read notes.txt', { previousResponseId: undefined });
  const second = await run(agent, 'now read README.md', { previousResponseId: first.lastResponseId });
  report.previousResponseId = {
    first: first.finalOutput,
    second: second.finalOutput,
    firstResponseId: first.lastResponseId,
    invocations: [...invocations],
  };
}
process.stdout.write(JSON.stringify(report));
