import { z } from 'zod';

/** Tool outputs and files can be large; the chat API's 64 KiB would be too small here. */
export const RESPONSES_MAX_BODY_BYTES = 1024 * 1024;

const TextPart = z.looseObject({
  type: z.enum(['input_text', 'output_text', 'text']),
  text: z.string(),
});

const MessageItem = z.looseObject({
  type: z.literal('message').optional(),
  role: z.enum(['user', 'assistant', 'system', 'developer']),
  content: z.union([z.string(), z.array(TextPart)]),
});

const FunctionCallOutputItem = z.looseObject({
  type: z.literal('function_call_output'),
  call_id: z.string().min(1).max(200),
  output: z.union([z.string(), z.array(TextPart), z.record(z.string(), z.unknown())]),
});

/** The owner's answer to an `mcp_approval_request` item of the plain shape (a confirmation). */
const McpApprovalResponseItem = z.looseObject({
  type: z.literal('mcp_approval_response'),
  approval_request_id: z.string().min(1).max(300),
  approve: z.boolean(),
  reason: z.string().max(2000).nullable().optional(),
});

/** A host call a client echoes back from an earlier output (stateless clients send their history). */
const FunctionCallItem = z.looseObject({
  type: z.literal('function_call'),
  call_id: z.string().min(1).max(200),
  name: z.string().max(200),
  arguments: z.string().max(1_000_000),
  id: z.string().max(300).nullable().optional(),
});

/** Items a client echoes back from an earlier response's output; the conversation already has them. */
const EchoedItem = z.looseObject({
  type: z.enum([
    'reasoning',
    'mcp_call',
    'mcp_approval_request',
    'mcp_list_tools',
    'runstream_tool_call',
    'runstream_confirmation',
    'runstream_error',
  ]),
});

export const InputItemSchema = z.union([
  FunctionCallOutputItem,
  McpApprovalResponseItem,
  FunctionCallItem,
  MessageItem,
  EchoedItem,
]);
export type InputItem = z.infer<typeof InputItemSchema>;

export const FunctionToolSchema = z.object({
  type: z.literal('function'),
  name: z
    .string()
    .regex(/^[a-zA-Z0-9_-]{1,64}$/, 'a tool name is 1-64 letters, digits, underscores or hyphens'),
  description: z.string().max(4000).optional(),
  parameters: z.record(z.string(), z.unknown()).optional(),
  strict: z.boolean().nullable().optional(),
});

export const CreateResponseSchema = z.looseObject({
  /** The agent to talk to, by id (`response-agent.ts`); absent, `null` or empty: the default. */
  model: z.string().max(200).nullable().optional(),
  input: z.union([z.string().trim().min(1).max(100_000), z.array(InputItemSchema).min(1).max(500)]),
  instructions: z.string().max(20_000).nullable().optional(),
  tools: z.array(FunctionToolSchema).max(64).optional(),
  stream: z.boolean().optional(),
  previous_response_id: z.string().min(1).max(200).nullable().optional(),
  metadata: z.record(z.string(), z.string().max(512)).optional(),
});
export type CreateResponseRequest = z.infer<typeof CreateResponseSchema>;

export const ToolResultSchema = z
  .object({
    call_id: z.string().min(1).max(200),
    output: z.union([z.string(), z.array(TextPart), z.record(z.string(), z.unknown())]).optional(),
    /** The host could not run the tool: the model is told so. */
    error: z.string().max(10_000).optional(),
  })
  .refine((result) => (result.output === undefined) !== (result.error === undefined), {
    message: 'each tool result needs exactly one of output or error',
  });

/** `[{call_id, output}]`, or `{tool_outputs: [...]}` as some clients send it; `stream` optional. */
export const SubmitToolResultsSchema = z.union([
  z.array(ToolResultSchema).min(1).max(64),
  z.object({
    tool_outputs: z.array(ToolResultSchema).min(1).max(64),
    stream: z.boolean().optional(),
  }),
]);

export const CancelResponseSchema = z.object({ reason: z.string().min(1).max(100).optional() });

/** A tool output as the text the model reads. */
export function outputText(output: string | { text: string }[] | Record<string, unknown>): string {
  if (typeof output === 'string') return output;
  if (Array.isArray(output)) return output.map((part) => part.text).join('');
  return JSON.stringify(output);
}

/** The text of a message item. */
export function messageText(content: string | { text: string }[]): string {
  return typeof content === 'string' ? content : content.map((part) => part.text).join('');
}
